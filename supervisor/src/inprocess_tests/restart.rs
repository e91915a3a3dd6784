//! A pane's worker dies: the pane task starts another that adopts the program (the kept PTY
//! master beside its `Hello`), re-sends what the dead one had not answered, and gives up on the
//! sixth death within a minute, when the pane ends with `pane.exited`.

use std::time::Duration;

use herdr_protocol::ipc::{Start, WorkerRequest};
use serde_json::json;

use super::{Harness, harness};
use crate::workers::Ending;
use crate::workers::fake::FakeWorker;

/// Kills `worker`; the one the pane task starts in its place.
async fn restart(h: &Harness, worker: FakeWorker) -> FakeWorker {
    worker.die();
    let next = h.fakes.next_worker().await;
    assert_eq!(next.program, worker.program, "the new worker serves the same program");
    let Start::Adopt { child_pid, .. } = next.start else { panic!("a restart adopts: {:?}", next.start) };
    assert_eq!(child_pid, worker.program);
    assert!(next.got_the_master, "the kept PTY master travels beside the new worker's Hello");
    next
}

/// Whether the session still has pane `pane`.
async fn has_pane(h: &Harness, pane: &str) -> bool {
    let panes = h.ok("pane.list", json!({})).await;
    panes["panes"].as_array().expect("panes").iter().any(|p| p["pane_id"] == json!(pane))
}

#[tokio::test(start_paused = true)]
async fn requests_pending_when_a_worker_dies_are_answered_by_the_next_one() {
    let h = harness();
    let (pane, first) = h.workspace().await;
    first.print("before the crash");
    first.hold(true);
    let reader = {
        let h = h.clone();
        let pane = pane.clone();
        tokio::spawn(async move { h.ok("pane.read", json!({"pane_id": pane, "source": "recent"})).await })
    };
    let mut first = first;
    let (asked, _) = first.next_request(|r| matches!(r, WorkerRequest::Read(_))).await;
    let mut second = restart(&h, first).await;
    let (resent, _) = second.next_request(|r| matches!(r, WorkerRequest::Read(_))).await;
    assert_eq!(resent, asked, "the same request, under the same id");
    let read = reader.await.expect("the reader");
    assert_eq!(read["read"]["text"], json!("before the crash\n"), "{read}");
    assert!(has_pane(&h, &pane).await, "the pane lives on");
}

#[tokio::test(start_paused = true)]
async fn a_worker_that_keeps_dying_is_given_up_on_the_sixth_death_in_a_minute() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    let (mut events, _conn) =
        h.send("events.subscribe", json!({"subscriptions": [{"type": "pane.exited"}]})).await;
    let ack = super::line(&mut events, "the ack").await;
    assert!(ack.contains("subscription_started"), "{ack}");
    for _ in 0..5 {
        worker = restart(&h, worker).await;
        tokio::time::advance(Duration::from_secs(10)).await;
    }
    assert_eq!(h.fakes.starts(), 6, "the first worker and five restarts");
    // The sixth death, 50 s after the first: over budget.
    let program = worker.program;
    worker.die();
    let line = super::line(&mut events, "an event line").await;
    let event: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(event["event"], json!("pane_exited"), "{event}");
    assert_eq!(event["data"]["pane_id"], json!(pane), "{event}");
    assert_eq!(h.fakes.starts(), 6, "no seventh worker");
    assert_eq!(h.fakes.ended(program), Some(Ending::HangUp), "the program was hung up");
    assert!(!has_pane(&h, &pane).await, "the pane left the layout");
}

#[tokio::test(start_paused = true)]
async fn deaths_spread_over_more_than_a_minute_never_use_up_the_budget() {
    let h = harness();
    let (pane, mut worker) = h.workspace().await;
    for _ in 0..8 {
        worker = restart(&h, worker).await;
        tokio::time::advance(Duration::from_secs(13)).await;
    }
    assert_eq!(h.fakes.starts(), 9);
    assert_eq!(h.fakes.ended(worker.program), None);
    assert!(has_pane(&h, &pane).await, "eight deaths, never more than five in a minute");
    let info = h.ok("pane.process_info", json!({"pane_id": pane})).await;
    assert_eq!(info["process_info"]["shell_pid"], json!(worker.program), "{info}");
}

#[tokio::test(start_paused = true)]
async fn a_program_that_exits_ends_its_pane_without_a_restart() {
    let h = harness();
    let (pane, worker) = h.workspace().await;
    let (mut events, _conn) =
        h.send("events.subscribe", json!({"subscriptions": [{"type": "pane.exited"}]})).await;
    super::line(&mut events, "the ack").await;
    worker.exit(3);
    let line = super::line(&mut events, "an event line").await;
    assert!(line.contains("pane_exited") && line.contains(&pane), "{line}");
    assert_eq!(h.fakes.starts(), 1, "nothing to restart");
    assert_eq!(h.fakes.ended(worker.program), None, "the program ended by itself");
}
