//! The window title end to end: a real `herdr server` and terminal clients on
//! `herdr-client.sock`. The foreground client is told `ui.window_title` made of the session
//! (default `"{hostname}: {workspace}"`), `client.window_title.set` overrides it and `.clear`
//! brings it back; a client that stops being the foreground one gets its terminal's own title
//! back (`WindowTitle(None)`); with no client attached nothing changes (`no_foreground_client`).

use herdr_e2e::TestServer;
use herdr_e2e::terminal::TerminalClient;
use serde_json::{Value, json};

fn started() -> TestServer {
    let mut server = TestServer::prepare();
    server.start_server();
    server
}

fn answer(result: &Value) -> (bool, String) {
    assert_eq!(result["type"], "client_window_title", "{result}");
    (result["changed"].as_bool().expect("changed"), result["reason"].as_str().expect("reason").to_owned())
}

#[test]
fn with_no_client_attached_nothing_changes() {
    let server = started();
    let set = server.call("client.window_title.set", json!({"title": "nobody sees this"}));
    assert_eq!(answer(&set), (false, "no_foreground_client".to_owned()));
    let clear = server.call("client.window_title.clear", json!({}));
    assert_eq!(answer(&clear), (false, "no_foreground_client".to_owned()));
}

#[test]
fn an_empty_or_control_only_title_is_invalid() {
    let server = started();
    let mut client = TerminalClient::attach(&server, 80, 24);
    let session = default_title(&server);
    client.wait("the session's title", |c| c.titles.last() == Some(&Some(session.clone())));
    for title in ["", "   ", "\u{1b}\u{7}"] {
        let (code, message) = server.call_error("client.window_title.set", json!({"title": title}));
        assert_eq!(code, "invalid_params", "{title:?}: {message}");
    }
    server.call("client.window_title.set", json!({"title": "valid"}));
    client.wait("the valid title", |c| c.titles.len() >= 2);
    assert_eq!(client.titles, vec![Some(session), Some("valid".to_owned())], "the invalid ones sent nothing");
}

/// What the default `ui.window_title` makes of this session: `"<host>: <focused workspace>"`.
fn default_title(server: &TestServer) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("the host name");
    let snapshot = server.call("session.snapshot", json!({}));
    let focused = &snapshot["snapshot"]["focused_workspace_id"];
    let workspaces = snapshot["snapshot"]["workspaces"].as_array().expect("workspaces");
    let label = workspaces.iter().find(|w| &w["workspace_id"] == focused).expect("the focused one")["label"]
        .as_str()
        .expect("a label");
    format!("{}: {label}", host.trim())
}

#[test]
fn ui_window_title_follows_the_focused_workspace() {
    let mut server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), "[ui]\nwindow_title = \"herdr {workspace} | {nope}\"\n")
        .expect("write config.toml");
    server.start_server();
    let mut client = TerminalClient::attach(&server, 80, 24);
    client.wait("the workspace's title", |c| {
        c.titles.last().is_some_and(|t| {
            t.as_deref().is_some_and(|t| t.starts_with("herdr ") && t.ends_with(" | {nope}"))
        })
    });
    let created = server.call("workspace.create", json!({"label": "titled", "focus": true}));
    assert_eq!(created["type"], "workspace_created", "{created}");
    client.wait("the new workspace's title", |c| {
        c.titles.last() == Some(&Some("herdr titled | {nope}".to_owned()))
    });
}

#[test]
fn the_foreground_client_shows_the_title_until_it_is_cleared() {
    let server = started();
    let mut first = TerminalClient::attach(&server, 80, 24);
    let session = default_title(&server);
    first.wait("the session's title", |c| c.titles.last() == Some(&Some(session.clone())));

    // Through the CLI, as a script would; a control character becomes a space.
    let set = server.cli(&["terminal", "title", "set", "build: green\u{1b}]0;x"]);
    assert!(set.status.success(), "{set:?}");
    first.wait("the title", |c| c.titles.last() == Some(&Some("build: green ]0;x".to_owned())));
    let again = server.call("client.window_title.set", json!({"title": "build: green ]0;x"}));
    assert_eq!(answer(&again), (false, "set".to_owned()), "the same title changes nothing");

    // A new client becomes the foreground one: it shows the title, the first gets its own back.
    let mut second = TerminalClient::attach(&server, 80, 24);
    second.wait("the title on the new foreground client", |c| {
        c.titles.last() == Some(&Some("build: green ]0;x".to_owned()))
    });
    first.wait("the first client's own title back", |c| c.titles.last() == Some(&None));

    let clear = server.call("client.window_title.clear", json!({}));
    assert_eq!(answer(&clear), (true, "cleared".to_owned()));
    second.wait("the session's title back", |c| c.titles.last() == Some(&Some(session.clone())));
    let clear = server.call("client.window_title.clear", json!({}));
    assert_eq!(answer(&clear), (false, "cleared".to_owned()), "nothing left to clear");
    assert_eq!(
        first.titles,
        vec![Some(session), Some("build: green ]0;x".to_owned()), None],
        "{:?}",
        first.titles
    );
}
