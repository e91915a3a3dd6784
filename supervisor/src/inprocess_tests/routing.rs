//! One or more methods of every API domain through the real transport and dispatch, with fake
//! workers behind the panes; every answer is checked against the protocol-22 schema (`call`).

use herdr_protocol::ipc::{IdentityReason, WorkerEvent, WorkerRequest};
use serde_json::json;

use super::harness;
use crate::workers::fake::Finish;

#[tokio::test(start_paused = true)]
async fn server_session_and_layout_methods_answer() {
    let h = harness();
    let pong = h.ok("ping", json!({})).await;
    assert_eq!(pong["type"], json!("pong"), "{pong}");
    let (pane, _worker) = h.workspace().await;
    let snapshot = h.ok("session.snapshot", json!({})).await;
    assert_eq!(snapshot["type"], json!("session_snapshot"), "{snapshot}");
    let layout = h.ok("layout.export", json!({"pane_id": pane})).await;
    assert_eq!(layout["type"], json!("layout_export"), "{layout}");
    // A pane no plugin opened is no plugin pane.
    assert_eq!(h.error_code("plugin.pane.close", json!({"pane_id": pane})).await, "plugin_pane_not_found");
}

#[tokio::test(start_paused = true)]
async fn workspace_and_tab_methods_start_panes_on_fake_workers() {
    let h = harness();
    let (_pane, _first) = h.workspace().await;
    let listed = h.ok("workspace.list", json!({})).await;
    let workspace = listed["workspaces"][0]["workspace_id"].clone();
    assert_eq!(listed["workspaces"].as_array().map(Vec::len), Some(1), "{listed}");
    let got = h.ok("workspace.get", json!({"workspace_id": workspace})).await;
    assert_eq!(got["type"], json!("workspace_info"), "{got}");
    let tab = h.ok("tab.create", json!({"workspace_id": workspace})).await;
    assert_eq!(tab["type"], json!("tab_created"), "{tab}");
    let second = h.fakes.next_worker().await;
    assert!(matches!(second.start, herdr_protocol::ipc::Start::Spawn { .. }), "a new tab's pane spawns");
    let tabs = h.ok("tab.list", json!({"workspace_id": workspace})).await;
    assert_eq!(tabs["tabs"].as_array().map(Vec::len), Some(2), "{tabs}");
    assert_eq!(h.error_code("workspace.get", json!({"workspace_id": "w99"})).await, "workspace_not_found");
}

#[tokio::test(start_paused = true)]
async fn pane_methods_reach_the_pane_worker() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    worker.print("hello from the fake");
    let read = h.ok("pane.read", json!({"pane_id": pane, "source": "recent"})).await;
    assert_eq!(read["read"]["text"], json!("hello from the fake\n"), "{read}");
    h.ok("pane.send_text", json!({"pane_id": pane, "text": "ls\n"})).await;
    let (_, sent) = worker.next_request(|r| matches!(r, WorkerRequest::SendText(_))).await;
    assert_eq!(sent, WorkerRequest::SendText("ls\n".into()));
    let info = h.ok("pane.process_info", json!({"pane_id": pane})).await;
    assert_eq!(info["process_info"]["shell_pid"], json!(worker.program), "{info}");
    // The record's live cwd is the worker's answer to `Facts`.
    let got = h.ok("pane.get", json!({"pane_id": pane})).await;
    assert_eq!(got["pane"]["cwd"], json!("/fake/cwd"), "{got}");
    let split = h.ok("pane.split", json!({"target_pane_id": pane, "direction": "right"})).await;
    assert_eq!(split["type"], json!("pane_info"), "{split}");
    let mut new_pane = h.fakes.next_worker().await;
    let listed = h.ok("pane.list", json!({})).await;
    assert_eq!(listed["panes"].as_array().map(Vec::len), Some(2), "{listed}");
    let closed = split["pane"]["pane_id"].clone();
    h.ok("pane.close", json!({"pane_id": closed})).await;
    assert_eq!(new_pane.finished().await, Finish::Shutdown, "closing a pane shuts its worker down");
    assert_eq!(
        h.error_code("pane.read", json!({"pane_id": "w9:p9", "source": "recent"})).await,
        "pane_not_found"
    );
}

#[tokio::test(start_paused = true)]
async fn agent_methods_see_what_the_worker_detects() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    let (mut events, _conn) =
        h.send("events.subscribe", json!({"subscriptions": [{"type": "pane.agent_detected"}]})).await;
    super::line(&mut events, "the ack").await;
    worker.event(WorkerEvent::AgentIdentity {
        agent: Some("claude".into()),
        previous: None,
        reason: IdentityReason::Detected,
    });
    let detected = super::line(&mut events, "an event line").await;
    assert!(detected.contains("pane_agent_detected") && detected.contains("claude"), "{detected}");
    let list = h.ok("agent.list", json!({})).await;
    assert_eq!(list["agents"][0]["pane_id"], json!(pane), "{list}");
    let agent = h.ok("agent.get", json!({"target": pane})).await;
    assert_eq!(agent["agent"]["agent"], json!("claude"), "{agent}");
    worker.print("claude> ready");
    let read = h.ok("agent.read", json!({"target": pane, "source": "recent"})).await;
    assert_eq!(read["read"]["text"], json!("claude> ready\n"), "{read}");
    h.ok("agent.send_keys", json!({"target": pane, "keys": ["Enter"]})).await;
    let (_, keys) = worker.next_request(|r| matches!(r, WorkerRequest::SendKeys(_))).await;
    assert_eq!(keys, WorkerRequest::SendKeys(vec!["Enter".into()]));
}

#[tokio::test(start_paused = true)]
async fn events_client_integration_and_worktree_methods_answer() {
    let h = harness();
    let (pane, _worker) = h.workspace().await;
    let waited = h
        .call(
            "events.wait",
            json!({"match_event": {"event": "pane_agent_status_changed", "pane_id": pane, "agent_status": "working"}, "timeout_ms": 1000}),
        )
        .await;
    assert_eq!(waited["error"]["code"], json!("timeout"), "{waited}");
    let shown = h.ok("notification.show", json!({"title": "hi"})).await;
    assert_eq!(shown["shown"], json!(false), "no client is attached: {shown}");
    let integrations = h.ok("integration.list", json!({})).await;
    assert_eq!(integrations["type"], json!("integration_list"), "{integrations}");
    let repo = tempfile::tempdir().expect("tempdir");
    // Inside `own_child`: other tests' children (plugin runs, git) reap every exited child.
    let mut git = std::process::Command::new("git");
    git.arg("init").arg("-q").arg(repo.path());
    let init = herdr_host::reaper::own_child(|| git.status());
    assert!(init.is_ok_and(|s| s.success()), "git init");
    let cwd = repo.path().display().to_string();
    let worktrees = h.ok("worktree.list", json!({"cwd": cwd, "trust_repository": true})).await;
    assert_eq!(worktrees["worktrees"].as_array().map(Vec::len), Some(1), "{worktrees}");
}
