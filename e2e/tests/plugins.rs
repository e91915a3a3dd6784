//! Plugins end to end: the example plugins in `tests/plugins/` are linked through the API, their
//! `[[events]]` hooks run on the hub's events, an action runs with its invocation context, a
//! hook that never ends is killed at the time limit (shortened for the test through
//! `HERDR_PLUGIN_COMMAND_TIMEOUT_MS`) while the server keeps answering, and disabled or unlinked
//! plugins run nothing.

use std::path::PathBuf;

use herdr_e2e::panes::{create_workspace, run, wait_output};
use herdr_e2e::recorder::{RECORDER, state_file};
use herdr_e2e::{PATIENCE, TestServer, recorder, wait_until};
use serde_json::{Value, json};

const WITNESS: &str = "e2e.witness";

fn plugin_dir(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins").join(name).display().to_string()
}

/// A server with a short command time limit and both example plugins linked.
fn server_with_plugins() -> TestServer {
    let mut server = TestServer::prepare();
    server.set_env("HERDR_PLUGIN_COMMAND_TIMEOUT_MS", "1500");
    server.start_server();
    for name in ["recorder", "witness"] {
        let linked = server.call("plugin.link", json!({"path": plugin_dir(name)}));
        assert_eq!(linked["type"], "plugin_linked", "{linked}");
        assert_eq!(linked["plugin"]["enabled"], true, "{linked}");
    }
    server
}

fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn logs(server: &TestServer, plugin: &str) -> Vec<Value> {
    let listed = server.call("plugin.log.list", json!({"plugin_id": plugin}));
    assert_eq!(listed["type"], "plugin_log_list", "{listed}");
    listed["logs"].as_array().expect("logs").clone()
}

fn report(server: &TestServer, pane: &str, state: &str) {
    server.call(
        "pane.report_agent",
        json!({"pane_id": pane, "source": "e2e-hook", "agent": "claude", "state": state}),
    );
}

/// The recorded `pane.agent_status_changed` lines whose status is `status`.
fn recorded(events: &PathBuf, status: &str) -> usize {
    read(events)
        .lines()
        .filter_map(|line| line.strip_prefix("pane.agent_status_changed "))
        .filter_map(|json| serde_json::from_str::<Value>(json).ok())
        .filter(|event| event["data"]["agent_status"] == status)
        .count()
}

/// Waits until the witness's hook has finished `runs` times: by then every earlier
/// `pane.agent_status_changed` went through the hook dispatcher.
fn witness_ran(server: &TestServer, runs: usize) {
    wait_until("the witness hook to run", PATIENCE, || {
        let done = logs(server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
        if done >= runs { Ok(()) } else { Err(format!("{done} witness runs")) }
    });
}

#[test]
fn hooks_fire_on_hub_events_and_actions_get_their_context() {
    let server = server_with_plugins();
    let pane = create_workspace(&server).pane_id;
    let events = state_file(&server, "events.log");

    report(&server, &pane, "blocked");
    let line = wait_until("the hook to record the blocked turn", PATIENCE, || {
        let text = read(&events);
        let line =
            text.lines().find(|l| l.starts_with("pane.agent_status_changed ") && l.contains("blocked"));
        line.map(str::to_owned).ok_or(text)
    });
    let event: Value =
        serde_json::from_str(line.trim_start_matches("pane.agent_status_changed ")).expect("event json");
    assert_eq!(event["event"], "pane_agent_status_changed", "the wire kind: {event}");
    assert_eq!(event["data"]["pane_id"], pane.as_str(), "{event}");
    assert_eq!(event["data"]["agent_status"], "blocked", "{event}");

    let context =
        json!({"invocation_source": "e2e", "focused_pane_id": pane, "focused_pane_agent": "claude"});
    let invoked = server.call(
        "plugin.action.invoke",
        json!({"action_id": format!("{RECORDER}.record-context"), "context": context}),
    );
    assert_eq!(invoked["type"], "plugin_action_invoked", "{invoked}");
    assert_eq!(invoked["action"]["action_id"], "record-context", "{invoked}");
    assert_eq!(invoked["context"]["focused_pane_id"], pane.as_str(), "{invoked}");
    let log_id = invoked["log"]["log_id"].as_str().expect("a log id").to_owned();
    let run = recorder::recorded_context(&server, "the action to write its context");
    assert_eq!((run.action_id.as_str(), run.pane_id.as_str()), ("record-context", pane.as_str()));
    let written = run.context;
    assert_eq!(written["invocation_source"], "e2e");
    assert_eq!(written["focused_pane_agent"], "claude");
    wait_until("the action's log entry to finish", PATIENCE, || {
        let all = logs(&server, RECORDER);
        let entry = all.iter().find(|l| l["log_id"] == log_id.as_str()).cloned().unwrap_or_default();
        if entry["status"] == "succeeded" { Ok(entry) } else { Err(entry.to_string()) }
    });
    let entry = logs(&server, RECORDER).into_iter().find(|l| l["log_id"] == log_id.as_str()).expect("entry");
    assert_eq!(entry["stdout"], "recorded\n", "{entry}");
    assert_eq!(entry["exit_code"], 0, "{entry}");

    // The same action by local id and plugin id; an unknown one is refused.
    let by_local = json!({"action_id": "record-context", "plugin_id": RECORDER});
    assert_eq!(server.call("plugin.action.invoke", by_local)["type"], "plugin_action_invoked");
    let (code, _) = server.call_error("plugin.action.invoke", json!({"action_id": "e2e.recorder.nope"}));
    assert_eq!(code, "plugin_action_not_found");

    // Disabled: the action is refused and the hook stays quiet (the witness proves the event
    // went past the dispatcher).
    let witnessed = logs(&server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
    assert_eq!(server.call("plugin.disable", json!({"plugin_id": RECORDER}))["type"], "plugin_disabled");
    let (code, _) =
        server.call_error("plugin.action.invoke", json!({"action_id": format!("{RECORDER}.record-context")}));
    assert_eq!(code, "plugin_disabled");
    report(&server, &pane, "working");
    witness_ran(&server, witnessed + 1);
    assert_eq!(recorded(&events, "working"), 0, "a disabled plugin's hook ran: {}", read(&events));

    // Enabled again it fires again; unlinked it is gone.
    assert_eq!(server.call("plugin.enable", json!({"plugin_id": RECORDER}))["type"], "plugin_enabled");
    let before = read(&events).lines().count();
    // Idle after working on a background pane reads as `done`.
    report(&server, &pane, "idle");
    wait_until("the re-enabled hook to record the turn's end", PATIENCE, || {
        if read(&events).lines().count() > before { Ok(()) } else { Err(read(&events)) }
    });
    let unlinked = server.call("plugin.unlink", json!({"plugin_id": RECORDER}));
    assert_eq!(unlinked["removed"], true, "{unlinked}");
    let (code, _) = server
        .call_error("plugin.action.invoke", json!({"action_id": "record-context", "plugin_id": RECORDER}));
    assert_eq!(code, "plugin_not_found");
    let witnessed = logs(&server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
    report(&server, &pane, "blocked");
    witness_ran(&server, witnessed + 1);
    assert_eq!(recorded(&events, "blocked"), 1, "an unlinked plugin's hook ran: {}", read(&events));
}

#[test]
fn a_hook_that_never_ends_is_killed_at_its_limit_while_the_server_answers() {
    let server = server_with_plugins();
    create_workspace(&server);
    let tab = server.call("tab.create", json!({"label": "hang"}));
    assert_eq!(tab["type"], "tab_created", "{tab}");
    let running = wait_until("the hanging hook to start", PATIENCE, || {
        let all = logs(&server, RECORDER);
        all.iter().find(|l| l["event"] == "tab.created").cloned().ok_or(format!("{all:?}"))
    });
    assert_eq!(running["command"], json!(["sh", "hang.sh"]), "{running}");
    // The hook's run does not hold up the API.
    assert_eq!(server.call("ping", json!({}))["type"], "pong");
    let killed = wait_until("the hanging hook to be killed", PATIENCE, || {
        let all = logs(&server, RECORDER);
        let entry = all.iter().find(|l| l["event"] == "tab.created").cloned().unwrap_or_default();
        if entry["status"] == "failed" { Ok(entry) } else { Err(entry.to_string()) }
    });
    assert!(killed["error"].as_str().is_some_and(|e| e.contains("killed")), "{killed}");
    assert_eq!(killed["stdout"], "hanging\n", "{killed}");
    assert!(killed["finished_unix_ms"].as_u64() >= killed["started_unix_ms"].as_u64(), "{killed}");
    // Its whole process group went: no `sleep` is left under the server.
    wait_until("the hook's processes to be gone", PATIENCE, || {
        let left: Vec<_> = server.process_tree().into_iter().filter(|p| p.comm == "sleep").collect();
        if left.is_empty() { Ok(()) } else { Err(format!("{left:?}")) }
    });
    server.assert_alive();
}

/// `pane.link.activate` on a URL a plugin's `[[link_handlers]]` pattern matches runs the
/// handler's action (not the desktop's opener) with the link in its context.
#[test]
fn a_link_handler_takes_the_urls_its_pattern_matches() {
    let server = server_with_plugins();
    let pane = create_workspace(&server).pane_id;
    // `\067` is `7`: the echoed command line does not hold the whole URL.
    run(&server, &pane, r"printf 'see https://herdr.test/issue/\067 now\n'");
    wait_output(&server, &pane, "https://herdr.test/issue/7", PATIENCE);
    let visible = server.call("pane.read", json!({"pane_id": pane, "source": "visible"}));
    let text = visible["read"]["text"].as_str().expect("text").to_owned();
    let (row, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("https://herdr.test/issue/7"))
        .expect("the URL on screen");
    let col = line[..line.find("https://").expect("url")].chars().count() + 4;

    let activated =
        server.call("pane.link.activate", json!({"pane_id": pane, "viewport_row": row, "col": col}));
    assert_eq!(activated["type"], "pane_link_activated", "{activated}");
    assert_eq!(activated["handled"], true, "{activated}");
    assert_eq!(activated["url"], "https://herdr.test/issue/7", "{activated}");
    let context = recorder::recorded_context(&server, "the handler's action to record its context").context;
    assert_eq!(context["invocation_source"], "link_click", "{context}");
    assert_eq!(context["clicked_url"], "https://herdr.test/issue/7", "{context}");
    assert_eq!(context["link_handler_id"], "test-issue", "{context}");
    assert_eq!(context["focused_pane_id"], pane.as_str(), "{context}");
    let entry = logs(&server, RECORDER).into_iter().last().expect("a log entry");
    assert_eq!(entry["action_id"], "record-context", "{entry}");
}

/// The recorder's `pane.agent_status_changed` hook for a fake agent that turns blocked by
/// itself: a fake claude (a real program on a real PTY) draws its permission dialog, herdr
/// detects the screen as blocked, and the hook writes the event it was given.
#[test]
fn the_hook_records_a_fake_agent_turning_blocked() {
    let server = server_with_plugins();
    let workspace = herdr_e2e::agents::create_agent_workspace(&server, &[("FAKE_AGENT_WORK_MS", "300")]);
    let pane = workspace.ids.pane_id.clone();
    let started = herdr_e2e::agents::start_agent(&server, "reviewer", "claude", &pane).result();
    assert_eq!(started["type"], "agent_started", "{started}");
    let prompted =
        server.cli(&["agent", "prompt", "reviewer", "needs-permission: clean the build directory"]);
    assert_eq!(prompted.result()["type"], "agent_prompted", "{prompted:?}");

    let events = state_file(&server, "events.log");
    let line = wait_until("the hook to record the fake agent blocked", PATIENCE, || {
        let text = read(&events);
        let line = text.lines().find(|l| {
            l.strip_prefix("pane.agent_status_changed ")
                .and_then(|json| serde_json::from_str::<Value>(json).ok())
                .is_some_and(|e| {
                    e["data"]["agent_status"] == "blocked" && e["data"]["pane_id"] == pane.as_str()
                })
        });
        line.map(str::to_owned).ok_or(text)
    });
    let event: Value =
        serde_json::from_str(line.trim_start_matches("pane.agent_status_changed ")).expect("event json");
    assert_eq!(event["data"]["agent"], "claude", "{event}");
    assert_eq!(herdr_e2e::agents::status(&server, "reviewer"), "blocked");
}
