//! `pane.link.activate` end to end: a real pane printing URLs, and a stand-in `xdg-open` first
//! on the server's `PATH` that records what it was asked to open. A cell on a URL opens that URL
//! (trailing punctuation left out), a cell beside it opens nothing, a row past the screen and a
//! stale revision are refused.

use std::os::unix::fs::PermissionsExt;

use herdr_e2e::panes::{create_workspace, run, wait_output};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

/// The pane's visible rows and the index of the first one containing `needle`.
fn row_of(server: &TestServer, pane: &str, needle: &str) -> (u64, String) {
    let read = server.call("pane.read", json!({"pane_id": pane, "source": "visible"}));
    let text = read["read"]["text"].as_str().expect("text").to_owned();
    let row = text.lines().position(|l| l.contains(needle) && !l.contains("printf")).expect("the row");
    (row as u64, text.lines().nth(row).expect("it").to_owned())
}

fn activate(server: &TestServer, pane: &str, row: u64, col: usize) -> Value {
    server.call("pane.link.activate", json!({"pane_id": pane, "viewport_row": row, "col": col}))
}

#[test]
fn a_cell_on_a_url_opens_it_with_the_desktop_opener() {
    let mut server = TestServer::prepare();
    let bin = server.root().join("opener-bin");
    std::fs::create_dir_all(&bin).expect("a bin dir");
    let opened = server.root().join("opened.txt");
    let opener = bin.join("xdg-open");
    std::fs::write(&opener, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", opened.display()))
        .expect("write the opener");
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).expect("make it runnable");
    let path = server.env().iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone()).unwrap_or_default();
    server.set_env("PATH", format!("{}:{path}", bin.display()));
    server.start_server();
    let pane = create_workspace(&server).pane_id;
    // `\072` is `:`, so the typed command line holds no URL itself.
    run(&server, &pane, r"printf 'docs at https\072//example.org/guide?x=1. ok\n'; cat");
    wait_output(&server, &pane, "example.org/guide", PATIENCE);
    let (row, line) = row_of(&server, &pane, "example.org/guide");
    let start = line.find("https").expect("the url");

    let hit = activate(&server, &pane, row, start + 10);
    assert_eq!(
        (hit["handled"].clone(), hit["url"].clone()),
        (json!(true), json!("https://example.org/guide?x=1"))
    );
    wait_until("the opener to run", PATIENCE, || match std::fs::read_to_string(&opened) {
        Ok(text) if text == "https://example.org/guide?x=1\n" => Ok(()),
        other => Err(format!("{other:?}")),
    });

    let miss = activate(&server, &pane, row, 1);
    assert_eq!(miss["handled"], json!(false), "{miss}");
    assert!(miss.get("url").is_none_or(Value::is_null), "{miss}");

    let (code, message) =
        server.call_error("pane.link.activate", json!({"pane_id": pane, "viewport_row": 999, "col": 0}));
    assert_eq!(code, "invalid_params", "{message}");
    let stale = json!({"pane_id": pane, "viewport_row": row, "col": start, "content_revision": 0});
    let (code, message) = server.call_error("pane.link.activate", stale);
    assert_eq!(code, "content_changed", "{message}");
    let (code, _) =
        server.call_error("pane.link.activate", json!({"pane_id": "w9:p9", "viewport_row": 0, "col": 0}));
    assert_eq!(code, "pane_not_found");
    assert_eq!(std::fs::read_to_string(&opened).expect("opened").lines().count(), 1, "only the hit opened");
}
