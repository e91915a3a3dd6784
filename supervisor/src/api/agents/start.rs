//! `agent.start`: type `<canonical exe> <args>` + Enter into an idle shell pane and register a
//! pending launch under the agent's name. Returns at once; `launch_pending` /
//! `interactive_ready` on the agent's record tell the caller when it is ready.

use herdr_protocol::api::requests::AgentStartParams;
use std::time::{Duration, Instant};

use herdr_manifests::Agent;
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode};
use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};

use super::with_session;
use crate::api::envelope::Failure;
use crate::api::panes::{self, Target};
use crate::session::Effects;
use crate::state::Shared;

pub const DEFAULT_START_TIMEOUT_MS: u64 = 30_000;
/// Timeouts must be above this...
pub const MIN_START_TIMEOUT_MS: u64 = 3_000;
/// ...and at most this.
pub const MAX_START_TIMEOUT_MS: u64 = 300_000;

/// One shell word: kept as is when it is plainly safe, else single-quoted.
pub fn shell_word(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c));
    if plain { arg.to_owned() } else { format!("'{}'", arg.replace('\'', r"'\''")) }
}

fn check_timeout(timeout_ms: Option<u64>) -> Result<Duration, ApiError> {
    let ms = timeout_ms.unwrap_or(DEFAULT_START_TIMEOUT_MS);
    if ms <= MIN_START_TIMEOUT_MS || ms > MAX_START_TIMEOUT_MS {
        return Err(ApiError::new(
            ErrorCode::InvalidAgentTimeout,
            format!(
                "agent start timeout must be greater than {MIN_START_TIMEOUT_MS} ms and at most \
                 {MAX_START_TIMEOUT_MS} ms"
            ),
        ));
    }
    Ok(Duration::from_millis(ms))
}

fn busy(pane_id: &str) -> ApiError {
    ApiError::new(ErrorCode::AgentPaneBusy, format!("pane {pane_id} is not at an idle shell prompt"))
}

pub async fn start(shared: &Shared, p: AgentStartParams) -> Result<ApiResult, Failure> {
    let timeout = check_timeout(p.timeout_ms)?;
    let kind = Agent::from_label(&p.kind).ok_or_else(|| {
        ApiError::new(ErrorCode::UnsupportedAgentKind, format!("unsupported agent kind {}", p.kind))
    })?;
    let args = p.args.clone().unwrap_or_default();
    if let Some(bad) = args.iter().find(|a| a.chars().any(|c| c.is_control())) {
        return Err(ApiError::new(
            ErrorCode::InvalidAgentArgument,
            format!("invalid agent argument {bad:?}"),
        )
        .into());
    }
    let target = with_session(shared, |s| {
        let key = s.resolve_pane(&p.pane_id).map_err(|_| {
            ApiError::new(ErrorCode::AgentPaneNotFound, format!("pane {} not found", p.pane_id))
        })?;
        s.check_launch_name(key, &p.name)?;
        let (workspace_id, tab_id, pane_id) =
            s.pane_ids(key).ok_or_else(|| ApiError::pane_not_found(&p.pane_id))?;
        if s.pane_agent(key).is_some_and(|a| a.hosts_agent() || a.foreground_agent().is_some()) {
            return Err(busy(&pane_id));
        }
        Ok((Target { key, pane_id, workspace_id, tab_id }, Effects::default()))
    })?;
    // An idle shell owns its terminal: the foreground process group is the shell's own.
    match panes::ask(shared, &target, WorkerRequest::ProcessInfo).await? {
        WorkerResponse::ProcessInfo(info)
            if info.shell_pid.is_some() && info.foreground_process_group_id == info.shell_pid => {}
        _ => return Err(busy(&target.pane_id).into()),
    }
    let argv: Vec<String> =
        std::iter::once(kind.interactive_executable().to_owned()).chain(args.iter().cloned()).collect();
    let line: Vec<String> = argv.iter().map(|a| shell_word(a)).collect();
    let typed = format!("{}\r", line.join(" "));
    match panes::ask(shared, &target, WorkerRequest::SendText(typed)).await {
        Ok(WorkerResponse::Ok) => {}
        Ok(other) => {
            return Err(ApiError::new(
                ErrorCode::AgentStartInputFailed,
                format!("unexpected answer: {other:?}"),
            )
            .into());
        }
        Err(e) => return Err(ApiError::new(ErrorCode::AgentStartInputFailed, e.message).into()),
    }
    let deadline = Instant::now() + timeout;
    let info = with_session(shared, |s| {
        // Checked again: another start may have taken the name while the command was typed.
        s.check_launch_name(target.key, &p.name)?;
        let effects = s.agent_launch(target.key, p.name.clone(), kind.label().to_owned(), deadline);
        let info = s.agent_info(target.key).ok_or_else(|| ApiError::pane_not_found(&target.pane_id))?;
        Ok((info, effects))
    })?;
    Ok(ApiResult::AgentStarted { agent: Box::new(info), argv })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("--model=opus"), "--model=opus");
        assert_eq!(shell_word("two words"), "'two words'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }

    #[test]
    fn start_timeouts_are_bounded() {
        assert_eq!(check_timeout(None).ok(), Some(Duration::from_millis(30_000)));
        assert!(check_timeout(Some(3_000)).is_err());
        assert!(check_timeout(Some(3_001)).is_ok());
        assert!(check_timeout(Some(300_000)).is_ok());
        assert!(check_timeout(Some(300_001)).is_err());
    }
}
