//! The terminal UI in a real terminal: `herdr` runs inside tmux (120×40) with the test's
//! environment, and the test types with `send-keys` and reads the screen with `capture-pane`,
//! as a person would: attaching starts a server, the sidebar shows the workspace, `C-b v`
//! splits, typed text reaches the program, `C-b q` detaches back to the shell with everything
//! still running, attaching again shows the same panes, and closing the terminal ends only the
//! client.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, procs, wait_until};
use serde_json::{Value, json};
use support::{Tmux, boxes_on_top_row, sgr_mouse};

fn pane_ids(server: &TestServer) -> Vec<String> {
    let answer = server.request("pane.list", json!({}));
    answer["result"]["panes"].as_array().map_or_else(Vec::new, |panes| {
        panes.iter().filter_map(|p| p["pane_id"].as_str().map(str::to_owned)).collect()
    })
}

#[test]
fn herdr_in_tmux_attaches_splits_types_detaches_and_reattaches() {
    // No server yet: plain `herdr` starts one in the background.
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);

    let screen =
        tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    let workspaces = server.call("workspace.list", json!({}));
    let label = workspaces["workspaces"][0]["label"].as_str().expect("a workspace label").to_owned();
    assert!(screen.lines().take(5).any(|row| row.contains(&label)), "the sidebar names {label}:\n{screen}");
    let mouse = tmux.run(&["display-message", "-p", "-t", "0", "#{mouse_sgr_flag}"]);
    assert_eq!(String::from_utf8_lossy(&mouse.stdout).trim(), "1", "SGR mouse reporting is on");
    let coloured = tmux.screen(true);
    assert!(coloured.contains("\x1b[") && coloured.contains("38;"), "the chrome is drawn in colour");

    // The prefix shows the mode bar on the bottom row until the next key.
    tmux.keys(&["C-b"]);
    tmux.wait_screen("the prefix mode bar", |s| s.lines().last().is_some_and(|row| row.contains("PREFIX")));
    tmux.keys(&["v"]);
    wait_until("two panes", PATIENCE, || match pane_ids(&server).len() {
        2 => Ok(()),
        n => Err(format!("{n} panes")),
    });
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2);

    let snapshot = server.call("session.snapshot", json!({}));
    let focused = snapshot["snapshot"]["focused_pane_id"].as_str().expect("a focused pane").to_owned();
    tmux.keys(&["echo typed-$((40+2))", "Enter"]);
    wait_until("the typed command's output in the focused pane", PATIENCE, || {
        let read: Value = server.call("pane.read", json!({ "pane_id": focused, "source": "recent" }));
        let text = read["read"]["text"].as_str().unwrap_or_default().to_owned();
        if text.lines().any(printed_typed_42) { Ok(()) } else { Err(text) }
    });

    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("the shell after detaching", |s| s.contains("[detached]") && s.contains("e2e$"));
    server.assert_alive();
    assert_eq!(pane_ids(&server).len(), 2, "the panes keep running after detach");

    tmux.keys(&["clear; herdr", "Enter"]);
    tmux.wait_screen("the same two panes after reattaching", |s| {
        s.contains("spaces") && boxes_on_top_row(s) == 2
    });
    assert_eq!(pane_ids(&server).len(), 2);

    // Resizing the terminal (SIGWINCH to the client) resizes the layout: 100 columns minus the
    // 26-column sidebar, 30 rows minus the tab bar.
    tmux.run(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    wait_until("the layout to follow the terminal's size", PATIENCE, || {
        let snapshot = server.call("session.snapshot", json!({}));
        let area = &snapshot["snapshot"]["layouts"][0]["area"];
        match (area["width"].as_u64(), area["height"].as_u64()) {
            (Some(74), Some(29)) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    tmux.wait_screen("the frame repainted at the new size", |s| {
        s.lines().nth(1).is_some_and(|row| row.chars().count() == 100 && row.ends_with('┓'))
    });

    // Closing the terminal hangs up the client (SIGHUP): it exits, the session does not notice.
    assert_eq!(attached_clients(&server).len(), 1, "one attached client runs");
    tmux.run(&["kill-server"]);
    wait_until("the client to exit", PATIENCE, || match attached_clients(&server).as_slice() {
        [] => Ok(()),
        pids => Err(format!("clients still running: {pids:?}")),
    });
    server.assert_alive();
    assert_eq!(pane_ids(&server).len(), 2, "the panes keep running after the terminal closed");
}

/// Live `herdr` client processes (plain `herdr`, no subcommand) started for this test.
fn attached_clients(server: &TestServer) -> Vec<i32> {
    let marker =
        server.env().iter().find(|(key, _)| key == "HERDR_E2E_MARKER").map(|(k, v)| format!("{k}={v}"));
    let marker = marker.expect("the test environment has a marker");
    procs::all()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.cmdline == ["herdr"] && procs::environ_has(p.pid, &marker))
        .map(|p| p.pid)
        .collect()
}

/// Whether `line` shows the output of `echo typed-$((40+2))`, not its echo. Typed ahead of the
/// shell's first prompt, the output can share a line with that prompt.
fn printed_typed_42(line: &str) -> bool {
    line.trim_end().ends_with("typed-42") && !line.contains("$((")
}

/// The screen row that shows `needle`, if any.
fn row_with<'s>(screen: &'s str, needle: &str) -> Option<&'s str> {
    screen.lines().find(|row| row.contains(needle))
}

#[test]
fn pane_contents_reach_the_terminal_in_colour_and_full_screen_programs_redraw_on_resize() {
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);

    // What the program prints is on the screen, inside the pane's box.
    tmux.keys(&["echo hello-from-$((6*7))-pane", "Enter"]);
    let screen = tmux.wait_screen("the program's output", |s| {
        s.lines().any(|row| row.contains("hello-from-42-pane") && !row.contains("$(("))
    });
    let row = row_with(&screen, "hello-from-42-pane").expect("the output row");
    assert!(row.contains('│') || row.contains('┃'), "the output is drawn inside the pane box: {row:?}");

    // The program's terminal is the inside of its box, sized once by the model: 120 columns minus
    // the 26-column sidebar and the two border columns; 40 rows minus the tab bar and borders.
    tmux.keys(&["stty size | sed 's/^/size-/'", "Enter"]);
    tmux.wait_screen("the pane's terminal size", |s| s.contains("size-37 92"));

    // Colours survive the trip: palette red and a true colour.
    tmux.keys(&[r"printf '\033[31mRED-%s\033[0m \033[38;2;255;100;0mTRUE-%s\033[0m\n' 2 3", "Enter"]);
    tmux.wait_screen("the coloured words", |s| s.lines().any(|r| r.contains("RED-2 TRUE-3")));
    let coloured = tmux.screen(true);
    let row = row_with(&coloured, "TRUE-3").expect("the coloured row");
    assert!(row.contains("38;2;255;100;0"), "true colour survives: {row:?}");
    assert!(
        ["[31m", ";31m", "[31;", "38;5;1m", "38;5;1;"].iter().any(|sgr| row.contains(sgr)),
        "palette red survives: {row:?}"
    );

    // A full-screen program fills the pane, and redraws when the terminal shrinks.
    tmux.keys(&["clear; seq -f 'line-%g' 1 500 | less", "Enter"]);
    tmux.wait_screen("less showing a page", |s| s.contains("line-36") && !s.contains("line-37"));
    tmux.keys(&["Space"]);
    tmux.wait_screen("less's next page", |s| s.contains("line-72") && !s.contains("line-36 "));
    tmux.run(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    // 30 rows: 29 for the layout, 27 inside the box: less keeps its top line (37) and shows 26
    // lines of text above its prompt.
    tmux.wait_screen("less redrawn for the smaller pane", |s| {
        s.lines().nth(1).is_some_and(|row| row.chars().count() == 100)
            && s.contains("line-37")
            && s.contains("line-62")
            && !s.contains("line-63")
    });
    tmux.keys(&["q"]);
    tmux.keys(&["echo back-$((2+3))", "Enter"]);
    tmux.wait_screen("the shell again after less", |s| s.contains("back-5") && !s.contains("line-40"));
}

/// Whether some pane row of `screen` shows exactly `text` (between box borders).
fn shows_line(screen: &str, text: &str) -> bool {
    screen.lines().any(|row| row.split(['│', '┃', '█']).any(|cell| cell.trim() == text))
}

/// The smallest `hist-N` a screen shows.
fn first_hist(screen: &str) -> Option<u32> {
    screen
        .lines()
        .flat_map(|row| row.split(['│', '┃', '█']))
        .filter_map(|cell| cell.trim().strip_prefix("hist-")?.parse().ok())
        .min()
}

fn focused_pane(server: &TestServer) -> Option<String> {
    let panes = server.call("pane.list", json!({}));
    let panes = panes["panes"].as_array()?;
    panes.iter().find(|p| p["focused"] == true).and_then(|p| p["pane_id"].as_str().map(str::to_owned))
}

#[test]
fn mouse_clicks_focus_panes_drag_resizes_splits_and_the_wheel_scrolls() {
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    let first = pane_ids(&server).pop().expect("the first pane");
    tmux.keys(&["C-b", "v"]);
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2);
    let second = focused_pane(&server).expect("a focused pane");
    assert_ne!(first, second, "the new pane has focus");

    // 120 columns: the sidebar takes 26, each pane box 47 (the left one is x 26..=72).
    let click = |x: u16, y: u16| {
        tmux.keys(&["-l", &sgr_mouse(0, x, y, true)]);
        tmux.keys(&["-l", &sgr_mouse(0, x, y, false)]);
    };
    click(35, 10);
    wait_until("the clicked pane to have focus", PATIENCE, || match focused_pane(&server) {
        Some(p) if p == first => Ok(()),
        other => Err(format!("focused: {other:?}")),
    });

    // Dragging the border between them (the left box's right edge, x = 72) to x = 82.
    tmux.keys(&["-l", &sgr_mouse(0, 72, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(32, 78, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(32, 82, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(0, 82, 10, false)]);
    wait_until("the split ratio to follow the drag", PATIENCE, || {
        let layout = server.call("pane.layout", json!({ "pane_id": first }));
        let ratio = layout["layout"]["splits"][0]["ratio"].as_f64().unwrap_or_default();
        if (ratio - 57.0 / 94.0).abs() < 0.01 { Ok(()) } else { Err(format!("ratio {ratio}: {layout}")) }
    });
    tmux.wait_screen("the left box to end at x = 82", |s| {
        s.lines().nth(1).is_some_and(|row| row.chars().nth(82) == Some('┓'))
    });

    // The wheel scrolls the focused shell's history back, and typing returns to the bottom.
    let request = json!({"id": "scrolls", "method": "events.subscribe", "params": {"subscriptions": [
        {"type": "pane.scroll_changed", "pane_id": first}]}});
    let mut scrolls = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
    let ack = scrolls.next_line(PATIENCE).expect("read the ack").expect("an ack");
    assert_eq!(server.check_line(&ack).expect("valid")["result"]["type"], "subscription_started");
    tmux.keys(&["clear; seq -f 'hist-%g' 1 200", "Enter"]);
    let screen = tmux.wait_screen("the history's end", |s| shows_line(s, "hist-200"));
    let top = first_hist(&screen).expect("some history on screen");
    for _ in 0..5 {
        tmux.keys(&["-l", &sgr_mouse(64, 35, 10, true)]);
    }
    let screen = tmux.wait_screen("older lines after wheeling up", |s| {
        first_hist(s) == Some(top - 15) && !shows_line(s, "hist-200")
    });
    assert!(screen.contains('█'), "a scrolled-back pane shows a scrollbar thumb:\n{screen}");
    let scroll = server.call("pane.get", json!({ "pane_id": first }))["pane"]["scroll"].clone();
    assert_eq!(scroll["offset_from_bottom"], 15, "pane.get tells how far it is scrolled: {scroll}");
    assert_eq!(scroll["viewport_rows"], 37, "{scroll}");
    wait_until("a pane.scroll_changed event 15 rows up", PATIENCE, || {
        let line = scrolls.next_line(PATIENCE).map_err(|e| e.to_string())?.ok_or("the stream ended")?;
        let event = server.check_line(&line).map_err(|e| format!("{e:?}"))?;
        let up =
            event["event"] == "pane.scroll_changed" && event["data"]["scroll"]["offset_from_bottom"] == 15;
        if up && event["data"]["pane_id"] == json!(first) { Ok(()) } else { Err(line) }
    });
    tmux.keys(&["-l", &sgr_mouse(65, 35, 10, true)]);
    tmux.wait_screen("three lines further down", |s| first_hist(s) == Some(top - 12));
    // Pressing the top of the scrollbar (the left box's right border, now x = 82) shows the oldest
    // history.
    tmux.keys(&["-l", &sgr_mouse(0, 82, 2, true)]);
    tmux.keys(&["-l", &sgr_mouse(0, 82, 2, false)]);
    tmux.wait_screen("the oldest history from the scrollbar", |s| first_hist(s) == Some(1));
    tmux.keys(&["echo bottom-$((1+1))", "Enter"]);
    tmux.wait_screen("the live screen again after typing", |s| {
        s.lines().any(|row| row.contains("bottom-2") && !row.contains("$((")) && !s.contains('█')
    });
    // The API scrolls too: to the top of the history (clamped), then back to the live screen.
    server.call("pane.scroll", json!({ "pane_id": first, "offset_from_bottom": 100_000 }));
    tmux.wait_screen("the top of the history", |s| shows_line(s, "hist-1"));
    server.call("pane.scroll", json!({ "pane_id": first, "offset_from_bottom": 0 }));
    tmux.wait_screen("the live screen again", |s| s.contains("bottom-2") && !shows_line(s, "hist-1"));

    // A pager on the alternate screen scrolls by arrow keys.
    tmux.keys(&["clear; seq -f 'line-%g' 1 500 | less", "Enter"]);
    tmux.wait_screen("less showing a page", |s| shows_line(s, "line-1") && shows_line(s, "line-36"));
    tmux.keys(&["-l", &sgr_mouse(65, 35, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(65, 35, 10, true)]);
    tmux.wait_screen("less six lines down", |s| {
        shows_line(s, "line-7") && shows_line(s, "line-42") && !shows_line(s, "line-6")
    });
    tmux.keys(&["q"]);

    // A program that asked for SGR mouse reports gets the click, in its own grid's cells: the
    // left pane's content starts at x = 27, y = 2, so (35, 10) is its (8, 8), 1-based (9, 9).
    tmux.keys(&[r"clear; printf '\033[?1000h\033[?1006h'; stty -icanon -echo; cat -v", "Enter"]);
    tmux.wait_screen("the cleared pane", |s| !s.contains("bottom-2"));
    wait_until("cat to read the terminal", PATIENCE, || {
        click(35, 10);
        let screen = tmux.screen(false);
        if screen.contains("^[[<0;9;9M^[[<0;9;9m") { Ok(()) } else { Err(format!("screen:\n{screen}")) }
    });
    assert_eq!(focused_pane(&server), Some(first.clone()), "the click kept the pane focused");
    tmux.keys(&["C-c"]);
}

#[test]
fn toasts_help_and_a_key_reload_show_in_a_real_terminal() {
    let server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), "[ui.toast]\ndelivery = \"herdr\"\n")
        .expect("write config");
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);

    // A script's notification is a toast in the bottom-right corner.
    let out = server.cli(&["notification", "show", "tests passed", "--body", "412 of 412"]);
    assert!(out.status.success(), "{out:?}");
    let screen = tmux.wait_screen("the toast", |s| s.contains("tests passed") && s.contains("412 of 412"));
    let row = screen.lines().position(|l| l.contains("tests passed")).expect("the toast's row");
    assert!(row > 30, "bottom-right means near the bottom (row {row}):\n{screen}");
    tmux.wait_screen("the toast to go away", |s| !s.contains("tests passed"));

    // prefix + ? lists the bindings; any key closes the list.
    tmux.keys(&["C-b", "?"]);
    tmux.wait_screen("the help", |s| s.contains("Keybindings") && s.contains("ctrl+b minus"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the help closed", |s| !s.contains("Keybindings"));

    // A new prefix takes effect on reload, without re-attaching.
    std::fs::write(config_dir.join("config.toml"), "[keys]\nprefix = \"ctrl+a\"\n").expect("rewrite config");
    let out = server.cli(&["server", "reload-config"]);
    assert!(out.status.success() && out.stdout.contains("applied"), "{out:?}");
    tmux.keys(&["C-a", "v"]);
    tmux.wait_screen("two pane boxes after ctrl+a v", |s| boxes_on_top_row(s) == 2);
}

#[test]
fn with_mouse_capture_off_clicks_do_nothing() {
    let server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), "[ui]\nmouse_capture = false\n").expect("write config");
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    let mouse = tmux.run(&["display-message", "-p", "-t", "0", "#{mouse_any_flag}#{mouse_sgr_flag}"]);
    assert_eq!(String::from_utf8_lossy(&mouse.stdout).trim(), "00", "the client leaves mouse reporting off");
    tmux.keys(&["C-b", "v"]);
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2);
    let second = focused_pane(&server).expect("a focused pane");

    // A report that arrives anyway (here typed by tmux) is dropped: the left pane does not take
    // focus, and the keys after it still reach the focused right pane.
    tmux.keys(&["-l", &sgr_mouse(0, 35, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(0, 35, 10, false)]);
    tmux.keys(&["echo after-click-$((3*3))", "Enter"]);
    wait_until("the typed command's output in the right pane", PATIENCE, || {
        let read: Value = server.call("pane.read", json!({ "pane_id": second, "source": "recent" }));
        let text = read["read"]["text"].as_str().unwrap_or_default().to_owned();
        if text.lines().any(|l| l.trim_end().ends_with("after-click-9")) { Ok(()) } else { Err(text) }
    });
    assert_eq!(focused_pane(&server), Some(second), "the click did not move focus");
}

#[test]
fn mouse_clicks_focus_tabs_and_workspaces_and_dragging_the_sidebar_edge_resizes_it() {
    let server = TestServer::prepare();
    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&["herdr", "Enter"]);
    tmux.wait_screen("the sidebar and one pane", |s| s.contains("spaces") && boxes_on_top_row(s) == 1);
    let snapshot = || server.call("session.snapshot", json!({}))["snapshot"].clone();
    let first_tab = snapshot()["focused_tab_id"].as_str().expect("a focused tab").to_owned();
    tmux.keys(&["C-b", "c"]);
    wait_until("a second tab with focus", PATIENCE, || match snapshot()["focused_tab_id"].as_str() {
        Some(tab) if tab != first_tab => Ok(()),
        other => Err(format!("focused tab {other:?}")),
    });
    // A new tab asks for its name (ui.prompt_new_tab_name): keep the default.
    tmux.wait_screen("the new tab's naming dialog", |s| s.contains("rename tab"));
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the naming dialog gone", |s| !s.contains("rename tab"));
    let press = |x: u16, y: u16| {
        tmux.keys(&["-l", &sgr_mouse(0, x, y, true)]);
        tmux.keys(&["-l", &sgr_mouse(0, x, y, false)]);
    };
    // The tab bar starts after the 26-column sidebar; the first tab is its first few cells.
    press(27, 0);
    wait_until("the clicked tab to have focus", PATIENCE, || match snapshot()["focused_tab_id"].as_str() {
        Some(tab) if tab == first_tab => Ok(()),
        other => Err(format!("focused tab {other:?}")),
    });

    // A second workspace is listed under the first (row 0 is the panel's title).
    let created = server.call("workspace.create", json!({ "focus": false }));
    let second = created["workspace"]["workspace_id"].as_str().expect("a workspace id").to_owned();
    tmux.wait_screen("two workspaces in the sidebar", |s| s.lines().nth(2).is_some_and(|r| r.contains("·")));
    press(3, 2);
    wait_until("the clicked workspace to have focus", PATIENCE, || match snapshot()["focused_workspace_id"]
        .as_str()
    {
        Some(w) if w == second => Ok(()),
        other => Err(format!("focused workspace {other:?}")),
    });

    // Dragging the sidebar's edge (x = 25) to x = 30 makes it 31 wide: the layout gets 89 columns.
    tmux.keys(&["-l", &sgr_mouse(0, 25, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(32, 30, 10, true)]);
    tmux.keys(&["-l", &sgr_mouse(0, 30, 10, false)]);
    wait_until("the layout to shrink with the wider sidebar", PATIENCE, || {
        let layouts = snapshot()["layouts"].clone();
        let widths: Vec<u64> = layouts
            .as_array()
            .map(|ls| ls.iter().filter_map(|l| l["area"]["width"].as_u64()).collect())
            .unwrap_or_default();
        if widths.contains(&89) { Ok(()) } else { Err(format!("widths {widths:?}")) }
    });
    tmux.wait_screen("the divider at x = 30", |s| {
        s.lines().nth(5).is_some_and(|r| r.chars().nth(30) == Some('│'))
    });
}
