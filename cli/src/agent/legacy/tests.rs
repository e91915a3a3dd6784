//! The 0.7 `agent start` form: which form a command line is, and the new-pane flow against a
//! scripted conversation.

use clap::Parser;
use serde_json::json;

use super::*;
use crate::agent::script::Script;
use crate::args::{Cli, Command};

fn parsed(argv: &[&str]) -> Result<StartForm, String> {
    let mut full = vec!["herdr", "agent", "start"];
    full.extend_from_slice(argv);
    match Cli::try_parse_from(full) {
        Ok(Cli { command: Some(Command::Agent(crate::agent::AgentCommand::Start(args))), .. }) => {
            form(args).map_err(|UsageError(message)| message)
        }
        Ok(other) => panic!("{argv:?}: {other:?}"),
        Err(err) => Err(err.to_string()),
    }
}

#[test]
fn kind_and_pane_choose_the_09_form_and_their_absence_the_07_form() {
    match parsed(&["rev", "--kind", "claude", "--pane", "w1:p1", "--", "--model", "opus"]) {
        Ok(StartForm::Existing(args)) => assert_eq!(args.args, ["--model", "opus"]),
        other => panic!("{other:?}"),
    }
    match parsed(&[
        "rev",
        "--cwd",
        "/tmp",
        "--split",
        "down",
        "--env",
        "A=1",
        "--no-focus",
        "--",
        "/usr/bin/pi",
        "-c",
    ]) {
        Ok(StartForm::NewPane(args)) => {
            assert_eq!((args.kind(), args.args.as_slice()), ("pi", ["-c".to_owned()].as_slice()));
            assert_eq!(args.placement.cwd.as_deref(), Some("/tmp"));
            assert_eq!(args.placement.split, Some(SplitDirection::Down));
            assert_eq!(args.placement.env, [("A".to_owned(), "1".to_owned())]);
        }
        other => panic!("{other:?}"),
    }
    let unsupported = parsed(&["rev", "--", "sh", "-lc", "make"]).expect_err("sh is no agent");
    assert!(unsupported.contains("sh is not a supported agent"), "{unsupported}");
    assert!(parsed(&["rev"]).expect_err("no argv").contains("--kind KIND --pane ID"));
    assert!(parsed(&["rev", "--kind", "pi"]).is_err(), "--kind needs --pane");
    assert!(
        parsed(&["rev", "--kind", "pi", "--pane", "w1:p1", "--cwd", "/tmp"]).is_err(),
        "0.7 flags need the 0.7 form"
    );
}

fn new_pane_args(argv: &[&str]) -> StartArgs {
    match parsed(argv) {
        Ok(StartForm::NewPane(args)) => args,
        other => panic!("{other:?}"),
    }
}

fn split_reply(pane: &str) -> Value {
    json!({"id": "cli:agent:start:split", "result": {"type": "pane_info", "pane": {"pane_id": pane, "terminal_id": "term_9"}}})
}

#[test]
fn the_tabs_pane_is_split_and_the_agent_started_in_the_new_pane() {
    let args = new_pane_args(&["docs", "--tab", "w1:t2", "--", "codex"]);
    let panes = json!({"id": "x", "result": {"type": "pane_list", "panes": [
        {"pane_id": "w1:p1", "tab_id": "w1:t1", "focused": true},
        {"pane_id": "w1:p4", "tab_id": "w1:t2", "focused": false}]}});
    let pane = json!({"id": "x", "result": {"type": "pane_info", "pane": {"pane_id": "w1:p5", "terminal_id": "term_9"}}});
    let started = json!({"id": ID, "result": {"type": "agent_started", "argv": ["codex"],
        "agent": {"terminal_id": "term_9", "launch_pending": true}}});
    let ready = json!({"id": ID, "result": {"type": "agent_info", "agent": {"terminal_id": "term_9", "name": "docs",
        "agent": "codex", "agent_status": "idle", "interactive_ready": true, "launch_pending": false}}});
    let mut script = Script::new(vec![
        ("pane.list", panes),
        ("pane.split", split_reply("w1:p5")),
        ("pane.get", pane),
        ("agent.start", started),
        ("agent.get", ready),
    ]);
    let response = run(&args, None, &mut script).expect("started");
    assert_eq!(response["result"]["agent"]["name"], "docs");
    assert_eq!(script.sent[0]["params"], json!({"workspace_id": "w1"}));
    assert_eq!(
        script.sent[1]["params"],
        json!({"direction": "right", "target_pane_id": "w1:p4", "focus": false})
    );
    assert_eq!(
        script.sent[3]["params"],
        json!({"name": "docs", "kind": "codex", "pane_id": "w1:p5", "args": []})
    );
}

#[test]
fn no_workspace_yet_means_a_new_one_and_a_failed_start_closes_the_pane() {
    let args = new_pane_args(&["rev", "--cwd", "/srv", "--", "pi"]);
    let no_workspace =
        json!({"id": "x", "error": {"code": "workspace_not_found", "message": "no active workspace"}});
    let created = json!({"id": "x", "result": {"type": "workspace_created", "workspace": {}, "tab": {},
        "root_pane": {"pane_id": "w1:p1", "terminal_id": "term_1"}}});
    let pane = json!({"id": "x", "result": {"type": "pane_info", "pane": {"pane_id": "w1:p1", "terminal_id": "term_1"}}});
    let taken = json!({"id": ID, "error": {"code": "agent_name_taken", "message": "taken"}});
    let mut script = Script::new(vec![
        ("pane.split", no_workspace),
        ("workspace.create", created),
        ("pane.get", pane),
        ("agent.start", taken),
        ("pane.close", json!({"id": "x", "result": {"type": "ok"}})),
    ]);
    match run(&args, Some("w9:p9"), &mut script) {
        Err(StartFailure::Envelope(error)) => assert_eq!(error["error"]["code"], "agent_name_taken"),
        other => panic!("{other:?}"),
    }
    assert_eq!(script.sent[0]["params"]["target_pane_id"], "w9:p9", "the caller's pane is split");
    assert_eq!(script.sent[1]["params"], json!({"cwd": "/srv", "focus": false}));
    assert_eq!(script.sent[4]["params"], json!({"pane_id": "w1:p1"}));
}
