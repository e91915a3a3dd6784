//! `events.subscribe` (a stream of event lines) and `events.wait` (one matching event).
//! Both read the hub from a cursor and sleep on its watch channel: nothing polls. Which hub
//! events a stream wants and their lines are `herdr_session::events::Filter`'s.

use herdr_protocol::api::requests::{
    EventMatch, EventsSubscribeParams, EventsWaitParams, OutputSubscription, Subscription,
};
use std::sync::Arc;
use std::time::Duration;

use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, Event, PaneScrollInfo, ReadFormat};
use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};
use herdr_session::events::{self, StatusWatch};
use serde_json::Value;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::envelope::{self, Failure};
use super::panes;
use super::transport::{hangup, write_line};
use crate::hub::Hub;
use crate::session::PaneKey;
use crate::state::Shared;

/// A stream's subscriptions: the hub events it wants, and those fed from elsewhere.
#[derive(Default)]
struct Filter {
    /// Lifecycle and agent-status subscriptions, answered from the hub.
    hub: events::Filter,
    /// `pane.output_matched` subscriptions, with their index in the request.
    outputs: Vec<(usize, OutputSubscription)>,
    /// `pane.scroll_changed` subscriptions.
    scrolls: Vec<ScrollWatch>,
}

/// One `pane.scroll_changed` subscription and what it last reported. Scroll positions come from
/// the mirrored screens, so a pane is followed while some client shows it.
struct ScrollWatch {
    /// The subscription's index in the request (for a probe error's id).
    index: usize,
    pane_id: String,
    workspace_id: String,
    key: PaneKey,
    last: Option<PaneScrollInfo>,
}

impl ScrollWatch {
    /// The event line when the pane's scroll position differs from the last one reported.
    fn changed(&mut self, shared: &Shared) -> Option<Value> {
        let now = shared.screens().scroll_info(self.key).map(|(at, rows)| PaneScrollInfo {
            offset_from_bottom: u64::from(at.offset_from_bottom),
            max_offset_from_bottom: u64::from(at.max_offset_from_bottom),
            viewport_rows: u64::from(rows),
        });
        if now == self.last {
            return None;
        }
        self.last = now;
        let scroll = now?;
        Some(serde_json::json!({
            "event": "pane.scroll_changed",
            "data": { "pane_id": self.pane_id, "workspace_id": self.workspace_id, "scroll": scroll },
        }))
    }
}

/// Sorts the subscriptions by kind (their params were checked when the request parsed).
fn filter_of(p: EventsSubscribeParams) -> Filter {
    // `after_seq` / `epoch` are read by `subscribe` before the subscriptions are sorted.
    let mut filter = Filter::default();
    for (index, subscription) in p.subscriptions.into_iter().enumerate() {
        match subscription {
            Subscription::Lifecycle(kind) => {
                filter.hub.lifecycle.insert(kind.name());
            }
            Subscription::AgentStatusChanged(s) => {
                filter
                    .hub
                    .statuses
                    .push(StatusWatch { pane_id: s.pane_id.into_string(), status: s.agent_status });
            }
            Subscription::OutputMatched(s) => filter.outputs.push((index, s)),
            Subscription::ScrollChanged(s) => {
                // Resolved at subscribe time, where a missing pane is a probe error.
                let (key, workspace_id, last) = (PaneKey(0), String::new(), None);
                filter.scrolls.push(ScrollWatch {
                    index,
                    pane_id: s.pane_id.into_string(),
                    workspace_id,
                    key,
                    last,
                });
            }
        }
    }
    filter
}

pub async fn subscribe(
    shared: &Arc<Shared>,
    id: &str,
    p: EventsSubscribeParams,
    mut reader: OwnedReadHalf,
    mut writer: OwnedWriteHalf,
) {
    let resume = p.after_seq.map(|after| (after, p.epoch.clone()));
    let mut filter = filter_of(p);
    // Probe every watched pane first: canonical ids, and an immediate event for a status that
    // already holds.
    let mut immediate = Vec::new();
    for (index, watch) in filter.hub.statuses.iter_mut().enumerate() {
        match current_status(shared, &watch.pane_id) {
            Ok((canonical, event)) => {
                watch.pane_id = canonical;
                immediate.extend(watch.already(&event));
            }
            Err(e) => {
                let id = format!("{}:sub:{index}:probe", id);
                let _ = write_line(&mut writer, &envelope::error_line(&id, &e)).await;
                return;
            }
        }
    }
    for watch in &mut filter.scrolls {
        match panes::resolve(shared, Some(&watch.pane_id)) {
            Ok(target) => {
                (watch.pane_id, watch.workspace_id, watch.key) =
                    (target.pane_id, target.workspace_id, target.key);
                // Only changes from here on are reported.
                watch.changed(shared);
            }
            Err(e) => {
                let id = format!("{}:sub:{}:probe", id, watch.index);
                let _ = write_line(&mut writer, &envelope::error_line(&id, &e)).await;
                return;
            }
        }
    }
    let (matched_tx, mut matched_rx) = mpsc::unbounded_channel::<Value>();
    let mut watches = JoinSet::new();
    for (index, sub) in std::mem::take(&mut filter.outputs) {
        match start_output_watch(shared, sub, matched_tx.clone()).await {
            Ok(forward) => {
                watches.spawn(forward);
            }
            Err(OutputWatchError::Probe(e)) => {
                let id = format!("{}:sub:{index}:probe", id);
                let _ = write_line(&mut writer, &envelope::error_line(&id, &e)).await;
                return;
            }
            Err(OutputWatchError::Refused(e)) => {
                let _ = write_line(&mut writer, &envelope::error_line(id, &e)).await;
                return;
            }
        }
    }
    drop(matched_tx);
    // Watch before reading the cursor: an event published in between is then both in the
    // replay below and a wake, never neither.
    let mut changes = shared.hub.watch();
    let (mut cursor, ack) = start(&shared.hub, resume);
    if write_line(&mut writer, &envelope::success_line(id, &ack)).await.is_err() {
        return;
    }
    for line in immediate {
        if write_line(&mut writer, &line.to_string()).await.is_err() {
            return;
        }
    }
    if send_since(shared, &filter, &mut cursor, &mut writer).await.is_err() {
        return;
    }
    let mut screens = shared.screens().watch();
    let mut stop = shared.shutdown_signal();
    let mut swapping = shared.handoff.swapping();
    loop {
        let wake = tokio::select! {
            () = crate::handoff::began(&mut swapping) => Wake::HandingOver,
            changed = changes.changed() => if changed.is_err() { return } else { Wake::Hub },
            _ = screens.changed(), if !filter.scrolls.is_empty() => Wake::Screens,
            Some(line) = matched_rx.recv() => Wake::Matched(line),
            () = hangup(&mut reader) => return,
            _ = stop.wait_for(|s| *s) => return,
        };
        if let Wake::HandingOver = wake {
            let _ = write_line(&mut writer, &envelope::error_line(id, &crate::handoff::ended_error())).await;
            return;
        }
        if let Wake::Matched(line) = wake {
            if write_line(&mut writer, &line.to_string()).await.is_err() {
                return;
            }
            continue;
        }
        if let Wake::Screens = wake {
            let lines: Vec<Value> = filter.scrolls.iter_mut().filter_map(|w| w.changed(shared)).collect();
            for line in lines {
                if write_line(&mut writer, &line.to_string()).await.is_err() {
                    return;
                }
            }
            continue;
        }
        if send_since(shared, &filter, &mut cursor, &mut writer).await.is_err() {
            // A subscriber that does not keep up within the write timeout is dropped.
            return;
        }
    }
}

/// Where the stream starts and its ack: after the newest event, or (resuming) after
/// `after_seq` when the ring still holds what follows it.
fn start(hub: &Hub, resume: Option<(u64, Option<String>)>) -> (u64, ApiResult) {
    let epoch = Some(hub.epoch().to_owned());
    match resume {
        None => {
            let seq = hub.cursor();
            (
                seq,
                ApiResult::SubscriptionStarted {
                    epoch,
                    seq: Some(seq),
                    truncated: false,
                    first_available_seq: None,
                },
            )
        }
        Some((after_seq, wanted_epoch)) => {
            let at = hub.resume(after_seq, wanted_epoch.as_deref());
            let first_available_seq = at.truncated.then_some(at.first_available_seq);
            let ack = ApiResult::SubscriptionStarted {
                epoch,
                seq: Some(at.cursor),
                truncated: at.truncated,
                first_available_seq,
            };
            (at.cursor, ack)
        }
    }
}

/// Writes every wanted hub event after `cursor`, advancing it.
async fn send_since(
    shared: &Shared,
    filter: &Filter,
    cursor: &mut u64,
    writer: &mut OwnedWriteHalf,
) -> std::io::Result<()> {
    let batch = shared.hub.since(*cursor);
    if batch.lost {
        // The lines' `seq` shows the client the gap.
        log::warn!("subscriber fell behind the event ring; some events were dropped");
    }
    for (seq, event) in batch.events {
        *cursor = seq;
        if let Some(line) = filter.hub.line_for(seq, &event) {
            write_line(writer, &line.to_string()).await?;
        }
    }
    Ok(())
}

/// What woke a subscription stream.
enum Wake {
    Hub,
    /// A mirrored screen changed (a scroll position may have).
    Screens,
    Matched(Value),
    /// A live handoff began: the stream ends with an error (resubscribe to the next server).
    HandingOver,
}

enum OutputWatchError {
    /// The pane is missing: reported under the sub-request probe id.
    Probe(ApiError),
    /// The subscription itself is bad (e.g. an invalid regex).
    Refused(ApiError),
}

/// Starts an edge-triggered watch on the pane's worker; the returned future forwards each match
/// as a `pane.output_matched` line until the subscription ends (which drops the watch).
async fn start_output_watch(
    shared: &Shared,
    sub: OutputSubscription,
    lines: mpsc::UnboundedSender<Value>,
) -> Result<impl Future<Output = ()> + Send + 'static, OutputWatchError> {
    let matcher = panes::compile_match(sub.matcher).map_err(OutputWatchError::Refused)?;
    let target = panes::resolve(shared, Some(&sub.pane_id)).map_err(OutputWatchError::Probe)?;
    let handle = shared
        .pane_handle(target.key)
        .ok_or_else(|| OutputWatchError::Probe(ApiError::pane_not_found(&sub.pane_id)))?;
    let source = panes::wait_source(sub.source);
    let body =
        WorkerRequest::WatchOutput { read: panes::read_spec(source, sub.lines, ReadFormat::Text), matcher };
    let (first, mut watch) = handle
        .watch(shared.next_request_id(), body)
        .await
        .map_err(|_| OutputWatchError::Probe(ApiError::pane_not_found(&sub.pane_id)))?;
    if let WorkerResponse::Error { code, message } = first {
        return Err(OutputWatchError::Refused(ApiError::new(code, message)));
    }
    Ok(async move {
        while let Some(m) = watch.matches.recv().await {
            let read = panes::read_result(&target, source, ReadFormat::Text, m.read);
            let line = serde_json::json!({
                "event": "pane.output_matched",
                "data": { "pane_id": target.pane_id, "matched_line": m.matched_line, "read": read },
            });
            if lines.send(line).is_err() {
                return;
            }
        }
    })
}

/// The pane's canonical id and a status event describing it now.
fn current_status(shared: &Shared, pane_id: &str) -> Result<(String, Event), ApiError> {
    let session = shared.session();
    let key: PaneKey = session.resolve_pane(pane_id)?;
    let info = session.pane_info(key).ok_or_else(|| ApiError::pane_not_found(pane_id))?;
    let event = Event::agent_status_of(&info);
    Ok((info.pane_id, event))
}

pub async fn wait(shared: &Shared, p: EventsWaitParams) -> Result<ApiResult, Failure> {
    let EventMatch::PaneAgentStatusChanged { pane_id: wanted_pane, agent_status: wanted } = p.match_event
    else {
        return Err(ApiError::new(
            ErrorCode::UnsupportedEventWaitMatch,
            format!("events.wait does not support matching {} events", p.match_event.event_name()),
        )
        .into());
    };
    let cursor = shared.hub.cursor();
    let (pane_id, now) = current_status(shared, &wanted_pane).map_err(Failure::Probe)?;
    if matches!(&now, Event::PaneAgentStatusChanged { agent_status, .. } if *agent_status == wanted) {
        return Ok(ApiResult::WaitMatched { event: now.to_wire() });
    }
    let found = wait_for_event(&shared.hub, cursor, |event| {
        matches!(event, Event::PaneAgentStatusChanged { pane_id: id, agent_status, .. }
            if *id == pane_id && *agent_status == wanted)
    });
    match p.timeout_ms {
        Some(ms) => tokio::time::timeout(Duration::from_millis(ms), found)
            .await
            .map_err(|_| ApiError::new(ErrorCode::Timeout, "timed out waiting for event match").into()),
        None => Ok(found.await),
    }
    .map(|event| ApiResult::WaitMatched { event: event.to_wire() })
}

/// The first event after `cursor` that `matches`.
async fn wait_for_event(hub: &Hub, mut cursor: u64, matches: impl Fn(&Event) -> bool) -> Arc<Event> {
    let mut changes = hub.watch();
    loop {
        for (seq, event) in hub.since(cursor).events {
            cursor = seq;
            if matches(&event) {
                return event;
            }
        }
        if changes.changed().await.is_err() {
            // The hub lives as long as the server; park until the client or timeout gives up.
            std::future::pending::<()>().await;
        }
    }
}
