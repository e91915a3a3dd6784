//! What the `herdr` binary writes on the socket and how it prints replies, against a scripted
//! peer: ping first on its own connection, the protocol guard, then one request with the fixed
//! id; relayed envelopes printed with sorted keys.

#![allow(clippy::unwrap_used)]

mod support;

use serde_json::json;
use support::{Sandbox, ScriptedPeer, pong, stderr, stdout};

fn peer(sandbox: &Sandbox, replies: Vec<String>) -> ScriptedPeer {
    ScriptedPeer::start(sandbox.dir.path().join("api.sock"), replies)
}

#[test]
fn ping_then_one_request_and_a_sorted_reply() {
    let sandbox = Sandbox::new();
    let reply = r#"{"id":"cli:pane:list","result":{"type":"pane_list","panes":[{"pane_id":"w1:p1","focused":true,"agent_status":"unknown"}]}}"#;
    let peer = peer(&sandbox, vec![pong(22), reply.into()]);
    let output =
        sandbox.run_with(&["pane", "list", "--workspace", "w1"], &[("HERDR_SOCKET_PATH", &peer.socket)]);

    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "{\"id\":\"cli:pane:list\",\"result\":{\"panes\":[{\"agent_status\":\"unknown\",\"focused\":true,\"pane_id\":\"w1:p1\"}],\"type\":\"pane_list\"}}\n"
    );
    let received = peer.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0]["method"], "ping");
    assert_eq!(received[0]["params"], json!({}));
    assert_eq!(
        received[1],
        json!({"id": "cli:pane:list", "method": "pane.list", "params": {"workspace_id": "w1"}})
    );
}

#[test]
fn relayed_errors_go_to_stderr_sorted_with_exit_one() {
    let sandbox = Sandbox::new();
    let reply = r#"{"id":"cli:pane:get","error":{"message":"pane w9:p9 not found","code":"pane_not_found"}}"#;
    let peer = peer(&sandbox, vec![pong(22), reply.into()]);
    let output = sandbox.run_with(&["pane", "get", "w9:p9"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert_eq!(
        stderr(&output),
        "{\"error\":{\"code\":\"pane_not_found\",\"message\":\"pane w9:p9 not found\"},\"id\":\"cli:pane:get\"}\n"
    );
}

#[test]
fn protocol_mismatch_stops_before_the_request() {
    let sandbox = Sandbox::new();
    let peer = peer(&sandbox, vec![pong(20), r#"{"id":"x","result":{"type":"ok"}}"#.into()]);
    let output = sandbox.run_with(&["workspace", "list"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert!(
        stderr(&output).starts_with(
            "{\"id\":\"cli:workspace:list\",\"error\":{\"code\":\"protocol_mismatch\",\"message\":\"client protocol 22 is newer than server protocol 20;"
        ),
        "{}",
        stderr(&output)
    );
    assert_eq!(peer.received().len(), 1, "only the ping was sent");
}

#[test]
fn silent_commands_print_nothing() {
    let sandbox = Sandbox::new();
    let peer = peer(&sandbox, vec![pong(22), r#"{"id":"cli:request","result":{"type":"ok"}}"#.into()]);
    let output =
        sandbox.run_with(&["pane", "run", "w1:p1", "echo", "hi"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).is_empty() && stderr(&output).is_empty());
    assert_eq!(
        peer.received()[1],
        json!({"id": "cli:request", "method": "pane.send_input", "params": {"pane_id": "w1:p1", "text": "echo hi", "keys": ["Enter"]}})
    );
}

#[test]
fn pane_read_prints_text_verbatim() {
    let sandbox = Sandbox::new();
    let reply = r#"{"id":"cli:pane:read","result":{"type":"pane_read","read":{"pane_id":"w1:p1","text":"$ ls\nfile\n$ "}}}"#;
    let peer = peer(&sandbox, vec![pong(22), reply.into()]);
    let output =
        sandbox.run_with(&["pane", "read", "w1:p1", "--lines", "3"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "$ ls\nfile\n$ ");
}

#[test]
fn status_reports_a_running_server() {
    let sandbox = Sandbox::new();
    let peer = peer(&sandbox, vec![pong(22)]);
    let output = sandbox.run_with(&["status", "server", "--json"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(0));
    let status: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["running"], true);
    assert_eq!(status["compatible"], true);
    assert_eq!(status["capabilities"]["detached_server_daemon"], true);
}

#[test]
fn detach_leaves_a_running_server_alone() {
    let sandbox = Sandbox::new();
    let peer = peer(&sandbox, vec![pong(22)]);
    let output = sandbox.run_with(&["server", "--detach"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("herdr server is already running at {}\n", peer.socket.display()));
}

#[test]
fn server_stop_sends_server_stop_without_the_guard_and_waits_for_the_socket_to_close() {
    let sandbox = Sandbox::new();
    // One reply, then the peer stops listening, as a stopping server does.
    let peer = peer(&sandbox, vec![r#"{"id":"cli:session:stop","result":{"type":"ok"}}"#.into()]);
    let output = sandbox.run_with(&["server", "stop"], &[("HERDR_SOCKET_PATH", &peer.socket)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    assert_eq!(
        peer.received(),
        vec![json!({"id": "cli:session:stop", "method": "server.stop", "params": {}})]
    );
}

#[test]
fn session_stop_and_list_use_the_session_socket() {
    let sandbox = Sandbox::new();
    let dir = sandbox.config_home().join("herdr/sessions/work");
    std::fs::create_dir_all(&dir).unwrap();
    let peer = ScriptedPeer::start(
        dir.join("herdr.sock"),
        vec![r#"{"id":"cli:session:stop","result":{"type":"ok"}}"#.into()],
    );

    let output = sandbox.run(&["session", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(listed["sessions"][1]["name"], "work");
    assert_eq!(listed["sessions"][1]["running"], true);

    let output = sandbox.run(&["session", "stop", "work", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let stopped: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(stopped["stopped"], true);
    assert_eq!(stopped["session"]["running"], false);
    assert_eq!(peer.received()[0]["method"], "server.stop");
}
