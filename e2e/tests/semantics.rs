//! Smaller documented semantics clients rely on (reference §4, §6, §7, §8, §9): id formats,
//! clamped read limits, key aliases, waits reading soft-wrapped lines joined, and closing the
//! last pane or tab closing its container.

use herdr_e2e::panes::{self, Marker};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use regex::Regex;
use serde_json::{Value, json};

fn ids(list: &Value, key: &str) -> Vec<String> {
    list.as_array().into_iter().flatten().filter_map(|item| item[key].as_str().map(str::to_owned)).collect()
}

#[test]
fn ids_follow_the_public_formats() {
    let server = TestServer::start();
    let created = panes::create_workspace(&server);
    let split = panes::split(&server, &created.pane_id, "down");
    let workspace = Regex::new("^w[1-9A-HJKMNP-TV-Z0]+$").expect("regex");
    assert!(workspace.is_match(&created.workspace_id), "{}", created.workspace_id);
    for (id, kind) in [(&created.tab_id, 't'), (&created.pane_id, 'p'), (&split, 'p')] {
        let expected = format!("{}:{kind}", created.workspace_id);
        assert!(id.starts_with(&expected), "{id} should start with {expected}");
    }
    assert_ne!(created.pane_id, split);
    let snapshot = server.call("session.snapshot", json!({}));
    assert_eq!(snapshot["snapshot"]["protocol"], 22, "{snapshot}");
    let panes = ids(&snapshot["snapshot"]["panes"], "pane_id");
    assert!(panes.contains(&created.pane_id) && panes.contains(&split), "{snapshot}");
}

#[test]
fn read_lines_are_clamped_not_rejected() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let read = panes::read_result(&server, json!({"pane_id": pane, "source": "recent", "lines": 5000}));
    assert!(read["text"].as_str().is_some_and(|text| text.lines().count() <= 1000), "{read}");
}

#[test]
fn key_aliases_are_accepted() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    panes::run(&server, &pane, "sleep 600");
    panes::wait_foreground(&server, &pane, "sleep");
    // `C-c` is an alias of ctrl+c; `Enter` and `enter` are both accepted.
    server.call("pane.send_keys", json!({"pane_id": pane, "keys": ["C-c"]}));
    let marker = Marker::new("ALIAS");
    server.call("pane.send_text", json!({"pane_id": pane, "text": marker.command}));
    server.call("pane.send_keys", json!({"pane_id": pane, "keys": ["Enter"]}));
    panes::wait_output(&server, &pane, &marker.word, PATIENCE);
}

#[test]
fn output_waits_see_soft_wrapped_lines_joined() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    // 300 columns then a tail, on one logical line that the terminal wraps.
    panes::run(&server, &pane, "printf 'Q%.0s' $(seq 1 300); printf '%s\\n' -TAIL");
    let matched = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex", "value": "^Q{300}-TAIL$"},
               "timeout_ms": 30000}),
    );
    assert_eq!(matched["type"], "output_matched", "source recent is read as recent_unwrapped: {matched}");
}

#[test]
fn closing_the_last_pane_or_tab_closes_its_container() {
    let server = TestServer::start();
    let one = panes::create_workspace(&server);
    let two = panes::create_workspace(&server);
    server.call("pane.close", json!({"pane_id": one.pane_id}));
    let (code, _) = server.call_error("workspace.get", json!({"workspace_id": one.workspace_id}));
    assert_eq!(code, "workspace_not_found", "closing the only pane closes the workspace");

    let extra = server.call("tab.create", json!({"workspace_id": two.workspace_id}));
    let extra_tab = extra["tab"]["tab_id"].as_str().expect("tab id").to_owned();
    server.call("tab.close", json!({"tab_id": two.tab_id}));
    let tabs = server.call("tab.list", json!({"workspace_id": two.workspace_id}));
    assert_eq!(ids(&tabs["tabs"], "tab_id"), vec![extra_tab.clone()], "{tabs}");
    server.call("tab.close", json!({"tab_id": extra_tab}));
    let (code, _) = server.call_error("workspace.get", json!({"workspace_id": two.workspace_id}));
    assert_eq!(code, "workspace_not_found", "closing the last tab closes the workspace");
    wait_until("every worker to end", PATIENCE, || {
        let left = server.workers();
        if left.is_empty() { Ok(()) } else { Err(format!("{left:?}")) }
    });
}
