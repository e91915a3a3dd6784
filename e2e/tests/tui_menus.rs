//! Context menus, rename dialogs, navigate mode's selection and `prefix+o` in a real terminal:
//! `herdr` runs inside tmux, the test right-clicks and clicks with SGR mouse reports, types with
//! `send-keys`, reads the screen with `capture-pane` and checks the session through the API.

// The shared tmux harness has helpers (paste buffers) this suite does not use.
#[allow(dead_code)]
mod support;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::{LEFT, RIGHT, attached, boxes_on_top_row, choose, click};

fn panes(server: &TestServer) -> Vec<Value> {
    server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default()
}

fn focused_pane(server: &TestServer) -> Option<String> {
    let snapshot = server.call("session.snapshot", json!({}));
    snapshot["snapshot"]["focused_pane_id"].as_str().map(str::to_owned)
}

fn focused_workspace(server: &TestServer) -> Option<String> {
    let snapshot = server.call("session.snapshot", json!({}));
    snapshot["snapshot"]["focused_workspace_id"].as_str().map(str::to_owned)
}

/// Waits until `read()` returns `expected`.
fn wait_for<T: PartialEq + std::fmt::Debug>(what: &str, expected: T, read: impl Fn() -> T) {
    wait_until(what, PATIENCE, || {
        let now = read();
        if now == expected { Ok(()) } else { Err(format!("{now:?}")) }
    });
}

#[test]
fn menus_and_dialogs_rename_tabs_and_panes_and_split() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let tab_id = server.call("tab.list", json!({}))["tabs"][0]["tab_id"].as_str().expect("a tab").to_owned();

    // Right-click the first tab (the tab bar starts after the 26-column sidebar) → its menu.
    click(&tmux, RIGHT, (28, 0));
    tmux.wait_screen("the tab menu", |s| s.contains("│ New tab") && s.contains("│ Close"));
    choose(&tmux, "Rename");
    tmux.wait_screen("the rename dialog", |s| s.contains("rename tab") && !s.contains("│ New tab"));
    tmux.keys(&["C-u"]);
    tmux.literal("builds");
    tmux.keys(&["Enter"]);
    wait_for("the tab's new label", Some("builds".to_owned()), || {
        let tabs = server.call("tab.list", json!({}));
        let tab = tabs["tabs"].as_array().and_then(|ts| ts.iter().find(|t| t["tab_id"] == tab_id.as_str()));
        tab.and_then(|t| t["label"].as_str()).map(str::to_owned)
    });
    tmux.wait_screen("the tab bar with the new name", |s| {
        s.lines().next().is_some_and(|row| row.contains("1 builds")) && !s.contains("rename tab")
    });

    // prefix + shift+p renames the focused pane; the name shows on its border.
    let pane = focused_pane(&server).expect("a focused pane");
    tmux.keys(&["C-b", "P"]);
    tmux.wait_screen("the pane rename dialog", |s| s.contains("rename pane"));
    tmux.literal("editor");
    tmux.keys(&["Enter"]);
    wait_for("the pane's name", Some("editor".to_owned()), || {
        let list = panes(&server);
        let found = list.iter().find(|p| p["pane_id"] == pane.as_str());
        found.and_then(|p| p["label"].as_str()).map(str::to_owned)
    });
    tmux.wait_screen("the name on the border", |s| s.lines().nth(1).is_some_and(|r| r.contains("editor")));

    // Esc closes a dialog without renaming.
    tmux.keys(&["C-b", "P"]);
    tmux.wait_screen("the pane rename dialog again", |s| s.contains("rename pane"));
    tmux.literal("zzz");
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the dialog closed", |s| !s.contains("rename pane"));
    let list = panes(&server);
    let label = list.iter().find(|p| p["pane_id"] == pane.as_str()).map(|p| p["label"].clone());
    assert_eq!(label, Some(json!("editor")), "cancelling keeps the name");

    // Right-click a pane → "Split right" splits it.
    click(&tmux, RIGHT, (70, 20));
    tmux.wait_screen("the pane menu", |s| s.contains("│ Split right") && s.contains("│ Clear pane name"));
    let screen = tmux.screen(false);
    assert!(!screen.contains("Swap with focused pane"), "no swapping a pane with itself:\n{screen}");
    choose(&tmux, "Split right");
    wait_for("two panes", 2, || panes(&server).len());
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2 && !s.contains("│ Split right"));

    // The other (unfocused) pane's menu offers a swap; Esc closes it with nothing done.
    click(&tmux, RIGHT, (40, 20));
    tmux.wait_screen("the other pane's menu", |s| s.contains("│ Swap with focused pane"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the menu closed", |s| !s.contains("Swap with focused pane"));
    assert_eq!(panes(&server).len(), 2);

    // A click outside a menu closes it without acting.
    click(&tmux, RIGHT, (40, 20));
    tmux.wait_screen("the menu again", |s| s.contains("│ Close pane"));
    click(&tmux, LEFT, (5, 30));
    tmux.wait_screen("the menu closed by clicking outside", |s| !s.contains("│ Close pane"));
    assert_eq!(panes(&server).len(), 2);
}

#[test]
fn navigate_mode_moves_a_selection_and_switches_on_enter_only() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let first = focused_workspace(&server).expect("a focused workspace");
    let created = server.call("workspace.create", json!({ "label": "second", "focus": false }));
    let second = created["workspace"]["workspace_id"].as_str().expect("the new workspace").to_owned();
    tmux.wait_screen("the second workspace in the sidebar", |s| s.contains("second"));

    tmux.keys(&["C-b", "w"]);
    tmux.wait_screen("navigate mode", |s| s.lines().last().is_some_and(|r| r.contains("NAVIGATE")));
    tmux.keys(&["Down"]);
    tmux.wait_screen("the selection on the second workspace", |s| {
        s.lines().any(|row| row.starts_with('▌') && row.contains("second"))
    });
    assert_eq!(focused_workspace(&server).as_deref(), Some(first.as_str()), "moving does not switch");
    tmux.keys(&["Enter"]);
    wait_for("the second workspace focused", Some(second.clone()), || focused_workspace(&server));
    tmux.wait_screen("navigate mode left", |s| !s.contains("NAVIGATE") && !s.contains('▌'));

    // Esc leaves without switching.
    tmux.keys(&["C-b", "w"]);
    tmux.wait_screen("navigate mode again", |s| s.contains("NAVIGATE"));
    tmux.keys(&["Down"]);
    tmux.wait_screen("the selection wrapped to the first", |s| {
        s.lines().any(|row| row.starts_with('▌') && !row.contains("second"))
    });
    tmux.keys(&["Escape"]);
    tmux.wait_screen("navigate mode left by esc", |s| !s.contains("NAVIGATE"));
    assert_eq!(focused_workspace(&server).as_deref(), Some(second.as_str()), "esc does not switch");

    // A digit jumps straight to that workspace and leaves navigate mode.
    tmux.keys(&["C-b", "w"]);
    tmux.wait_screen("navigate mode once more", |s| s.contains("NAVIGATE"));
    tmux.keys(&["1"]);
    wait_for("the first workspace focused", Some(first), || focused_workspace(&server));
    tmux.wait_screen("navigate mode left by the digit", |s| !s.contains("NAVIGATE"));
}

#[test]
fn a_burst_of_alerts_is_one_toast_and_prefix_o_opens_their_panes() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some("[ui.toast]\ndelivery = \"herdr\"\ndelay_seconds = 0\n"));
    let home = focused_pane(&server).expect("a focused pane");
    // Two agents in background workspaces, where the user does not see them.
    let mut background = Vec::new();
    for label in ["bg-one", "bg-two"] {
        let created = server.call("workspace.create", json!({ "label": label, "focus": false }));
        background.push(created["root_pane"]["pane_id"].as_str().expect("its pane").to_owned());
    }
    let report = |pane: &str, state: &str| {
        server.call(
            "pane.report_agent",
            json!({ "pane_id": pane, "source": "e2e", "agent": "claude", "state": state }),
        );
    };
    for pane in &background {
        report(pane, "working");
    }
    for pane in &background {
        report(pane, "blocked");
    }
    let screen = tmux.wait_screen("one toast counting both", |s| s.contains("2 agents need attention"));
    assert!(!screen.contains("claude needs attention"), "the single toast was replaced:\n{screen}");
    assert_eq!(focused_pane(&server).as_deref(), Some(home.as_str()), "alerts do not move the focus");

    // prefix+o opens the newest alert's pane, then the one before it.
    tmux.keys(&["C-b", "o"]);
    wait_until("an alerted pane focused", PATIENCE, || match focused_pane(&server) {
        Some(p) if background.contains(&p) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    let opened = focused_pane(&server).expect("a focused pane");
    tmux.keys(&["C-b", "o"]);
    wait_until("the other alerted pane focused", PATIENCE, || match focused_pane(&server) {
        Some(p) if background.contains(&p) && p != opened => Ok(()),
        other => Err(format!("{other:?}")),
    });
}

#[test]
fn a_right_click_with_the_passthrough_modifier_reaches_a_mouse_reporting_program() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some("[ui]\nright_click_passthrough_modifier = \"shift\"\n"));
    // The pane's program asks for SGR mouse reports and prints what it reads.
    // READY is printed after the mode change, so once it shows, the mode is in force.
    let program = r"clear; printf '\033[?1000h\033[?1006h'; stty -icanon -echo; echo MOUSE-READY; cat -v";
    tmux.keys(&[program, "Enter"]);
    tmux.wait_screen("the program reading the mouse", |s| s.contains("MOUSE-READY") && !s.contains("e2e$"));
    // Shift+right (button 2 + shift 4) at (35, 10): the content starts at (27, 2), so the
    // program's cell is (9, 9), 1-based. One click, so the count below is exact.
    click(&tmux, RIGHT + 4, (35, 10));
    tmux.wait_screen("the program to get the shifted right-click", |s| s.contains(";9;9M"));
    assert!(!tmux.screen(false).contains("│ Split right"), "no menu for a passed-through click");
    // Without the modifier the same click opens the pane's menu, and the program gets nothing.
    let before = tmux.screen(false).matches(";9;9M").count();
    click(&tmux, RIGHT, (35, 10));
    tmux.wait_screen("the pane menu", |s| s.contains("│ Split right"));
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_screen("the menu closed", |s| !s.contains("│ Split right"));
    assert_eq!(screen.matches(";9;9M").count(), before, "the menu's click never reached the program");
    tmux.keys(&["C-c"]);
}
