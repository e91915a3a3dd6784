//! The `agent.*` methods and `server.reload_agent_manifests`. Targets resolve through the
//! session (a pane hosting an agent, or a live agent name); reads, input and explain go to the
//! pane's worker. Waits and prompts live in [`wait`], managed launches in [`start`].

mod manifests;
mod start;
mod wait;

use herdr_protocol::api::requests::{
    AgentReadParams, AgentRenameParams, AgentSendKeysParams, AgentTarget, AgentViewClearParams,
    AgentViewSetParams,
};
use std::time::Instant;

use herdr_protocol::api::{AgentInfo, ApiError, ApiResult, ErrorCode, ReadFormat, ReadSource};
use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};
use serde_json::Value;

use super::envelope::Failure;
use super::panes::{self, Target};
use crate::session::{Effects, PaneKey, Session, agent_not_found};
use crate::state::Shared;

pub(super) use manifests::set_for as manifest_set_for;
pub use manifests::{reload as reload_manifests, status as manifest_status};
pub use start::start;
pub use wait::{prompt, wait};

/// Runs `f` under the session lock after settling expired launches; effects are applied once
/// the lock is released.
fn with_session<T>(
    shared: &Shared,
    f: impl FnOnce(&mut Session) -> Result<(T, Effects), ApiError>,
) -> Result<T, ApiError> {
    let (outcome, effects) = {
        let mut session = shared.session();
        let mut effects = session.reconcile_launches(Instant::now());
        let outcome = f(&mut session).map(|(value, more)| {
            effects.merge(more);
            value
        });
        (outcome, effects)
    };
    shared.apply(effects);
    outcome
}

/// The pane and current record of an agent target.
fn resolve(shared: &Shared, target: &str) -> Result<(PaneKey, AgentInfo), ApiError> {
    with_session(shared, |s| {
        let key = s.resolve_agent(target)?;
        let info = s.agent_info(key).ok_or_else(|| agent_not_found(target))?;
        Ok(((key, info), Effects::default()))
    })
}

/// The worker-facing target of an agent's pane.
fn pane_target(key: PaneKey, info: &AgentInfo) -> Target {
    Target {
        key,
        pane_id: info.pane_id.clone(),
        workspace_id: info.workspace_id.clone(),
        tab_id: info.tab_id.clone(),
    }
}

fn agent_result(info: AgentInfo) -> ApiResult {
    ApiResult::AgentInfo { agent: Box::new(info) }
}

pub async fn list(shared: &Shared) -> Result<ApiResult, Failure> {
    let agents = with_session(shared, |s| Ok((s.agent_infos(), Effects::default())))?;
    Ok(ApiResult::AgentList { agents })
}

pub async fn get(shared: &Shared, p: AgentTarget) -> Result<ApiResult, Failure> {
    Ok(agent_result(resolve(shared, &p.target)?.1))
}

pub async fn focus(shared: &Shared, p: AgentTarget) -> Result<ApiResult, Failure> {
    let info = with_session(shared, |s| {
        let key = s.resolve_agent(&p.target)?;
        let effects = s.agent_focus(key);
        Ok((s.agent_info(key).ok_or_else(|| agent_not_found(&p.target))?, effects))
    })?;
    Ok(agent_result(info))
}

pub async fn rename(shared: &Shared, p: AgentRenameParams) -> Result<ApiResult, Failure> {
    let info = with_session(shared, |s| {
        let key = s.resolve_agent(&p.target)?;
        let effects = s.agent_rename(key, p.name.clone())?;
        Ok((s.agent_info(key).ok_or_else(|| agent_not_found(&p.target))?, effects))
    })?;
    Ok(agent_result(info))
}

/// `agent.read`: `pane.read` on the agent's pane (a `pane_read` result). Never marks it seen.
pub async fn read(shared: &Shared, p: AgentReadParams) -> Result<ApiResult, Failure> {
    let (key, info) = resolve(shared, &p.target)?;
    let target = pane_target(key, &info);
    if p.source == ReadSource::LastTurn {
        return panes::read_last_turn(shared, &target, p.lines).await;
    }
    let format = if p.source == ReadSource::Detection { ReadFormat::Text } else { p.format() };
    let body = WorkerRequest::Read(panes::read_spec(p.source, p.lines, format));
    match panes::ask(shared, &target, body).await? {
        WorkerResponse::Read(out) => {
            Ok(ApiResult::PaneRead { read: Box::new(panes::read_result(&target, p.source, format, out)) })
        }
        other => Err(ApiError::internal(format!("unexpected answer from pane worker: {other:?}")).into()),
    }
}

/// `agent_not_ready` unless a known agent owns the pane's foreground (and no launch is pending).
fn require_foreground(shared: &Shared, key: PaneKey, target: &str) -> Result<String, ApiError> {
    let session = shared.session();
    let agent = session.pane_agent(key).ok_or_else(|| agent_not_found(target))?;
    let pending = agent.launch().is_some_and(|l| l.pending());
    match agent.foreground_agent() {
        Some(label) if !pending => Ok(label.to_owned()),
        _ => Err(ApiError::new(ErrorCode::AgentNotReady, format!("agent {target} is not ready for input"))),
    }
}

pub async fn send_keys(shared: &Shared, p: AgentSendKeysParams) -> Result<ApiResult, Failure> {
    let (key, info) = resolve(shared, &p.target)?;
    require_foreground(shared, key, &p.target)?;
    match panes::ask(shared, &pane_target(key, &info), WorkerRequest::SendKeys(p.keys)).await? {
        WorkerResponse::Ok => Ok(ApiResult::Ok),
        other => {
            Err(ApiError::new(ErrorCode::AgentSendKeysFailed, format!("unexpected answer: {other:?}")).into())
        }
    }
}

/// `agent.explain`: the worker's detector evidence, plus the supervisor's arbitration (hook
/// authority, effective state, whether scans are paused for a full-lifecycle hook).
pub async fn explain(shared: &Shared, p: AgentTarget) -> Result<ApiResult, Failure> {
    let (key, info) = resolve(shared, &p.target)?;
    let unavailable = |m: String| ApiError::new(ErrorCode::AgentExplainUnavailable, m);
    let text = match panes::ask(shared, &pane_target(key, &info), WorkerRequest::Explain).await {
        Ok(WorkerResponse::Explain(text)) => text,
        Ok(other) => return Err(unavailable(format!("unexpected answer from pane worker: {other:?}")).into()),
        Err(e) if e.code == ErrorCode::NotImplemented => return Err(unavailable(e.message).into()),
        Err(e) => return Err(e.into()),
    };
    let mut explain: Value = serde_json::from_str(&text)
        .map_err(|e| unavailable(format!("the pane worker sent unreadable evidence: {e}")))?;
    let session = shared.session();
    if let (Some(agent), Value::Object(map)) = (session.pane_agent(key), &mut explain) {
        if agent.scans_suspended() {
            map.insert("screen_detection_skipped".into(), Value::Bool(true));
            map.insert("screen_detection_skip_reason".into(), "full_lifecycle_hook_authority".into());
        }
        map.insert("agent_status".into(), serde_json::to_value(agent.status()).unwrap_or(Value::Null));
        map.insert("state_change_seq".into(), agent.state_change_seq().into());
        if let Some(authority) = agent.authority() {
            map.insert(
                "hook_authority".into(),
                serde_json::json!({
                    "source": authority.source,
                    "agent": authority.agent,
                    "state": format!("{:?}", authority.state).to_lowercase(),
                    "message": authority.message,
                }),
            );
        }
    }
    Ok(ApiResult::AgentExplain { explain })
}

/// `agent.view.set`: records the projection (the sidebar applies filter and sort).
pub async fn view_set(shared: &Shared, p: AgentViewSetParams) -> Result<ApiResult, Failure> {
    if p.source.trim().is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidAgentView, "agent view source must not be empty").into());
    }
    shared.session().set_agent_view(Some((p.source.clone(), p.label.clone())));
    Ok(ApiResult::AgentView { active: true, source: Some(p.source), label: p.label })
}

/// `agent.view.clear`: clears the projection (only `source`'s, if given).
pub async fn view_clear(shared: &Shared, p: AgentViewClearParams) -> Result<ApiResult, Failure> {
    let mut session = shared.session();
    let matches = match (&p.source, session.agent_view()) {
        (Some(source), Some((current, _))) => source == current,
        _ => true,
    };
    if matches {
        session.set_agent_view(None);
    }
    Ok(match session.agent_view() {
        Some((source, label)) => {
            ApiResult::AgentView { active: true, source: Some(source.clone()), label: label.clone() }
        }
        None => ApiResult::AgentView { active: false, source: None, label: None },
    })
}
