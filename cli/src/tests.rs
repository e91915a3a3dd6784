//! The request every non-pane command builds (method, params, fixed id, reply mode), each one
//! validated against the protocol-22 request schema; plus the global `--session` grammar.

use clap::Parser;
use serde_json::{Value, json};

use super::*;
use crate::request::Reply;

fn parse(argv: &[&str]) -> Cli {
    let mut full = vec!["herdr"];
    full.extend_from_slice(argv);
    Cli::try_parse_from(full).unwrap_or_else(|err| panic!("{argv:?} did not parse: {err}"))
}

fn planned_call(argv: &[&str]) -> ApiCall {
    let command = parse(argv).command.unwrap_or_else(|| panic!("{argv:?}: no command"));
    match plan(command, &Caller::default()) {
        Ok(Plan::Call(call)) => {
            let value = call.request.to_value();
            let checked = herdr_protocol::schema_check::validate(
                herdr_protocol::schema_check::SchemaKind::Request,
                &value,
            );
            assert!(checked.is_ok(), "{argv:?} built a request the schema rejects: {value}\n{checked:#?}");
            call
        }
        Ok(other) => panic!("{argv:?} is not a socket call: {other:?}"),
        Err(err) => panic!("{argv:?}: {err:?}"),
    }
}

fn request(argv: &[&str]) -> Value {
    planned_call(argv).request.to_value()
}

fn usage_error(argv: &[&str]) -> String {
    let command = parse(argv).command.unwrap_or_else(|| panic!("{argv:?}: no command"));
    match plan(command, &Caller::default()) {
        Err(UsageError(message)) => message,
        Ok(plan) => panic!("{argv:?} should be refused, planned {plan:?}"),
    }
}

#[test]
fn workspace_requests() {
    assert_eq!(
        request(&["workspace", "list"]),
        json!({"id": "cli:workspace:list", "method": "workspace.list", "params": {}})
    );
    assert_eq!(
        request(&["workspace", "create"]),
        json!({"id": "cli:workspace:create", "method": "workspace.create", "params": {"focus": false}})
    );
    assert_eq!(
        request(&["workspace", "create", "--cwd", "some/dir", "--label", "api", "--env", "K=V", "--focus"])["params"],
        json!({"cwd": "some/dir", "focus": true, "label": "api", "env": {"K": "V"}})
    );
    assert_eq!(request(&["workspace", "create", "--focus", "--no-focus"])["params"]["focus"], false);
    assert_eq!(
        request(&["workspace", "get", "w1"]),
        json!({"id": "cli:workspace:get", "method": "workspace.get", "params": {"workspace_id": "w1"}})
    );
    assert_eq!(request(&["workspace", "focus", "w2"])["id"], "cli:workspace:focus");
    assert_eq!(
        request(&["workspace", "rename", "w1", "my", "project"]),
        json!({"id": "cli:workspace:rename", "method": "workspace.rename", "params": {"workspace_id": "w1", "label": "my project"}})
    );
    assert_eq!(
        request(&["workspace", "close", "w3"]),
        json!({"id": "cli:workspace:close", "method": "workspace.close", "params": {"workspace_id": "w3"}})
    );
    assert_eq!(request(&["workspace", "close", "w3", "--group"])["params"]["close_group"], true);
}

#[test]
fn workspace_metadata_is_silent() {
    let call = planned_call(&[
        "workspace",
        "report-metadata",
        "w1",
        "--source",
        "s",
        "--token",
        "branch=main",
        "--clear-token",
        "pr",
        "--seq",
        "3",
    ]);
    assert_eq!(call.reply, Reply::Silent);
    assert_eq!(
        call.request.to_value(),
        json!({"id": "cli:request", "method": "workspace.report_metadata",
               "params": {"workspace_id": "w1", "source": "s", "tokens": {"branch": "main", "pr": null}, "seq": 3}})
    );
    assert_eq!(
        usage_error(&["workspace", "report-metadata", "w1", "--source", "s"]),
        "missing token to set or clear"
    );
}

#[test]
fn tab_requests() {
    assert_eq!(request(&["tab", "list"]), json!({"id": "cli:tab:list", "method": "tab.list", "params": {}}));
    assert_eq!(request(&["tab", "list", "--workspace", "w1"])["params"], json!({"workspace_id": "w1"}));
    assert_eq!(
        request(&["tab", "create", "--workspace", "w1", "--label", "logs"]),
        json!({"id": "cli:tab:create", "method": "tab.create", "params": {"workspace_id": "w1", "focus": false, "label": "logs"}})
    );
    assert_eq!(request(&["tab", "get", "w1:t1"])["params"], json!({"tab_id": "w1:t1"}));
    assert_eq!(request(&["tab", "focus", "w1:t1"])["id"], "cli:tab:focus");
    assert_eq!(
        request(&["tab", "rename", "w1:t2", "build", "-", "ci"]),
        json!({"id": "cli:tab:rename", "method": "tab.rename", "params": {"tab_id": "w1:t2", "label": "build - ci"}})
    );
    assert_eq!(request(&["tab", "close", "w1:t2"])["method"], "tab.close");
}

#[test]
fn agent_requests() {
    assert_eq!(
        request(&["agent", "list"]),
        json!({"id": "cli:agent:list", "method": "agent.list", "params": {}})
    );
    assert_eq!(request(&["agent", "get", "reviewer"])["params"], json!({"target": "reviewer"}));
    assert_eq!(request(&["agent", "focus", "w1:p1"])["id"], "cli:agent:focus");
    assert_eq!(
        request(&["agent", "rename", "w1:p1", "reviewer"]),
        json!({"id": "cli:agent:rename", "method": "agent.rename", "params": {"target": "w1:p1", "name": "reviewer"}})
    );
    assert_eq!(request(&["agent", "rename", "reviewer", "--clear"])["params"], json!({"target": "reviewer"}));
    assert!(Cli::try_parse_from(["herdr", "agent", "rename", "reviewer"]).is_err());

    let read = planned_call(&["agent", "read", "reviewer", "--source", "detection", "--lines", "10"]);
    assert_eq!(read.reply, Reply::ReadText);
    assert_eq!(
        read.request.to_value(),
        json!({"id": "cli:agent:read", "method": "agent.read",
               "params": {"target": "reviewer", "source": "detection", "lines": 10, "format": "text", "strip_ansi": true}})
    );
    assert_eq!(
        request(&["agent", "read", "reviewer", "--ansi"])["params"],
        json!({"target": "reviewer", "source": "recent", "format": "ansi", "strip_ansi": false})
    );

    let keys = planned_call(&["agent", "send-keys", "reviewer", "esc", "enter"]);
    assert_eq!(keys.reply, Reply::Envelope);
    assert_eq!(
        keys.request.to_value(),
        json!({"id": "cli:agent:send-keys", "method": "agent.send_keys", "params": {"target": "reviewer", "keys": ["esc", "enter"]}})
    );
}

#[test]
fn agent_prompt_and_wait() {
    assert_eq!(
        request(&["agent", "prompt", "reviewer", "review the diff"]),
        json!({"id": "cli:agent:prompt", "method": "agent.prompt", "params": {"target": "reviewer", "text": "review the diff"}})
    );
    assert_eq!(
        request(&[
            "agent",
            "prompt",
            "reviewer",
            "go",
            "--wait",
            "--until",
            "idle",
            "--until",
            "blocked",
            "--timeout",
            "60000"
        ])["params"],
        json!({"target": "reviewer", "text": "go", "wait": {"until": ["idle", "blocked"], "timeout_ms": 60000}})
    );
    assert_eq!(
        request(&["agent", "prompt", "reviewer", "go", "--wait"])["params"]["wait"],
        json!({"until": []})
    );
    assert!(
        Cli::try_parse_from(["herdr", "agent", "prompt", "r", "go", "--until", "idle"]).is_err(),
        "--until needs --wait"
    );
    assert!(
        Cli::try_parse_from(["herdr", "agent", "prompt", "r", "go", "--timeout", "5"]).is_err(),
        "--timeout needs --wait"
    );

    assert_eq!(
        request(&["agent", "wait", "reviewer"]),
        json!({"id": "cli:agent:wait", "method": "agent.wait", "params": {"target": "reviewer", "until": []}})
    );
    assert_eq!(
        request(&["agent", "wait", "reviewer", "--until", "done", "--timeout", "100"])["params"],
        json!({"target": "reviewer", "until": ["done"], "timeout_ms": 100})
    );
    assert!(Cli::try_parse_from(["herdr", "agent", "wait", "r", "--until", "stale"]).is_err());
}

#[test]
fn agent_explain_modes() {
    let text = planned_call(&["agent", "explain", "reviewer"]);
    assert_eq!(text.request.to_value()["id"], "cli:agent:explain");
    assert_eq!(text.reply, Reply::Explain { json: false, verbose: false });
    assert_eq!(
        planned_call(&["agent", "explain", "r", "--json"]).reply,
        Reply::Explain { json: true, verbose: false }
    );
    assert_eq!(
        planned_call(&["agent", "explain", "r", "--format", "json"]).reply,
        Reply::Explain { json: true, verbose: false }
    );
    assert_eq!(
        planned_call(&["agent", "explain", "r", "-v"]).reply,
        Reply::Explain { json: false, verbose: true }
    );
}

#[test]
fn explain_text_renders_the_main_fields() {
    let explain = json!({"agent": "claude", "state": "idle", "manifest_source": "builtin", "manifest_version": "3",
                         "matched_rule": {"id": "prompt", "region": "bottom", "priority": 840},
                         "evaluated_rules": [{"id": "prompt", "matched": true, "priority": 840, "region": "bottom", "state": "idle"}]});
    assert_eq!(
        agent::explain_text(&explain, false),
        "agent: claude\nstate: idle\nmanifest: builtin 3\nrule: prompt (region=bottom priority=840)\n"
    );
    assert!(
        agent::explain_text(&explain, true)
            .ends_with("evaluated_rules:\n  ✓ prompt priority=840 region=bottom state=idle\n")
    );
    assert_eq!(
        agent::explain_text(&json!({}), false),
        "agent: unknown\nstate: unknown\nmanifest: none unknown\nrule: none\n"
    );
}

#[test]
fn notification_api_and_server_requests() {
    assert_eq!(
        request(&[
            "notification",
            "show",
            "Build done",
            "--body",
            "all green",
            "--position",
            "top-right",
            "--sound",
            "done"
        ]),
        json!({"id": "cli:notification:show", "method": "notification.show",
               "params": {"title": "Build done", "body": "all green", "position": "top-right", "sound": "done"}})
    );
    assert_eq!(request(&["notification", "show", "t"])["params"], json!({"title": "t"}));
    assert_eq!(
        request(&["api", "snapshot"]),
        json!({"id": "cli:api:snapshot", "method": "session.snapshot", "params": {}})
    );
    assert_eq!(
        request(&["server", "reload-config"]),
        json!({"id": "cli:server:reload-config", "method": "server.reload_config", "params": {}})
    );
    let manifests = planned_call(&["server", "agent-manifests"]);
    assert_eq!(manifests.reply, Reply::ManifestStatus);
    assert_eq!(manifests.request.to_value()["method"], "server.agent_manifests");
    assert_eq!(planned_call(&["server", "agent-manifests", "--json"]).reply, Reply::Envelope);
    assert_eq!(
        request(&["server", "reload-agent-manifests"]),
        json!({"id": "cli:server:reload-agent-manifests", "method": "server.reload_agent_manifests", "params": {}})
    );
}

#[test]
fn server_live_handoff_builds_its_request_and_the_importer_flag_is_hidden() {
    let call = planned_call(&["server", "live-handoff"]);
    assert_eq!(call.reply, Reply::Silent);
    assert_eq!(
        call.request.to_value(),
        json!({"id": "cli:server:live-handoff", "method": "server.live_handoff", "params": {}})
    );
    assert_eq!(
        request(&[
            "server",
            "live-handoff",
            "--import-exe",
            "/opt/herdr",
            "--expected-protocol",
            "22",
            "--expected-version",
            "0.9.0"
        ])["params"],
        json!({"import_exe": "/opt/herdr", "expected_protocol": 22, "expected_version": "0.9.0"})
    );
    let command = parse(&["server", "--handoff-import", "/run/h.sock", "tok"]).command.expect("a command");
    match plan(command, &Caller::default()) {
        Ok(Plan::ServerImport { no_session: false, socket, token }) => {
            assert_eq!((socket.to_str(), token.as_str()), (Some("/run/h.sock"), "tok"));
        }
        other => panic!("not the importer: {other:?}"),
    }
}

#[test]
fn server_and_status_plans() {
    let plan_of =
        |argv: &[&str]| plan(parse(argv).command.expect("command"), &Caller::default()).expect("plans");
    assert!(matches!(plan_of(&["server"]), Plan::ServerForeground { no_session: false }));
    assert!(matches!(plan_of(&["server", "--detach"]), Plan::ServerDetach { no_session: false }));
    assert!(matches!(plan_of(&["server", "--no-session"]), Plan::ServerForeground { no_session: true }));
    assert!(matches!(
        plan_of(&["server", "--detach", "--no-session"]),
        Plan::ServerDetach { no_session: true }
    ));
    assert!(matches!(plan_of(&["server", "stop"]), Plan::ServerStop));
    assert!(matches!(plan_of(&["status"]), Plan::Status(_)));
    assert!(matches!(plan_of(&["api", "schema", "--output", "/nonexistent/x"]), Plan::Schema(_)));
    assert!(Cli::try_parse_from(["herdr", "server", "--detach", "stop"]).is_err());
}

fn os(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

#[test]
fn session_is_taken_from_anywhere_before_a_double_dash() {
    let (rest, session) =
        extract_session(os(&["herdr", "pane", "run", "w1:p1", "make", "--session", "work"])).expect("ok");
    assert_eq!((rest, session.as_deref()), (os(&["herdr", "pane", "run", "w1:p1", "make"]), Some("work")));
    let (rest, session) =
        extract_session(os(&["herdr", "--session=a", "status", "--session", "b"])).expect("ok");
    assert_eq!((rest, session.as_deref()), (os(&["herdr", "status"]), Some("b")), "the last one wins");
    let (rest, session) =
        extract_session(os(&["herdr", "pane", "send-text", "p", "--", "--session", "x"])).expect("ok");
    assert_eq!((rest, session), (os(&["herdr", "pane", "send-text", "p", "--", "--session", "x"]), None));
    assert_eq!(
        extract_session(os(&["herdr", "status", "--session"])),
        Err("missing value for --session".to_owned())
    );
}

#[test]
fn session_is_global_before_or_after_the_subcommand() {
    for argv in [
        &["--session", "work", "pane", "list"][..],
        &["pane", "list", "--session", "work"],
        &["pane", "--session=work", "list"],
        &["--session=work", "status", "--json"],
        &["server", "--detach", "--session", "work"],
    ] {
        assert_eq!(parse(argv).session.as_deref(), Some("work"), "{argv:?}");
    }
    assert_eq!(parse(&["pane", "list"]).session, None);
}

#[test]
fn waiting_requests_have_no_reply_timeout() {
    assert!(planned_call(&["agent", "wait", "r"]).request.waits());
    assert!(planned_call(&["pane", "wait-output", "w1:p1", "--match", "x"]).request.waits());
    assert!(planned_call(&["agent", "prompt", "r", "x", "--wait"]).request.waits());
    assert!(!planned_call(&["agent", "prompt", "r", "x"]).request.waits());
    assert!(!planned_call(&["pane", "list"]).request.waits());
}

#[test]
fn the_schema_check_used_above_rejects_a_malformed_request() {
    use herdr_protocol::schema_check::{SchemaKind, validate};
    let left = json!({"id": "cli:pane:split", "method": "pane.split", "params": {"direction": "left"}});
    assert!(validate(SchemaKind::Request, &left).is_err());
    let unknown = json!({"id": "cli:x", "method": "pane.teleport", "params": {}});
    assert!(validate(SchemaKind::Request, &unknown).is_err());
}

fn request_as(caller: &Caller, argv: &[&str]) -> Value {
    let command = parse(argv).command.unwrap_or_else(|| panic!("{argv:?}: no command"));
    match plan(command, caller) {
        Ok(Plan::Call(call)) => {
            let value = call.request.to_value();
            let checked = herdr_protocol::schema_check::validate(
                herdr_protocol::schema_check::SchemaKind::Request,
                &value,
            );
            assert!(checked.is_ok(), "{argv:?} built a request the schema rejects: {value}\n{checked:#?}");
            value
        }
        other => panic!("{argv:?}: {other:?}"),
    }
}

#[test]
fn worktree_requests_make_paths_absolute() {
    let caller = Caller { cwd: Some("/src/app".into()), home: Some("/home/u".into()), ..Caller::default() };
    assert_eq!(
        request_as(&caller, &["worktree", "list", "--cwd", "."]),
        json!({"id": "cli:worktree:list", "method": "worktree.list", "params": {"cwd": "/src/app/."}})
    );
    assert_eq!(
        request_as(
            &caller,
            &[
                "worktree",
                "create",
                "--workspace",
                "w1",
                "--branch",
                "feat",
                "--base",
                "main",
                "--path",
                "~/wt/feat",
                "--focus"
            ]
        ),
        json!({"id": "cli:worktree:create", "method": "worktree.create", "params": {
            "workspace_id": "w1", "branch": "feat", "base": "main", "path": "/home/u/wt/feat", "focus": true}})
    );
    assert_eq!(
        request_as(&caller, &["worktree", "open", "--path", "../wt", "--trust-repository"])["params"],
        json!({"trust_repository": true, "path": "/src/app/../wt", "focus": false})
    );
    assert_eq!(
        request_as(&caller, &["worktree", "remove", "--workspace", "w4", "--force"]),
        json!({"id": "cli:worktree:remove", "method": "worktree.remove", "params": {"workspace_id": "w4", "force": true}})
    );
    assert!(Cli::try_parse_from(["herdr", "worktree", "open", "--branch", "a", "--path", "b"]).is_err());
    assert!(Cli::try_parse_from(["herdr", "worktree", "open"]).is_err());
    assert!(Cli::try_parse_from(["herdr", "worktree", "list", "--workspace", "w1", "--cwd", "x"]).is_err());
    assert!(Cli::try_parse_from(["herdr", "worktree", "remove"]).is_err());
}

#[test]
fn terminal_title_requests() {
    assert_eq!(
        request(&["terminal", "title", "set", "build: ok"]),
        json!({"id": "cli:terminal:title:set", "method": "client.window_title.set", "params": {"title": "build: ok"}})
    );
    assert_eq!(
        request(&["terminal", "title", "clear"]),
        json!({"id": "cli:terminal:title:clear", "method": "client.window_title.clear", "params": {}})
    );
}

/// The usage error clap prints for `argv`.
fn clap_error(argv: &[&str]) -> String {
    let mut full = vec!["herdr"];
    full.extend_from_slice(argv);
    match Cli::try_parse_from(full) {
        Ok(_) => panic!("{argv:?} parsed"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn option_values_that_do_not_parse_say_why() {
    let cases: [(&[&str], &str); 5] = [
        (&["workspace", "create", "--env", "NOEQUALS"], "env must use KEY=VALUE"),
        (&["workspace", "create", "--env", "=x"], "env key must not be empty"),
        (&["pane", "move", "w1:p1", "--ratio", "inf"], "invalid number: inf"),
        (
            &["pane", "report-metadata", "w1:p1", "--source", "s", "--state-label", "sleepy=zz"],
            "unknown state label: sleepy",
        ),
        (
            &["pane", "report-metadata", "w1:p1", "--source", "s", "--state-label", "idle"],
            "expected --state-label STATUS=TEXT",
        ),
    ];
    for (argv, message) in cases {
        let error = clap_error(argv);
        assert!(error.contains(message), "{argv:?}: {error}");
    }
}

#[test]
fn plain_herdr_attaches_without_parsing_and_anything_else_goes_to_clap() {
    let bare = |argv: &[&str]| bare_attach(&os(argv));
    assert_eq!(bare(&["herdr"]), Some(None));
    assert_eq!(bare(&["herdr", "--session", "work"]), Some(Some("work".to_owned())));
    assert_eq!(bare(&["herdr", "--session=work"]), Some(Some("work".to_owned())));
    // clap says what is wrong with these, or runs them.
    assert_eq!(bare(&["herdr", "--session"]), None);
    assert_eq!(bare(&["herdr", "--help"]), None);
    assert_eq!(bare(&["herdr", "pane", "list"]), None);
    assert_eq!(bare(&["herdr", "--remote", "host"]), None);
}
