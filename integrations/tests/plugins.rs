//! The installed Pi extension and OpenCode plugin, loaded for real by `node` with a scripted host
//! (a fake `pi` API / OpenCode event stream), reporting to a real Unix-socket listener.
//!
//! Skips, saying so on stderr, when `node` is not installed.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use herdr_integrations::{Env, Target, install};
use serde_json::Value;
use support::{FakeHerdr, assert_valid_request};

fn node_available() -> bool {
    let found = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: `node` is not installed; the Pi/OpenCode plugin tests need it");
    }
    found
}

/// Installs `target` into a temp home and copies the installed file to an `.mjs` node can import
/// (the Pi extension is written to be valid JavaScript as well as TypeScript).
fn installed_module(home: &Path, target: Target, env: Env) -> std::path::PathBuf {
    install(target, &env).expect("install");
    let installed = match target {
        Target::Pi => home.join(".pi/agent/extensions/herdr-agent-state.ts"),
        Target::Opencode => home.join(".config/opencode/plugins/herdr-agent-state.js"),
        other => panic!("{other} is not a plugin"),
    };
    let module = home.join(format!("{target}-plugin.mjs"));
    std::fs::copy(installed, &module).expect("copy module");
    module
}

fn run_driver(driver: &str, module: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("node");
    command.arg("--input-type=module").arg("-e").arg(driver).arg(module);
    command.env_remove("HERDR_ENV").env_remove("HERDR_SOCKET_PATH").env_remove("HERDR_PANE_ID");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run node");
    assert!(output.status.success(), "driver failed: {}", String::from_utf8_lossy(&output.stderr));
    output
}

const PI_DRIVER: &str = r#"
const mod = await import(process.argv[1]);
const handlers = {};
const bus = {};
const pi = { on: (name, fn) => { handlers[name] = fn; }, events: { on: (name, fn) => { bus[name] = fn; } } };
mod.default(pi);
const ctx = { sessionManager: { getSessionFile: () => "/home/u/.pi/agent/sessions/s1.jsonl", getSessionId: () => "s1" } };
await handlers.session_start({ type: "session_start" }, ctx);
await handlers.agent_start({ type: "agent_start" }, ctx);
bus["herdr:blocked"]({ message: "approve rm -rf build?" });
bus["herdr:unblocked"]({});
await handlers.agent_end({ type: "agent_end" }, ctx);
"#;

fn states(requests: &[Value]) -> Vec<&str> {
    requests.iter().map(|r| r["params"]["state"].as_str().expect("state")).collect()
}

#[test]
fn pi_extension_reports_its_lifecycle_and_session_file() {
    if !node_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join(".pi/agent")).expect("pi dir");
    let module =
        installed_module(tmp.path(), Target::Pi, Env { home: Some(tmp.path().into()), ..Env::default() });
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8");
    run_driver(
        PI_DRIVER,
        &module,
        &[("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w2:p1")],
    );

    let requests = herdr.requests_in_seq_order(5);
    assert_eq!(states(&requests), ["idle", "working", "blocked", "working", "idle"]);
    for request in &requests {
        assert_valid_request(request);
        assert_eq!(request["method"], "pane.report_agent");
        let params = &request["params"];
        assert_eq!(params["pane_id"], "w2:p1");
        assert_eq!(params["source"], "herdr:pi");
        assert_eq!(params["agent"], "pi");
        assert_eq!(params["agent_session_path"], "/home/u/.pi/agent/sessions/s1.jsonl");
        assert_eq!(params["agent_session_id"], "s1");
    }
    assert_eq!(requests[2]["params"]["message"], "approve rm -rf build?");
    // Sequence numbers are wall-clock nanoseconds, beyond a JS number's exact range.
    assert!(requests[0]["params"]["seq"].as_u64().expect("seq") > 1_600_000_000_000_000_000);
    herdr.assert_nothing_received();
}

const OPENCODE_DRIVER: &str = r#"
const mod = await import(process.argv[1]);
const hooks = await mod.HerdrAgentState({ directory: "/w" });
const events = [
  { type: "session.created", properties: { info: { id: "ses_main" } } },
  { type: "session.status", properties: { sessionID: "ses_main", status: { type: "busy" } } },
  { type: "session.created", properties: { info: { id: "ses_child", parentID: "ses_main" } } },
  { type: "session.status", properties: { sessionID: "ses_child", status: { type: "busy" } } },
  { type: "session.idle", properties: { sessionID: "ses_child" } },
  { type: "permission.asked", properties: { id: "per_1", sessionID: "ses_child", permission: "bash" } },
  { type: "permission.replied", properties: { sessionID: "ses_child", requestID: "per_1", reply: "once" } },
  { type: "message.updated", properties: {} },
  { type: "session.idle", properties: { sessionID: "ses_main" } },
];
for (const event of events) await hooks.event({ event });
"#;

#[test]
fn opencode_plugin_reports_working_blocked_idle_for_the_main_session_only() {
    if !node_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join(".config/opencode")).expect("opencode dir");
    let module = installed_module(
        tmp.path(),
        Target::Opencode,
        Env { home: Some(tmp.path().into()), ..Env::default() },
    );
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8");
    run_driver(
        OPENCODE_DRIVER,
        &module,
        &[("HERDR_ENV", "1"), ("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p3")],
    );

    let requests = herdr.requests_in_seq_order(5);
    assert_eq!(states(&requests), ["idle", "working", "blocked", "working", "idle"]);
    for request in &requests {
        assert_valid_request(request);
        assert_eq!(request["method"], "pane.report_agent");
        assert_eq!(request["params"]["source"], "herdr:opencode");
        assert_eq!(request["params"]["agent"], "opencode");
        assert_eq!(request["params"]["pane_id"], "w1:p3");
        assert_eq!(request["params"]["agent_session_id"], "ses_main");
    }
    herdr.assert_nothing_received();
}

#[test]
fn plugins_outside_a_herdr_pane_send_nothing() {
    if !node_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join(".pi/agent")).expect("pi dir");
    std::fs::create_dir_all(tmp.path().join(".config/opencode")).expect("opencode dir");
    let env = Env { home: Some(tmp.path().into()), ..Env::default() };
    let pi = installed_module(tmp.path(), Target::Pi, env.clone());
    let opencode = installed_module(tmp.path(), Target::Opencode, env);
    let herdr = FakeHerdr::start(tmp.path(), true);
    let socket = herdr.socket.to_str().expect("utf-8");
    // HERDR_ENV missing: the socket and pane are known but this is not a herdr-managed process.
    run_driver(PI_DRIVER, &pi, &[("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")]);
    run_driver(OPENCODE_DRIVER, &opencode, &[("HERDR_SOCKET_PATH", socket), ("HERDR_PANE_ID", "w1:p1")]);
    herdr.assert_nothing_received();
}

#[test]
fn a_dead_herdr_socket_does_not_break_the_host() {
    if !node_available() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join(".config/opencode")).expect("opencode dir");
    let module = installed_module(
        tmp.path(),
        Target::Opencode,
        Env { home: Some(tmp.path().into()), ..Env::default() },
    );
    let missing = tmp.path().join("nobody.sock");
    // Exits 0 (checked by run_driver) after the retries give up.
    run_driver(
        OPENCODE_DRIVER,
        &module,
        &[
            ("HERDR_ENV", "1"),
            ("HERDR_SOCKET_PATH", missing.to_str().expect("utf-8")),
            ("HERDR_PANE_ID", "w1:p1"),
        ],
    );
}
