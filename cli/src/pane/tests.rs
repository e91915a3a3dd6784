//! The request every `pane` subcommand builds, checked field by field and against the
//! protocol-22 request schema.

use clap::Parser;
use serde_json::{Value, json};

use super::*;
use crate::args::{Cli, Command};
use crate::request::Reply;

fn parse(words: &[&str]) -> PaneCommand {
    let mut argv = vec!["herdr", "pane"];
    argv.extend_from_slice(words);
    match Cli::try_parse_from(argv) {
        Ok(Cli { command: Some(Command::Pane(command)), .. }) => command,
        Ok(other) => panic!("not a pane command: {other:?}"),
        Err(err) => panic!("{words:?} did not parse: {err}"),
    }
}

fn call_with(words: &[&str], caller: &Caller) -> ApiCall {
    let call = call(&parse(words), caller).unwrap_or_else(|err| panic!("{words:?}: {err:?}"));
    let value = call.request.to_value();
    if let Err(errors) =
        herdr_protocol::schema_check::validate(herdr_protocol::schema_check::SchemaKind::Request, &value)
    {
        panic!("{words:?} built a request the schema rejects: {value}\n{errors:#?}");
    }
    call
}

fn built(words: &[&str]) -> (Value, Reply) {
    let call = call_with(words, &Caller::default());
    (call.request.to_value(), call.reply)
}

fn in_pane(words: &[&str]) -> Value {
    call_with(words, &Caller { pane_id: Some("w1:p2".into()), ..Caller::default() }).request.to_value()
}

fn usage_error(words: &[&str]) -> String {
    match call(&parse(words), &Caller::default()) {
        Err(UsageError(message)) => message,
        Ok(call) => panic!("{words:?} should be refused, built {:?}", call.request),
    }
}

#[test]
fn list_and_get() {
    assert_eq!(built(&["list"]).0, json!({"id": "cli:pane:list", "method": "pane.list", "params": {}}));
    assert_eq!(built(&["list", "--workspace", "w2"]).0["params"], json!({"workspace_id": "w2"}));
    assert_eq!(
        built(&["get", "w1:p1"]),
        (
            json!({"id": "cli:pane:get", "method": "pane.get", "params": {"pane_id": "w1:p1"}}),
            Reply::Envelope
        )
    );
    assert_eq!(built(&["close", "w1:p3"]).0["id"], "cli:pane:close");
}

#[test]
fn current_defaults_to_the_callers_pane() {
    assert_eq!(in_pane(&["current"])["params"], json!({"caller_pane_id": "w1:p2"}));
    assert_eq!(in_pane(&["current", "--pane", "w3:p1"])["params"], json!({"caller_pane_id": "w3:p1"}));
    assert_eq!(built(&["current"]).0["params"], json!({}));
    assert_eq!(built(&["current"]).0["id"], "cli:pane:current");
}

#[test]
fn optional_pane_targets() {
    assert_eq!(built(&["layout"]).0, json!({"id": "cli:pane:layout", "method": "pane.layout", "params": {}}));
    assert_eq!(built(&["layout", "--pane", "w1:p1"]).0["params"], json!({"pane_id": "w1:p1"}));
    assert_eq!(in_pane(&["layout", "--current"])["params"], json!({"pane_id": "w1:p2"}));
    assert_eq!(
        built(&["layout", "--current"]).0["params"],
        json!({}),
        "--current outside a pane: focused pane"
    );
    assert_eq!(in_pane(&["layout"])["params"], json!({}), "without --current the focused pane is used");
    let (value, _) = built(&["process-info", "--pane", "w1:p1"]);
    assert_eq!(
        (value["id"].clone(), value["method"].clone()),
        (json!("cli:pane:process_info"), json!("pane.process_info"))
    );
    assert_eq!(built(&["edges"]).0["method"], "pane.edges");
}

#[test]
fn directional_commands() {
    assert_eq!(
        built(&["neighbor", "--direction", "left"]).0,
        json!({"id": "cli:pane:neighbor", "method": "pane.neighbor", "params": {"direction": "left"}})
    );
    assert_eq!(
        built(&["focus", "--direction", "up", "--pane", "w1:p1"]).0,
        json!({"id": "cli:pane:focus", "method": "pane.focus_direction", "params": {"pane_id": "w1:p1", "direction": "up"}})
    );
    let resize = built(&["resize", "--direction", "right", "--amount", "0.125"]).0;
    assert_eq!(resize["id"], "cli:pane:resize");
    assert_eq!(resize["params"], json!({"direction": "right", "amount": 0.125}));
}

#[test]
fn zoom_modes() {
    assert_eq!(
        built(&["zoom"]).0,
        json!({"id": "cli:pane:zoom", "method": "pane.zoom", "params": {"mode": "toggle"}})
    );
    assert_eq!(built(&["zoom", "w1:p1", "--on"]).0["params"], json!({"pane_id": "w1:p1", "mode": "on"}));
    assert_eq!(
        built(&["zoom", "--pane", "w1:p3", "--off"]).0["params"],
        json!({"pane_id": "w1:p3", "mode": "off"})
    );
    assert!(Cli::try_parse_from(["herdr", "pane", "zoom", "--on", "--off"]).is_err());
    // --pane/--current win over the positional pane, as for split and input.
    assert_eq!(in_pane(&["zoom", "w1:p9", "--current"])["params"]["pane_id"], "w1:p2");
    assert_eq!(built(&["zoom", "w1:p9", "--current"]).0["params"], json!({"mode": "toggle"}));
}

#[test]
fn swap_forms() {
    assert_eq!(
        built(&["swap", "--direction", "right"]).0,
        json!({"id": "cli:pane:swap", "method": "pane.swap", "params": {"direction": "right"}})
    );
    assert_eq!(
        built(&["swap", "--source-pane", "w1:p1", "--target-pane", "w1:p2"]).0["params"],
        json!({"source_pane_id": "w1:p1", "target_pane_id": "w1:p2"})
    );
    assert!(usage_error(&["swap"]).starts_with("usage: herdr pane swap"));
    assert!(
        usage_error(&["swap", "--direction", "left", "--source-pane", "a", "--target-pane", "b"])
            .contains("usage")
    );
    assert!(usage_error(&["swap", "--source-pane", "a"]).contains("usage"));
}

#[test]
fn move_destinations() {
    assert_eq!(
        built(&[
            "move",
            "w1:p1",
            "--tab",
            "w2:t1",
            "--split",
            "down",
            "--target-pane",
            "w2:p1",
            "--ratio",
            "0.25",
            "--no-focus"
        ])
        .0,
        json!({"id": "cli:pane:move", "method": "pane.move", "params": {
            "pane_id": "w1:p1",
            "destination": {"type": "tab", "tab_id": "w2:t1", "target_pane_id": "w2:p1", "split": "down", "ratio": 0.25},
            "focus": false
        }})
    );
    assert_eq!(
        built(&["move", "w1:p1", "--new-tab", "--workspace", "w2", "--label", "logs"]).0["params"],
        json!({"pane_id": "w1:p1", "destination": {"type": "new_tab", "workspace_id": "w2", "label": "logs"}, "focus": true})
    );
    assert_eq!(
        built(&["move", "w1:p1", "--new-workspace", "--tab-label", "t"]).0["params"]["destination"],
        json!({"type": "new_workspace", "tab_label": "t"})
    );
    for bad in [
        &["move", "w1:p1"][..],
        &["move", "w1:p1", "--tab", "w2:t1"],
        &["move", "w1:p1", "--new-tab", "--new-workspace"],
        &["move", "w1:p1", "--new-tab", "--split", "right"],
        &["move", "w1:p1", "--new-workspace", "--workspace", "w2"],
    ] {
        assert!(usage_error(bad).starts_with("usage: herdr pane move"), "{bad:?}");
    }
}

#[test]
fn rename_sets_or_clears() {
    assert_eq!(
        built(&["rename", "w1:p1", "build", "logs"]).0,
        json!({"id": "cli:pane:rename", "method": "pane.rename", "params": {"pane_id": "w1:p1", "label": "build logs"}})
    );
    assert_eq!(built(&["rename", "w1:p1", "--clear"]).0["params"], json!({"pane_id": "w1:p1"}));
    assert!(Cli::try_parse_from(["herdr", "pane", "rename", "w1:p1"]).is_err());
    assert!(Cli::try_parse_from(["herdr", "pane", "rename", "w1:p1", "x", "--clear"]).is_err());
}

#[test]
fn split_targets_and_options() {
    assert_eq!(
        built(&["split", "--direction", "right"]).0,
        json!({"id": "cli:pane:split", "method": "pane.split", "params": {"direction": "right", "focus": false}})
    );
    assert_eq!(
        built(&[
            "split",
            "w1:p1",
            "--direction",
            "down",
            "--ratio",
            "0.3",
            "--cwd",
            "rel/dir",
            "--env",
            "A=1",
            "--env",
            "B=x=y",
            "--focus"
        ])
        .0["params"],
        json!({"target_pane_id": "w1:p1", "direction": "down", "ratio": 0.3, "cwd": "rel/dir", "focus": true,
               "env": {"A": "1", "B": "x=y"}})
    );
    assert_eq!(in_pane(&["split", "--current", "--direction", "down"])["params"]["target_pane_id"], "w1:p2");
    assert_eq!(in_pane(&["split", "--direction", "down"])["params"].get("target_pane_id"), None);
    assert_eq!(
        built(&["split", "w1:p1", "--pane", "w1:p4", "--direction", "down"]).0["params"]["target_pane_id"],
        "w1:p4"
    );
    assert_eq!(
        built(&["split", "--direction", "right", "--right-click", "pane"]).0["params"]["right_click"],
        "pane"
    );
    assert!(Cli::try_parse_from(["herdr", "pane", "split"]).is_err(), "--direction is required");
    assert!(
        Cli::try_parse_from(["herdr", "pane", "split", "--direction", "left"]).is_err(),
        "splits go right or down"
    );
    assert!(
        Cli::try_parse_from(["herdr", "pane", "split", "--direction", "down", "--ratio", "NaN"]).is_err()
    );
    assert!(Cli::try_parse_from(["herdr", "pane", "split", "--direction", "down", "--env", "=v"]).is_err());
}

#[test]
fn read_prints_raw_text() {
    let (value, reply) = built(&["read", "w1:p1"]);
    assert_eq!(reply, Reply::ReadText);
    assert_eq!(
        value,
        json!({"id": "cli:pane:read", "method": "pane.read",
               "params": {"pane_id": "w1:p1", "source": "recent", "format": "text", "strip_ansi": true}})
    );
    assert_eq!(
        built(&["read", "w1:p1", "--source", "recent-unwrapped", "--lines", "5", "--ansi"]).0["params"],
        json!({"pane_id": "w1:p1", "source": "recent_unwrapped", "lines": 5, "format": "ansi", "strip_ansi": true})
    );
    assert_eq!(built(&["read", "--source=visible", "w1:p1", "--raw"]).0["params"]["strip_ansi"], false);
    assert_eq!(built(&["read", "w1:p1", "--source", "detection"]).0["params"]["source"], "detection");
    // Extension: the agent's last reply (wire `last_turn`; the wire spelling is accepted too).
    // Protocol 22's schema does not know it, so these are built without the schema check.
    for spelling in ["last-turn", "last_turn"] {
        let command = parse(&["read", "w1:p1", "--source", spelling]);
        let value = call(&command, &Caller::default()).expect("builds").request.to_value();
        assert_eq!(value["params"]["source"], "last_turn", "{value}");
        let kind = herdr_protocol::schema_check::SchemaKind::Request;
        assert!(herdr_protocol::schema_check::validate(kind, &value).is_err(), "an extension: {value}");
    }
    assert!(Cli::try_parse_from(["herdr", "pane", "read", "w1:p1", "--source", "bogus"]).is_err());
}

#[test]
fn input_commands_are_silent_with_the_generic_id() {
    let (value, reply) = built(&["send-text", "w1:p1", "hello", "world"]);
    assert_eq!(reply, Reply::Silent);
    assert_eq!(
        value,
        json!({"id": "cli:request", "method": "pane.send_text", "params": {"pane_id": "w1:p1", "text": "hello world"}})
    );
    assert_eq!(
        built(&["send-keys", "w1:p1", "C-c", "Enter"]).0,
        json!({"id": "cli:request", "method": "pane.send_keys", "params": {"pane_id": "w1:p1", "keys": ["C-c", "Enter"]}})
    );
    let (value, reply) = built(&["run", "w1:p1", "ls", "-la", "--color"]);
    assert_eq!(reply, Reply::Silent);
    assert_eq!(
        value,
        json!({"id": "cli:request", "method": "pane.send_input",
               "params": {"pane_id": "w1:p1", "text": "ls -la --color", "keys": ["Enter"]}})
    );
    assert!(Cli::try_parse_from(["herdr", "pane", "run", "w1:p1"]).is_err(), "a command is required");
}

#[test]
fn wait_output_matchers() {
    assert_eq!(
        built(&["wait-output", "w1:p1", "--match", "ready"]).0,
        json!({"id": "cli:pane:wait-output", "method": "pane.wait_for_output", "params": {
            "pane_id": "w1:p1", "source": "recent", "match": {"type": "substring", "value": "ready"}, "strip_ansi": true}})
    );
    assert_eq!(
        built(&[
            "wait-output",
            "w1:p1",
            "--regex",
            "^\\$ $",
            "--timeout",
            "500",
            "--lines",
            "20",
            "--source",
            "visible",
            "--raw"
        ])
        .0["params"],
        json!({"pane_id": "w1:p1", "source": "visible", "lines": 20, "match": {"type": "regex", "value": "^\\$ $"},
               "timeout_ms": 500, "strip_ansi": false})
    );
    assert!(Cli::try_parse_from(["herdr", "pane", "wait-output", "w1:p1"]).is_err());
    assert!(
        Cli::try_parse_from(["herdr", "pane", "wait-output", "w1:p1", "--match", "a", "--regex", "b"])
            .is_err()
    );
    assert!(
        Cli::try_parse_from([
            "herdr",
            "pane",
            "wait-output",
            "w1:p1",
            "--match",
            "a",
            "--source",
            "detection"
        ])
        .is_err()
    );
}

#[test]
fn input_routing() {
    assert_eq!(
        built(&["input", "w1:p1", "--right-click", "pane"]).0,
        json!({"id": "cli:pane:input:set", "method": "pane.input.set", "params": {"pane_id": "w1:p1", "right_click": "pane"}})
    );
    assert!(usage_error(&["input", "--right-click", "herdr"]).starts_with("usage: herdr pane input"));
}

#[test]
fn agent_reports() {
    let (value, reply) = built(&[
        "report-agent",
        "w1:p1",
        "--source",
        " herdr:claude ",
        "--agent",
        "claude",
        "--state",
        "working",
        "--seq",
        "7",
    ]);
    assert_eq!(reply, Reply::Silent);
    assert_eq!(
        value,
        json!({"id": "cli:request", "method": "pane.report_agent", "params": {
            "pane_id": "w1:p1", "source": "herdr:claude", "agent": "claude", "state": "working", "seq": 7}})
    );
    assert_eq!(
        built(&[
            "report-agent-session",
            "w1:p1",
            "--source",
            "s",
            "--agent",
            "codex",
            "--agent-session-id",
            "abc"
        ])
        .0["params"],
        json!({"pane_id": "w1:p1", "source": "s", "agent": "codex", "agent_session_id": "abc"})
    );
    assert_eq!(
        built(&["release-agent", "w1:p1", "--source", "s", "--agent", "codex"]).0,
        json!({"id": "cli:request", "method": "pane.release_agent", "params": {"pane_id": "w1:p1", "source": "s", "agent": "codex"}})
    );
    assert_eq!(
        usage_error(&["report-agent", "w1:p1", "--source", " ", "--agent", "a", "--state", "idle"]),
        "missing required --source"
    );
    assert!(
        Cli::try_parse_from([
            "herdr",
            "pane",
            "report-agent",
            "w1:p1",
            "--source",
            "s",
            "--agent",
            "a",
            "--state",
            "done"
        ])
        .is_err()
    );
    assert!(
        Cli::try_parse_from(["herdr", "pane", "report-agent", "w1:p1", "--agent", "a", "--state", "idle"])
            .is_err()
    );
}

#[test]
fn metadata_reports() {
    assert_eq!(
        built(&[
            "report-metadata",
            "w1:p1",
            "--source",
            "s",
            "--title",
            "T",
            "--state-label",
            "Working=busy",
            "--token",
            "k=v",
            "--clear-token",
            "old",
            "--ttl-ms",
            "1000"
        ])
        .0,
        json!({"id": "cli:request", "method": "pane.report_metadata", "params": {
            "pane_id": "w1:p1", "source": "s", "title": "T", "state_labels": {"working": "busy"},
            "tokens": {"k": "v", "old": null}, "ttl_ms": 1000}})
    );
    assert_eq!(
        built(&["report-metadata", "w1:p1", "--source", "s", "--clear-title", "--clear-state-labels"]).0["params"],
        json!({"pane_id": "w1:p1", "source": "s", "clear_title": true, "clear_state_labels": true})
    );
    assert_eq!(
        usage_error(&["report-metadata", "w1:p1", "--source", "s"]),
        "missing metadata field to set or clear"
    );
    assert!(
        Cli::try_parse_from([
            "herdr",
            "pane",
            "report-metadata",
            "w1:p1",
            "--source",
            "s",
            "--title",
            "a",
            "--clear-title"
        ])
        .is_err()
    );
    assert!(
        Cli::try_parse_from([
            "herdr",
            "pane",
            "report-metadata",
            "w1:p1",
            "--source",
            "s",
            "--state-label",
            "late=x"
        ])
        .is_err()
    );
}
