//! Plugins end to end: the example plugins in `tests/plugins/` are linked through the API, their
//! `[[events]]` hooks run on the hub's events, an action runs with its invocation context, a
//! hook that never ends is killed at the time limit (shortened for the test through
//! `HERDR_PLUGIN_COMMAND_TIMEOUT_MS`) while the server keeps answering, and disabled or unlinked
//! plugins run nothing.

use std::path::PathBuf;

use herdr_e2e::panes::create_workspace;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

const RECORDER: &str = "e2e.recorder";
const WITNESS: &str = "e2e.witness";

fn plugin_dir(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins").join(name).display().to_string()
}

/// A server with a short command time limit and both example plugins linked.
fn server_with_plugins() -> TestServer {
    let mut server = TestServer::prepare();
    server.set_env("HERDR_PLUGIN_COMMAND_TIMEOUT_MS", "1500");
    server.start_server();
    for name in ["recorder", "witness"] {
        let linked = server.call("plugin.link", json!({"path": plugin_dir(name)}));
        assert_eq!(linked["type"], "plugin_linked", "{linked}");
        assert_eq!(linked["plugin"]["enabled"], true, "{linked}");
    }
    server
}

/// The recorder's state dir, where its scripts write.
fn state_file(server: &TestServer, name: &str) -> PathBuf {
    let config = server.env().iter().find(|(k, _)| k == "XDG_CONFIG_HOME").map(|(_, v)| v.clone());
    PathBuf::from(config.expect("XDG_CONFIG_HOME")).join("herdr/plugins/state").join(RECORDER).join(name)
}

fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn logs(server: &TestServer, plugin: &str) -> Vec<Value> {
    let listed = server.call("plugin.log.list", json!({"plugin_id": plugin}));
    assert_eq!(listed["type"], "plugin_log_list", "{listed}");
    listed["logs"].as_array().expect("logs").clone()
}

fn report(server: &TestServer, pane: &str, state: &str) {
    server.call(
        "pane.report_agent",
        json!({"pane_id": pane, "source": "e2e-hook", "agent": "claude", "state": state}),
    );
}

/// The recorded `pane.agent_status_changed` lines whose status is `status`.
fn recorded(events: &PathBuf, status: &str) -> usize {
    read(events)
        .lines()
        .filter_map(|line| line.strip_prefix("pane.agent_status_changed "))
        .filter_map(|json| serde_json::from_str::<Value>(json).ok())
        .filter(|event| event["data"]["agent_status"] == status)
        .count()
}

/// Waits until the witness's hook has finished `runs` times: by then every earlier
/// `pane.agent_status_changed` went through the hook dispatcher.
fn witness_ran(server: &TestServer, runs: usize) {
    wait_until("the witness hook to run", PATIENCE, || {
        let done = logs(server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
        if done >= runs { Ok(()) } else { Err(format!("{done} witness runs")) }
    });
}

#[test]
fn hooks_fire_on_hub_events_and_actions_get_their_context() {
    let server = server_with_plugins();
    let pane = create_workspace(&server).pane_id;
    let events = state_file(&server, "events.log");

    report(&server, &pane, "blocked");
    let line = wait_until("the hook to record the blocked turn", PATIENCE, || {
        let text = read(&events);
        let line =
            text.lines().find(|l| l.starts_with("pane.agent_status_changed ") && l.contains("blocked"));
        line.map(str::to_owned).ok_or(text)
    });
    let event: Value =
        serde_json::from_str(line.trim_start_matches("pane.agent_status_changed ")).expect("event json");
    assert_eq!(event["event"], "pane_agent_status_changed", "the wire kind: {event}");
    assert_eq!(event["data"]["pane_id"], pane.as_str(), "{event}");
    assert_eq!(event["data"]["agent_status"], "blocked", "{event}");

    let context =
        json!({"invocation_source": "e2e", "focused_pane_id": pane, "focused_pane_agent": "claude"});
    let invoked = server.call(
        "plugin.action.invoke",
        json!({"action_id": format!("{RECORDER}.record-context"), "context": context}),
    );
    assert_eq!(invoked["type"], "plugin_action_invoked", "{invoked}");
    assert_eq!(invoked["action"]["action_id"], "record-context", "{invoked}");
    assert_eq!(invoked["context"]["focused_pane_id"], pane.as_str(), "{invoked}");
    let log_id = invoked["log"]["log_id"].as_str().expect("a log id").to_owned();
    let recorded_context = wait_until("the action to write its context", PATIENCE, || {
        Some(read(&state_file(&server, "context"))).filter(|t| !t.is_empty()).ok_or("nothing yet".to_owned())
    });
    let (head, json_text) = recorded_context.split_at(recorded_context.find('{').expect("context json"));
    assert_eq!(head.split_whitespace().collect::<Vec<_>>(), ["record-context", pane.as_str()]);
    let written: Value = serde_json::from_str(json_text.trim()).expect("context json");
    assert_eq!(written["invocation_source"], "e2e");
    assert_eq!(written["focused_pane_agent"], "claude");
    wait_until("the action's log entry to finish", PATIENCE, || {
        let all = logs(&server, RECORDER);
        let entry = all.iter().find(|l| l["log_id"] == log_id.as_str()).cloned().unwrap_or_default();
        if entry["status"] == "succeeded" { Ok(entry) } else { Err(entry.to_string()) }
    });
    let entry = logs(&server, RECORDER).into_iter().find(|l| l["log_id"] == log_id.as_str()).expect("entry");
    assert_eq!(entry["stdout"], "recorded\n", "{entry}");
    assert_eq!(entry["exit_code"], 0, "{entry}");

    // The same action by local id and plugin id; an unknown one is refused.
    let by_local = json!({"action_id": "record-context", "plugin_id": RECORDER});
    assert_eq!(server.call("plugin.action.invoke", by_local)["type"], "plugin_action_invoked");
    let (code, _) = server.call_error("plugin.action.invoke", json!({"action_id": "e2e.recorder.nope"}));
    assert_eq!(code, "plugin_action_not_found");

    // Disabled: the action is refused and the hook stays quiet (the witness proves the event
    // went past the dispatcher).
    let witnessed = logs(&server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
    assert_eq!(server.call("plugin.disable", json!({"plugin_id": RECORDER}))["type"], "plugin_disabled");
    let (code, _) =
        server.call_error("plugin.action.invoke", json!({"action_id": format!("{RECORDER}.record-context")}));
    assert_eq!(code, "plugin_disabled");
    report(&server, &pane, "working");
    witness_ran(&server, witnessed + 1);
    assert_eq!(recorded(&events, "working"), 0, "a disabled plugin's hook ran: {}", read(&events));

    // Enabled again it fires again; unlinked it is gone.
    assert_eq!(server.call("plugin.enable", json!({"plugin_id": RECORDER}))["type"], "plugin_enabled");
    let before = read(&events).lines().count();
    // Idle after working on a background pane reads as `done`.
    report(&server, &pane, "idle");
    wait_until("the re-enabled hook to record the turn's end", PATIENCE, || {
        if read(&events).lines().count() > before { Ok(()) } else { Err(read(&events)) }
    });
    let unlinked = server.call("plugin.unlink", json!({"plugin_id": RECORDER}));
    assert_eq!(unlinked["removed"], true, "{unlinked}");
    let (code, _) = server
        .call_error("plugin.action.invoke", json!({"action_id": "record-context", "plugin_id": RECORDER}));
    assert_eq!(code, "plugin_not_found");
    let witnessed = logs(&server, WITNESS).iter().filter(|l| l["status"] == "succeeded").count();
    report(&server, &pane, "blocked");
    witness_ran(&server, witnessed + 1);
    assert_eq!(recorded(&events, "blocked"), 1, "an unlinked plugin's hook ran: {}", read(&events));
}

#[test]
fn a_hook_that_never_ends_is_killed_at_its_limit_while_the_server_answers() {
    let server = server_with_plugins();
    create_workspace(&server);
    let tab = server.call("tab.create", json!({"label": "hang"}));
    assert_eq!(tab["type"], "tab_created", "{tab}");
    let running = wait_until("the hanging hook to start", PATIENCE, || {
        let all = logs(&server, RECORDER);
        all.iter().find(|l| l["event"] == "tab.created").cloned().ok_or(format!("{all:?}"))
    });
    assert_eq!(running["command"], json!(["sh", "hang.sh"]), "{running}");
    // The hook's run does not hold up the API.
    assert_eq!(server.call("ping", json!({}))["type"], "pong");
    let killed = wait_until("the hanging hook to be killed", PATIENCE, || {
        let all = logs(&server, RECORDER);
        let entry = all.iter().find(|l| l["event"] == "tab.created").cloned().unwrap_or_default();
        if entry["status"] == "failed" { Ok(entry) } else { Err(entry.to_string()) }
    });
    assert!(killed["error"].as_str().is_some_and(|e| e.contains("killed")), "{killed}");
    assert_eq!(killed["stdout"], "hanging\n", "{killed}");
    assert!(killed["finished_unix_ms"].as_u64() >= killed["started_unix_ms"].as_u64(), "{killed}");
    // Its whole process group went: no `sleep` is left under the server.
    wait_until("the hook's processes to be gone", PATIENCE, || {
        let left: Vec<_> = server.process_tree().into_iter().filter(|p| p.comm == "sleep").collect();
        if left.is_empty() { Ok(()) } else { Err(format!("{left:?}")) }
    });
    server.assert_alive();
}
