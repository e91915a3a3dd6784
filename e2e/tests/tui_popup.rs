//! Popups in a real terminal: `herdr` runs inside tmux with a `[[keys.command]] type = "popup"`
//! binding; the popup opens as a bordered box over two panes, takes the keys, ignores clicks
//! outside it, and closes with its program or on `popup.close`, leaving the layout as it was.
//! Every API answer here is checked against the protocol-22 schema by the harness.

// The shared tmux harness has helpers (paste buffers, second sockets) this suite does not use.
#[allow(dead_code)]
mod support;

use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};
use support::{Tmux, attached, sgr_mouse};

const POPUP: &str = r#"
[[keys.command]]
key = "prefix+p"
type = "popup"
command = "echo $$ > \"$HOME/popup.pid\"; echo popup-ready; read line; echo got-$line $(stty size); read more"
description = "the popup"
width = "50%"
height = 12
"#;

/// The layout as the API reports it: every pane of every tab with its rect, and the focus.
fn layout(server: &TestServer) -> (Value, Value, Vec<Value>) {
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let panes = server.call("pane.list", json!({}))["panes"].as_array().cloned().unwrap_or_default();
    let ids: Vec<Value> = panes.iter().map(|p| p["pane_id"].clone()).collect();
    (snapshot["layouts"].clone(), snapshot["focused_pane_id"].clone(), ids)
}

/// Two panes side by side, herdr attached in tmux with the popup binding.
fn two_panes(server: &TestServer) -> Tmux<'_> {
    let tmux = attached(server, Some(POPUP));
    let first = server.call("session.snapshot", json!({}))["snapshot"]["focused_pane_id"].clone();
    server.call("pane.split", json!({ "target": first, "direction": "right", "focus": false }));
    tmux.wait_screen("two pane boxes", |s| support::boxes_on_top_row(s) == 2);
    tmux
}

fn popup_shown(screen: &str) -> bool {
    screen.contains("╭─ the popup ") && screen.contains("popup-ready")
}

fn popup_pid(server: &TestServer) -> i32 {
    let file = server.root().join("home").join("popup.pid");
    wait_until("the popup's program wrote its pid", PATIENCE, || {
        let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
        text.trim().parse::<i32>().map_err(|e| format!("{text:?}: {e}"))
    })
}

#[test]
fn a_popup_opens_over_two_panes_takes_keys_and_closes_with_its_program() {
    let server = TestServer::prepare();
    let tmux = two_panes(&server);
    let before = layout(&server);
    assert_eq!(before.2.len(), 2);

    tmux.keys(&["C-b", "p"]);
    let screen = tmux.wait_screen("the popup's box, title and program", popup_shown);
    let (x, _, width, height) = popup_box(&screen).expect("the popup's box");
    assert_eq!(height, 12, "12 rows high, border included:\n{screen}");
    let area = pane_area_width(&screen, 120);
    assert_eq!(width, area / 2, "50% of the pane area:\n{screen}");
    assert_eq!(x, 120 - area + (area - width) / 2, "centred over the pane area:\n{screen}");
    assert_eq!(layout(&server), before, "the popup is no pane of the layout");

    // Keys go to the popup's program, not to the pane under it.
    tmux.keys(&["hello", "Enter"]);
    tmux.wait_screen("the popup's program read the line", |s| s.contains("got-hello") && popup_shown(s));
    let focused = before.1.as_str().expect("a focused pane");
    let read = server.call("pane.read", json!({ "pane_id": focused, "source": "recent", "lines": 40 }));
    assert!(!read["read"]["text"].as_str().unwrap_or_default().contains("hello"), "{read}");

    // A click outside the popup (on the other pane) does nothing to the layout.
    tmux.literal(&sgr_mouse(0, 110, 35, true));
    tmux.literal(&sgr_mouse(0, 110, 35, false));
    tmux.keys(&["C-b", "p"]);
    let screen = tmux.screen(false);
    assert!(popup_shown(&screen), "still open:\n{screen}");
    assert_eq!(layout(&server), before, "the click focused nothing, a second popup opened nothing");

    // The program ends: the popup goes, the layout and focus are as they were.
    tmux.keys(&["Enter"]);
    tmux.wait_screen("the popup closed", |s| !s.contains("the popup") && !s.contains("got-hello"));
    assert_eq!(layout(&server), before, "the same panes, sizes and focus");
    tmux.keys(&["echo back''-home", "Enter"]);
    wait_until("typing reaches the focused pane again", PATIENCE, || {
        let read = server.call("pane.read", json!({ "pane_id": focused, "source": "recent", "lines": 40 }));
        let text = read["read"]["text"].as_str().unwrap_or_default().to_owned();
        if text.contains("back-home") { Ok(()) } else { Err(text) }
    });
}

#[test]
fn popup_close_closes_the_open_popup_and_says_when_none_is_open() {
    let server = TestServer::prepare();
    let tmux = two_panes(&server);
    let before = layout(&server);
    let (code, _) = server.call_error("popup.close", json!({}));
    assert_eq!(code, "popup_not_open");

    tmux.keys(&["C-b", "p"]);
    tmux.wait_screen("the popup", popup_shown);
    let pid = popup_pid(&server);
    let closed = server.call("popup.close", json!({}));
    assert_eq!(closed["type"], "ok", "{closed}");
    tmux.wait_screen("the popup gone", |s| !s.contains("the popup"));
    wait_until("the popup's program ended", PATIENCE, || {
        let alive = std::path::Path::new(&format!("/proc/{pid}")).exists();
        if alive { Err(format!("{pid} still runs")) } else { Ok(()) }
    });
    assert_eq!(layout(&server), before, "the layout is untouched");
    let (code, _) = server.call_error("popup.close", json!({}));
    assert_eq!(code, "popup_not_open", "closed means closed");
}

#[test]
fn the_popup_follows_the_terminal_size() {
    let server = TestServer::prepare();
    let tmux = two_panes(&server);
    tmux.keys(&["C-b", "p"]);
    let screen = tmux.wait_screen("the popup", popup_shown);
    let (_, _, width, height) = popup_box(&screen).expect("the popup's box");
    assert_eq!((width, height), (pane_area_width(&screen, 120) / 2, 12), "{screen}");

    tmux.run(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    let screen = tmux.wait_screen("the popup resized with the terminal", |s| {
        popup_box(s).is_some_and(|(_, _, w, _)| w == pane_area_width(s, 100) / 2)
    });
    let (_, _, width, _) = popup_box(&screen).expect("the popup's box");
    // Its program's terminal is the inside of the box.
    tmux.keys(&["size", "Enter"]);
    let expected = format!("got-size 10 {}", width - 2);
    tmux.wait_screen("the program sees the inner size", |s| s.contains(&expected));
}

/// The popup's top-left corner and outer size on `screen`.
fn popup_box(screen: &str) -> Option<(usize, usize, usize, usize)> {
    let rows: Vec<&str> = screen.lines().collect();
    let (y, row) = rows.iter().enumerate().find(|(_, r)| r.contains("╭─ the popup "))?;
    let chars: Vec<char> = row.chars().collect();
    let x = chars.iter().position(|c| *c == '╭')?;
    let right = chars.iter().position(|c| *c == '╮')?;
    let bottom = rows.iter().skip(y).position(|r| r.chars().nth(x) == Some('╰'))?;
    Some((x, y, right - x + 1, bottom + 1))
}

/// The pane area's width on a `cols`-wide screen: from the first pane box's left edge.
fn pane_area_width(screen: &str, cols: usize) -> usize {
    let row = screen.lines().nth(1).unwrap_or_default();
    let left = row.chars().position(|c| c == '┌' || c == '┏').unwrap_or(0);
    cols - left
}
