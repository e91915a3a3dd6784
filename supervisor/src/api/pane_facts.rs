//! Live facts in the pane and agent records (`pane.get`, `pane.list`, `pane.current`,
//! `session.snapshot`, `agent.get`, `agent.list`): the shell's cwd, the foreground job's cwd and
//! the scrollback metrics. Before a pane record goes out, every pane it names is asked at once,
//! for the scrollback only its worker knows, each with a short deadline; a worker that does not
//! answer in time (or speaks a link older than `FACTS_VERSION`) leaves the last known values in
//! the record. Agent records carry no scrollback: their cwds are read from `/proc` here, for a
//! round trip to each agent's worker (while agents work, 20 of them took 2 ms) is a wake-up of
//! each worker's process.

use std::time::Duration;

use herdr_protocol::api::{AgentInfo, ApiResult, PaneInfo, PaneScrollInfo};
use herdr_protocol::ipc::{FACTS_VERSION, PaneFacts, ScrollPosition, WorkerRequest, WorkerResponse};
use tokio::task::JoinSet;

use crate::session::PaneKey;
use crate::state::Shared;
use crate::workers::LiveCwds;

/// How long one record waits for a pane's worker before it shows that pane's last known facts.
pub const FACTS_DEADLINE: Duration = Duration::from_millis(500);

/// `result` with the live facts of every pane it carries.
pub async fn fill(shared: &Shared, mut result: ApiResult) -> ApiResult {
    let keys = {
        let session = shared.session();
        pane_ids(&result).into_iter().filter_map(|id| session.resolve_pane(id).ok()).collect::<Vec<_>>()
    };
    if matches!(result, ApiResult::AgentInfo { .. } | ApiResult::AgentList { .. }) {
        read_cwds(shared, &keys);
    } else {
        refresh(shared, keys).await;
    }
    let session = shared.session();
    let fresh = |pane_id: &str| session.resolve_pane(pane_id).ok().and_then(|key| session.pane_info(key));
    let pane = |pane: &mut PaneInfo| {
        if let Some(now) = fresh(&pane.pane_id) {
            (pane.cwd, pane.foreground_cwd, pane.scroll) = (now.cwd, now.foreground_cwd, now.scroll);
        }
    };
    let agent = |agent: &mut AgentInfo| {
        if let Some(now) = fresh(&agent.pane_id) {
            (agent.cwd, agent.foreground_cwd) = (now.cwd, now.foreground_cwd);
        }
    };
    match &mut result {
        ApiResult::PaneInfo { pane: p } | ApiResult::PaneCurrent { pane: p } => pane(p),
        ApiResult::PaneList { panes } => panes.iter_mut().for_each(pane),
        ApiResult::SessionSnapshot { snapshot } => snapshot.panes.iter_mut().for_each(pane),
        ApiResult::AgentInfo { agent: a } => agent(a),
        ApiResult::AgentList { agents } => agents.iter_mut().for_each(agent),
        _ => {}
    }
    result
}

fn pane_ids(result: &ApiResult) -> Vec<&str> {
    match result {
        ApiResult::PaneInfo { pane } | ApiResult::PaneCurrent { pane } => vec![pane.pane_id.as_str()],
        ApiResult::PaneList { panes } => panes.iter().map(|p| p.pane_id.as_str()).collect(),
        ApiResult::SessionSnapshot { snapshot } => {
            snapshot.panes.iter().map(|p| p.pane_id.as_str()).collect()
        }
        ApiResult::AgentInfo { agent } => vec![agent.pane_id.as_str()],
        ApiResult::AgentList { agents } => agents.iter().map(|a| a.pane_id.as_str()).collect(),
        _ => Vec::new(),
    }
}

/// Asks the workers of `keys` for their facts concurrently and stores each answer in the
/// session. A pane whose worker does not answer keeps what it had, or takes the scroll position
/// a client's mirror of it shows.
async fn refresh(shared: &Shared, keys: Vec<PaneKey>) {
    let mut asks = JoinSet::new();
    for key in keys {
        let handle = shared.pane_handle(key).filter(|h| h.link_version().is_some_and(|v| v >= FACTS_VERSION));
        let Some(handle) = handle else {
            mirrored_scroll(shared, key);
            continue;
        };
        let id = shared.next_request_id();
        asks.spawn(async move {
            let answer = tokio::time::timeout(FACTS_DEADLINE, handle.request(id, WorkerRequest::Facts)).await;
            (key, answer)
        });
    }
    while let Some(joined) = asks.join_next().await {
        let Ok((key, answer)) = joined else { continue };
        match answer {
            Ok(Ok(WorkerResponse::Facts(facts))) => store(shared, key, facts),
            Ok(other) => {
                log::debug!("pane {key:?}: no live facts: {other:?}");
                mirrored_scroll(shared, key);
            }
            Err(_) => {
                log::debug!("pane {key:?}: its worker did not tell its live facts in time");
                mirrored_scroll(shared, key);
            }
        }
    }
}

/// The cwds of `keys`' programs from `/proc`; a pane whose program does not run keeps what it had.
fn read_cwds(shared: &Shared, keys: &[PaneKey]) {
    let launcher = shared.launcher();
    let read: Vec<_> = keys
        .iter()
        .filter_map(|&key| Some((key, launcher.live_cwds(shared.pane_handle(key)?.program_pid()?))))
        .collect();
    let mut session = shared.session();
    for (key, LiveCwds { cwd, foreground_cwd }) in read {
        if let Some(cwd) = cwd {
            session.set_pane_live_cwd(key, cwd);
        }
        session.set_pane_foreground_cwd(key, foreground_cwd);
    }
}

fn store(shared: &Shared, key: PaneKey, facts: PaneFacts) {
    let scroll = scroll_info(facts.scroll, facts.viewport_rows);
    let mut session = shared.session();
    if let Some(cwd) = facts.cwd {
        session.set_pane_live_cwd(key, cwd);
    }
    session.set_pane_live_facts(key, facts.foreground_cwd, scroll);
}

/// Without an answer, a client's mirror of the pane still knows where its viewport is.
fn mirrored_scroll(shared: &Shared, key: PaneKey) {
    let Some((at, rows)) = shared.screens().scroll_info(key) else { return };
    let mut session = shared.session();
    let foreground_cwd = session.pane_info(key).and_then(|p| p.foreground_cwd);
    session.set_pane_live_facts(key, foreground_cwd, scroll_info(at, rows));
}

/// A worker's scroll position and viewport height as the record's `scroll`.
fn scroll_info(at: ScrollPosition, viewport_rows: u16) -> PaneScrollInfo {
    PaneScrollInfo {
        offset_from_bottom: u64::from(at.offset_from_bottom),
        max_offset_from_bottom: u64::from(at.max_offset_from_bottom),
        viewport_rows: u64::from(viewport_rows),
    }
}
