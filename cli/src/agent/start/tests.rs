//! The start flow against a scripted conversation: each request is matched to the next scripted
//! reply by method (a mismatch fails the test), and `pause` advances a manual clock.

use clap::Parser;

use super::*;
use crate::agent::script::Script;
use crate::args::{Cli, Command};

fn args(argv: &[&str]) -> StartArgs {
    let mut full = vec!["herdr", "agent", "start"];
    full.extend_from_slice(argv);
    match Cli::try_parse_from(full) {
        Ok(Cli { command: Some(Command::Agent(crate::agent::AgentCommand::Start(args))), .. }) => args,
        other => panic!("{argv:?}: {other:?}"),
    }
}

fn pane(terminal: &str) -> Value {
    json!({"id": "cli:agent:start:pane", "result": {"type": "pane_info", "pane": {"pane_id": "w1:p1", "terminal_id": terminal}}})
}

fn started(terminal: &str) -> Value {
    json!({"id": ID, "result": {"type": "agent_started", "agent": {"terminal_id": terminal, "launch_pending": true},
                                 "argv": ["claude"]}})
}

fn agent(status: &str, ready: bool, pending: bool) -> Value {
    json!({"id": ID, "result": {"type": "agent_info", "agent": {
        "terminal_id": "term_1", "name": "rev", "agent": "claude", "agent_status": status,
        "interactive_ready": ready, "launch_pending": pending}}})
}

fn error(code: &str) -> Value {
    json!({"id": ID, "error": {"code": code, "message": code}})
}

fn shell_only() -> Value {
    json!({"id": "x", "result": {"type": "pane_process_info", "process_info": {
        "pane_id": "w1:p1", "shell_pid": 10, "foreground_process_group_id": 10,
        "foreground_processes": [{"pid": 10, "name": "bash"}]}}})
}

fn code(failure: StartFailure) -> String {
    match failure {
        StartFailure::Envelope(value) => value["error"]["code"].as_str().unwrap_or_default().to_owned(),
        StartFailure::Connect(err) => format!("connect: {err}"),
    }
}

#[test]
fn grammar_and_request() {
    let a =
        args(&["rev", "--kind", "claude", "--pane", "w1:p1", "--timeout", "60000", "--", "--model", "opus"]);
    let request = start_request(&a).to_value();
    assert_eq!(
        request,
        json!({"id": "cli:agent:start", "method": "agent.start", "params": {
            "name": "rev", "kind": "claude", "pane_id": "w1:p1", "args": ["--model", "opus"], "timeout_ms": 60000}})
    );
    let checked =
        herdr_protocol::schema_check::validate(herdr_protocol::schema_check::SchemaKind::Request, &request);
    assert!(checked.is_ok(), "{checked:?}");
    assert!(Cli::try_parse_from(["herdr", "agent", "start", "rev", "--kind", "vim", "--pane", "p"]).is_err());
    assert!(
        Cli::try_parse_from(["herdr", "agent", "start", "rev", "--kind", "claude"]).is_err(),
        "--pane is required"
    );
}

#[test]
fn help_lists_the_kinds() {
    let mut command = <Cli as clap::CommandFactory>::command();
    let help = command
        .find_subcommand_mut("agent")
        .and_then(|agent| agent.find_subcommand_mut("start"))
        .map(|start| start.render_long_help().to_string())
        .unwrap_or_default();
    assert!(help.contains("possible values: pi, claude, codex"), "{help}");
}

#[test]
fn waits_until_the_agent_is_ready() {
    let mut script = Script::new(vec![
        ("pane.get", pane("term_1")),
        ("agent.start", started("term_1")),
        ("agent.get", error("agent_not_found")),
        ("agent.get", agent("unknown", false, true)),
        ("agent.get", agent("working", false, true)),
        ("agent.get", agent("idle", true, false)),
    ]);
    let response = run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1"]), &mut script).expect("ready");
    assert_eq!(response["result"]["type"], "agent_started");
    assert_eq!(response["result"]["agent"]["interactive_ready"], true);
    assert_eq!(response["result"]["argv"], json!(["claude"]));
    // The first poll by name missed (registration is async) and fell back to the pane.
    assert_eq!(script.sent[3]["params"]["target"], "w1:p1");
    assert!(script.replies.is_empty());
}

#[test]
fn retries_while_the_shell_is_starting() {
    let mut script = Script::new(vec![
        ("pane.get", pane("term_1")),
        ("agent.start", error("agent_pane_busy")),
        ("pane.get", pane("term_1")),
        ("pane.process_info", shell_only()),
        ("agent.start", started("term_1")),
        ("agent.get", agent("idle", true, false)),
    ]);
    run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1"]), &mut script).expect("ready after a retry");
    assert_eq!(
        script.methods(),
        ["pane.get", "agent.start", "pane.get", "pane.process_info", "agent.start", "agent.get"]
    );
}

#[test]
fn a_busy_pane_running_a_program_is_reported_at_once() {
    let mut script = Script::new(vec![
        ("pane.get", pane("term_1")),
        ("agent.start", error("agent_pane_busy")),
        ("pane.get", pane("term_1")),
        (
            "pane.process_info",
            json!({"result": {"process_info": {"shell_pid": 10, "foreground_process_group_id": 22,
                   "foreground_processes": [{"pid": 22, "name": "vim"}]}}}),
        ),
    ]);
    let failure = run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1"]), &mut script).expect_err("busy");
    assert_eq!(code(failure), "agent_pane_busy");
}

#[test]
fn startup_failures() {
    let cases = [
        (agent("blocked", false, true), "agent_not_ready"),
        (agent("idle", false, false), "agent_start_failed"),
        (
            json!({"id": ID, "result": {"agent": {"terminal_id": "term_1", "name": "rev", "agent": "codex", "agent_status": "idle"}}}),
            "agent_kind_mismatch",
        ),
        (
            json!({"id": ID, "result": {"agent": {"terminal_id": "term_9", "name": "rev", "agent": "claude"}}}),
            "agent_name_not_found",
        ),
    ];
    for (reply, expected) in cases {
        let mut script = Script::new(vec![
            ("pane.get", pane("term_1")),
            ("agent.start", started("term_1")),
            ("agent.get", reply),
        ]);
        let failure =
            run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1"]), &mut script).expect_err(expected);
        assert_eq!(code(failure), expected);
    }
}

#[test]
fn times_out_with_a_final_probe() {
    let mut replies = vec![("pane.get", pane("term_1")), ("agent.start", started("term_1"))];
    // 4 s at 100 ms per poll: 40 polls, then the reconciling probe.
    replies.extend((0..40).map(|_| ("agent.get", agent("working", false, true))));
    replies.push(("agent.get", agent("working", false, true)));
    let mut script = Script::new(replies);
    let failure =
        run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1", "--timeout", "4000"]), &mut script)
            .expect_err("timeout");
    assert_eq!(code(failure), "timeout");
    assert_eq!(script.sent.last().map(|r| r["id"].clone()), Some(json!("cli:agent:start:timeout")));
}

#[test]
fn other_start_errors_are_relayed() {
    let mut script =
        Script::new(vec![("pane.get", pane("term_1")), ("agent.start", error("agent_name_taken"))]);
    let failure =
        run(&args(&["rev", "--kind", "claude", "--pane", "w1:p1"]), &mut script).expect_err("taken");
    assert_eq!(code(failure), "agent_name_taken");
}

#[test]
fn shell_detection() {
    assert!(shell_alone_in_foreground(&shell_only()["result"]["process_info"]));
    let login = json!({"shell_pid": 5, "foreground_process_group_id": 5,
                       "foreground_processes": [{"pid": 5, "name": "x", "argv": ["-zsh"]}]});
    assert!(shell_alone_in_foreground(&login));
    assert!(!shell_alone_in_foreground(&json!({})));
}
