//! Copy mode, mouse selection and the clipboard in a real terminal: `herdr` runs inside tmux
//! with `set-clipboard on`, so the OSC 52 the client writes for a copy lands in a tmux paste
//! buffer the test reads back. Copy mode searches, selects (drawn in the selection colour) and
//! yanks; a drag and a double-click copy what they select; output keeps arriving meanwhile.
//! Typed keys reach a program that asked for the kitty keyboard protocol in its encoding.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::json;
use support::{Tmux, boxes_on_top_row, find_on_screen, sgr_mouse};

/// The default theme's `selection_bg` (#45475a) as a true-colour background in `capture-pane -e`.
const SELECTION_BG: &str = "48;2;69;71;90";

fn last_row(screen: &str) -> &str {
    screen.lines().last().unwrap_or_default()
}

/// herdr attached in a fresh tmux whose paste buffers take OSC 52.
fn attached(server: &TestServer) -> Tmux<'_> {
    attached_on(server, "tmux.sock")
}

/// [`attached`] in a tmux on its own socket.
fn attached_on<'a>(server: &'a TestServer, socket: &str) -> Tmux<'a> {
    let tmux = Tmux::start_on(server, socket);
    tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
    tmux.attach_herdr();
    tmux
}

/// The terminal's cursor cell, where herdr put it.
fn cursor(tmux: &Tmux<'_>) -> Option<(u16, u16)> {
    let out = tmux.run(&["display-message", "-p", "-t", "0", "#{cursor_x},#{cursor_y}"]);
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let (x, y) = text.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

fn focused_pane(server: &TestServer) -> String {
    let panes = server.call("pane.list", json!({}));
    let focused = panes["panes"].as_array().and_then(|ps| ps.iter().find(|p| p["focused"] == true));
    focused.and_then(|p| p["pane_id"].as_str()).expect("a focused pane").to_owned()
}

/// The highest `tick-N` in the pane's recent output.
fn latest_tick(server: &TestServer, pane_id: &str) -> u32 {
    let read = server.call("pane.read", json!({ "pane_id": pane_id, "source": "recent" }));
    let text = read["read"]["text"].as_str().unwrap_or_default().to_owned();
    text.lines().filter_map(|l| l.trim().strip_prefix("tick-")?.parse().ok()).max().unwrap_or(0)
}

#[test]
fn copy_mode_searches_selects_and_yanks_while_output_keeps_arriving() {
    let server = TestServer::prepare();
    let tmux = attached(&server);
    // The loop prints the lines; its own echo never contains them literally.
    tmux.keys(&["for i in 1 2 3 4 5; do echo \"copyline-$i word$i\"; done", "Enter"]);
    tmux.wait_screen("the printed lines", |s| s.contains("copyline-5 word5"));

    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("the copy mode bar", |s| last_row(s).contains("COPY"));
    tmux.literal("?copyline-2");
    tmux.wait_screen("the search prompt on the bar", |s| last_row(s).contains("?copyline-2"));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_screen("the prompt gone", |s| !last_row(s).contains("?copyline-2"));
    let found = find_on_screen(&screen, "copyline-2 word2").expect("the line on screen");
    wait_until("the copy cursor on the match", PATIENCE, || match cursor(&tmux) {
        Some(at) if at == found => Ok(()),
        other => Err(format!("cursor {other:?}, match at {found:?}")),
    });

    tmux.keys(&["v", "$"]);
    wait_until("the selection drawn over the line", PATIENCE, || selection_on(&tmux, "copyline-2"));
    // Esc clears the selection first and stays in copy mode.
    tmux.keys(&["Escape"]);
    wait_until("the selection cleared", PATIENCE, || match selection_on(&tmux, "copyline-2") {
        Ok(()) => Err("still selected".to_owned()),
        Err(_) => Ok(()),
    });
    assert!(last_row(&tmux.screen(false)).contains("COPY"), "Esc with a selection stays in copy mode");
    // A search that finds nothing says so on the bar and leaves the cursor where it was.
    let before = cursor(&tmux);
    tmux.literal("/zzz-nothing");
    tmux.wait_screen("the forward prompt", |s| last_row(s).contains("/zzz-nothing"));
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the failed search on the bar", |s| last_row(s).contains("no match: zzz-nothing"));
    assert_eq!(cursor(&tmux), before, "the cursor stays where it was");

    tmux.keys(&["0", "v", "$"]);
    wait_until("the selection drawn again", PATIENCE, || selection_on(&tmux, "copyline-2"));
    let other = tmux.screen(true);
    let other_row = other.lines().find(|r| r.contains("copyline-4")).unwrap_or_default();
    assert!(!other_row.contains(SELECTION_BG), "only the selected line is highlighted: {other_row:?}");

    tmux.keys(&["y"]);
    tmux.wait_buffer("the yanked line in the clipboard", "copyline-2 word2");
    tmux.wait_screen("the copy bar gone after the yank", |s| !last_row(s).contains("COPY"));

    // Output keeps arriving while the pane is in copy mode.
    let pane = focused_pane(&server);
    tmux.keys(&["i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done", "Enter"]);
    wait_until("the counter to run", PATIENCE, || match latest_tick(&server, &pane) {
        n if n >= 3 => Ok(()),
        n => Err(format!("tick {n}")),
    });
    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("the copy mode bar again", |s| last_row(s).contains("COPY"));
    let entered = latest_tick(&server, &pane);
    wait_until("the counter to keep counting in copy mode", PATIENCE, || match latest_tick(&server, &pane) {
        n if n >= entered + 5 => Ok(()),
        n => Err(format!("tick {n} (entered at {entered})")),
    });
    assert!(last_row(&tmux.screen(false)).contains("COPY"), "still in copy mode");
    // Esc with nothing selected leaves.
    tmux.keys(&["Escape"]);
    tmux.wait_screen("the copy bar gone after Esc", |s| !last_row(s).contains("COPY"));
    tmux.keys(&["C-c"]);

    // Focus moving to another pane ends copy mode.
    let other = herdr_e2e::panes::split(&server, &pane, "right");
    tmux.wait_screen("two pane boxes", |s| boxes_on_top_row(s) == 2);
    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("copy mode on the first pane", |s| last_row(s).contains("COPY"));
    server.call("pane.focus", json!({ "pane_id": other }));
    tmux.wait_screen("copy mode gone with the focus", |s| !last_row(s).contains("COPY"));
}

/// Whether the screen row showing `text` is drawn in the selection colour.
fn selection_on(tmux: &Tmux<'_>, text: &str) -> Result<(), String> {
    let screen = tmux.screen(true);
    let row = screen.lines().find(|r| r.contains(text)).unwrap_or_default().to_owned();
    if row.contains(SELECTION_BG) { Ok(()) } else { Err(format!("row {row:?}")) }
}

#[test]
fn dragging_and_double_clicking_copy_what_they_select() {
    let server = TestServer::prepare();
    let tmux = attached(&server);
    tmux.keys(&["a=dragme; echo \"$a-alpha $a-beta\"", "Enter"]);
    let screen = tmux.wait_screen("the line to drag over", |s| s.contains("dragme-alpha dragme-beta"));
    let (x, y) = find_on_screen(&screen, "dragme-beta").expect("the word on screen");
    let end = x + "dragme-beta".len() as u16 - 1;
    tmux.literal(&sgr_mouse(0, x, y, true));
    tmux.literal(&sgr_mouse(32, x + 4, y, true));
    tmux.literal(&sgr_mouse(32, end, y, true));
    wait_until("the dragged cells drawn as selected", PATIENCE, || {
        let screen = tmux.screen(true);
        let row = screen.lines().nth(usize::from(y)).unwrap_or_default().to_owned();
        if row.contains(SELECTION_BG) { Ok(()) } else { Err(format!("row {row:?}")) }
    });
    tmux.literal(&sgr_mouse(0, end, y, false));
    tmux.wait_buffer("the dragged text in the clipboard", "dragme-beta");
    tmux.wait_screen("the copied toast", |s| s.contains("copied"));

    tmux.keys(&["w=doubleclick; echo \"left ${w}word right\"", "Enter"]);
    let screen = tmux.wait_screen("the word to double-click", |s| s.contains("left doubleclickword right"));
    let (x, y) = find_on_screen(&screen, "doubleclickword").expect("the word on screen");
    // Both clicks in one write, so a loaded machine cannot stretch them past the 400 ms.
    let click = format!("{}{}", sgr_mouse(0, x + 3, y, true), sgr_mouse(0, x + 3, y, false));
    tmux.literal(&click.repeat(2));
    tmux.wait_buffer("the double-clicked word in the clipboard", "doubleclickword");
}

/// Whether some pane row of `screen` shows exactly `text` (between box borders).
fn shows_line(screen: &str, text: &str) -> bool {
    screen.lines().any(|row| row.split(['│', '┃', '█']).any(|cell| cell.trim() == text))
}

#[test]
fn a_client_hanging_up_in_copy_mode_takes_the_pane_out_of_it() {
    let server = TestServer::prepare();
    let tmux = attached(&server);
    tmux.keys(&["clear; seq -f 'hist-%g' 1 200", "Enter"]);
    tmux.wait_screen("the history's end", |s| shows_line(s, "hist-200"));
    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("the copy mode bar", |s| last_row(s).contains("COPY"));
    tmux.keys(&["g"]);
    tmux.wait_screen("copy mode at the top of the history", |s| shows_line(s, "hist-1"));

    // Closing the terminal hangs up the client while the pane is in copy mode.
    drop(tmux);
    let tmux = attached_on(&server, "second-tmux.sock");
    tmux.wait_screen("the pane back on its live screen", |s| {
        shows_line(s, "hist-200") && !shows_line(s, "hist-1") && !last_row(s).contains("COPY")
    });
}

#[test]
fn typed_keys_reach_a_kitty_keyboard_program_in_its_encoding() {
    let server = TestServer::prepare();
    let tmux = attached(&server);
    // The program asks for the kitty keyboard protocol (disambiguate): Esc must reach it as
    // CSI 27 u, while tmux (a legacy terminal) sends herdr a bare ESC. Plain letters stay as typed.
    tmux.keys(&[r"clear; printf '\033[>1u'; stty -icanon -echo; cat -v", "Enter"]);
    wait_until("cat to read the terminal", PATIENCE, || {
        tmux.keys(&["x"]);
        let screen = tmux.screen(false);
        let typed = screen.lines().any(|row| row.split(['│', '┃']).any(|cell| cell.trim().starts_with('x')));
        if typed { Ok(()) } else { Err(format!("screen:\n{screen}")) }
    });
    tmux.keys(&["Escape"]);
    tmux.wait_screen("Esc in the kitty encoding", |s| s.contains("^[[27u"));
    tmux.keys(&["a"]);
    tmux.wait_screen("a plain letter unchanged", |s| s.contains("^[[27ua"));
}

#[test]
fn copy_on_select_off_keeps_drags_off_the_clipboard_and_the_toast_can_be_turned_off() {
    let server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    let config = "[ui]\ncopy_on_select = false\n[ui.toast.clipboard]\nenabled = false\n";
    std::fs::write(config_dir.join("config.toml"), config).expect("write config");
    let tmux = attached(&server);
    tmux.keys(&["a=dragme; echo \"$a-alpha $a-beta\"", "Enter"]);
    let screen = tmux.wait_screen("the line to drag over", |s| s.contains("dragme-alpha dragme-beta"));
    let (x, y) = find_on_screen(&screen, "dragme-beta").expect("the word on screen");
    tmux.literal(&sgr_mouse(0, x, y, true));
    tmux.literal(&sgr_mouse(32, x + 5, y, true));
    wait_until("the dragged cells drawn as selected", PATIENCE, || {
        let screen = tmux.screen(true);
        let row = screen.lines().nth(usize::from(y)).unwrap_or_default().to_owned();
        if row.contains(SELECTION_BG) { Ok(()) } else { Err(format!("row {row:?}")) }
    });
    tmux.literal(&sgr_mouse(0, x + 5, y, false));

    // Copy mode takes the mouse selection over and a yank copies it: the only buffer, the drag
    // itself copied nothing.
    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("the copy mode bar", |s| last_row(s).contains("COPY"));
    tmux.keys(&["y"]);
    tmux.wait_buffer("the yanked selection", "dragme");
    let buffers = tmux.run(&["list-buffers", "-F", "#{buffer_name}"]);
    assert_eq!(String::from_utf8_lossy(&buffers.stdout).lines().count(), 1, "only the yank was copied");
    // Something painted after the copy: a toast would still be on screen for seconds.
    tmux.keys(&["echo after-$((2*4))", "Enter"]);
    let screen =
        tmux.wait_screen("a later paint", |s| s.lines().any(|r| r.contains("after-8") && !r.contains("$((")));
    assert!(!screen.contains("copied"), "no clipboard toast when it is turned off:\n{screen}");
}

/// The pane's history leaves its terminal for the worker's packed archive as it collects
/// (ARCHITECTURE.md, "Pane history"); copy mode, its search and API reads still reach every row.
#[test]
fn copy_mode_and_reads_reach_the_oldest_row_of_an_archived_history() {
    let server = TestServer::prepare();
    let tmux = attached(&server);
    // The pause after the lines lets the worker's pass archive and pack them.
    tmux.keys(&["clear; seq -f 'deep-%05g' 1 3000; sleep 1; echo history-$((6*7))", "Enter"]);
    tmux.wait_screen("the output's end", |s| shows_line(s, "history-42"));
    let pane = focused_pane(&server);
    let read = server.call("pane.read", json!({ "pane_id": pane, "source": "recent", "lines": 1000 }));
    let text = read["read"]["text"].as_str().unwrap_or_default();
    let deep: Vec<u32> = text.lines().filter_map(|l| l.strip_prefix("deep-")?.parse().ok()).collect();
    assert!(deep.len() >= 990, "the last 1,000 rows, most from the archive: {} of them", deep.len());
    let expected: Vec<u32> = (3001 - deep.len() as u32..=3000).collect();
    assert_eq!(deep, expected, "in order, none missing");
    let info = server.call("pane.get", json!({ "pane_id": pane }));
    let above = info["pane"]["scroll"]["max_offset_from_bottom"].as_u64().unwrap_or_default();
    assert!(above >= 3000 - 40, "every row counts as history: {above}");

    tmux.keys(&["C-b", "["]);
    tmux.wait_screen("the copy mode bar", |s| last_row(s).contains("COPY"));
    tmux.literal("?deep-00001");
    tmux.wait_screen("the search prompt", |s| last_row(s).contains("?deep-00001"));
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the oldest row found", |s| shows_line(s, "deep-00001"));
    tmux.keys(&["v", "$", "y"]);
    tmux.wait_buffer("the oldest row copied", "deep-00001");
    tmux.wait_screen("the live screen again", |s| {
        shows_line(s, "history-42") && !last_row(s).contains("COPY")
    });
}
