//! `client.window_title.set|clear` end to end: a real `herdr server` and terminal clients on
//! `herdr-client.sock`. The foreground client is told the title (`WindowTitle(Some)`), a client
//! that stops being the foreground one gets its terminal's own title back (`WindowTitle(None)`),
//! clearing says so, and with no client attached nothing changes (`no_foreground_client`).

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
    client.wait("the first paint", |c| c.frames_seen > 0);
    for title in ["", "   ", "\u{1b}\u{7}"] {
        let (code, message) = server.call_error("client.window_title.set", json!({"title": title}));
        assert_eq!(code, "invalid_params", "{title:?}: {message}");
    }
    assert!(client.titles.is_empty(), "nothing was sent: {:?}", client.titles);
}

#[test]
fn the_foreground_client_shows_the_title_until_it_is_cleared() {
    let server = started();
    let mut first = TerminalClient::attach(&server, 80, 24);
    first.wait("the first paint", |c| c.frames_seen > 0);

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
    second.wait("the title cleared", |c| c.titles.last() == Some(&None));
    let clear = server.call("client.window_title.clear", json!({}));
    assert_eq!(answer(&clear), (false, "cleared".to_owned()), "nothing left to clear");
    assert_eq!(first.titles, vec![Some("build: green ]0;x".to_owned()), None], "{:?}", first.titles);
}
