//! A tour of every protocol-22 method over the raw socket, in an order that gives each one real
//! ids to work on. Every answer is schema-checked by the harness as it arrives; on top of that
//! the tour checks, for every method:
//! - the server knows the method name (it answers with the request id, never the parse-failure
//!   `""`), so unimplemented methods say so (`not_implemented` or a domain error);
//! - a success carries the result `type` that method returns, with `type` serialized first;
//! - the core methods (reference §6 core, §15) succeed.
//!
//! Failures are collected and reported together at the end, with a table of every outcome.

use std::collections::BTreeMap;
use std::time::Duration;

use herdr_e2e::panes::Marker;
use herdr_e2e::schema;
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

/// The protocol-22 methods that still answer `not_implemented`: any other that does is a
/// failure, so the list only shrinks (it is empty now).
const NOT_BUILT: &[&str] = &[];

struct Tour<'a> {
    server: &'a TestServer,
    outcomes: BTreeMap<String, Vec<String>>,
    failures: Vec<String>,
}

impl<'a> Tour<'a> {
    fn new(server: &'a TestServer) -> Self {
        Self { server, outcomes: BTreeMap::new(), failures: Vec::new() }
    }

    /// Calls `method`; `expected` is the result type on success (None: any). Core methods must
    /// succeed. Returns the result on success.
    fn visit(&mut self, method: &str, params: Value, expected: Option<&str>, core: bool) -> Option<Value> {
        let answer = self.server.request(method, params.clone());
        let outcome;
        let mut result = None;
        if let Some(found) = answer.get("result") {
            let kind = found["type"].as_str().unwrap_or("?").to_owned();
            outcome = format!("ok {kind}");
            if let Some(expected) = expected
                && kind != expected
            {
                self.failures.push(format!("{method}: result type {kind}, expected {expected}"));
            }
            let first_key = found.as_object().and_then(|map| map.keys().next().cloned());
            if first_key.as_deref() != Some("type") {
                self.failures.push(format!("{method}: `type` is not the first result field ({found})"));
            }
            result = Some(found.clone());
        } else {
            let code = answer["error"]["code"].as_str().unwrap_or("?").to_owned();
            let message = answer["error"]["message"].as_str().unwrap_or("").to_owned();
            outcome = format!("error {code}: {}", message.chars().take(90).collect::<String>());
            if code == "not_implemented" && !NOT_BUILT.contains(&method) {
                self.failures.push(format!("{method}: answers not_implemented but is built"));
            }
            if answer["id"] == "" {
                self.failures
                    .push(format!("{method}: answered as a parse failure (unknown method?): {answer}"));
            } else if core {
                self.failures.push(format!("{method} (core) failed with {params}: {answer}"));
            }
        }
        self.outcomes.entry(method.to_owned()).or_default().push(outcome);
        result
    }

    fn core(&mut self, method: &str, params: Value, expected: &str) -> Option<Value> {
        self.visit(method, params, Some(expected), true)
    }

    fn other(&mut self, method: &str, params: Value, expected: Option<&str>) -> Option<Value> {
        self.visit(method, params, expected, false)
    }

    /// A core call whose result later steps need: stop the tour if it fails.
    fn needed(&mut self, method: &str, params: Value, expected: &str) -> Value {
        match self.core(method, params, expected) {
            Some(result) => result,
            None => panic!("the tour cannot go on without {method}: {:#?}", self.failures),
        }
    }

    fn mark(&mut self, method: &str, outcome: String) {
        self.outcomes.entry(method.to_owned()).or_default().push(outcome);
    }
}

fn s(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("expected a string, got {value}")).to_owned()
}

/// A git repository with one commit in the server's work dir, for the `worktree.*` calls.
fn git_repo(server: &TestServer) -> String {
    let repo = server.work_dir("tour-repo");
    std::fs::write(repo.join("README"), "tour\n").expect("write a file");
    for args in [&["init", "--quiet"][..], &["add", "README"], &["commit", "--quiet", "-m", "tour"]] {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["-c", "user.email=tour@example.invalid", "-c", "user.name=tour"])
            .args(args)
            .status()
            .expect("run git");
        assert!(status.success(), "git {args:?} failed");
    }
    repo.display().to_string()
}

/// Opens a subscription and returns the stream after its ack, or records why it failed.
fn subscribe(tour: &mut Tour<'_>, subscriptions: Value, core: bool) -> Option<LineStream> {
    let request = json!({"id": "tour:subscribe", "method": "events.subscribe",
        "params": {"subscriptions": subscriptions}});
    schema::validate_request(&request).expect("a valid subscribe request");
    let mut stream = LineStream::open(tour.server.socket(), &request.to_string()).expect("subscribe");
    let ack = next_event(tour.server, &mut stream);
    match ack {
        Some(ack) if ack.get("result").is_some() => {
            if ack["id"] != "tour:subscribe" || ack["result"]["type"] != "subscription_started" {
                tour.failures.push(format!("events.subscribe ack: {ack}"));
            }
            Some(stream)
        }
        Some(ack) => {
            if core || ack["id"] == "" {
                tour.failures.push(format!("events.subscribe {subscriptions} failed: {ack}"));
            }
            tour.mark("events.subscribe", format!("error {}", ack["error"]["code"]));
            None
        }
        None => {
            tour.failures.push("events.subscribe: no ack".to_owned());
            None
        }
    }
}

fn next_event(server: &TestServer, stream: &mut LineStream) -> Option<Value> {
    let line = stream.next_line(PATIENCE).ok().flatten()?;
    Some(server.check_line(&line).expect("a valid line"))
}

/// Reads events until `wanted` accepts one; records a failure if the stream ends or stalls.
fn read_until(
    tour: &mut Tour<'_>,
    stream: &mut LineStream,
    what: &str,
    wanted: impl Fn(&Value) -> bool,
) -> bool {
    loop {
        let Some(event) = next_event(tour.server, stream) else {
            tour.failures.push(format!("events.subscribe: stream ended or stalled before {what}"));
            return false;
        };
        if event.get("id").is_some() {
            tour.failures.push(format!("events.subscribe: event lines carry no id: {event}"));
        }
        if wanted(&event) {
            return true;
        }
    }
}

fn events_subscribe(tour: &mut Tour<'_>, pane: &str, workspace: &str) {
    // Lifecycle events (core).
    if let Some(mut stream) =
        subscribe(tour, json!([{"type": "pane.created"}, {"type": "tab.created"}]), true)
    {
        let tab = tour.server.call("tab.create", json!({"workspace_id": workspace, "label": "evt"}));
        let new_tab = s(&tab["tab"]["tab_id"]);
        let seen = read_until(tour, &mut stream, "tab_created", |event| {
            event["event"] == "tab_created" && event["data"]["tab"]["tab_id"] == json!(new_tab)
        });
        tour.mark("events.subscribe", format!("ok subscription_started, tab_created seen {seen}"));
        tour.server.call("tab.close", json!({"tab_id": new_tab}));
    }
    // The parameterised output subscription.
    let marker = Marker::new("EVENT");
    let output = json!([{"type": "pane.output_matched", "pane_id": pane, "source": "recent",
        "match": {"type": "substring", "value": marker.word}}]);
    if let Some(mut stream) = subscribe(tour, output, false) {
        tour.server
            .call("pane.send_input", json!({"pane_id": pane, "text": marker.command, "keys": ["Enter"]}));
        let seen = read_until(tour, &mut stream, "pane.output_matched", |event| {
            event["event"] == "pane.output_matched" && event["data"]["pane_id"] == json!(pane)
        });
        tour.mark("events.subscribe", format!("ok subscription_started, pane.output_matched seen {seen}"));
    }
}

#[test]
fn every_method_answers_by_the_protocol() {
    let server = TestServer::start();
    let mut tour = Tour::new(&server);
    let cwd = server.root().display().to_string();

    tour.core("ping", json!({}), "pong");
    tour.core("session.snapshot", json!({}), "session_snapshot");

    let created = tour.needed(
        "workspace.create",
        json!({"label": "tour", "cwd": cwd, "focus": true}),
        "workspace_created",
    );
    let ws = s(&created["workspace"]["workspace_id"]);
    let first_tab = s(&created["tab"]["tab_id"]);
    let p1 = s(&created["root_pane"]["pane_id"]);
    let second = tour.needed(
        "workspace.create",
        json!({"label": "second", "env": {"TOUR": "1"}}),
        "workspace_created",
    );
    let ws2 = s(&second["workspace"]["workspace_id"]);
    tour.core("workspace.list", json!({}), "workspace_list");
    tour.core("workspace.get", json!({"workspace_id": ws}), "workspace_info");
    tour.core("workspace.focus", json!({"workspace_id": ws}), "workspace_info");
    if let Some(renamed) =
        tour.core("workspace.rename", json!({"workspace_id": ws, "label": "tour-renamed"}), "workspace_info")
        && renamed["workspace"]["label"] != "tour-renamed"
    {
        tour.failures.push(format!("workspace.rename did not rename: {renamed}"));
    }
    tour.other("workspace.move", json!({"workspace_id": ws2, "insert_index": 0}), Some("workspace_list"));
    tour.other("workspace.move_block", json!({"workspace_ids": [ws]}), Some("workspace_list"));
    tour.other(
        "workspace.report_metadata",
        json!({"workspace_id": ws, "source": "e2e", "tokens": {"k": "v"}}),
        Some("ok"),
    );

    let tab = tour.needed("tab.create", json!({"workspace_id": ws, "label": "two"}), "tab_created");
    let t2 = s(&tab["tab"]["tab_id"]);
    tour.core("tab.list", json!({"workspace_id": ws}), "tab_list");
    tour.core("tab.get", json!({"tab_id": t2}), "tab_info");
    tour.core("tab.focus", json!({"tab_id": t2}), "tab_info");
    tour.core("tab.rename", json!({"tab_id": t2, "label": "renamed"}), "tab_info");
    tour.other("tab.move", json!({"tab_id": t2, "insert_index": 0}), Some("tab_list"));
    tour.core("tab.focus", json!({"tab_id": first_tab}), "tab_info");

    let split = tour.needed(
        "pane.split",
        json!({"target_pane_id": p1, "direction": "right", "ratio": 0.5}),
        "pane_info",
    );
    let p2 = s(&split["pane"]["pane_id"]);
    tour.core("pane.list", json!({"workspace_id": ws}), "pane_list");
    tour.core("pane.get", json!({"pane_id": p1}), "pane_info");
    tour.core("pane.current", json!({}), "pane_current");
    tour.core("pane.current", json!({"caller_pane_id": p2}), "pane_current");
    tour.core("pane.focus", json!({"pane_id": p1}), "pane_info");
    tour.core("pane.rename", json!({"pane_id": p1, "label": "main"}), "pane_info");
    tour.other("pane.input.set", json!({"pane_id": p1, "right_click": "pane"}), Some("ok"));

    let marker = Marker::new("TOUR");
    tour.core("pane.send_text", json!({"pane_id": p1, "text": marker.command}), "ok");
    tour.core("pane.send_keys", json!({"pane_id": p1, "keys": ["enter"]}), "ok");
    tour.core("pane.send_input", json!({"pane_id": p2, "text": marker.command, "keys": ["Enter"]}), "ok");
    for pane in [&p1, &p2] {
        tour.core(
            "pane.wait_for_output",
            json!({"pane_id": pane, "source": "recent", "match": {"type": "substring", "value": marker.word},
                   "timeout_ms": 30000}),
            "output_matched",
        );
    }
    for source in ["visible", "recent", "recent_unwrapped", "detection"] {
        tour.core("pane.read", json!({"pane_id": p1, "source": source, "lines": 10}), "pane_read");
    }
    tour.core("pane.read", json!({"pane_id": p1, "source": "recent", "format": "ansi"}), "pane_read");
    tour.core("pane.process_info", json!({"pane_id": p1}), "pane_process_info");

    tour.core("pane.layout", json!({"pane_id": p1}), "pane_layout");
    tour.other("pane.neighbor", json!({"pane_id": p1, "direction": "right"}), Some("pane_neighbor"));
    tour.other("pane.edges", json!({"pane_id": p1}), Some("pane_edges"));
    tour.other(
        "pane.focus_direction",
        json!({"pane_id": p1, "direction": "right"}),
        Some("pane_focus_direction"),
    );
    tour.core("pane.resize", json!({"pane_id": p1, "direction": "right", "amount": 0.1}), "pane_resize");
    tour.other("pane.swap", json!({"source_pane_id": p1, "target_pane_id": p2}), Some("pane_swap"));
    tour.other("pane.zoom", json!({"pane_id": p1, "mode": "on"}), Some("pane_zoom"));
    tour.other("pane.zoom", json!({"pane_id": p1, "mode": "off"}), Some("pane_zoom"));
    tour.other("layout.export", json!({"pane_id": p1}), Some("layout_export"));
    tour.other(
        "layout.set_split_ratio",
        json!({"pane_id": p1, "path": [], "ratio": 0.5}),
        Some("layout_split_ratio_set"),
    );
    tour.other(
        "layout.apply",
        json!({"workspace_id": ws2, "tab_label": "applied", "root": {"type": "split",
        "direction": "down", "ratio": 0.5, "first": {"type": "pane"}, "second": {"type": "pane"}}}),
        Some("layout_apply"),
    );

    let origin = json!({"row": 0, "col": 0});
    tour.other("pane.scroll", json!({"pane_id": p1, "offset_from_bottom": 0}), None);
    tour.other("pane.edit_scrollback", json!({"pane_id": p1}), None);
    tour.other(
        "pane.selection.read",
        json!({"pane_id": p1, "anchor": origin, "cursor": {"row": 0, "col": 4}}),
        Some("pane_selection"),
    );
    tour.other(
        "pane.copy_motion",
        json!({"pane_id": p1, "cursor": origin, "motion": "line_end"}),
        Some("pane_copy_motion"),
    );
    tour.other(
        "pane.copy_search",
        json!({"pane_id": p1, "query": "TOUR", "direction": "backward", "cursor": origin,
        "content_revision": 0}),
        Some("pane_copy_search"),
    );
    tour.other(
        "pane.link.activate",
        json!({"pane_id": p1, "viewport_row": 0, "col": 0}),
        Some("pane_link_activated"),
    );
    tour.other("pane.graphics.info", json!({"pane_id": p1}), Some("pane_graphics_info"));
    tour.other(
        "pane.graphics.set",
        json!({"pane_id": p1, "format": "rgba", "image_width": 1, "image_height": 1,
        "data_base64": "AAAAAA=="}),
        None,
    );
    tour.other("pane.graphics.clear", json!({"pane_id": p1}), Some("ok"));

    tour.other(
        "pane.report_agent",
        json!({"pane_id": p2, "source": "e2e", "agent": "claude", "state": "working"}),
        Some("ok"),
    );
    tour.other(
        "pane.report_agent_session",
        json!({"pane_id": p2, "source": "e2e", "agent": "claude",
        "agent_session_id": "s1"}),
        Some("ok"),
    );
    tour.other("pane.report_metadata", json!({"pane_id": p2, "source": "e2e", "title": "Tour"}), Some("ok"));
    tour.other("agent.list", json!({}), Some("agent_list"));
    tour.other("agent.get", json!({"target": p2}), Some("agent_info"));
    tour.other("agent.read", json!({"target": p2, "source": "recent"}), Some("pane_read"));
    tour.other("agent.explain", json!({"target": p2}), Some("agent_explain"));
    tour.other("agent.send_keys", json!({"target": p2, "keys": ["esc"]}), Some("ok"));
    tour.other("agent.rename", json!({"target": p2, "name": "touring"}), Some("agent_info"));
    tour.other("agent.focus", json!({"target": p2}), Some("agent_info"));
    tour.other("agent.view.set", json!({"source": "e2e", "label": "tour"}), Some("agent_view"));
    tour.other("agent.view.clear", json!({"source": "e2e"}), Some("agent_view"));
    tour.other("agent.wait", json!({"target": p2, "timeout_ms": 200}), Some("agent_info"));
    tour.other("agent.prompt", json!({"target": p2, "text": "hello"}), Some("agent_prompted"));
    tour.other("pane.clear_agent_authority", json!({"pane_id": p2, "source": "e2e"}), Some("ok"));
    tour.other("pane.release_agent", json!({"pane_id": p2, "source": "e2e", "agent": "claude"}), Some("ok"));
    tour.other(
        "agent.start",
        json!({"name": "starter", "kind": "claude", "pane_id": p2, "timeout_ms": 5000}),
        Some("agent_started"),
    );

    events_subscribe(&mut tour, &p1, &ws);
    tour.other(
        "events.wait",
        json!({"match_event": {"event": "pane_agent_status_changed", "pane_id": p1,
        "agent_status": "unknown"}, "timeout_ms": 500}),
        Some("wait_matched"),
    );

    tour.other("notification.show", json!({"title": "tour"}), Some("notification_show"));
    tour.other("client.window_title.set", json!({"title": "tour"}), Some("client_window_title"));
    tour.other("client.window_title.clear", json!({}), Some("client_window_title"));
    // Upstream's answer outside a client-shell endpoint (e2e `command_invoke`).
    tour.other("client_shell.surface.set", json!({"active": false}), None);
    tour.other("product_announcement.dismiss", json!({"version": "0.0.0", "id": "tour"}), Some("ok"));
    tour.other("release_notes.dismiss", json!({"version": "0.0.0"}), Some("ok"));
    // An id the config does not have (the real runs: e2e `command_invoke`).
    tour.other("command.invoke", json!({"command_id": "tour.nothing"}), None);
    // No popup is open here: the refusal says so (the popup suites open and close real ones).
    tour.other("popup.close", json!({}), None);
    tour.other("server.reload_config", json!({}), Some("config_reload"));
    tour.other("server.agent_manifests", json!({}), Some("agent_manifest_status"));
    tour.other("server.reload_agent_manifests", json!({}), Some("agent_manifest_reload"));
    tour.other("integration.list", json!({}), Some("integration_list"));
    tour.other("integration.install", json!({"target": "pi"}), Some("integration_install"));
    tour.other("integration.uninstall", json!({"target": "pi"}), Some("integration_uninstall"));
    let no_plugin = server.root().join("no-such-plugin").display().to_string();
    tour.other("plugin.link", json!({"path": no_plugin}), Some("plugin_linked"));
    tour.other("plugin.list", json!({}), Some("plugin_list"));
    tour.other("plugin.enable", json!({"plugin_id": "tour"}), Some("plugin_enabled"));
    tour.other("plugin.disable", json!({"plugin_id": "tour"}), Some("plugin_disabled"));
    tour.other("plugin.action.list", json!({}), Some("plugin_action_list"));
    tour.other("plugin.action.invoke", json!({"action_id": "tour.nothing"}), Some("plugin_action_invoked"));
    tour.other("plugin.log.list", json!({"limit": 5}), Some("plugin_log_list"));
    // The keypad example plugin's pane entrypoint, opened beside p1, focused and closed again.
    let keypad = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/keypad");
    tour.other("plugin.link", json!({"path": keypad.display().to_string()}), Some("plugin_linked"));
    let opened = tour.other(
        "plugin.pane.open",
        json!({"plugin_id": "e2e.keypad", "entrypoint": "pad", "placement": "split", "target_pane_id": p1}),
        Some("plugin_pane_opened"),
    );
    let plugin_pane = opened.map_or_else(|| json!("w0:p0"), |o| o["plugin_pane"]["pane"]["pane_id"].clone());
    tour.other("plugin.pane.focus", json!({"pane_id": plugin_pane}), Some("plugin_pane_focused"));
    tour.other("plugin.pane.close", json!({"pane_id": plugin_pane}), Some("plugin_pane_closed"));
    tour.other("plugin.unlink", json!({"plugin_id": "e2e.keypad"}), Some("plugin_unlinked"));
    tour.other("plugin.unlink", json!({"plugin_id": "tour"}), Some("plugin_unlinked"));
    let repo = git_repo(&server);
    let tree = server.work_dir("tour-trees").join("tour").display().to_string();
    tour.other("worktree.list", json!({"cwd": repo}), Some("worktree_list"));
    let made = tour.other(
        "worktree.create",
        json!({"cwd": repo, "branch": "tour", "path": tree}),
        Some("worktree_created"),
    );
    tour.other("worktree.open", json!({"cwd": repo, "branch": "tour"}), Some("worktree_opened"));
    let tree_ws = made.map_or_else(|| ws2.clone(), |m| s(&m["workspace"]["workspace_id"]));
    tour.other("worktree.remove", json!({"workspace_id": tree_ws}), Some("worktree_removed"));

    let moved = tour.other(
        "pane.move",
        json!({"pane_id": p2, "destination": {"type": "new_tab", "workspace_id": ws}}),
        Some("pane_move"),
    );
    let p2_now = moved.map(|m| s(&m["move_result"]["pane"]["pane_id"])).unwrap_or(p2);
    tour.core("pane.close", json!({"pane_id": p2_now}), "ok");
    tour.core("tab.close", json!({"tab_id": t2}), "ok");
    tour.core("workspace.close", json!({"workspace_id": ws2}), "ok");

    // A handoff to the same binary must leave a working server either way.
    tour.other("server.live_handoff", json!({"expected_protocol": 22}), None);
    wait_until("the server to answer after live_handoff", PATIENCE, || {
        match server.raw(b"{\"id\":\"h\",\"method\":\"ping\",\"params\":{}}\n", Duration::from_secs(10)) {
            herdr_e2e::wire::Reply::Line(_) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    tour.core("workspace.close", json!({"workspace_id": ws}), "ok");
    tour.core("server.stop", json!({}), "ok");

    let table: Vec<String> = tour
        .outcomes
        .iter()
        .map(|(method, outcomes)| format!("{method:32} {}", outcomes.join(" | ")))
        .collect();
    eprintln!(
        "--- API tour: {} methods, {} lines schema-checked ---\n{}",
        tour.outcomes.len(),
        server.validated_count(),
        table.join("\n")
    );
    let missing: Vec<String> =
        schema::request_methods().into_iter().filter(|m| !tour.outcomes.contains_key(m)).collect();
    assert!(missing.is_empty(), "the tour skipped methods: {missing:?}");
    assert!(tour.failures.is_empty(), "{} tour failures:\n{}", tour.failures.len(), tour.failures.join("\n"));
}
