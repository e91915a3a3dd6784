//! `command.invoke` runs a `[[keys.command]]` entry by the id `herdr config commands` lists, at
//! the pane, tab or workspace it names (focusing it first); ids the config in force no longer
//! has, and targets that do not nest, are refused with upstream's codes. And
//! `client_shell.surface.set` on the API socket is `connection_local_only`, as upstream answers
//! it outside a client-shell endpoint. Every answer is validated against the schema by the
//! harness.

use std::path::{Path, PathBuf};

use herdr_e2e::panes::{NewWorkspace, run, split, wait_output};
use herdr_e2e::{PATIENCE, TestServer, recorder, wait_until};
use serde_json::{Value, json};

fn config_file(server: &TestServer) -> PathBuf {
    let dir = server.data_dir();
    std::fs::create_dir_all(&dir).expect("config dir");
    dir.join("config.toml")
}

/// One shell command that appends `<tag> $HERDR_PANE_ID` to `out` (the pane focused when it
/// runs), and a pane command.
fn write_config(path: &Path, out: &Path, tag: &str) {
    let shell = format!("printf '%s %s\\n' {tag} \"$HERDR_PANE_ID\" >> {}", out.display());
    let text = format!(
        "[[keys.command]]\nkey = \"prefix+y\"\ntype = \"shell\"\ncommand = {shell:?}\n\n\
         [[keys.command]]\nkey = \"prefix+u\"\ntype = \"pane\"\ncommand = \"echo from-a-command; exec cat\"\n"
    );
    std::fs::write(path, text).expect("write config.toml");
}

/// A server whose config has [`write_config`]'s two commands (tagged `first`): the server, its
/// `config.toml` and the file the shell command appends to.
fn server_with_commands() -> (TestServer, PathBuf, PathBuf) {
    let mut server = TestServer::prepare();
    let out = server.work_dir("out").join("ran.txt");
    let config = config_file(&server);
    write_config(&config, &out, "first");
    server.start_server();
    (server, config, out)
}

/// `herdr config commands --json`: the ids, in config order.
fn command_ids(server: &TestServer) -> Vec<String> {
    let listed = server.cli(&["config", "commands", "--json"]);
    let list: Value = serde_json::from_str(listed.text()).expect("config commands --json");
    let ids = list.as_array().expect("an array").iter();
    ids.map(|c| c["command_id"].as_str().expect("command_id").to_owned()).collect()
}

fn error_code(answer: &Value) -> String {
    answer["error"]["code"].as_str().unwrap_or_else(|| panic!("expected an error, got {answer}")).to_owned()
}

/// A new workspace that takes the focus: its workspace, tab and pane ids.
fn focused_workspace(server: &TestServer) -> NewWorkspace {
    let created = server.call("workspace.create", json!({"label": "e2e", "focus": true}));
    let text = |v: &Value| v.as_str().expect("an id").to_owned();
    NewWorkspace {
        workspace_id: text(&created["workspace"]["workspace_id"]),
        tab_id: text(&created["tab"]["tab_id"]),
        pane_id: text(&created["root_pane"]["pane_id"]),
    }
}

fn focused_pane(server: &TestServer) -> String {
    let snapshot = server.call("session.snapshot", json!({}));
    snapshot["snapshot"]["focused_pane_id"].as_str().expect("a focused pane").to_owned()
}

#[test]
fn a_command_runs_at_the_pane_it_names_by_the_id_config_commands_lists() {
    let (server, _, out) = server_with_commands();
    let one = focused_workspace(&server);
    let beside = split(&server, &one.pane_id, "right");
    let other = focused_workspace(&server);
    assert_eq!(focused_pane(&server), other.pane_id, "the new workspace has the focus");

    let ids = command_ids(&server);
    assert_eq!(ids.len(), 2, "{ids:?}");

    // The shell command, aimed at a pane of the other workspace: that pane is focused and the
    // command runs with its environment.
    let ran = server.call("command.invoke", json!({"command_id": ids[0], "pane_id": beside}));
    assert_eq!(ran["type"], "ok", "{ran}");
    assert_eq!(focused_pane(&server), beside);
    wait_until("the shell command to run", PATIENCE, || {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if text == format!("first {beside}\n") { Ok(()) } else { Err(format!("{text:?}")) }
    });

    // The pane command at a workspace: a new pane running it, split off that workspace's focus.
    let before = server.call("pane.list", json!({}))["panes"].as_array().expect("panes").len();
    let opened =
        server.call("command.invoke", json!({"command_id": ids[1], "workspace_id": other.workspace_id}));
    assert_eq!(opened["type"], "ok", "{opened}");
    let panes = server.call("pane.list", json!({"workspace_id": other.workspace_id}));
    let panes = panes["panes"].as_array().expect("panes").clone();
    assert_eq!(panes.len(), 2, "{panes:?}");
    let all = server.call("pane.list", json!({}))["panes"].as_array().expect("panes").len();
    assert_eq!(all, before + 1);
    let new_pane = focused_pane(&server);
    assert_ne!(new_pane, other.pane_id, "the command's pane has the focus");
    server.call(
        "pane.wait_for_output",
        json!({"pane_id": new_pane, "source": "recent",
               "match": {"type": "substring", "value": "from-a-command"}, "timeout_ms": 10_000}),
    );

    // A tab target focuses that tab.
    server.call("command.invoke", json!({"command_id": ids[0], "tab_id": one.tab_id}));
    assert_eq!(
        server.call("session.snapshot", json!({}))["snapshot"]["focused_tab_id"],
        json!(one.tab_id),
        "the tab target is focused"
    );
}

#[test]
fn stale_ids_and_targets_that_do_not_nest_are_refused() {
    let (server, config, out) = server_with_commands();
    let one = focused_workspace(&server);
    let other = focused_workspace(&server);
    let old = command_ids(&server);

    let unknown = server.request("command.invoke", json!({"command_id": "cmd_0000000000000000_0"}));
    assert_eq!(error_code(&unknown), "command_not_found", "{unknown}");

    // The pane of one workspace with the id of another; a tab that is not the pane's.
    let wrong_workspace = server.request(
        "command.invoke",
        json!({"command_id": old[0], "pane_id": one.pane_id, "workspace_id": other.workspace_id}),
    );
    assert_eq!(error_code(&wrong_workspace), "command_target_mismatch", "{wrong_workspace}");
    let wrong_tab = server.request(
        "command.invoke",
        json!({"command_id": old[0], "pane_id": one.pane_id, "tab_id": other.tab_id}),
    );
    assert_eq!(error_code(&wrong_tab), "command_target_mismatch", "{wrong_tab}");
    let no_pane = server.request("command.invoke", json!({"command_id": old[0], "pane_id": "w9:p9"}));
    assert_eq!(error_code(&no_pane), "pane_not_found", "{no_pane}");
    assert_eq!(std::fs::read_to_string(&out).unwrap_or_default(), "", "nothing refused ran");

    // The file edited: until the server reloads it, the new id is unknown and the old one runs
    // the command the server has; after the reload it is the other way round.
    write_config(&config, &out, "second");
    let new = command_ids(&server);
    assert_ne!(new[0], old[0], "an edited entry gets a new id");
    assert_eq!(new[1], old[1], "an untouched entry keeps its id");
    let early = server.request("command.invoke", json!({"command_id": new[0]}));
    assert_eq!(error_code(&early), "command_not_found", "{early}");
    server.call("command.invoke", json!({"command_id": old[0], "pane_id": one.pane_id}));
    wait_until("the old command to run", PATIENCE, || {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if text == format!("first {}\n", one.pane_id) { Ok(()) } else { Err(format!("{text:?}")) }
    });
    let reloaded = server.call("server.reload_config", json!({}));
    assert_eq!(reloaded["status"], "applied", "{reloaded}");
    let stale = server.request("command.invoke", json!({"command_id": old[0]}));
    assert_eq!(error_code(&stale), "command_not_found", "{stale}");
    assert_eq!(stale["error"]["message"], "custom command manifest is stale; reload configuration");
    server.call("command.invoke", json!({"command_id": new[0], "pane_id": other.pane_id}));
    wait_until("both commands to run", PATIENCE, || {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let want = format!("first {}\nsecond {}\n", one.pane_id, other.pane_id);
        if text == want { Ok(()) } else { Err(format!("{text:?}")) }
    });
}

#[test]
fn the_surface_lease_belongs_to_client_shell_endpoints() {
    let server = TestServer::start();
    for active in [true, false] {
        let answer = server.request("client_shell.surface.set", json!({"active": active}));
        assert_eq!(error_code(&answer), "connection_local_only", "{answer}");
    }
}

/// A `plugin_action` command invoked with a selection of its pane: the recorder plugin's action
/// gets the selected text in its context; a selection of another pane is refused.
#[test]
fn a_plugin_action_command_gets_the_selected_text() {
    let mut server = TestServer::prepare();
    let config = config_file(&server);
    let keys = "[[keys.command]]\nkey = \"prefix+y\"\ntype = \"plugin_action\"\n\
                command = \"e2e.recorder.record-context\"\n";
    std::fs::write(&config, keys).expect("write config.toml");
    server.start_server();
    server.call("plugin.link", json!({"path": recorder::dir().display().to_string()}));
    let one = focused_workspace(&server);
    let other = focused_workspace(&server);
    // `\101` is `A`: the echoed command line has no `ALPHA-7` in it.
    run(&server, &one.pane_id, r"printf '\101LPHA-7 words\n'; cat");
    wait_output(&server, &one.pane_id, "ALPHA-7 words", PATIENCE);
    let ids = command_ids(&server);

    let mut found = Value::Null;
    wait_until("a search at the pane's current revision", PATIENCE, || {
        let revision = server.call("pane.read", json!({"pane_id": one.pane_id, "source": "recent"}))["read"]
            ["revision"]
            .clone();
        let answer = server.request(
            "pane.copy_search",
            json!({"pane_id": one.pane_id, "query": "ALPHA-7", "direction": "forward",
                   "cursor": {"row": 0, "col": 0}, "content_revision": revision}),
        );
        found = answer.get("result").cloned().ok_or_else(|| answer.to_string())?;
        Ok(())
    });
    let hit = &found["matches"][0];
    let selection = json!({"pane_id": one.pane_id, "anchor": hit["start"], "cursor": hit["end"]});

    let elsewhere = server.request(
        "command.invoke",
        json!({"command_id": ids[0], "pane_id": other.pane_id, "selection": selection}),
    );
    assert_eq!(error_code(&elsewhere), "command_target_mismatch", "{elsewhere}");

    let ran = server.call(
        "command.invoke",
        json!({"command_id": ids[0], "pane_id": one.pane_id, "selection": selection}),
    );
    assert_eq!(ran["type"], "ok", "{ran}");
    let context = recorder::recorded_context(&server, "the action to record its context").context;
    assert_eq!(context["selected_text"], "ALPHA-7", "{context}");
    assert_eq!(context["focused_pane_id"], json!(one.pane_id), "{context}");
}
