//! A plugin action bound to a key (`[[keys.command]] type = "plugin_action"`) in a real
//! terminal: `herdr` runs inside tmux, the key runs the example recorder plugin's action, which
//! writes the context it got (the focused pane) into its state dir.

// The shared tmux harness has helpers this suite does not use.
#[allow(dead_code)]
mod support;

use std::path::PathBuf;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::attached;

const KEYS: &str = r#"
[[keys.command]]
key = "prefix+y"
type = "plugin_action"
command = "e2e.recorder.record-context"
description = "record the context"
"#;

#[test]
fn a_key_bound_plugin_action_runs_with_the_focused_pane_as_context() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some(KEYS));
    let recorder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/recorder");
    let linked = server.call("plugin.link", json!({"path": recorder.display().to_string()}));
    assert_eq!(linked["type"], "plugin_linked", "{linked}");
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let pane = snapshot["focused_pane_id"].as_str().expect("a focused pane").to_owned();

    tmux.keys(&["C-b", "y"]);
    let config = server.env().iter().find(|(k, _)| k == "XDG_CONFIG_HOME").map(|(_, v)| v.clone());
    let out =
        PathBuf::from(config.expect("XDG_CONFIG_HOME")).join("herdr/plugins/state/e2e.recorder/context");
    let written = wait_until("the action to record its context", PATIENCE, || {
        std::fs::read_to_string(&out).map_err(|e| e.to_string())
    });
    let (head, context) = written.split_at(written.find('{').expect("context json"));
    assert_eq!(head.split_whitespace().collect::<Vec<_>>(), ["record-context", pane.as_str()]);
    let context: Value = serde_json::from_str(context.trim()).expect("context json");
    assert_eq!(context["invocation_source"], "keybinding", "{context}");
    assert_eq!(context["focused_pane_id"], pane.as_str(), "{context}");
    assert_eq!(context["workspace_id"], snapshot["focused_workspace_id"], "{context}");
    let logs = server.call("plugin.log.list", json!({"plugin_id": "e2e.recorder"}));
    assert_eq!(logs["logs"][0]["action_id"], "record-context", "{logs}");
}
