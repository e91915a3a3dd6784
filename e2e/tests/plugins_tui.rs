//! A plugin action bound to a key (`[[keys.command]] type = "plugin_action"`) in a real
//! terminal: `herdr` runs inside tmux, the key runs the example recorder plugin's action, which
//! writes the context it got (the focused pane) into its state dir; and a ctrl+click on a URL
//! that the recorder's `[[link_handlers]]` pattern matches runs that action with the link.

// The shared tmux harness has helpers this suite does not use.
#[allow(dead_code)]
mod support;

use std::path::PathBuf;

use herdr_e2e::{TestServer, recorder};
use serde_json::json;
use support::{attached, find_on_screen, sgr_mouse};

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
    let recorded = recorder::recorded_context(&server, "the action to record its context");
    assert_eq!((recorded.action_id.as_str(), recorded.pane_id.as_str()), ("record-context", pane.as_str()));
    let context = recorded.context;
    assert_eq!(context["invocation_source"], "keybinding", "{context}");
    assert_eq!(context["focused_pane_id"], pane.as_str(), "{context}");
    assert_eq!(context["workspace_id"], snapshot["focused_workspace_id"], "{context}");
    let logs = server.call("plugin.log.list", json!({"plugin_id": "e2e.recorder"}));
    assert_eq!(logs["logs"][0]["action_id"], "record-context", "{logs}");
}

/// A ctrl+click on a URL in a pane, in a real terminal: the recorder's link handler takes it.
#[test]
fn a_ctrl_click_on_a_link_goes_to_the_plugin_link_handler() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let recorder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/recorder");
    server.call("plugin.link", json!({"path": recorder.display().to_string()}));
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let pane = snapshot["focused_pane_id"].as_str().expect("a focused pane").to_owned();
    // `\067` is `7`: the echoed command line does not hold the whole URL.
    tmux.literal(r"printf 'see https://herdr.test/issue/\067 now\n'");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_screen("the URL on screen", |s| s.contains("https://herdr.test/issue/7"));
    let (x, y) = find_on_screen(&screen, "https://herdr.test/issue/7").expect("the URL");

    // Ctrl adds 16 to the button of an SGR report.
    tmux.literal(&sgr_mouse(16, x + 5, y, true));
    tmux.literal(&sgr_mouse(16, x + 5, y, false));
    let context = recorder::recorded_context(&server, "the link handler to record its context").context;
    assert_eq!(context["invocation_source"], "link_click", "{context}");
    assert_eq!(context["clicked_url"], "https://herdr.test/issue/7", "{context}");
    assert_eq!(context["link_handler_id"], "test-issue", "{context}");
    assert_eq!(context["focused_pane_id"], pane.as_str(), "{context}");
}
