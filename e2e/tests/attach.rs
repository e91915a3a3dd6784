//! Terminal clients end to end over `herdr-client.sock`, speaking the client protocol directly
//! to a real `herdr server`: the handshake (and its refusal on a version mismatch), the first
//! frame, prefix keys becoming layout changes, typed bytes reaching the program, detach leaving
//! everything running, and silence while nothing changes.

use std::time::{Duration, Instant};

use herdr_e2e::terminal::TerminalClient;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use herdr_protocol::client::{CLIENT_PROTOCOL_VERSION, ClientToServer, ServerToClient, ShutdownReason};
use serde_json::{Value, json};

fn pane_ids(server: &TestServer) -> Vec<String> {
    let list = server.call("pane.list", json!({}));
    list["panes"].as_array().map_or_else(Vec::new, |panes| {
        panes.iter().filter_map(|p| p["pane_id"].as_str().map(str::to_owned)).collect()
    })
}

fn focused_pane(server: &TestServer) -> String {
    let snapshot = server.call("session.snapshot", json!({}));
    snapshot["snapshot"]["focused_pane_id"].as_str().expect("a focused pane").to_owned()
}

fn read_visible(server: &TestServer, pane: &str) -> String {
    let result: Value = server.call("pane.read", json!({ "pane_id": pane, "source": "recent" }));
    result["read"]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn attach_split_type_and_detach_over_the_client_socket() {
    let server = TestServer::start();
    let mut client = TerminalClient::attach(&server, 120, 40);

    // Mouse reporting as configured (on by default), then the first paint.
    assert_eq!(client.recv(PATIENCE), Some(ServerToClient::MouseCapture { enabled: true }));
    // An empty session gets a first workspace; the sidebar and tab bar are on the first frame.
    let first = client.recv(PATIENCE).expect("a first frame");
    let ServerToClient::Frame(update) = first else { panic!("expected a frame, got {first:?}") };
    assert!(update.clear && (update.cols, update.rows) == (120, 40), "{:?}", (update.clear, update.cols));
    client.wait_screen("the sidebar", |text| text.lines().next().is_some_and(|row| row.contains("spaces")));
    let workspace =
        server.call("workspace.list", json!({}))["workspaces"][0]["label"].as_str().map(str::to_owned);
    let workspace = workspace.expect("the first workspace");
    assert!(client.text().contains(&workspace), "the sidebar lists {workspace}:\n{}", client.text());
    assert_eq!(pane_ids(&server).len(), 1);

    // prefix + v splits side by side and focuses the new pane.
    client.type_bytes(b"\x02v");
    wait_until("two panes", PATIENCE, || match pane_ids(&server).len() {
        2 => Ok(()),
        n => Err(format!("{n} panes")),
    });
    let focused = focused_pane(&server);

    // Typed bytes reach the focused pane's program (the output differs from the echoed line).
    client.type_bytes(b"echo typed-$((40+2))\r");
    wait_until("the typed command's output", PATIENCE, || {
        let text = read_visible(&server, &focused);
        if text.lines().any(printed_typed_42) { Ok(()) } else { Err(text) }
    });

    // prefix + q detaches this client only.
    client.type_bytes(b"\x02q");
    let mut last = None;
    while let Some(msg) = client.recv(PATIENCE) {
        last = Some(msg);
    }
    assert_eq!(last, Some(ServerToClient::Shutdown { reason: ShutdownReason::Detached }));
    server.assert_alive();
    assert_eq!(pane_ids(&server).len(), 2, "the panes keep running after detach");

    // A second attach shows the same two panes side by side.
    let mut again = TerminalClient::attach(&server, 120, 40);
    again.wait_screen("two boxed panes", |text| {
        text.lines().nth(1).is_some_and(|row| row.matches('┐').count() + row.matches('┓').count() == 2)
    });
}

#[test]
fn an_attached_client_gets_nothing_while_nothing_changes() {
    let server = TestServer::start();
    let mut client = TerminalClient::attach(&server, 100, 30);
    client.wait_screen("the first paint", |text| text.contains("spaces"));
    // Let the first workspace's startup settle: paints stop once the screen stops changing.
    while client.recv(Duration::from_millis(500)).is_some() {}
    let painted = client.frames_seen;
    // A quiet window: no paint, not even an empty one, may arrive.
    assert_eq!(client.recv(Duration::from_secs(2)), None, "an idle session sent something");
    assert_eq!(client.frames_seen, painted);

    // A change the client can see is painted again.
    server.call("workspace.create", json!({ "label": "second-space" }));
    client.wait_screen("the new workspace in the sidebar", |text| text.contains("second-space"));
}

#[test]
fn a_client_of_another_protocol_version_is_refused_with_a_reason() {
    let server = TestServer::start();
    let (mut client, welcome) = TerminalClient::hello(&server, CLIENT_PROTOCOL_VERSION + 1, 80, 24);
    let ServerToClient::Welcome { error: Some(error), .. } = welcome else {
        panic!("not refused: {welcome:?}")
    };
    assert!(error.contains("protocol mismatch") && error.contains("newer"), "{error}");
    assert_eq!(client.recv(PATIENCE), None, "the server closes a refused client");
    // Nothing was attached: the session stays empty.
    assert!(pane_ids(&server).is_empty());
}

#[test]
fn the_client_that_typed_last_sets_the_layout_size() {
    let server = TestServer::start();
    let mut big = TerminalClient::attach(&server, 160, 50);
    big.wait_screen("the first paint", |text| text.contains("spaces"));
    let area = |server: &TestServer| {
        let snapshot = server.call("session.snapshot", json!({}));
        let area = &snapshot["snapshot"]["layouts"][0]["area"];
        (area["width"].as_u64().unwrap_or(0), area["height"].as_u64().unwrap_or(0))
    };
    // 160 columns minus the 26-column sidebar; 50 rows minus the tab bar.
    wait_until("the big client's area", PATIENCE, || match area(&server) {
        (134, 49) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    let mut small = TerminalClient::attach(&server, 100, 30);
    small.wait_screen("the first paint", |text| text.contains("spaces"));
    wait_until("the newest client's area", PATIENCE, || match area(&server) {
        (74, 29) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    big.type_bytes(b"x");
    wait_until("the area of the client that typed", PATIENCE, || match area(&server) {
        (134, 49) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    drop(big);
    wait_until("the remaining client's area", PATIENCE, || match area(&server) {
        (74, 29) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    small.send(&ClientToServer::Resize { cols: 90, rows: 20 });
    wait_until("the resized client's area", PATIENCE, || match area(&server) {
        (64, 19) => Ok(()),
        other => Err(format!("{other:?}")),
    });
}

/// Whether `line` shows the output of `echo typed-$((40+2))`, not its echo. Typed ahead of the
/// shell's first prompt, the output can share a line with that prompt.
fn printed_typed_42(line: &str) -> bool {
    line.trim_end().ends_with("typed-42") && !line.contains("$((")
}

#[test]
fn stopping_the_server_tells_attached_clients_why() {
    let server = TestServer::start();
    let mut client = TerminalClient::attach(&server, 100, 30);
    client.wait_screen("the first paint", |text| text.contains("spaces"));
    let stopped = server.call("server.stop", json!({}));
    assert_eq!(stopped["type"], "ok", "{stopped}");
    let mut last = None;
    while let Some(msg) = client.recv(PATIENCE) {
        last = Some(msg);
    }
    assert_eq!(last, Some(ServerToClient::Shutdown { reason: ShutdownReason::ServerStopping }));
}

#[test]
fn mouse_capture_follows_the_config() {
    let mut server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), "[ui]\nmouse_capture = false\n")
        .expect("write config.toml");
    server.start_server();
    let mut client = TerminalClient::attach(&server, 100, 30);
    assert_eq!(client.recv(PATIENCE), Some(ServerToClient::MouseCapture { enabled: false }));
}

/// A server whose `config.toml` is `config`, started.
fn server_with_config(config: &str) -> TestServer {
    let mut server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), config).expect("write config.toml");
    server.start_server();
    server
}

fn write_config(server: &TestServer, config: &str) {
    std::fs::write(server.root().join("config").join("herdr").join("config.toml"), config)
        .expect("rewrite config.toml");
}

#[test]
fn notification_show_puts_a_toast_in_the_foreground_client() {
    let server = server_with_config("[ui.toast]\ndelivery = \"herdr\"\n");
    let alone = server.call("notification.show", json!({ "title": "nobody here" }));
    assert_eq!(alone, json!({"type": "notification_show", "shown": false, "reason": "no_foreground_client"}));
    let (code, _) = server.call_error("notification.show", json!({ "title": " \n\t " }));
    assert_eq!(code, "invalid_params");

    let mut client = TerminalClient::attach(&server, 120, 40);
    client.wait_screen("the sidebar", |text| text.contains("spaces"));
    let shown = server.call(
        "notification.show",
        json!({ "title": "build\nfinished", "body": "all green", "position": "top-left" }),
    );
    assert_eq!(shown, json!({"type": "notification_show", "shown": true, "reason": "shown"}));
    client.wait_screen("the toast", |text| text.contains("build finished") && text.contains("all green"));
    let toast_row = client.text().lines().position(|l| l.contains("build finished")).expect("a toast row");
    assert!(toast_row <= 3, "top-left means near the top:\n{}", client.text());

    // The CLI goes the same way.
    let out = server.cli(&["notification", "show", "from the cli", "--body", "scripted"]);
    assert!(out.status.success(), "{out:?}");
    client.wait_screen("the CLI's toast", |text| text.contains("from the cli") && text.contains("scripted"));
}

#[test]
fn a_background_agent_that_finishes_or_blocks_shows_a_toast() {
    let server = server_with_config("[ui.toast]\ndelivery = \"herdr\"\ndelay_seconds = 0\n");
    let mut client = TerminalClient::attach(&server, 120, 40);
    client.wait_screen("the sidebar", |text| text.contains("spaces"));
    // A second tab that is not focused: its pane is in the background.
    let created = server.call("tab.create", json!({ "focus": false, "label": "bg" }));
    let pane = created["root_pane"]["pane_id"].as_str().expect("the new tab's pane").to_owned();
    let report = |state: &str| {
        server.call(
            "pane.report_agent",
            json!({ "pane_id": pane, "source": "e2e", "agent": "claude", "state": state }),
        )
    };
    report("working");
    report("idle");
    client.wait_screen("the finished toast", |text| text.contains("claude finished"));
    report("working");
    report("blocked");
    client.wait_screen("the needs-attention toast", |text| text.contains("claude needs attention"));
}

/// The background colour at `(x, y)` in a frame update, if the update paints that cell.
fn bg_at(msg: &ServerToClient, x: u16, y: u16) -> Option<herdr_protocol::grid::WireColor> {
    let ServerToClient::Frame(update) = msg else { return None };
    update.cells.iter().find(|c| (c.x, c.y) == (x, y)).map(|c| c.bg)
}

#[test]
fn reload_config_applies_a_theme_and_reports_problems() {
    let server = server_with_config("[theme]\nname = \"catppuccin\"\n");
    // Notifications are off by default.
    let off = server.call("notification.show", json!({ "title": "t" }));
    assert_eq!(off, json!({"type": "notification_show", "shown": false, "reason": "disabled"}));

    let mut client = TerminalClient::attach(&server, 120, 40);
    // A sidebar cell below the panels' headers: painted with the theme's sidebar background.
    let (x, y) = (1, 30);
    let mut before = None;
    let deadline = Instant::now() + PATIENCE;
    while before.is_none() && Instant::now() < deadline {
        before = client.recv(PATIENCE).and_then(|msg| bg_at(&msg, x, y));
    }
    let before = before.expect("the first frame paints the sidebar");

    write_config(&server, "[theme]\nname = \"gruvbox\"\n");
    let out = server.cli(&["server", "reload-config"]);
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.contains("\"applied\""), "{}", out.stdout);
    let deadline = Instant::now() + PATIENCE;
    let after = loop {
        let left = deadline.checked_duration_since(Instant::now()).expect("a repaint with the new theme");
        if let Some(bg) = client.recv(left).and_then(|msg| bg_at(&msg, x, y)) {
            break bg;
        }
    };
    assert_ne!(after, before, "the sidebar background follows the new theme");

    // A bad setting is applied partially; a file that is not TOML fails and changes nothing.
    write_config(&server, "[ui]\nmouse_capture = \"yes\"\n");
    let partial = server.call("server.reload_config", json!({}));
    assert_eq!(partial["status"], "partial", "{partial}");
    assert!(partial["diagnostics"][0].as_str().is_some_and(|d| d.contains("ui.mouse_capture")), "{partial}");
    write_config(&server, "[ui\n");
    let failed = server.call("server.reload_config", json!({}));
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["diagnostics"].as_array().map(Vec::len), Some(1), "{failed}");
    server.assert_alive();
}

#[test]
fn the_help_overlay_opens_on_prefix_question_mark_and_any_key_closes_it() {
    let server = TestServer::start();
    let mut client = TerminalClient::attach(&server, 120, 40);
    client.wait_screen("the sidebar", |text| text.contains("spaces"));
    client.type_bytes(b"\x02?");
    client.wait_screen("the help", |text| {
        text.contains("Keybindings") && text.contains("ctrl+b v") && text.contains("split side by side")
    });
    let panes = pane_ids(&server).len();
    // The closing key is swallowed: `v` neither splits nor reaches the shell as a split.
    client.type_bytes(b"v");
    client.wait_screen("the help closed", |text| !text.contains("Keybindings"));
    assert_eq!(pane_ids(&server).len(), panes);
}
