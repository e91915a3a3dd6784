//! Confirm-close questions, new-tab naming, `last_pane` and agent cycling in a real terminal:
//! `herdr` runs inside tmux, the test types with `send-keys`, reads the screen with
//! `capture-pane` and checks the session through the API.

// The shared tmux harness has helpers (paste buffers, second sockets) this suite does not use.
#[allow(dead_code)]
mod support;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::{Tmux, attached, boxes_on_top_row, sgr_mouse};

fn panes(server: &TestServer) -> Vec<Value> {
    server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default()
}

fn tabs(server: &TestServer) -> Vec<Value> {
    server.call("tab.list", json!({}))["tabs"].as_array().cloned().unwrap_or_default()
}

fn focused_pane(server: &TestServer) -> Option<String> {
    let snapshot = server.call("session.snapshot", json!({}));
    snapshot["snapshot"]["focused_pane_id"].as_str().map(str::to_owned)
}

/// Waits until `read()` returns `expected`.
fn wait_for<T: PartialEq + std::fmt::Debug>(what: &str, expected: T, read: impl Fn() -> T) {
    wait_until(what, PATIENCE, || {
        let now = read();
        if now == expected { Ok(()) } else { Err(format!("{now:?}")) }
    });
}

/// Splits the focused pane with `prefix+v` and waits for the second box.
fn split(tmux: &Tmux<'_>, server: &TestServer) -> String {
    tmux.keys(&["C-b", "v"]);
    wait_for("two panes", 2, || panes(server).len());
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2);
    focused_pane(server).expect("the new pane has the focus")
}

#[test]
fn prefix_x_asks_first_n_esc_and_a_click_outside_keep_the_pane_y_closes_it() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    let second = split(&tmux, &server);

    tmux.keys(&["C-b", "x"]);
    let screen = tmux.wait_screen("the close question", |s| s.contains(&format!("close pane {second}?")));
    assert!(screen.contains("y/enter close  n/esc cancel"), "{screen}");
    tmux.keys(&["n"]);
    tmux.wait_screen("the question gone", |s| !s.contains("close pane"));
    assert_eq!(panes(&server).len(), 2, "n keeps the pane");

    tmux.keys(&["C-b", "x"]);
    tmux.wait_screen("the question again", |s| s.contains("close pane"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the question gone after esc", |s| !s.contains("close pane"));
    tmux.keys(&["C-b", "x"]);
    tmux.wait_screen("the question once more", |s| s.contains("close pane"));
    tmux.literal(&sgr_mouse(0, 3, 30, true));
    tmux.literal(&sgr_mouse(0, 3, 30, false));
    tmux.wait_screen("the question gone after a click outside", |s| !s.contains("close pane"));
    assert_eq!(panes(&server).len(), 2, "cancelling keeps the pane");

    // A named pane is asked about by its name; y closes it.
    server.call("pane.rename", json!({ "pane_id": second, "label": "scratch" }));
    tmux.keys(&["C-b", "x"]);
    tmux.wait_screen("the question naming the pane", |s| s.contains("close pane \"scratch\"?"));
    tmux.keys(&["y"]);
    wait_for("one pane", 1, || panes(&server).len());
    tmux.wait_screen("one pane box and no question", |s| {
        boxes_on_top_row(s) == 1 && !s.contains("close pane")
    });
    assert!(panes(&server).iter().all(|p| p["pane_id"] != second.as_str()), "the asked-about pane closed");
}

#[test]
fn closing_a_tab_or_a_workspace_asks_and_enter_confirms() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some("[ui]\nprompt_new_tab_name = false\n"));
    tmux.keys(&["C-b", "c"]);
    wait_for("two tabs", 2, || tabs(&server).len());
    tmux.keys(&["C-b", "X"]);
    tmux.wait_screen("the tab question", |s| s.contains("close tab \"2\"?") && s.contains("1 pane"));
    tmux.keys(&["Enter"]);
    wait_for("one tab", 1, || tabs(&server).len());

    let created = server.call("workspace.create", json!({ "label": "doomed", "focus": true }));
    let doomed = created["workspace"]["workspace_id"].as_str().expect("a workspace id").to_owned();
    tmux.wait_screen("the new workspace in the sidebar", |s| s.contains("doomed"));
    tmux.keys(&["C-b", "D"]);
    tmux.wait_screen("the workspace question", |s| {
        s.contains("close workspace \"doomed\"?") && s.contains("1 tab, 1 pane")
    });
    tmux.keys(&["y"]);
    wait_until("the workspace closed", PATIENCE, || {
        let list = server.call("workspace.list", json!({}));
        let ids: Vec<Value> = list["workspaces"].as_array().cloned().unwrap_or_default();
        if ids.iter().any(|w| w["workspace_id"] == doomed.as_str()) {
            Err(format!("{ids:?}"))
        } else {
            Ok(())
        }
    });
}

#[test]
fn with_confirm_close_off_prefix_x_closes_at_once() {
    let server = TestServer::prepare();
    let tmux = attached(&server, Some("[ui]\nconfirm_close = false\n"));
    split(&tmux, &server);
    tmux.keys(&["C-b", "x"]);
    wait_for("one pane", 1, || panes(&server).len());
    let screen = tmux.wait_screen("one pane box", |s| boxes_on_top_row(s) == 1);
    assert!(!screen.contains("close pane"), "no question:\n{screen}");
}

#[test]
fn prefix_c_prompts_for_the_new_tab_name_and_esc_keeps_the_default() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["C-b", "c"]);
    wait_for("two tabs", 2, || tabs(&server).len());
    tmux.wait_screen("the naming dialog", |s| s.contains("rename tab"));
    tmux.keys(&["C-u"]);
    tmux.literal("builds");
    tmux.keys(&["Enter"]);
    wait_for("the new tab's name", Some("builds".to_owned()), || {
        tabs(&server).get(1).and_then(|t| t["label"].as_str()).map(str::to_owned)
    });
    tmux.wait_screen("the tab bar with the name", |s| {
        s.lines().next().is_some_and(|row| row.contains("builds")) && !s.contains("rename tab")
    });

    // Esc keeps the default label (the tab's number).
    tmux.keys(&["C-b", "c"]);
    wait_for("three tabs", 3, || tabs(&server).len());
    tmux.wait_screen("the naming dialog again", |s| s.contains("rename tab"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the dialog closed", |s| !s.contains("rename tab"));
    assert_eq!(tabs(&server)[2]["label"], "3");
}

#[test]
fn last_pane_and_agent_cycling_move_the_focus_across_tabs() {
    let server = TestServer::prepare();
    let config = "[ui]\nprompt_new_tab_name = false\n\n[keys]\nlast_pane = \"prefix+a\"\n\
                  next_agent = \"prefix+m\"\nprevious_agent = \"prefix+shift+m\"\n";
    let tmux = attached(&server, Some(config));
    let first = focused_pane(&server).expect("a focused pane");
    let second = split(&tmux, &server);
    tmux.keys(&["C-b", "c"]);
    wait_for("two tabs", 2, || tabs(&server).len());
    let third = focused_pane(&server).expect("the new tab's pane");
    assert!(third != first && third != second);

    // last_pane goes back to the pane before, in the other tab, and then forth again.
    tmux.keys(&["C-b", "a"]);
    wait_for("the second pane focused", Some(second.clone()), || focused_pane(&server));
    tmux.keys(&["C-b", "a"]);
    wait_for("the third pane focused", Some(third.clone()), || focused_pane(&server));
    // A closed pane is skipped: close the second (through the API), then the one before it.
    server.call("pane.close", json!({ "pane_id": second }));
    wait_for("two panes", 2, || panes(&server).len());
    tmux.keys(&["C-b", "a"]);
    wait_for("the first pane focused", Some(first.clone()), || focused_pane(&server));

    // Agents in the first and third panes: next/previous agent cycle between them, wrapping.
    for pane in [&first, &third] {
        let report = json!({ "pane_id": pane, "source": "e2e", "agent": "claude", "state": "idle" });
        server.call("pane.report_agent", report);
    }
    tmux.keys(&["C-b", "m"]);
    wait_for("the third pane's agent focused", Some(third.clone()), || focused_pane(&server));
    tmux.keys(&["C-b", "m"]);
    wait_for("wrapped to the first agent", Some(first.clone()), || focused_pane(&server));
    tmux.keys(&["C-b", "M"]);
    wait_for("back to the third", Some(third), || focused_pane(&server));
}

#[test]
fn the_help_lists_navigate_resize_and_copy_mode_keys() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["C-b", "?"]);
    let screen = tmux.wait_screen("the help with the mode sections", |s| {
        ["navigate mode", "resize mode", "copy mode", "search forward, back", "copy and leave"]
            .iter()
            .all(|needle| s.contains(needle))
    });
    assert!(!screen.contains("more"), "the whole help fits 120x40:\n{screen}");
    tmux.keys(&["q"]);
    tmux.wait_screen("the help closed", |s| !s.contains("copy mode"));
}

#[test]
fn a_binding_for_something_not_built_says_so_instead_of_doing_nothing() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["C-b", "s"]);
    tmux.wait_screen("the not-available toast", |s| s.contains("not available") && s.contains("`settings`"));
}
