//! Pane bells end to end: a real `herdr server` with real shells, and a terminal client speaking
//! the client protocol on `herdr-client.sock`. A BEL in the focused pane reaches the attached
//! client as `Bell`; a BEL in a tab nobody sees rings too and marks that tab (` !`) until it is
//! focused; with `ui.sound.enabled = false` nothing rings but the mark still shows.

use herdr_e2e::panes::{Marker, run, settle, wait_output};
use herdr_e2e::terminal::TerminalClient;
use herdr_e2e::{PATIENCE, TestServer};
use serde_json::json;

/// A server with `config` as its `config.toml`, a client attached at 100x30 and its first
/// workspace's shell ready; returns the focused pane's id too.
fn attached(config: &str) -> (TestServer, TerminalClient, String) {
    let mut server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), config).expect("write config.toml");
    server.start_server();
    let mut client = TerminalClient::attach(&server, 100, 30);
    client.wait("the first paint", |c| c.text().contains("spaces"));
    let snapshot = server.call("session.snapshot", json!({}));
    let pane = snapshot["snapshot"]["focused_pane_id"].as_str().expect("a focused pane").to_owned();
    settle(&server, &pane);
    (server, client, pane)
}

/// Rings the bell in `pane` and waits until a word printed after it is in the pane (through the
/// API: the pane may be hidden). The client's bell may still be on its way.
fn ring(server: &TestServer, pane: &str) {
    let marker = Marker::new("RANG");
    run(server, pane, &format!("printf '\\a'; {}", marker.command));
    wait_output(server, pane, &marker.word, PATIENCE);
}

/// A second tab, not focused, with its shell ready: its id and its pane's id.
fn background_tab(server: &TestServer) -> (String, String) {
    let created = server.call("tab.create", json!({"label": "bg", "focus": false}));
    assert_eq!(created["type"], "tab_created", "{created}");
    let tab = created["tab"]["tab_id"].as_str().expect("a tab id").to_owned();
    let pane = created["root_pane"]["pane_id"].as_str().expect("a pane id").to_owned();
    settle(server, &pane);
    (tab, pane)
}

#[test]
fn a_bel_in_the_focused_pane_rings_the_attached_client() {
    let (server, mut client, pane) = attached("");
    // Typed by the user, as at a real terminal.
    client.type_bytes(b"printf '\\a'\r");
    client.wait("the bell", |c| c.bells == 1);
    // The pane is shown: its tab gets no mark.
    let marker = Marker::new("SHOWN");
    run(&server, &pane, &marker.command);
    client.wait("the marker on screen", |c| c.text().contains(&marker.word));
    assert!(!client.top_row().contains(" !"), "{}", client.top_row());
}

#[test]
fn a_bel_in_a_hidden_tab_rings_and_marks_the_tab_until_it_is_focused() {
    let (server, mut client, _) = attached("");
    let (tab, pane) = background_tab(&server);
    client.wait("the second tab", |c| c.top_row().contains("2 bg"));
    ring(&server, &pane);
    client.wait("the bell", |c| c.bells == 1);
    client.wait("the bell marker on the bg tab", |c| c.top_row().contains("2 bg !"));
    let focused = server.call("tab.focus", json!({"tab_id": tab}));
    assert_eq!(focused["type"], "tab_info", "{focused}");
    client.wait("the marker gone", |c| c.top_row().contains("2 bg") && !c.top_row().contains(" !"));
}

#[test]
fn with_sound_off_a_bel_marks_the_tab_but_rings_nothing() {
    let (server, mut client, pane) = attached("[ui.sound]\nenabled = false\n");
    let (_, hidden) = background_tab(&server);
    client.wait("the second tab", |c| c.top_row().contains("2 bg"));
    ring(&server, &hidden);
    client.wait("the bell marker on the bg tab", |c| c.top_row().contains("2 bg !"));
    ring(&server, &pane);
    // Two later screen changes: a bell would have been delivered before the second is painted.
    for tag in ["AFTER", "LATER"] {
        let marker = Marker::new(tag);
        run(&server, &pane, &marker.command);
        client.wait("the marker on screen", |c| c.text().contains(&marker.word));
    }
    assert_eq!(client.bells, 0, "sound is off");
}
