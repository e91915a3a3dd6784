//! The local CLI surface and the small client methods, through the real `herdr` binary and
//! server: completion scripts that bash, zsh and fish accept and that offer every subcommand,
//! `config check` on good and broken files, `config reset-keys`, `--default-config` round-tripping
//! through `config check`, the herdr 0.7 `agent start NAME -- AGENT` and `agent send` forms, and
//! `pane.input.set`, `pane.graphics.*`, `product_announcement.dismiss`, `release_notes.dismiss`
//! (every answer schema-checked by the harness).

use std::fs;
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use herdr_e2e::agents::{self, create_agent_workspace, fake_agent_env};
use herdr_e2e::panes;
use herdr_e2e::server::TestServer;
use serde_json::{Value, json};

fn config_file(server: &TestServer) -> PathBuf {
    let dir = server.data_dir();
    fs::create_dir_all(&dir).expect("config dir");
    dir.join("config.toml")
}

/// Runs a shell from the test's environment; the shells come from scripts/install-test-deps.sh.
fn shell(server: &TestServer, program: &str, args: &[&str]) -> Output {
    server
        .command(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} (scripts/install-test-deps.sh installs it): {e}"))
}

/// The visible subcommands `herdr --help` lists.
fn root_subcommands(server: &TestServer) -> Vec<String> {
    let help = server.cli(&["--help"]).text().to_owned();
    let commands = help.split("Commands:").nth(1).expect("a Commands section");
    let commands = commands.split("\n\n").next().unwrap_or_default();
    commands.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect()
}

#[test]
fn completion_scripts_offer_every_subcommand_and_load_in_their_shells() {
    let server = TestServer::prepare();
    let subcommands = root_subcommands(&server);
    assert!(subcommands.iter().any(|s| s == "config") && subcommands.iter().any(|s| s == "completion"));
    let dir = server.root().to_path_buf();
    for shell_name in ["bash", "zsh", "fish"] {
        let script = server.cli(&["completion", shell_name]).text().to_owned();
        for sub in &subcommands {
            assert!(script.contains(&format!(" {sub}")), "{shell_name} script lacks {sub}");
        }
        let path = dir.join(format!("herdr.{shell_name}"));
        fs::write(&path, &script).expect("write script");
        let checked = shell(&server, shell_name, &["-n", &path.display().to_string()]);
        assert!(checked.status.success(), "{shell_name} -n: {}", String::from_utf8_lossy(&checked.stderr));
    }
    let bash = shell(&server, "bash", &["-c", "source <(herdr completion bash) && complete -p herdr"]);
    assert_eq!(String::from_utf8_lossy(&bash.stdout).trim(), "complete -F _herdr herdr", "{bash:?}");
    let offered = shell(
        &server,
        "bash",
        &[
            "-c",
            "source <(herdr completion bash); COMP_WORDS=(herdr pane split --direction ''); COMP_CWORD=4; \
                 _herdr; echo \"${COMPREPLY[@]}\"",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&offered.stdout).trim(), "right down");
    let fish = shell(&server, "fish", &["-c", "herdr completion fish | source; complete -C 'herdr con'"]);
    assert_eq!(String::from_utf8_lossy(&fish.stdout).trim(), "config", "{fish:?}");
    let zsh = shell(
        &server,
        "zsh",
        &[
            "-c",
            "autoload -U compinit && compinit -u && source <(herdr completion zsh) && echo ${_comps[herdr]}",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&zsh.stdout).trim(), "_herdr", "{zsh:?}");
}

#[test]
fn config_check_accepts_the_default_config_and_positions_each_problem() {
    let server = TestServer::prepare();
    let path = config_file(&server);
    let shown = path.display().to_string();
    let missing = server.cli(&["config", "check"]);
    assert!(missing.text().contains("no config file"), "{missing:?}");

    let default = server.cli(&["--default-config"]).text().to_owned();
    assert!(default.contains("[keys]") && default.contains("kitty_graphics = false"), "{default}");
    fs::write(&path, &default).expect("write default");
    assert_eq!(server.cli(&["config", "check"]).text(), format!("{shown}: ok\n"));

    fs::write(&path, "[ui]\nsidebar_width = 26\n  mouse_capture = \"yes\"\n[keys]\nnew_tab = 3\n")
        .expect("write");
    let bad = server.cli(&["config", "check"]);
    assert_eq!(bad.status.code(), Some(1), "{bad:?}");
    assert!(bad.stderr.contains(&format!("{shown}:3:3: ui.mouse_capture: ")), "{bad:?}");
    assert!(bad.stderr.contains(&format!("{shown}:5:1: keys.new_tab: ")), "{bad:?}");
    assert!(bad.stderr.ends_with(": 2 problems\n"), "{bad:?}");

    fs::write(&path, "[ui]\nsidebar_width = = 3\n").expect("write");
    let broken = server.cli(&["config", "check"]);
    assert_eq!(broken.status.code(), Some(1), "{broken:?}");
    assert!(broken.stderr.starts_with(&format!("{shown}:2:")), "{broken:?}");
    assert!(broken.stderr.contains("not valid TOML"), "{broken:?}");
}

#[test]
fn reset_keys_backs_up_the_file_and_leaves_only_the_other_settings() {
    let server = TestServer::prepare();
    let path = config_file(&server);
    let custom = "[ui]\nsidebar_width = 30\n\n[keys]\nprefix = \"ctrl+a\"\n\n[keys.indexed]\nswitch_tab = \"alt+1..9\"\n\n\
                  [[keys.command]]\nkey = \"prefix+y\"\ncommand = \"htop\"\n\n[theme]\nname = \"nord\"\n";
    fs::write(&path, custom).expect("write");
    let reset = server.cli(&["config", "reset-keys"]);
    assert!(
        reset.text().starts_with("Removed [keys], [keys.indexed], and [[keys.command]] from "),
        "{reset:?}"
    );
    let backup = path.with_file_name("config.toml.bak");
    assert_eq!(fs::read_to_string(&backup).expect("backup"), custom);
    assert_eq!(
        fs::read_to_string(&path).expect("config"),
        "[ui]\nsidebar_width = 30\n\n[theme]\nname = \"nord\"\n"
    );
    assert!(server.cli(&["config", "check"]).text().ends_with(": ok\n"));
    assert!(server.cli(&["config", "reset-keys"]).text().contains("nothing changed"));
}

#[test]
fn the_07_agent_start_form_makes_a_named_agent_pane_and_agent_send_types_without_enter() {
    let server = TestServer::start();
    let workspace = create_agent_workspace(&server, &[]);
    let env = fake_agent_env(&server, &workspace.log.path, &[]);
    let mut args: Vec<String> =
        ["agent", "start", "reviewer", "--workspace", &workspace.ids.workspace_id, "--split", "down"]
            .map(str::to_owned)
            .to_vec();
    for (key, value) in &env {
        args.push("--env".into());
        args.push(format!("{key}={}", value.as_str().expect("string env")));
    }
    args.extend(["--timeout", "20000", "--", "claude"].map(str::to_owned));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = server.cli(&argv).result();
    assert_eq!(started["type"], "agent_started", "{started}");
    let agent = &started["agent"];
    assert_eq!(
        (agent["name"].as_str(), agent["agent"].as_str()),
        (Some("reviewer"), Some("claude")),
        "{started}"
    );
    let pane = agent["pane_id"].as_str().expect("pane id").to_owned();
    assert_ne!(pane, workspace.ids.pane_id, "a new pane, not the workspace's");
    let listed = server.call("pane.list", json!({"workspace_id": workspace.ids.workspace_id}));
    assert_eq!(listed["panes"].as_array().map(Vec::len), Some(2), "{listed}");

    let sent = server.cli(&["agent", "send", "reviewer", "review-this-please"]);
    sent.silent();
    panes::wait_output(&server, &pane, "❯ review-this-please", Duration::from_secs(10));
    assert_eq!(agents::status(&server, "reviewer"), "idle", "the text waits in the composer, unsubmitted");

    let missing = server.cli(&["agent", "send", "nobody", "hi"]);
    assert_eq!(missing.error().0, "agent_not_found");
    let unsupported = server.cli(&["agent", "start", "x", "--", "sh", "-c", "true"]);
    assert_eq!(unsupported.status.code(), Some(2), "{unsupported:?}");
}

fn error_of(answer: &Value) -> (String, String) {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (text(&answer["error"]["code"]), text(&answer["error"]["message"]))
}

#[test]
fn input_graphics_and_dismiss_methods_answer_as_protocol_22_says() {
    let server = TestServer::start();
    let ids = panes::create_workspace(&server);
    let pane = ids.pane_id.as_str();
    for mode in ["pane", "herdr"] {
        let ok = server.call("pane.input.set", json!({"pane_id": pane, "right_click": mode}));
        assert_eq!(ok["type"], "ok", "{ok}");
    }
    let cli = server.cli(&["pane", "input", pane, "--right-click", "pane"]).result();
    assert_eq!(cli["type"], "ok", "{cli}");
    let unknown = server.request("pane.input.set", json!({"pane_id": "w9:p9", "right_click": "pane"}));
    assert_eq!(error_of(&unknown).0, "pane_not_found", "{unknown}");

    let graphics = |server: &TestServer| {
        let set = json!({"pane_id": pane, "format": "rgba", "image_width": 1, "image_height": 1, "data_base64": "AAAAAA=="});
        [
            server.request("pane.graphics.info", json!({"pane_id": pane})),
            server.request("pane.graphics.set", set),
            server.request("pane.graphics.clear", json!({"pane_id": pane})),
        ]
    };
    for answer in graphics(&server) {
        let (code, message) = error_of(&answer);
        assert_eq!(code, "feature_disabled", "{answer}");
        assert!(message.contains("kitty_graphics = true"), "{answer}");
    }
    fs::write(config_file(&server), "[experimental]\nkitty_graphics = true\n").expect("write config");
    let reloaded = server.call("server.reload_config", json!({}));
    assert_eq!(reloaded["type"], "config_reload", "{reloaded}");
    for answer in graphics(&server) {
        let (code, message) = error_of(&answer);
        assert_eq!(code, "feature_disabled", "{answer}");
        assert!(message.contains("does not build the kitty graphics protocol"), "{answer}");
    }
    let no_pane = server.request("pane.graphics.info", json!({"pane_id": "w9:p9"}));
    assert_eq!(error_of(&no_pane).0, "pane_not_found", "{no_pane}");

    let ok = server.call("product_announcement.dismiss", json!({"version": "0.9.0", "id": "client-shell"}));
    assert_eq!(ok["type"], "ok", "{ok}");
    let ok = server.call("release_notes.dismiss", json!({"version": "0.9.0"}));
    assert_eq!(ok["type"], "ok", "{ok}");
    let recorded: Value = serde_json::from_str(
        &fs::read_to_string(server.data_dir().join("dismissed.json")).expect("dismissed.json"),
    )
    .expect("json");
    assert_eq!(
        recorded,
        json!({"product_announcement": {"version": "0.9.0", "id": "client-shell"}, "release_notes": {"version": "0.9.0"}})
    );
    let empty = server.request("release_notes.dismiss", json!({"version": " "}));
    assert_eq!(error_of(&empty).0, "invalid_params", "{empty}");
}
