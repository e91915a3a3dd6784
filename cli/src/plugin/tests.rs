//! Every `herdr plugin` subcommand that is one request builds the right one (method, params,
//! id `cli:plugin`), validated against the protocol-22 request schema.

use std::path::PathBuf;

use clap::Parser;
use serde_json::{Value, json};

use super::*;
use crate::args::{Cli, Command};

fn caller() -> Caller {
    Caller { pane_id: None, cwd: Some(PathBuf::from("/work/dev")), home: Some(PathBuf::from("/home/u")) }
}

fn command(argv: &[&str]) -> PluginCommand {
    let mut full = vec!["herdr", "plugin"];
    full.extend_from_slice(argv);
    match Cli::try_parse_from(full).unwrap_or_else(|e| panic!("{argv:?}: {e}")).command {
        Some(Command::Plugin(cmd)) => cmd,
        other => panic!("{argv:?}: {other:?}"),
    }
}

fn sent(argv: &[&str]) -> Value {
    let request = request(&command(argv), &caller()).expect("usage").expect("a request");
    let value = request.to_value();
    let checked =
        herdr_protocol::schema_check::validate(herdr_protocol::schema_check::SchemaKind::Request, &value);
    assert!(checked.is_ok(), "{argv:?}: schema rejects {value}\n{checked:#?}");
    assert_eq!(value["id"], ID);
    value
}

#[test]
fn registry_subcommands_map_to_their_methods() {
    let link = sent(&["link", "../p"]);
    assert_eq!(link["method"], "plugin.link");
    assert_eq!(link["params"], json!({"path": "/work/dev/../p", "enabled": true}));
    assert_eq!(
        sent(&["link", "~/p", "--disabled"])["params"],
        json!({"path": "/home/u/p", "enabled": false})
    );
    assert_eq!(sent(&["list"])["params"], json!({}));
    assert_eq!(sent(&["list", "--plugin", "a.b", "--json"])["params"], json!({"plugin_id": "a.b"}));
    for (sub, method) in
        [("unlink", "plugin.unlink"), ("enable", "plugin.enable"), ("disable", "plugin.disable")]
    {
        let value = sent(&[sub, "a.b"]);
        assert_eq!(value["method"], method);
        assert_eq!(value["params"], json!({"plugin_id": "a.b"}));
    }
}

#[test]
fn action_and_log_subcommands() {
    let list = sent(&["action", "list", "--plugin", "a.b"]);
    assert_eq!(
        (list["method"].clone(), list["params"].clone()),
        (json!("plugin.action.list"), json!({"plugin_id": "a.b"}))
    );
    let invoke = sent(&["action", "invoke", "a.b.go"]);
    assert_eq!(invoke["method"], "plugin.action.invoke");
    assert_eq!(invoke["params"], json!({"action_id": "a.b.go", "context": {"invocation_source": "cli"}}));
    let logs = sent(&["log", "list", "--plugin", "a.b", "--limit", "5"]);
    assert_eq!(
        (logs["method"].clone(), logs["params"].clone()),
        (json!("plugin.log.list"), json!({"plugin_id": "a.b", "limit": 5}))
    );
    assert_eq!(sent(&["logs", "list"])["method"], "plugin.log.list");
}

#[test]
fn pane_subcommands() {
    let open = sent(&[
        "pane",
        "open",
        "--plugin",
        "a.b",
        "--entrypoint",
        "board",
        "--placement",
        "fullscreen",
        "--width",
        "80%",
        "--height",
        "20",
        "--direction",
        "down",
        "--env",
        "K=V",
        "--no-focus",
    ]);
    assert_eq!(open["method"], "plugin.pane.open");
    assert_eq!(
        open["params"],
        json!({"plugin_id": "a.b", "entrypoint": "board", "placement": "zoomed", "width": "80%", "height": 20,
               "direction": "down", "env": {"K": "V"}, "focus": false})
    );
    assert_eq!(sent(&["pane", "focus", "w1:p2"])["params"], json!({"pane_id": "w1:p2"}));
    assert_eq!(sent(&["pane", "close", "w1:p2"])["method"], "plugin.pane.close");
}

#[test]
fn local_subcommands_send_nothing_and_bad_values_are_usage_errors() {
    for argv in [&["install", "o/r", "--yes"][..], &["uninstall", "a.b"], &["config-dir", "a.b"]] {
        assert_eq!(request(&command(argv), &caller()), Ok(None), "{argv:?}");
    }
    for bad_size in [["--width", "0"], ["--height", "120%"]] {
        let open = ["herdr", "plugin", "pane", "open", "--plugin", "a", "--entrypoint", "b"];
        let argv: Vec<&str> = open.into_iter().chain(bad_size).collect();
        assert!(Cli::try_parse_from(argv).is_err(), "{bad_size:?}");
    }
    assert!(
        Cli::try_parse_from(["herdr", "plugin", "pane", "open", "--entrypoint", "b"]).is_err(),
        "--plugin is required"
    );
    let relative = Caller { cwd: None, ..caller() };
    assert!(request(&command(&["link", "rel"]), &relative).is_err());
}

#[test]
fn list_text_names_source_state_and_warnings() {
    let reply = json!({"id": ID, "result": {"type": "plugin_list", "plugins": [
        {"plugin_id": "a.b", "name": "AB", "enabled": true, "plugin_root": "/dev/ab", "source": {"kind": "local"}, "warnings": []},
        {"plugin_id": "c.d", "name": "CD", "enabled": false, "plugin_root": "/x",
         "source": {"kind": "github", "owner": "o", "repo": "r", "subdir": "s", "resolved_commit": "abc"}, "warnings": ["w1"]},
    ]}});
    let env = PathEnv { xdg_config_home: Some("/cfg".into()), ..Default::default() };
    let text = offline::human(&reply, &env).stdout;
    assert_eq!(
        text,
        "2 plugins installed:\n- a.b (AB) enabled [local:/dev/ab]\n  config: /cfg/herdr/plugins/config/a.b\n\
         - c.d (CD) disabled [github:o/r/s@abc; 1 warning(s)]\n  config: /cfg/herdr/plugins/config/c.d\n  warning: w1\n"
    );
    let empty = json!({"id": ID, "result": {"type": "plugin_list", "plugins": []}});
    assert_eq!(offline::human(&empty, &env).stdout, "No plugins installed.\n");
}
