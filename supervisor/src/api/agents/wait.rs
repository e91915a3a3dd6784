//! `agent.wait` and `agent.prompt` (reference §9). Both pin the agent's identity (pane,
//! terminal, agent label, and the name when the target was one) and sleep on the event hub:
//! every wake-up re-reads the hub from a cursor and probes the session, nothing polls. The only
//! timers are the caller's timeout, the prompt's 5 s activity gate and its 300 ms Enter delay.

use herdr_protocol::api::requests::{AgentPromptParams, AgentWaitParams};
use std::time::{Duration, Instant};

use herdr_protocol::api::{AgentInfo, AgentStatus, ApiError, ApiResult, ErrorCode};
use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};
use herdr_session::events::{AgentWait, Goal, Seen, not_running};

use super::{pane_target, require_foreground, resolve};
use crate::api::envelope::Failure;
use crate::api::panes;
use crate::state::Shared;

/// How long a prompt may go without any observed state change (`AGENT_PROMPT_EFFECT_TIMEOUT_MS`).
pub const PROMPT_ACTIVITY_GATE: Duration = Duration::from_millis(5000);
/// Delay between the prompt text and its Enter, so the agent's composer takes the paste first.
pub const PROMPT_ENTER_DELAY: Duration = Duration::from_millis(300);
/// Copilot needs a focus-in report before it accepts typed input.
const FOCUS_IN: &str = "\x1b[I";

const DEFAULT_UNTIL: [AgentStatus; 3] = [AgentStatus::Idle, AgentStatus::Done, AgentStatus::Blocked];

fn timed_out() -> ApiError {
    ApiError::new(ErrorCode::Timeout, "timed out waiting for agent status")
}

/// The pinned agent's record now, or `agent_not_running`.
fn probe(shared: &Shared, pin: &AgentWait) -> Result<AgentInfo, ApiError> {
    pin.check(shared.session().agent_info(pin.key))
}

/// Sleeps on the hub from `cursor` until the pinned agent meets `goal`.
async fn settle(
    shared: &Shared,
    pin: &mut AgentWait,
    mut cursor: u64,
    goal: &Goal<'_>,
) -> Result<AgentInfo, ApiError> {
    let mut changes = shared.hub.watch();
    let mut transient = None;
    loop {
        for (seq, event) in shared.hub.since(cursor).events {
            cursor = seq;
            match pin.see(&event, goal) {
                Seen::Nothing => {}
                Seen::Passed(status) => transient = Some(status),
                Seen::Released(final_status) => {
                    return goal.on_release(shared.session().agent_info(pin.key), final_status);
                }
                Seen::Gone => return Err(not_running()),
            }
        }
        let info = probe(shared, pin)?;
        if goal.satisfied_by(&info) {
            return Ok(info);
        }
        if let Some(status) = transient {
            // The status came and went between wake-ups: report the one that satisfied the wait.
            return Ok(AgentInfo { agent_status: status, ..info });
        }
        if changes.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// `settle` bounded by `limit`; on expiry one last probe decides, else `timeout`.
async fn settle_within(
    shared: &Shared,
    pin: &mut AgentWait,
    cursor: u64,
    goal: &Goal<'_>,
    limit: Option<Duration>,
) -> Result<AgentInfo, ApiError> {
    let Some(limit) = limit else { return settle(shared, pin, cursor, goal).await };
    let mut inner = pin.clone();
    match tokio::time::timeout(limit, settle(shared, &mut inner, cursor, goal)).await {
        Ok(outcome) => outcome,
        Err(_) => {
            let info = probe(shared, &inner)?;
            if goal.satisfied_by(&info) { Ok(info) } else { Err(timed_out()) }
        }
    }
}

fn until_or_default(until: Option<Vec<AgentStatus>>) -> Vec<AgentStatus> {
    match until {
        Some(until) if !until.is_empty() => until,
        _ => DEFAULT_UNTIL.to_vec(),
    }
}

pub async fn wait(shared: &Shared, p: AgentWaitParams) -> Result<ApiResult, Failure> {
    let until = until_or_default(p.until);
    // The cursor comes first: anything published after it is seen by the wait.
    let cursor = shared.hub.cursor();
    let (key, info) = resolve(shared, &p.target)?;
    if until.contains(&info.agent_status) {
        return Ok(ApiResult::AgentInfo { agent: Box::new(info) });
    }
    let mut pin = AgentWait::new(key, &info, &p.target);
    let goal = Goal { until: &until, transient: true, after_seq: None };
    let limit = p.timeout_ms.map(Duration::from_millis);
    let info = settle_within(shared, &mut pin, cursor, &goal, limit).await?;
    Ok(ApiResult::AgentInfo { agent: Box::new(info) })
}

async fn send(shared: &Shared, target: &panes::Target, body: WorkerRequest) -> Result<(), ApiError> {
    match panes::ask(shared, target, body).await? {
        WorkerResponse::Ok => Ok(()),
        other => Err(ApiError::new(
            ErrorCode::AgentPromptFailed,
            format!("unexpected answer from pane worker: {other:?}"),
        )),
    }
}

pub async fn prompt(shared: &Shared, p: AgentPromptParams) -> Result<ApiResult, Failure> {
    if p.text.trim().is_empty() {
        return Err(ApiError::new(ErrorCode::EmptyAgentPrompt, "agent prompt text must not be empty").into());
    }
    let cursor = shared.hub.cursor();
    let (key, info) = resolve(shared, &p.target)?;
    let agent = require_foreground(shared, key, &p.target)?;
    if info.agent_status == AgentStatus::Blocked {
        return Err(ApiError::new(
            ErrorCode::AgentBlocked,
            format!("agent {} is blocked; answer its prompt before sending another", p.target),
        )
        .into());
    }
    let mut pin = AgentWait::new(key, &info, &p.target);
    let seq_before = info.state_change_seq;
    let was_working = info.agent_status == AgentStatus::Working;
    let target = pane_target(key, &info);
    if agent == "copilot" {
        send(shared, &target, WorkerRequest::SendText(FOCUS_IN.to_owned())).await?;
    }
    send(shared, &target, WorkerRequest::SendInput { text: Some(p.text), keys: Vec::new() }).await?;
    tokio::time::sleep(PROMPT_ENTER_DELAY).await;
    send(shared, &target, WorkerRequest::SendKeys(vec!["Enter".to_owned()])).await?;
    let sent = Instant::now();
    let Some(wait) = p.wait else {
        return Ok(ApiResult::AgentPrompted { agent: Box::new(probe(shared, &pin)?) });
    };
    let until = until_or_default(wait.until);
    let limit = wait.timeout_ms.map(Duration::from_millis);
    if !was_working {
        activity_gate(shared, &mut pin, cursor, seq_before, limit, &p.target).await?;
    }
    let remaining = limit.map(|l| l.saturating_sub(sent.elapsed()));
    // Replays from before the prompt, so a quick working → idle is not missed.
    let goal = Goal { until: &until, transient: true, after_seq: Some(seq_before) };
    let info = settle_within(shared, &mut pin, cursor, &goal, remaining).await?;
    Ok(ApiResult::AgentPrompted { agent: Box::new(info) })
}

/// Waits up to `min(limit, 5 s)` for any effective state change after the prompt.
async fn activity_gate(
    shared: &Shared,
    pin: &mut AgentWait,
    cursor: u64,
    seq_before: u64,
    limit: Option<Duration>,
    target: &str,
) -> Result<(), ApiError> {
    let gate = limit.map_or(PROMPT_ACTIVITY_GATE, |l| l.min(PROMPT_ACTIVITY_GATE));
    let any = [
        AgentStatus::Idle,
        AgentStatus::Done,
        AgentStatus::Working,
        AgentStatus::Blocked,
        AgentStatus::Unknown,
    ];
    let goal = Goal { until: &any, transient: false, after_seq: Some(seq_before) };
    match settle_within(shared, pin, cursor, &goal, Some(gate)).await {
        Ok(_) => Ok(()),
        Err(e) if e.code == ErrorCode::Timeout && limit.is_none_or(|l| l > PROMPT_ACTIVITY_GATE) => {
            let info = probe(shared, pin)?;
            let status = serde_json::to_value(info.agent_status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            Err(ApiError::new(
                ErrorCode::AgentPromptStalled,
                format!(
                    "agent {target} received the prompt but showed no observed state change within {} ms; \
                     status is {status} and state_change_seq remained {}",
                    gate.as_millis(),
                    info.state_change_seq
                ),
            ))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use herdr_protocol::ipc::{DetectedState, IdentityReason, ScreenState};
    use serde_json::json;

    use super::*;
    use crate::session::{Effects, PaneKey};

    /// A supervisor state with one workspace of one pane whose worker never started: the tests
    /// play the worker by feeding frames to the session.
    fn shared_with_pane() -> (Arc<Shared>, PaneKey) {
        Shared::with_one_pane()
    }

    fn feed(shared: &Shared, change: impl FnOnce(&mut crate::session::Session) -> Effects) {
        let effects = change(&mut shared.session());
        shared.apply(effects);
    }

    fn verdict(state: DetectedState) -> ScreenState {
        ScreenState {
            agent: Some("claude".into()),
            state,
            visible_idle: false,
            visible_blocker: state == DetectedState::Blocked,
            visible_working: false,
            rule: None,
            process_exited: false,
            refresh: false,
        }
    }

    fn request(params: serde_json::Value) -> AgentWaitParams {
        serde_json::from_value(params).expect("agent.wait params")
    }

    fn status_of(result: &ApiResult) -> AgentStatus {
        match result {
            ApiResult::AgentInfo { agent } => agent.agent_status,
            other => panic!("not agent_info: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_wait_wakes_on_the_hub_when_the_status_arrives() {
        let (shared, key) = shared_with_pane();
        feed(&shared, |s| s.agent_identity(key, Some("claude".into()), IdentityReason::Detected));
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Working)));
        let waiter = {
            let shared = shared.clone();
            tokio::spawn(async move {
                wait(&shared, request(json!({"target": "w1:p1", "until": ["blocked"]}))).await
            })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "working does not satisfy the wait");
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Blocked)));
        let outcome =
            tokio::time::timeout(Duration::from_secs(2), waiter).await.expect("woken").expect("task");
        assert_eq!(status_of(&outcome.map_err(|_| "failed").expect("ok")), AgentStatus::Blocked);
    }

    #[tokio::test]
    async fn a_transient_status_counts_even_if_gone_by_the_probe() {
        let (shared, key) = shared_with_pane();
        feed(&shared, |s| s.agent_identity(key, Some("claude".into()), IdentityReason::Detected));
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Working)));
        let cursor = shared.hub.cursor();
        let info = shared.session().agent_info(key).expect("agent");
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Blocked)));
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Working)));
        let mut pin = AgentWait::new(key, &info, "w1:p1");
        let goal = Goal { until: &[AgentStatus::Blocked], transient: true, after_seq: None };
        let found = settle_within(&shared, &mut pin, cursor, &goal, Some(Duration::from_secs(1))).await;
        assert_eq!(found.map(|i| i.agent_status), Ok(AgentStatus::Blocked));
    }

    #[tokio::test]
    async fn the_agent_exiting_ends_a_wait_with_agent_not_running() {
        let (shared, key) = shared_with_pane();
        feed(&shared, |s| s.agent_identity(key, Some("claude".into()), IdentityReason::Detected));
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Working)));
        let waiter = {
            let shared = shared.clone();
            tokio::spawn(async move {
                wait(&shared, request(json!({"target": "w1:p1", "until": ["blocked"]}))).await
            })
        };
        tokio::task::yield_now().await;
        feed(&shared, |s| s.agent_identity(key, None, IdentityReason::Exited));
        let outcome =
            tokio::time::timeout(Duration::from_secs(2), waiter).await.expect("woken").expect("task");
        match outcome {
            Err(Failure::Api(e)) => assert_eq!(e.code, "agent_not_running"),
            other => panic!("expected agent_not_running, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_idle_exit_satisfies_an_idle_wait_with_its_final_status() {
        let (shared, key) = shared_with_pane();
        feed(&shared, |s| s.agent_identity(key, Some("claude".into()), IdentityReason::Detected));
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Working)));
        let cursor = shared.hub.cursor();
        let info = shared.session().agent_info(key).expect("agent");
        feed(&shared, |s| s.agent_screen(key, &verdict(DetectedState::Idle)));
        feed(&shared, |s| s.agent_identity(key, None, IdentityReason::Exited));
        let mut pin = AgentWait::new(key, &info, "w1:p1");
        let goal = Goal { until: &[AgentStatus::Done], transient: false, after_seq: None };
        let found = settle_within(&shared, &mut pin, cursor, &goal, Some(Duration::from_secs(1))).await;
        assert_eq!(found.map(|i| i.agent_status), Ok(AgentStatus::Done));
    }

    #[tokio::test]
    async fn a_wait_times_out_with_the_reference_message() {
        let (shared, key) = shared_with_pane();
        feed(&shared, |s| s.agent_identity(key, Some("claude".into()), IdentityReason::Detected));
        let req = request(json!({"target": "w1:p1", "until": ["blocked"], "timeout_ms": 50}));
        match wait(&shared, req).await {
            Err(Failure::Api(e)) => {
                assert_eq!(
                    (e.code.as_str(), e.message.as_str()),
                    ("timeout", "timed out waiting for agent status")
                )
            }
            other => panic!("expected timeout, got {other:?}"),
        }
    }
}
