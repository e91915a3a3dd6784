//! Hook reports from integrations: `pane.report_agent`, `pane.report_agent_session`,
//! `pane.release_agent`, `pane.clear_agent_authority`. The acceptance rules and arbitration are
//! in `crate::agents`; these handlers parse, resolve the pane and apply the outcome. A report
//! that the rules ignore (stale `seq`, conflicting agent, exited agent) still answers `ok`.

use herdr_protocol::api::requests::{
    PaneClearAgentAuthorityParams, PaneReleaseAgentParams, PaneReportAgentParams,
    PaneReportAgentSessionParams, ReportedState,
};
use herdr_protocol::api::{AgentSessionRefKind, ApiError, ApiResult, ErrorCode};
use herdr_protocol::ipc::DetectedState;

use super::envelope::Failure;
use crate::agents::{Report, SessionReport};
use crate::session::{Effects, PaneKey, Session};
use crate::state::Shared;

/// The reportable states (`PaneAgentState`): `done` is not one, herdr derives it.
/// A hook's reportable state as the detector's (`done` is never reported: herdr derives it).
fn detected(state: ReportedState) -> DetectedState {
    {
        match state {
            ReportedState::Idle => DetectedState::Idle,
            ReportedState::Working => DetectedState::Working,
            ReportedState::Blocked => DetectedState::Blocked,
            ReportedState::Unknown => DetectedState::Unknown,
        }
    }
}

/// Longest accepted source id (as for metadata sources).
const MAX_SOURCE_LEN: usize = 80;

fn check_source(source: &str) -> Result<(), ApiError> {
    let valid_chars = source.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-'));
    if source.is_empty() || source.len() > MAX_SOURCE_LEN || !valid_chars {
        return Err(ApiError::invalid_request(format!(
            "invalid source {source:?}: use 1 to {MAX_SOURCE_LEN} characters from A-Z a-z 0-9 : . _ -"
        )));
    }
    Ok(())
}

fn check_agent(agent: &str) -> Result<(), ApiError> {
    if agent.trim().is_empty() || agent.chars().any(char::is_control) {
        return Err(ApiError::new(ErrorCode::InvalidAgent, format!("invalid agent label {agent:?}")));
    }
    Ok(())
}

/// The session ref of a report: the session id when given, else the session file path; for Pi
/// and OMP the other way round, as upstream keeps them: they resume a session file best, and a
/// path can be checked for staleness at restore.
fn session_ref(
    agent: &str,
    id: Option<String>,
    path: Option<String>,
) -> Option<(AgentSessionRefKind, String)> {
    let clean = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let id = clean(id).map(|id| (AgentSessionRefKind::Id, id));
    let path = clean(path).map(|path| (AgentSessionRefKind::Path, path));
    if matches!(agent.trim(), "pi" | "omp") { path.or(id) } else { id.or(path) }
}

/// Resolves `pane_id`, runs `change` on the session and applies its effects.
fn on_pane(
    shared: &Shared,
    pane_id: &str,
    change: impl FnOnce(&mut Session, PaneKey) -> Effects,
) -> Result<ApiResult, Failure> {
    let effects = {
        let mut session = shared.session();
        let key = session.resolve_pane(pane_id)?;
        change(&mut session, key)
    };
    shared.apply(effects);
    Ok(ApiResult::Ok)
}

pub async fn report_agent(shared: &Shared, p: PaneReportAgentParams) -> Result<ApiResult, Failure> {
    check_source(&p.source)?;
    check_agent(&p.agent)?;
    let session = session_ref(&p.agent, p.agent_session_id, p.agent_session_path);
    let report = Report {
        source: p.source,
        agent: p.agent,
        state: detected(p.state),
        message: p.message,
        seq: p.seq,
        session,
    };
    on_pane(shared, &p.pane_id, |s, key| s.agent_report(key, report))
}

pub async fn report_agent_session(
    shared: &Shared,
    p: PaneReportAgentSessionParams,
) -> Result<ApiResult, Failure> {
    check_source(&p.source)?;
    check_agent(&p.agent)?;
    let session = session_ref(&p.agent, p.agent_session_id, p.agent_session_path);
    let report = SessionReport { source: p.source, agent: p.agent, seq: p.seq, session };
    on_pane(shared, &p.pane_id, |s, key| s.agent_report_session(key, report))
}

pub async fn release_agent(shared: &Shared, p: PaneReleaseAgentParams) -> Result<ApiResult, Failure> {
    check_source(&p.source)?;
    check_agent(&p.agent)?;
    on_pane(shared, &p.pane_id, |s, key| s.agent_release(key, &p.source, &p.agent, p.seq))
}

pub async fn clear_agent_authority(
    shared: &Shared,
    p: PaneClearAgentAuthorityParams,
) -> Result<ApiResult, Failure> {
    if let Some(source) = &p.source {
        check_source(source)?;
    }
    on_pane(shared, &p.pane_id, |s, key| s.agent_clear_authority(key, p.source.as_deref(), p.seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_checked() {
        assert!(check_source("herdr:pi").is_ok());
        assert!(check_source("custom:my-agent.v2").is_ok());
        assert!(check_source("").is_err());
        assert!(check_source("has space").is_err());
        assert!(check_source(&"x".repeat(81)).is_err());
    }

    #[test]
    fn session_refs_prefer_the_id_except_for_pi_and_omp() {
        assert_eq!(
            session_ref("claude", Some("abc".into()), Some("/p".into())),
            Some((AgentSessionRefKind::Id, "abc".into()))
        );
        assert_eq!(
            session_ref("claude", Some(" ".into()), Some("/p".into())),
            Some((AgentSessionRefKind::Path, "/p".into()))
        );
        assert_eq!(session_ref("claude", None, None), None);
        for agent in ["pi", "omp"] {
            assert_eq!(
                session_ref(agent, Some("abc".into()), Some("/p".into())),
                Some((AgentSessionRefKind::Path, "/p".into()))
            );
            assert_eq!(
                session_ref(agent, Some("abc".into()), None),
                Some((AgentSessionRefKind::Id, "abc".into()))
            );
        }
    }
}
