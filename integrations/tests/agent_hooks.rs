//! Every hook-based target's installed hook, run the way its agent runs it: the command is read
//! from the agent's config as installed (JSON hook file, Kimi's TOML, Grok's own file) and run
//! with `sh -c`, the agent's own hook JSON on stdin (each agent names its session differently:
//! `session_id`, `sessionId`, `conversation_id`, `conversationId`). Also OMP's and Kilo's plugins
//! (the Pi and OpenCode templates) under `node`, and Hermes' Python plugin under `python3`.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use herdr_integrations::spec::{Edit, spec};
use herdr_integrations::{Env, Target, install};
use serde_json::{Value, json};
use support::{FakeHerdr, assert_valid_request};

fn installed(home: &Path, target: Target) -> PathBuf {
    let spec = spec(target);
    let env = Env::with_home(home);
    let dir = spec.dir.resolve(&env, spec.label).expect("dir");
    std::fs::create_dir_all(&dir).expect("agent dir");
    install(target, &env).unwrap_or_else(|e| panic!("{target}: {e}"));
    dir
}

/// The command the agent's config runs for `event`, as installed.
fn configured_command(dir: &Path, target: Target, event: &str) -> String {
    let spec = spec(target);
    let script = spec.hook_script().expect("a hook script");
    for edit in spec.edits {
        let path = dir.join(herdr_integrations::edits::file(edit));
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let found = match edit {
            Edit::KimiHooks { .. } => {
                let doc: toml::Table = text.parse().expect("TOML");
                doc["hooks"].as_array().into_iter().flatten().find_map(|hook| {
                    (hook["event"].as_str() == Some(event) && hook.get("matcher").is_none())
                        .then(|| hook["command"].as_str().map(str::to_owned))
                        .flatten()
                })
            }
            Edit::LegacyJsonHooks { .. } | Edit::CodexFeatures { .. } | Edit::HermesPlugin { .. } => None,
            _ => find_command(&serde_json::from_str(&text).expect("JSON"), event, script),
        };
        if let Some(command) = found {
            return command;
        }
    }
    panic!("{target}: no {event} command in its config");
}

/// The first `command`/`bash` string running `script` in a list under key `event`, anywhere.
fn find_command(value: &Value, event: &str, script: &str) -> Option<String> {
    fn commands(value: &Value, script: &str) -> Option<String> {
        match value {
            Value::Object(map) => map.iter().find_map(|(key, value)| match (key.as_str(), value) {
                ("command" | "bash", Value::String(text)) if text.contains(script) => Some(text.clone()),
                _ => commands(value, script),
            }),
            Value::Array(list) => list.iter().find_map(|v| commands(v, script)),
            _ => None,
        }
    }
    match value {
        Value::Object(map) => map.iter().find_map(|(key, value)| {
            if key == event && value.is_array() {
                commands(value, script)
            } else {
                find_command(value, event, script)
            }
        }),
        Value::Array(list) => list.iter().find_map(|v| find_command(v, event, script)),
        _ => None,
    }
}

fn run_command(command: &str, stdin: &Value, socket: &Path, pane: &str) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HERDR_ENV", "1")
        .env("HERDR_SOCKET_PATH", socket)
        .env("HERDR_PANE_ID", pane)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hook");
    child.stdin.take().expect("stdin").write_all(stdin.to_string().as_bytes()).expect("hook stdin");
    let output = child.wait_with_output().expect("hook output");
    assert!(output.status.success() && output.stdout.is_empty() && output.stderr.is_empty(), "{output:?}");
}

struct Case {
    target: Target,
    event: &'static str,
    payload: Value,
    method: &'static str,
    state: Option<&'static str>,
    session: &'static str,
}

fn session_case(target: Target, event: &'static str, payload: Value, session: &'static str) -> Case {
    Case { target, event, payload, method: "pane.report_agent_session", state: None, session }
}

#[test]
fn every_hook_target_reports_through_the_command_its_config_runs() {
    let cases = [
        session_case(
            Target::Claude,
            "SessionStart",
            json!({"session_id": "cl-1", "hook_event_name": "SessionStart", "source": "startup"}),
            "cl-1",
        ),
        session_case(
            Target::Codex,
            "SessionStart",
            json!({"session_id": "cx-1", "hook_event_name": "SessionStart"}),
            "cx-1",
        ),
        session_case(
            Target::Copilot,
            "SessionStart",
            json!({"sessionId": "cp-1", "hookEventName": "SessionStart"}),
            "cp-1",
        ),
        session_case(
            Target::Devin,
            "UserPromptSubmit",
            json!({"session_id": "dv-1", "hook_event_name": "UserPromptSubmit"}),
            "dv-1",
        ),
        session_case(
            Target::Droid,
            "SessionStart",
            json!({"session_id": "dr-1", "hook_event_name": "SessionStart"}),
            "dr-1",
        ),
        session_case(
            Target::Qodercli,
            "SessionStart",
            json!({"session_id": "qd-1", "hook_event_name": "SessionStart"}),
            "qd-1",
        ),
        session_case(
            Target::Qwen,
            "SessionStart",
            json!({"session_id": "qw-1", "hook_event_name": "SessionStart"}),
            "qw-1",
        ),
        session_case(
            Target::Cursor,
            "sessionStart",
            json!({"conversation_id": "cu-1", "hook_event_name": "sessionStart"}),
            "cu-1",
        ),
        session_case(
            Target::AntigravityCli,
            "PreInvocation",
            json!({"conversationId": "ag-1", "hookEventName": "PreInvocation"}),
            "ag-1",
        ),
        session_case(
            Target::Grok,
            "SessionStart",
            json!({"sessionId": "gk-1", "hookEventName": "SessionStart", "source": "resume"}),
            "gk-1",
        ),
        session_case(
            Target::Kimi,
            "SessionStart",
            json!({"session_id": "km-1", "hook_event_name": "SessionStart"}),
            "km-1",
        ),
        Case {
            target: Target::Kimi,
            event: "UserPromptSubmit",
            payload: json!({"session_id": "km-1", "hook_event_name": "UserPromptSubmit"}),
            method: "pane.report_agent",
            state: Some("working"),
            session: "km-1",
        },
        session_case(Target::Mastracode, "SessionStart", json!({"session_id": "mc-1"}), "mc-1"),
        Case {
            target: Target::Mastracode,
            event: "PermissionRequest",
            payload: json!({"session_id": "mc-1", "hook_event_name": "PermissionRequest"}),
            method: "pane.report_agent",
            state: Some("blocked"),
            session: "mc-1",
        },
    ];
    for case in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = installed(tmp.path(), case.target);
        let command = configured_command(&dir, case.target, case.event);
        let herdr = FakeHerdr::start(tmp.path(), true);
        run_command(&command, &case.payload, &herdr.socket, "w1:p2");
        let request = herdr.next_request();
        assert_valid_request(&request);
        let spec = spec(case.target);
        assert_eq!(request["method"], case.method, "{}", case.target);
        let params = &request["params"];
        assert_eq!(params["source"], format!("herdr:{}", case.target), "{}", case.target);
        assert_eq!(params["agent"], spec.agent(), "{}", case.target);
        assert_eq!(params["pane_id"], "w1:p2");
        assert_eq!(params["agent_session_id"], case.session, "{}", case.target);
        assert_eq!(params["state"].as_str(), case.state, "{}", case.target);
        herdr.assert_nothing_received();
    }
}

#[test]
fn session_only_hooks_ignore_other_events_and_sub_agents() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = installed(tmp.path(), Target::AntigravityCli);
    let command = configured_command(&dir, Target::AntigravityCli, "PreInvocation");
    let herdr = FakeHerdr::start(tmp.path(), true);
    for payload in [
        json!({"conversationId": "ag-1", "hookEventName": "Stop"}),
        json!({"conversationId": "ag-1", "hookEventName": "PreInvocation", "agentId": "sub"}),
        json!({"hookEventName": "PreInvocation"}),
    ] {
        run_command(&command, &payload, &herdr.socket, "w1:p1");
    }
    // A state action on a session-only integration says nothing either.
    let script = dir.join("hooks/herdr-agent-state.sh");
    run_command(
        &format!("'{}' working", script.display()),
        &json!({"conversationId": "x"}),
        &herdr.socket,
        "w1:p1",
    );
    herdr.assert_nothing_received();
}

fn node_available() -> bool {
    let found = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: `node` is not installed; the OMP/Kilo plugin tests need it");
    }
    found
}

fn run_node(driver: &str, module: &Path, socket: &Path) {
    let output = Command::new("node")
        .arg("--input-type=module")
        .arg("-e")
        .arg(driver)
        .arg(module)
        .env("HERDR_ENV", "1")
        .env("HERDR_SOCKET_PATH", socket)
        .env("HERDR_PANE_ID", "w3:p1")
        .output()
        .expect("run node");
    assert!(output.status.success(), "driver failed: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn omp_and_kilo_plugins_report_as_themselves() {
    if !node_available() {
        return;
    }
    let omp_driver = r#"
const mod = await import(process.argv[1]);
const handlers = {};
mod.default({ on: (name, fn) => { handlers[name] = fn; } });
const ctx = { sessionManager: { getSessionFile: () => "/home/u/.omp/agent/sessions/o1.jsonl", getSessionId: () => "o1" } };
await handlers.session_start({ type: "session_start" }, ctx);
"#;
    let kilo_driver = r#"
const mod = await import(process.argv[1]);
const hooks = await mod.HerdrAgentState({ directory: "/w" });
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_kilo" } } } });
"#;
    for (target, driver, session) in
        [(Target::Omp, omp_driver, "o1"), (Target::Kilo, kilo_driver, "ses_kilo")]
    {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = installed(tmp.path(), target);
        let module = tmp.path().join("plugin.mjs");
        std::fs::copy(dir.join(spec(target).assets[0].path), &module).expect("copy module");
        let herdr = FakeHerdr::start(tmp.path(), true);
        run_node(driver, &module, &herdr.socket);
        let request = herdr.next_request();
        assert_valid_request(&request);
        assert_eq!(request["params"]["source"], format!("herdr:{target}"));
        assert_eq!(request["params"]["agent"], target.as_str());
        assert_eq!(request["params"]["agent_session_id"], session);
        if target == Target::Omp {
            assert_eq!(request["params"]["agent_session_path"], "/home/u/.omp/agent/sessions/o1.jsonl");
        }
    }
}

#[test]
fn the_hermes_plugin_reports_interactive_sessions() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = installed(tmp.path(), Target::Hermes);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let driver = r#"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("herdr_plugin", sys.argv[1])
plugin = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plugin)
hooks = {}
class Ctx:
    def register_hook(self, name, fn):
        hooks[name] = fn
plugin.register(Ctx())
hooks["on_session_start"](session_id="gateway-1", platform="telegram")
hooks["on_session_start"](session_id="hm-1", platform="cli", model="m")
"#;
    let output = Command::new("python3")
        .arg("-c")
        .arg(driver)
        .arg(dir.join("plugins/herdr-agent-state/__init__.py"))
        .env("HERDR_ENV", "1")
        .env("HERDR_SOCKET_PATH", &herdr.socket)
        .env("HERDR_PANE_ID", "w4:p1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let request = herdr.next_request();
    assert_valid_request(&request);
    assert_eq!(request["method"], "pane.report_agent_session");
    assert_eq!(request["params"]["source"], "herdr:hermes");
    assert_eq!(request["params"]["agent_session_id"], "hm-1", "the gateway session is not the pane's");
    assert_eq!(request["params"]["session_start_source"], "startup");
    herdr.assert_nothing_received();
}
