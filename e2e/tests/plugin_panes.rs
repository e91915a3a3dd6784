//! Plugin panes end to end: the example keypad plugin (`tests/plugins/keypad`, a small raw-mode
//! `sh` program) is linked over the API and its `[[panes]]` entrypoint opened with
//! `plugin.pane.open` in every placement: as the popup in a real terminal (tmux), as a split,
//! a zoomed split, an overlay and a tab; `plugin.pane.focus|close` act on such panes only, and
//! the refusals carry upstream's codes. Every API answer is schema-checked by the harness.

// The shared tmux harness has helpers this suite does not use.
#[allow(dead_code)]
mod support;

use std::path::PathBuf;

use herdr_e2e::panes::create_workspace;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::attached;

const KEYPAD: &str = "e2e.keypad";

fn keypad_dir() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/keypad").display().to_string()
}

/// A server with one workspace (one pane) and the keypad linked.
fn headless() -> TestServer {
    let server = TestServer::start();
    create_workspace(&server);
    link(&server);
    server
}

fn link(server: &TestServer) {
    let linked = server.call("plugin.link", json!({"path": keypad_dir()}));
    assert_eq!(linked["type"], "plugin_linked", "{linked}");
}

fn open(server: &TestServer, params: Value) -> Value {
    let mut params = params;
    params["plugin_id"] = json!(KEYPAD);
    params["entrypoint"] = json!("pad");
    server.call("plugin.pane.open", params)
}

/// The lines the keypad program wrote when it started (one per run).
fn started(server: &TestServer) -> Vec<String> {
    let config = server.env().iter().find(|(k, _)| k == "XDG_CONFIG_HOME").map(|(_, v)| v.clone());
    let file = PathBuf::from(config.expect("XDG_CONFIG_HOME"))
        .join("herdr/plugins/state")
        .join(KEYPAD)
        .join("started");
    std::fs::read_to_string(file).unwrap_or_default().lines().map(str::to_owned).collect()
}

fn wait_started(server: &TestServer, runs: usize) -> String {
    wait_until("the keypad program to start", PATIENCE, || {
        let lines = started(server);
        if lines.len() >= runs { Ok(lines[runs - 1].clone()) } else { Err(format!("{lines:?}")) }
    })
}

fn pane_ids(server: &TestServer) -> Vec<String> {
    let panes = server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default();
    panes.iter().filter_map(|p| p["pane_id"].as_str().map(str::to_owned)).collect()
}

fn focused(server: &TestServer) -> String {
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    snapshot["focused_pane_id"].as_str().expect("a focused pane").to_owned()
}

/// Waits for the pane's visible screen to show the keypad's box.
fn wait_keypad(server: &TestServer, pane: &str) {
    wait_until("the keypad's box on the pane's screen", PATIENCE, || {
        let read = server.call("pane.read", json!({"pane_id": pane, "source": "visible"}));
        let text = read["read"]["text"].as_str().unwrap_or_default().to_owned();
        if text.contains("| keypad") && text.contains("last: none") { Ok(()) } else { Err(text) }
    });
}

/// The layout snapshot of `tab` in `session.snapshot`.
fn layout_of(server: &TestServer, tab: &str) -> Value {
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let layouts = snapshot["layouts"].as_array().cloned().unwrap_or_default();
    layouts
        .into_iter()
        .find(|l| l["tab_id"] == tab)
        .unwrap_or_else(|| panic!("no layout of {tab}: {snapshot}"))
}

#[test]
fn a_popup_plugin_pane_is_drawn_over_two_panes_takes_keys_and_closes_with_q() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let first = focused(&server);
    server.call("pane.split", json!({"target_pane_id": first, "direction": "right", "focus": false}));
    tmux.wait_screen("two pane boxes", |s| support::boxes_on_top_row(s) == 2);
    link(&server);
    let before = (pane_ids(&server), focused(&server));

    let opened = open(&server, json!({"placement": "popup"}));
    assert_eq!(opened["type"], "ok", "a popup answers ok, as upstream: {opened}");
    let shown = |s: &str| s.contains("╭─ Keypad ") && s.contains("| keypad");
    tmux.wait_screen("the keypad popup", |s| shown(s) && s.contains("last: none"));
    let line = wait_started(&server, 1);
    assert_eq!(line, format!("entry=pad plugin={KEYPAD} pane=none pwd={} extra=none", keypad_dir()));
    assert_eq!((pane_ids(&server), focused(&server)), before, "the popup is no pane of the layout");

    tmux.keys(&["x"]);
    tmux.wait_screen("the key the popup's program read", |s| shown(s) && s.contains("last: key-x"));
    tmux.keys(&["q"]);
    tmux.wait_screen("the popup closed", |s| !s.contains("Keypad") && !s.contains("| keypad"));
    assert_eq!((pane_ids(&server), focused(&server)), before, "the same panes and focus");
}

#[test]
fn a_split_plugin_pane_is_a_pane_of_the_layout_that_focus_and_close_act_on() {
    let server = headless();
    let target = focused(&server);
    let opened = open(
        &server,
        json!({"placement": "split", "target_pane_id": target, "direction": "down", "env": {"KEYPAD_EXTRA": "given"}}),
    );
    assert_eq!(opened["type"], "plugin_pane_opened", "{opened}");
    let info = &opened["plugin_pane"];
    assert_eq!(
        (info["plugin_id"].as_str(), info["entrypoint"].as_str()),
        (Some(KEYPAD), Some("pad")),
        "{opened}"
    );
    let pane = info["pane"]["pane_id"].as_str().expect("the new pane's id").to_owned();
    assert_eq!(info["pane"]["label"], "Keypad", "labelled with the entrypoint's title: {opened}");
    assert_eq!(focused(&server), target, "focus stays without focus=true");

    let panes = server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default();
    assert_eq!(panes.len(), 2, "{panes:?}");
    let target_info = panes.iter().find(|p| p["pane_id"] == target.as_str()).expect("the target");
    assert_eq!(info["pane"]["tab_id"], target_info["tab_id"], "beside the target, in its tab");
    let layout = layout_of(&server, target_info["tab_id"].as_str().unwrap_or_default());
    assert_eq!(layout["splits"][0]["direction"], "down", "{layout}");
    wait_keypad(&server, &pane);
    let line = wait_started(&server, 1);
    assert_eq!(line, format!("entry=pad plugin={KEYPAD} pane={pane} pwd={} extra=given", keypad_dir()));

    let focus = server.call("plugin.pane.focus", json!({"pane_id": pane}));
    assert_eq!(focus["type"], "plugin_pane_focused", "{focus}");
    assert_eq!(focus["plugin_pane"]["pane"]["focused"], true, "{focus}");
    assert_eq!(focused(&server), pane);

    let closed = server.call("plugin.pane.close", json!({"pane_id": pane}));
    assert_eq!(closed, json!({"type": "plugin_pane_closed", "pane_id": pane}));
    assert_eq!(pane_ids(&server), vec![target.clone()], "the pane is gone");
    let (code, _) = server.call_error("plugin.pane.focus", json!({"pane_id": pane}));
    assert_eq!(code, "plugin_pane_not_found");
}

#[test]
fn zoomed_overlay_and_tab_plugin_panes_open_and_close() {
    let server = headless();
    let home = focused(&server);
    let tabs =
        |server: &TestServer| server.call("tab.list", json!({}))["tabs"].as_array().map_or(0, Vec::len);

    for (placement, runs) in [("zoomed", 1), ("overlay", 2)] {
        let opened = open(&server, json!({"placement": placement}));
        assert_eq!(opened["type"], "plugin_pane_opened", "{placement}: {opened}");
        let pane = opened["plugin_pane"]["pane"]["pane_id"].as_str().expect("a pane id").to_owned();
        assert_eq!(focused(&server), pane, "{placement} takes the focus");
        let tab = opened["plugin_pane"]["pane"]["tab_id"].as_str().unwrap_or_default().to_owned();
        assert_eq!(layout_of(&server, &tab)["zoomed"], true, "{placement} is zoomed over the tab");
        wait_keypad(&server, &pane);
        wait_started(&server, runs);
        let closed = server.call("plugin.pane.close", json!({"pane_id": pane}));
        assert_eq!(closed["type"], "plugin_pane_closed", "{closed}");
        assert_eq!(pane_ids(&server), vec![home.clone()], "{placement}: the layout as before");
        assert_eq!(focused(&server), home, "{placement}: the focus back where it was");
        assert_eq!(layout_of(&server, &tab)["zoomed"], false, "{placement}: unzoomed");
    }

    let before = tabs(&server);
    let opened = open(&server, json!({"placement": "tab", "focus": true}));
    assert_eq!(opened["type"], "plugin_pane_opened", "{opened}");
    let pane = opened["plugin_pane"]["pane"]["pane_id"].as_str().expect("a pane id").to_owned();
    assert_eq!(tabs(&server), before + 1, "a new tab");
    assert_eq!(focused(&server), pane, "focus=true focuses it");
    wait_keypad(&server, &pane);
    server.call("plugin.pane.close", json!({"pane_id": pane}));
    assert_eq!(tabs(&server), before, "its tab closed with it");
    assert_eq!(pane_ids(&server), vec![home]);
}

#[test]
fn plugin_pane_refusals_carry_upstreams_codes() {
    let server = headless();
    let home = focused(&server);
    let refused = |params: Value| {
        let mut params = params;
        params["plugin_id"] = params.get("plugin_id").cloned().unwrap_or(json!(KEYPAD));
        server.call_error("plugin.pane.open", params).0
    };
    assert_eq!(refused(json!({"entrypoint": "nope"})), "plugin_pane_not_found");
    assert_eq!(refused(json!({"entrypoint": "bad.id"})), "invalid_plugin_entrypoint");
    assert_eq!(refused(json!({"plugin_id": "e2e.absent", "entrypoint": "pad"})), "plugin_not_found");
    assert_eq!(refused(json!({"entrypoint": "pad", "placement": "split", "width": 20})), "invalid_params");
    assert_eq!(
        refused(json!({"entrypoint": "pad", "placement": "tab", "target_pane_id": home})),
        "invalid_params"
    );
    assert_eq!(refused(json!({"entrypoint": "pad", "target_pane_id": "w9:p9"})), "pane_not_found");

    let (code, _) = server.call_error("plugin.pane.close", json!({"pane_id": home}));
    assert_eq!(code, "plugin_pane_not_found", "a pane no plugin opened");
    let (code, _) = server.call_error("plugin.pane.focus", json!({"pane_id": home}));
    assert_eq!(code, "plugin_pane_not_found");

    server.call("plugin.disable", json!({"plugin_id": KEYPAD}));
    assert_eq!(refused(json!({"entrypoint": "pad"})), "plugin_disabled");
    assert_eq!(pane_ids(&server), vec![home], "nothing opened");
    assert!(started(&server).is_empty(), "nothing ran");
}
