//! Event streams and waits over fake workers: `events.subscribe` delivers a pane's events in
//! order; `agent.wait` and `pane.wait_for_output` answer when the worker reports the state or
//! the output, and time out on the paused clock when it does not.

use herdr_protocol::ipc::{DetectedState, IdentityReason, ScreenState, WorkerEvent, WorkerRequest};
use serde_json::{Value, json};

use super::{Harness, Lines, harness};

async fn next_event(events: &mut Lines) -> Value {
    let line = super::line(events, "an event line").await;
    let event: Value = serde_json::from_str(&line).expect("JSON");
    let kind = if event.get("data").and_then(|d| d.get("type")).is_some() {
        herdr_protocol::schema_check::SchemaKind::Event
    } else {
        herdr_protocol::schema_check::SchemaKind::SubscriptionEvent
    };
    if let Err(errors) = herdr_protocol::schema_check::validate(kind, &event) {
        panic!("{event} does not fit the schema: {errors:?}");
    }
    event
}

fn screen(state: DetectedState) -> WorkerEvent {
    WorkerEvent::ScreenState(ScreenState {
        agent: Some("claude".into()),
        state,
        visible_idle: state == DetectedState::Idle,
        visible_blocker: state == DetectedState::Blocked,
        visible_working: state == DetectedState::Working,
        rule: None,
        process_exited: false,
        refresh: false,
    })
}

#[tokio::test(start_paused = true)]
async fn a_subscription_streams_a_panes_events_in_order() {
    let h = harness();
    let (pane, worker) = h.workspace().await;
    let kinds = ["pane.created", "pane.updated", "pane.exited"];
    let subscriptions: Vec<Value> = kinds.iter().map(|k| json!({"type": k})).collect();
    let (mut events, _conn) = h.send("events.subscribe", json!({"subscriptions": subscriptions})).await;
    let ack = super::line(&mut events, "the ack").await;
    assert!(ack.contains("subscription_started"), "{ack}");
    let split = h.ok("pane.split", json!({"target_pane_id": pane, "direction": "down"})).await;
    let _second = h.fakes.next_worker().await;
    worker.event(WorkerEvent::Title(Some("first title".into())));
    worker.event(WorkerEvent::Title(Some("second title".into())));
    worker.exit(0);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let event = next_event(&mut events).await;
        seen.push((event["event"].clone(), event["seq"].as_u64().expect("seq")));
        match seen.len() {
            1 => assert_eq!(event["data"]["pane"]["pane_id"], split["pane"]["pane_id"], "{event}"),
            2 => assert_eq!(event["data"]["pane"]["terminal_title"], json!("first title"), "{event}"),
            3 => assert_eq!(event["data"]["pane"]["terminal_title"], json!("second title"), "{event}"),
            _ => assert_eq!(event["data"]["pane_id"], json!(pane), "{event}"),
        }
    }
    let names: Vec<&Value> = seen.iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [&json!("pane_created"), &json!("pane_updated"), &json!("pane_updated"), &json!("pane_exited")]
    );
    assert!(seen.windows(2).all(|w| w[0].1 < w[1].1), "sequence numbers rise: {seen:?}");
}

/// A workspace whose pane the worker has identified as claude, working.
async fn working_agent(h: &Harness) -> (String, crate::workers::fake::FakeWorker) {
    let (pane, worker) = h.workspace().await;
    let (mut events, _conn) = h
        .send("events.subscribe", json!({"subscriptions": [{"type": "pane.agent_status_changed", "pane_id": pane, "agent_status": "working"}]}))
        .await;
    super::line(&mut events, "the ack").await;
    worker.event(WorkerEvent::AgentIdentity {
        agent: Some("claude".into()),
        previous: None,
        reason: IdentityReason::Detected,
    });
    worker.event(screen(DetectedState::Working));
    let working = next_event(&mut events).await;
    assert_eq!(working["data"]["agent_status"], json!("working"), "{working}");
    (pane, worker)
}

#[tokio::test(start_paused = true)]
async fn agent_wait_answers_when_the_worker_reports_the_state() {
    let h = harness();
    let (pane, worker) = working_agent(&h).await;
    let waiter = {
        let (h, pane) = (h.clone(), pane.clone());
        tokio::spawn(async move { h.call("agent.wait", json!({"target": pane, "until": ["blocked"]})).await })
    };
    // A working report matches nothing; the blocker does.
    worker.event(screen(DetectedState::Working));
    worker.event(screen(DetectedState::Blocked));
    let answer = waiter.await.expect("the waiter");
    assert_eq!(answer["result"]["agent"]["agent_status"], json!("blocked"), "{answer}");
}

#[tokio::test(start_paused = true)]
async fn agent_wait_times_out_when_nothing_changes() {
    let h = harness();
    let (pane, _worker) = working_agent(&h).await;
    let started = tokio::time::Instant::now();
    let answer = h.call("agent.wait", json!({"target": pane, "until": ["idle"], "timeout_ms": 30_000})).await;
    assert_eq!(answer["error"]["code"], json!("timeout"), "{answer}");
    assert!(started.elapsed() >= std::time::Duration::from_secs(30), "it waited its whole timeout");
}

fn wait_for(pane: &str, text: &str, timeout_ms: Option<u64>) -> Value {
    let mut params =
        json!({"pane_id": pane, "source": "recent", "match": {"type": "substring", "value": text}});
    if let Some(ms) = timeout_ms {
        params["timeout_ms"] = json!(ms);
    }
    params
}

#[tokio::test(start_paused = true)]
async fn wait_for_output_answers_when_the_output_comes_even_across_a_worker_restart() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    let waiter = {
        let (h, params) = (h.clone(), wait_for(&pane, "build finished", None));
        tokio::spawn(async move { h.ok("pane.wait_for_output", params).await })
    };
    let is_wait = |r: &WorkerRequest| matches!(r, WorkerRequest::WaitOutput { .. });
    let (asked, _) = worker.next_request(is_wait).await;
    worker.print("still building");
    worker.die();
    let mut next = h.fakes.next_worker().await;
    let (resent, _) = next.next_request(is_wait).await;
    assert_eq!(resent, asked, "the pending wait went to the new worker");
    next.print("build finished in 3s");
    let matched = waiter.await.expect("the waiter");
    assert_eq!(matched["matched_line"], json!("build finished in 3s"), "{matched}");
    assert_eq!(matched["pane_id"], json!(pane), "{matched}");
}

#[tokio::test(start_paused = true)]
async fn wait_for_output_times_out_and_cancels_the_wait_on_the_worker() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    worker.print("nothing of interest");
    let answer = h.call("pane.wait_for_output", wait_for(&pane, "never printed", Some(2_000))).await;
    assert_eq!(answer["error"]["code"], json!("timeout"), "{answer}");
    let (id, _) = worker.next_request(|r| matches!(r, WorkerRequest::WaitOutput { .. })).await;
    assert_eq!(worker.next_cancel().await, id, "the abandoned wait is cancelled on the worker");
    let read = h.ok("pane.read", json!({"pane_id": pane, "source": "recent"})).await;
    assert_eq!(read["read"]["text"], json!("nothing of interest\n"), "the pane still serves: {read}");
}
