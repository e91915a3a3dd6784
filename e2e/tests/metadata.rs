//! Display metadata against the real supervisor: `pane.report_metadata` and
//! `workspace.report_metadata` — every limit answered with its own error code, a stale `seq`
//! accepted and ignored, what was reported visible in `pane.get` / `workspace.get`, and a token
//! with a short ttl vanishing with the update event a subscriber receives. Reports the request
//! schema would refuse (a ttl of 0, a 17-key report) are sent raw: the server must refuse them
//! itself. Every answer and event is schema-checked as it arrives.

use herdr_e2e::panes::{NewWorkspace, create_workspace};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer};
use serde_json::{Map, Value, json};

/// Sends `method` with `params` as-is (no request-schema check) and returns the answer.
fn send(server: &TestServer, method: &str, params: Value) -> Value {
    server.request_value(&json!({"id": "meta", "method": method, "params": params}), PATIENCE)
}

/// The error code of a report that must fail.
fn refused(server: &TestServer, method: &str, params: Value) -> String {
    let answer = send(server, method, params.clone());
    answer["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{method} {params} should fail: {answer}"))
        .to_owned()
}

fn ok(server: &TestServer, method: &str, params: Value) {
    let answer = send(server, method, params.clone());
    assert_eq!(answer["result"]["type"], "ok", "{method} {params}: {answer}");
}

fn tokens(count: usize, prefix: &str) -> Value {
    Value::Object((0..count).map(|i| (format!("{prefix}{i}"), json!("v"))).collect::<Map<_, _>>())
}

fn pane_info(server: &TestServer, pane_id: &str) -> Value {
    server.call("pane.get", json!({"pane_id": pane_id}))["pane"].clone()
}

/// The pane has no title and exactly `tokens`.
fn assert_untitled_with(server: &TestServer, pane_id: &str, tokens: Value) {
    let pane = pane_info(server, pane_id);
    assert!(pane["title"].is_null(), "expected no title: {pane}");
    assert_eq!(pane["tokens"], tokens, "{pane}");
}

#[test]
fn every_limit_has_its_error_code() {
    let server = TestServer::start();
    let NewWorkspace { workspace_id, pane_id, .. } = create_workspace(&server);
    let pane = |extra: Value| {
        let mut params = json!({"pane_id": pane_id, "source": "e2e", "tokens": {"k": "v"}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        params
    };
    let report = "pane.report_metadata";
    let long_source = "s".repeat(81);
    for (extra, code) in [
        (json!({"source": "has space"}), "invalid_metadata_source"),
        (json!({"source": ""}), "invalid_metadata_source"),
        (json!({"source": long_source}), "invalid_metadata_source"),
        (json!({"ttl_ms": 0}), "invalid_metadata_ttl"),
        (json!({"ttl_ms": 86_400_001u64}), "invalid_metadata_ttl"),
        (json!({"tokens": {"bad key": "v"}}), "invalid_metadata_token"),
        (json!({"tokens": {"k".repeat(33): "v"}}), "invalid_metadata_token"),
        (json!({"tokens": tokens(17, "t")}), "invalid_metadata_token"),
        (json!({"title": "t", "clear_title": true}), "invalid_metadata_request"),
        (json!({"display_agent": "a", "clear_display_agent": true}), "invalid_metadata_request"),
        (json!({"state_labels": {"idle": "zz"}, "clear_state_labels": true}), "invalid_metadata_request"),
        (json!({"tokens": {}}), "invalid_metadata_request"),
    ] {
        assert_eq!(refused(&server, report, pane(extra.clone())), code, "pane report with {extra}");
    }
    // The workspace report checks source, ttl and tokens the same way.
    let ws = |extra: Value| {
        let mut params = json!({"workspace_id": workspace_id, "source": "e2e", "tokens": {"k": "v"}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        params
    };
    for (extra, code) in [
        (json!({"source": "a/b"}), "invalid_metadata_source"),
        (json!({"ttl_ms": 0}), "invalid_metadata_ttl"),
        (json!({"tokens": tokens(17, "t")}), "invalid_metadata_token"),
    ] {
        assert_eq!(
            refused(&server, "workspace.report_metadata", ws(extra.clone())),
            code,
            "workspace {extra}"
        );
    }

    // 32 keys fit a pane; the 33rd is over its limit.
    ok(&server, report, pane(json!({"tokens": tokens(16, "a")})));
    ok(&server, report, pane(json!({"tokens": tokens(16, "b")})));
    assert_eq!(pane_info(&server, &pane_id)["tokens"].as_object().map(Map::len), Some(32));
    assert_eq!(refused(&server, report, pane(json!({"tokens": {"c0": "v"}}))), "metadata_token_limit");
    // Replacing an existing key is still fine at the limit.
    ok(&server, report, pane(json!({"tokens": {"a0": "w"}})));

    // 32 sequenced sources fit; the 33rd is refused (titles only: no token keys needed).
    for i in 0..32 {
        ok(&server, report, json!({"pane_id": pane_id, "source": format!("s{i}"), "seq": 1, "title": "t"}));
    }
    let extra = json!({"pane_id": pane_id, "source": "s32", "seq": 1, "title": "t"});
    assert_eq!(refused(&server, report, extra), "metadata_sequence_source_limit");
    // An unsequenced report from a new source is not counted.
    ok(&server, report, json!({"pane_id": pane_id, "source": "s32", "title": "u"}));
    server.assert_alive();
}

#[test]
fn reports_show_in_get_and_a_stale_seq_is_ignored() {
    let server = TestServer::start();
    let NewWorkspace { workspace_id, pane_id, .. } = create_workspace(&server);
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "hook", "seq": 5, "title": "  Build  ",
            "display_agent": "Robot", "state_labels": {"working": "compiling"},
            "tokens": {"branch": "main", "ci": "green"}}),
    );
    let pane = pane_info(&server, &pane_id);
    assert_eq!(pane["title"], "Build", "{pane}");
    assert_eq!(pane["display_agent"], "Robot", "{pane}");
    assert_eq!(pane["state_labels"], json!({"working": "compiling"}), "{pane}");
    assert_eq!(pane["tokens"], json!({"branch": "main", "ci": "green"}), "{pane}");

    // seq 3 after 5 from the same source: accepted, changes nothing.
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "hook", "seq": 3, "title": "old", "tokens": {"branch": "dev"}}),
    );
    let pane = pane_info(&server, &pane_id);
    assert_eq!(pane["title"], "Build", "a stale seq changed the title: {pane}");
    assert_eq!(pane["tokens"]["branch"], "main", "a stale seq changed a token: {pane}");
    // A newer seq applies; a null value clears a key.
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "hook", "seq": 6, "clear_title": true, "tokens": {"ci": null}}),
    );
    assert_untitled_with(&server, &pane_id, json!({"branch": "main"}));

    ok(
        &server,
        "workspace.report_metadata",
        json!({"workspace_id": workspace_id, "source": "ci", "seq": 2, "tokens": {"build": "ok"}}),
    );
    ok(
        &server,
        "workspace.report_metadata",
        json!({"workspace_id": workspace_id, "source": "ci", "seq": 2, "tokens": {"build": "again"}}),
    );
    let ws = server.call("workspace.get", json!({"workspace_id": workspace_id}))["workspace"].clone();
    assert_eq!(ws["tokens"], json!({"build": "ok"}), "{ws}");
    // A pane that does not exist is the target's error, not a metadata one.
    let code =
        refused(&server, "pane.report_metadata", json!({"pane_id": "p_nope", "source": "x", "title": "t"}));
    assert!(!code.contains("metadata"), "missing pane answered {code}");
}

/// The next line on a subscription, schema-checked; panics when the stream ends or stalls.
fn next_event(server: &TestServer, stream: &mut LineStream) -> Value {
    let line = stream.next_line(PATIENCE).expect("an event within the deadline").expect("stream open");
    server.check_line(&line).unwrap_or_else(|e| panic!("{e}"))
}

/// Reads events until one for `pane_id` satisfies `wanted` (bounded by the stream's timeout).
fn wait_pane_event(
    server: &TestServer,
    stream: &mut LineStream,
    pane_id: &str,
    wanted: impl Fn(&Value) -> bool,
) {
    loop {
        let event = next_event(server, stream);
        if event["event"] == "pane_updated"
            && event["data"]["pane"]["pane_id"] == json!(pane_id)
            && wanted(&event)
        {
            return;
        }
    }
}

#[test]
fn a_short_ttl_token_vanishes_with_an_update_event() {
    let server = TestServer::start();
    let NewWorkspace { workspace_id, pane_id, .. } = create_workspace(&server);
    let request = json!({"id": "meta:sub", "method": "events.subscribe",
        "params": {"subscriptions": [{"type": "pane.updated"}, {"type": "workspace.metadata_updated"}]}});
    let mut stream = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
    let ack = next_event(&server, &mut stream);
    assert_eq!(ack["result"]["type"], "subscription_started", "{ack}");

    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "e2e", "tokens": {"keep": "yes"}}),
    );
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "e2e", "ttl_ms": 300, "tokens": {"blink": "on"}}),
    );
    wait_pane_event(&server, &mut stream, &pane_id, |e| e["data"]["pane"]["tokens"]["blink"] == "on");
    // The expiry is announced: the next update for this pane drops the key and keeps the other.
    wait_pane_event(&server, &mut stream, &pane_id, |e| e["data"]["pane"]["tokens"].get("blink").is_none());
    let pane = pane_info(&server, &pane_id);
    assert_eq!(pane["tokens"], json!({"keep": "yes"}), "{pane}");

    ok(
        &server,
        "workspace.report_metadata",
        json!({"workspace_id": workspace_id, "source": "e2e", "ttl_ms": 300, "tokens": {"w": "1"}}),
    );
    let mut seen_set = false;
    loop {
        let event = next_event(&server, &mut stream);
        if event["event"] != "workspace_metadata_updated" {
            continue;
        }
        let tokens = &event["data"]["workspace"]["tokens"];
        if tokens["w"] == "1" {
            seen_set = true;
        } else if seen_set && tokens.get("w").is_none() {
            break;
        }
    }
    let ws = server.call("workspace.get", json!({"workspace_id": workspace_id}))["workspace"].clone();
    assert!(ws["tokens"].get("w").is_none(), "{ws}");
}

#[test]
fn an_agent_pane_carries_its_presentation_in_agent_get_and_the_guard_holds() {
    let server = TestServer::start();
    let pane_id = create_workspace(&server).pane_id;
    server.call(
        "pane.report_agent",
        json!({"pane_id": pane_id, "source": "e2e", "agent": "claude", "state": "working"}),
    );
    // Meant for another agent: the presentation is skipped, the tokens still land.
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "e2e", "agent": "codex", "title": "wrong", "tokens": {"t": "1"}}),
    );
    // Meant for codex: claude's pane keeps no title.
    assert_untitled_with(&server, &pane_id, json!({"t": "1"}));
    ok(
        &server,
        "pane.report_metadata",
        json!({"pane_id": pane_id, "source": "e2e", "agent": "claude", "title": "Refactor",
            "display_agent": "Claude Code", "state_labels": {"working": "thinking"}}),
    );
    let agent = server.call("agent.get", json!({"target": pane_id}))["agent"].clone();
    assert_eq!(agent["pane_id"], json!(pane_id), "{agent}");
    assert_eq!(agent["title"], "Refactor", "{agent}");
    assert_eq!(agent["display_agent"], "Claude Code", "{agent}");
    assert_eq!(agent["state_labels"], json!({"working": "thinking"}), "{agent}");
    assert_eq!(agent["tokens"], json!({"t": "1"}), "{agent}");
}
