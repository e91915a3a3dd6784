//! The installed Claude/Codex hook script, run for real (`sh` + `python3`) with a fake hook JSON
//! on stdin, against a real Unix-socket listener standing in for herdr.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use herdr_integrations::{Env, Target, install};
use serde_json::json;
use support::{FakeHerdr, assert_valid_request};

fn installed_script(home: &Path, target: Target) -> PathBuf {
    let (dir, script) = match target {
        Target::Claude => (".claude", ".claude/hooks/herdr-agent-state.sh"),
        Target::Codex => (".codex", ".codex/herdr-agent-state.sh"),
        other => panic!("{other} has no hook script"),
    };
    std::fs::create_dir_all(home.join(dir)).expect("agent dir");
    install(target, &Env { home: Some(home.to_owned()), ..Env::default() }).expect("install");
    home.join(script)
}

/// Runs the script as the agent would: `<script> session`, hook JSON on stdin, herdr's pane env;
/// it must finish within the agent's hook timeout.
fn run_hook(script: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    run_hook_bounded(script, stdin, env, HANG_BOUND)
        .unwrap_or_else(|| panic!("the hook was still running after {HANG_BOUND:?}, when its agent kills it"))
}

/// The hook timeout herdr's integrations give agents (`timeout: 10` in `spec.rs`): a hook still
/// running then would be killed by its agent, so it must have given up by itself before.
const HANG_BOUND: Duration = Duration::from_secs(10);

/// Runs the script as [`run_hook`] does; one still running after `bound` is killed and `None`
/// returned.
fn run_hook_bounded(script: &Path, stdin: &str, env: &[(&str, &str)], bound: Duration) -> Option<Output> {
    let mut command = Command::new(script);
    command.arg("session").env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    command.envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hook");
    match child.stdin.take().expect("stdin").write_all(stdin.as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("write hook stdin: {e}"),
    }
    let deadline = Instant::now() + bound;
    while child.try_wait().expect("wait hook").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().expect("hook output"))
}

fn assert_silent_success(output: &Output) {
    assert!(output.status.success(), "hook failed: {output:?}");
    assert!(output.stdout.is_empty() && output.stderr.is_empty(), "hook printed: {output:?}");
}

const SESSION_START: &str = r#"{"session_id":"0f1e2d3c-aaaa-bbbb-cccc-123456789abc","transcript_path":"/home/u/.claude/projects/x/0f1e.jsonl","cwd":"/work","hook_event_name":"SessionStart","source":"resume"}"#;

#[test]
fn claude_session_start_sends_one_report_agent_session_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = installed_script(tmp.path(), Target::Claude);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8 path");
    let output = run_hook(
        &script,
        SESSION_START,
        &[("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p2")],
    );
    assert_silent_success(&output);
    let request = herdr.next_request();
    assert_valid_request(&request);
    assert_eq!(request["method"], "pane.report_agent_session");
    let params = &request["params"];
    assert_eq!(params["pane_id"], "w1:p2");
    assert_eq!(params["source"], "herdr:claude");
    assert_eq!(params["agent"], "claude");
    assert_eq!(params["agent_session_id"], "0f1e2d3c-aaaa-bbbb-cccc-123456789abc");
    assert_eq!(params["session_start_source"], "resume");
    assert!(params.get("agent_session_path").is_none(), "claude resumes by id, not path");
    let seq = params["seq"].as_u64().expect("seq is a u64");
    let now_ns =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_nanos();
    assert!(u128::from(seq) <= now_ns && now_ns - u128::from(seq) < 60_000_000_000, "seq is wall-clock ns");
    herdr.assert_nothing_received();
}

#[test]
fn codex_reports_as_codex() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = installed_script(tmp.path(), Target::Codex);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8 path");
    let event = json!({"session_id": "019a-codex-thread", "hook_event_name": "SessionStart", "source": "startup",
        "model": "gpt-5", "cwd": "/w", "transcript_path": null});
    let output = run_hook(
        &script,
        &event.to_string(),
        &[("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w3:p1")],
    );
    assert_silent_success(&output);
    let request = herdr.next_request();
    assert_valid_request(&request);
    assert_eq!(request["params"]["source"], "herdr:codex");
    assert_eq!(request["params"]["agent"], "codex");
    assert_eq!(request["params"]["agent_session_id"], "019a-codex-thread");
    assert_eq!(request["params"]["session_start_source"], "startup");
}

#[test]
fn outside_a_herdr_pane_the_hook_does_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = installed_script(tmp.path(), Target::Claude);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8 path");
    for env in [
        vec![("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")],
        vec![("HERDR_ENV", "0"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")],
        vec![("HERDR_ENV", "1"), ("HERDR_PANE_ID", "w1:p1")],
        vec![("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket)],
    ] {
        assert_silent_success(&run_hook(&script, SESSION_START, &env));
    }
    herdr.assert_nothing_received();
}

#[test]
fn events_that_do_not_name_the_main_session_send_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = installed_script(tmp.path(), Target::Claude);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8 path");
    let env = [("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")];
    for stdin in [
        r#"{"session_id":"abc","hook_event_name":"Stop"}"#.to_owned(),
        r#"{"session_id":"abc","hook_event_name":"SessionStart","agent_id":"sub-1"}"#.to_owned(),
        r#"{"hook_event_name":"SessionStart"}"#.to_owned(),
        json!({"session_id": "bad\u{1b}id", "hook_event_name": "SessionStart"}).to_string(),
        format!(r#"{{"session_id":"{}"}}"#, "x".repeat(513)),
        "not json".to_owned(),
        String::new(),
    ] {
        assert_silent_success(&run_hook(&script, &stdin, &env));
    }
    herdr.assert_nothing_received();
}

#[test]
fn a_dead_or_silent_herdr_never_fails_or_stalls_the_agent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = installed_script(tmp.path(), Target::Claude);
    let missing = tmp.path().join("nobody.sock");
    let env = [
        ("HERDR_ENV", "1"),
        ("HERDR_SOCKET_PATH", missing.to_str().expect("utf-8")),
        ("HERDR_PANE_ID", "w1:p1"),
    ];
    assert_silent_success(&run_hook(&script, SESSION_START, &env));

    let silent_dir = tempfile::tempdir().expect("tmp");
    let herdr = FakeHerdr::start(silent_dir.path(), false);
    let socket = herdr.socket.to_str().expect("utf-8 path");
    // The server takes the request and never answers: the hook must give up by itself (its
    // socket budget is 0.5 s) rather than be killed by the agent's hook timeout.
    let output = run_hook(
        &script,
        SESSION_START,
        &[("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")],
    );
    assert_silent_success(&output);
    herdr.next_request();
}
