//! `events.subscribe` (a stream of event lines) and `events.wait` (one matching event).
//! Both read the hub from a cursor and sleep on its watch channel: nothing polls.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use herdr_protocol::api::{AgentStatus, ApiError, ApiResult, Event, PaneScrollInfo, ReadFormat, ReadSource};
use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};
use serde::Deserialize;
use serde_json::Value;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::envelope::{self, Failure, Request, params};
use super::panes::{self, MatchParam};
use super::transport::{hangup, write_line};
use crate::hub::Hub;
use crate::session::PaneKey;
use crate::state::Shared;

/// Plain lifecycle subscription types (the parameterised ones are handled separately).
const LIFECYCLE: &[&str] = &[
    "workspace.created",
    "workspace.updated",
    "workspace.metadata_updated",
    "workspace.renamed",
    "workspace.moved",
    "workspace.reordered",
    "workspace.closed",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.focused",
    "tab.renamed",
    "tab.moved",
    "pane.created",
    "pane.closed",
    "pane.updated",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "layout.updated",
];

/// One agent-status subscription: a pane, and optionally the status it waits for.
struct StatusWatch {
    pane_id: String,
    status: Option<AgentStatus>,
}

#[derive(Default)]
struct Filter {
    lifecycle: HashSet<&'static str>,
    statuses: Vec<StatusWatch>,
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
        let now = shared.screens.scroll_info(self.key).map(|(at, rows)| PaneScrollInfo {
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

#[derive(Deserialize)]
struct OutputSubscription {
    pane_id: String,
    source: ReadSource,
    lines: Option<u32>,
    #[serde(rename = "match")]
    matcher: MatchParam,
}

impl Filter {
    fn line_for(&self, event: &Event) -> Option<Value> {
        if let Event::PaneAgentStatusChanged { pane_id, agent_status, .. } = event {
            let wanted = self
                .statuses
                .iter()
                .any(|w| &w.pane_id == pane_id && w.status.is_none_or(|s| s == *agent_status));
            return if wanted { event.to_subscription_wire() } else { None };
        }
        self.lifecycle.contains(event.subscription_type()).then(|| event.to_wire())
    }
}

#[derive(Deserialize)]
struct SubscribeParams {
    subscriptions: Vec<Value>,
}

#[derive(Deserialize)]
struct StatusSubscription {
    pane_id: String,
    agent_status: Option<AgentStatus>,
}

#[derive(Deserialize)]
struct PaneSubscription {
    pane_id: String,
}

/// Parses the subscriptions; errors here are request-parse failures (blank id).
fn parse_filter(req: &Request) -> Result<Filter, Failure> {
    let p: SubscribeParams = params(req)?;
    let mut filter = Filter::default();
    for (index, item) in p.subscriptions.into_iter().enumerate() {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let bad = |e: serde_json::Error| Failure::BadRequest(e.to_string());
        match kind.as_str() {
            "pane.agent_status_changed" => {
                let s: StatusSubscription = serde_json::from_value(item).map_err(bad)?;
                filter.statuses.push(StatusWatch { pane_id: s.pane_id, status: s.agent_status });
            }
            "pane.output_matched" => {
                filter.outputs.push((index, serde_json::from_value(item).map_err(bad)?));
            }
            "pane.scroll_changed" => {
                let s: PaneSubscription = serde_json::from_value(item).map_err(bad)?;
                // Resolved at subscribe time, where a missing pane is a probe error.
                let (key, workspace_id, last) = (PaneKey(0), String::new(), None);
                filter.scrolls.push(ScrollWatch { index, pane_id: s.pane_id, workspace_id, key, last });
            }
            other => match LIFECYCLE.iter().find(|t| **t == other) {
                Some(t) => {
                    filter.lifecycle.insert(t);
                }
                None => return Err(Failure::BadRequest(format!("unknown subscription type `{other}`"))),
            },
        }
    }
    Ok(filter)
}

pub async fn subscribe(
    shared: &Arc<Shared>,
    req: &Request,
    mut reader: OwnedReadHalf,
    mut writer: OwnedWriteHalf,
) {
    let mut filter = match parse_filter(req) {
        Ok(parsed) => parsed,
        Err(failure) => {
            let _ = write_line(&mut writer, &envelope::outcome_line(&req.id, &Err(failure))).await;
            return;
        }
    };
    // Probe every watched pane first: canonical ids, and an immediate event for a status that
    // already holds.
    let mut immediate = Vec::new();
    for (index, watch) in filter.statuses.iter_mut().enumerate() {
        match current_status(shared, &watch.pane_id) {
            Ok((canonical, event)) => {
                watch.pane_id = canonical;
                if let Event::PaneAgentStatusChanged { agent_status, .. } = &event
                    && watch.status == Some(*agent_status)
                {
                    immediate.extend(event.to_subscription_wire());
                }
            }
            Err(e) => {
                let id = format!("{}:sub:{index}:probe", req.id);
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
                let id = format!("{}:sub:{}:probe", req.id, watch.index);
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
                let id = format!("{}:sub:{index}:probe", req.id);
                let _ = write_line(&mut writer, &envelope::error_line(&id, &e)).await;
                return;
            }
            Err(OutputWatchError::Refused(e)) => {
                let _ = write_line(&mut writer, &envelope::error_line(&req.id, &e)).await;
                return;
            }
        }
    }
    drop(matched_tx);
    let mut cursor = shared.hub.cursor();
    let ack = envelope::success_line(&req.id, &ApiResult::SubscriptionStarted);
    if write_line(&mut writer, &ack).await.is_err() {
        return;
    }
    for line in immediate {
        if write_line(&mut writer, &line.to_string()).await.is_err() {
            return;
        }
    }
    let mut changes = shared.hub.watch();
    let mut screens = shared.screens.watch();
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
            let _ =
                write_line(&mut writer, &envelope::error_line(&req.id, &crate::handoff::ended_error())).await;
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
        let batch = shared.hub.since(cursor);
        if batch.lost {
            log::warn!("subscriber fell behind the event ring; some events were dropped");
        }
        for (seq, event) in batch.events {
            cursor = seq;
            if let Some(line) = filter.line_for(&event)
                && write_line(&mut writer, &line.to_string()).await.is_err()
            {
                // A subscriber that does not keep up within the write timeout is dropped.
                return;
            }
        }
    }
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
    let matcher = sub.matcher.compile().map_err(OutputWatchError::Refused)?;
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
    let event = Event::PaneAgentStatusChanged {
        pane_id: info.pane_id.clone(),
        workspace_id: info.workspace_id.clone(),
        agent_status: info.agent_status,
        agent: info.agent.clone(),
        title: info.title.clone(),
        display_agent: info.display_agent.clone(),
        state_labels: info.state_labels.clone(),
    };
    Ok((info.pane_id, event))
}

#[derive(Deserialize)]
struct WaitParams {
    match_event: Value,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
struct StatusMatch {
    pane_id: String,
    agent_status: AgentStatus,
}

pub async fn wait(shared: &Shared, req: &Request) -> Result<ApiResult, Failure> {
    let p: WaitParams = params(req)?;
    let kind = p.match_event.get("event").and_then(Value::as_str).unwrap_or_default().to_owned();
    if kind != "pane_agent_status_changed" {
        return Err(ApiError::new(
            "unsupported_event_wait_match",
            format!("events.wait does not support matching {kind} events"),
        )
        .into());
    }
    let m: StatusMatch =
        serde_json::from_value(p.match_event).map_err(|e| Failure::BadRequest(e.to_string()))?;
    let cursor = shared.hub.cursor();
    let (pane_id, now) = current_status(shared, &m.pane_id).map_err(Failure::Probe)?;
    if matches!(&now, Event::PaneAgentStatusChanged { agent_status, .. } if *agent_status == m.agent_status) {
        return Ok(ApiResult::WaitMatched { event: now.to_wire() });
    }
    let found = wait_for_event(&shared.hub, cursor, |event| {
        matches!(event, Event::PaneAgentStatusChanged { pane_id: id, agent_status, .. }
            if *id == pane_id && *agent_status == m.agent_status)
    });
    match p.timeout_ms {
        Some(ms) => tokio::time::timeout(Duration::from_millis(ms), found)
            .await
            .map_err(|_| ApiError::new("timeout", "timed out waiting for event match").into()),
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
