//! The plugin actions menu in a real terminal: `herdr` runs inside tmux, a right-click on the
//! pane opens its menu, "Plugin actions…" lists the enabled plugins' actions (the example
//! recorder's, by title), and choosing one runs it with that pane as the context's focus. With
//! the plugin disabled the menu is not offered and a toast says why.

// The shared tmux harness has helpers this suite does not use.
#[allow(dead_code)]
mod support;

use std::path::PathBuf;

use herdr_e2e::{TestServer, recorder};
use serde_json::json;
use support::{RIGHT, attached, choose, click};

#[test]
fn a_pane_menu_runs_a_plugin_action_with_that_pane_as_context() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let recorder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/recorder");
    let linked =
        server.call("plugin.link", json!({"path": recorder.display().to_string(), "enabled": false}));
    assert_eq!(linked["type"], "plugin_linked", "{linked}");
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let pane = snapshot["focused_pane_id"].as_str().expect("a focused pane").to_owned();

    // Disabled: no actions to offer.
    click(&tmux, RIGHT, (60, 15));
    choose(&tmux, "Plugin actions…");
    tmux.wait_screen("the no-actions toast", |s| s.contains("no plugin actions"));
    assert!(!tmux.screen(false).contains("│ Record the invocation context"));

    server.call("plugin.enable", json!({"plugin_id": "e2e.recorder"}));
    click(&tmux, RIGHT, (60, 15));
    choose(&tmux, "Plugin actions…");
    choose(&tmux, "Record the invocation context");
    let recorded = recorder::recorded_context(&server, "the action to record its context");
    assert_eq!((recorded.action_id.as_str(), recorded.pane_id.as_str()), ("record-context", pane.as_str()));
    let context = recorded.context;
    assert_eq!(context["invocation_source"], "context_menu", "{context}");
    assert_eq!(context["focused_pane_id"], pane.as_str(), "{context}");
    assert_eq!(context["workspace_id"], snapshot["focused_workspace_id"], "{context}");
    tmux.wait_screen("the menu closed", |s| !s.contains("│ Record the invocation context"));
}
