//! The `herdr` binary with no server running: help and usage exit codes, the honest message for
//! plain `herdr`, local commands, and the `server_not_running` error.

#![allow(clippy::unwrap_used)]

mod support;

use serde_json::Value;
use support::{Sandbox, stderr, stdout};

#[test]
fn help_exits_zero_on_stdout() {
    let sandbox = Sandbox::new();
    for args in
        [&["--help"][..], &["pane", "--help"], &["pane", "split", "--help"], &["agent", "prompt", "-h"]]
    {
        let output = sandbox.run(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr(&output));
        assert!(stdout(&output).contains("Usage: herdr"), "{args:?}: {}", stdout(&output));
    }
}

#[test]
fn version_exits_zero() {
    let output = Sandbox::new().run(&["--version"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), format!("herdr {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_two_on_stderr() {
    let sandbox = Sandbox::new();
    for args in [
        &["pane"][..],
        &["pane", "bogus"],
        &["pane", "split"],
        &["pane", "split", "--direction", "left"],
        &["pane", "read"],
        &["workspace", "create", "--bogus"],
        &["agent", "prompt", "r", "hi", "--until", "idle"],
        &["nonsense"],
    ] {
        let output = sandbox.run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stdout(&output).is_empty(), "{args:?} printed on stdout: {}", stdout(&output));
        assert!(!stderr(&output).is_empty(), "{args:?} printed no usage error");
    }
}

#[test]
fn command_rule_violations_exit_two_before_any_socket_is_touched() {
    let output = Sandbox::new().run(&["pane", "move", "w1:p1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("usage: herdr pane move"), "{}", stderr(&output));
}

#[test]
fn invalid_session_name_is_a_usage_error() {
    let output = Sandbox::new().run(&["--session", "../x", "pane", "list"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "herdr: session name may only contain ASCII letters, numbers, '.', '_' and '-'\n"
    );
}

#[test]
fn plain_herdr_without_a_terminal_says_it_needs_one_and_starts_nothing() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let text = stderr(&output);
    assert!(text.contains("needs a terminal") && text.contains("herdr server --detach"), "{text}");
    assert!(!sandbox.default_socket().exists(), "no server may be started without a terminal");
}

#[test]
fn dead_socket_reports_server_not_running() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["pane", "list"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert_eq!(
        stderr(&output),
        format!(
            "{{\"id\":\"cli:pane:list\",\"error\":{{\"code\":\"server_not_running\",\"message\":\"no herdr server is \
             running at {}; run `herdr` to start or attach it\"}}}}\n",
            sandbox.default_socket().display()
        )
    );
}

#[test]
fn named_session_and_socket_override_resolve_as_documented() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["tab", "list", "--session", "work"]);
    let error: Value = serde_json::from_str(&stderr(&output)).unwrap();
    let socket = sandbox.config_home().join("herdr/sessions/work/herdr.sock");
    assert_eq!(
        error["error"]["message"],
        format!(
            "no herdr server is running at {}; run `herdr --session work` to start or attach it",
            socket.display()
        )
    );
    assert_eq!(error["id"], "cli:tab:list");

    let custom = sandbox.dir.path().join("custom.sock");
    let output = sandbox.run_with(&["agent", "list"], &[("HERDR_SOCKET_PATH", &custom)]);
    let error: Value = serde_json::from_str(&stderr(&output)).unwrap();
    assert!(error["error"]["message"].as_str().unwrap().contains(&custom.display().to_string()));
}

#[test]
fn a_stale_socket_file_counts_as_not_running() {
    let sandbox = Sandbox::new();
    let socket = sandbox.dir.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let output = sandbox.run_with(&["workspace", "list"], &[("HERDR_SOCKET_PATH", &socket)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("\"code\":\"server_not_running\""), "{}", stderr(&output));
}

#[test]
fn status_exits_zero_when_not_running() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["status", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let status: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(status["server"]["running"], false);
    assert_eq!(status["server"]["status"], "not_running");
    assert_eq!(status["server"]["socket"], sandbox.default_socket().display().to_string());
    assert_eq!(status["client"]["protocol"], 22);

    let output = sandbox.run(&["status"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("server:\n  status: not running\n"), "{}", stdout(&output));

    let output = sandbox.run(&["status", "server"]);
    assert!(stdout(&output).starts_with("status: not running\nsocket: "), "{}", stdout(&output));
}

#[test]
fn api_schema_is_local() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["api", "schema"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).starts_with("Herdr API schema\nprotocol: 22\nschema_version: 1\n"));
    let output = sandbox.run(&["api", "schema", "--json"]);
    let schema: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(schema["protocol"], 22);
}

#[test]
fn server_stop_without_a_server_is_server_not_running() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["server", "stop"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .starts_with("{\"id\":\"cli:session:stop\",\"error\":{\"code\":\"server_not_running\""),
        "{}",
        stderr(&output)
    );
}

#[test]
fn detach_reports_a_server_that_exits_before_answering() {
    let sandbox = Sandbox::new();
    // A socket path under a regular file cannot be bound, so the server must fail at startup.
    let blocker = sandbox.dir.path().join("not-a-dir");
    std::fs::write(&blocker, "").unwrap();
    let socket = blocker.join("herdr.sock");
    let output = sandbox.run_with(&["server", "--detach"], &[("HERDR_SOCKET_PATH", &socket)]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let log = sandbox.config_home().join("herdr").join("herdr-server.log");
    let message = stderr(&output);
    assert!(message.contains("exited") && message.contains(&log.display().to_string()), "{message}");
    assert!(log.exists(), "the server's output goes to the session log");
}
