//! What the event stream means for an `agent.wait` or `agent.prompt`. Both pin the agent's
//! identity (pane, terminal, agent label, and the name when the target was one): an event that
//! ends that agent (its pane closed, exited or moved, another agent detected) ends the wait
//! with `agent_not_running`, a release ends it with the final status, and a status passing by
//! counts for a goal that takes transient statuses. The supervisor's handlers sleep on the hub,
//! feed each event here ([`AgentWait::see`]) and check the agent's record after each wake.

use herdr_protocol::api::{AgentInfo, AgentStatus, ApiError, ErrorCode, Event};

use crate::session::PaneKey;

/// The error of a wait whose agent is gone.
pub fn not_running() -> ApiError {
    ApiError::new(ErrorCode::AgentNotRunning, "agent is no longer running in the target pane")
}

/// The identity a wait follows.
#[derive(Debug, Clone)]
pub struct AgentWait {
    /// The pane, to look its agent's record up by.
    pub key: PaneKey,
    pane_id: String,
    terminal_id: String,
    agent: Option<String>,
    name: Option<String>,
}

/// What a wait accepts.
#[derive(Debug, Clone, Copy)]
pub struct Goal<'a> {
    pub until: &'a [AgentStatus],
    /// A status in `until` seen in an event counts even if it is gone by the next check.
    pub transient: bool,
    /// Only records whose `state_change_seq` is above this count (prompt waits).
    pub after_seq: Option<u64>,
}

/// What one event means for a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Nothing that decides the wait.
    Nothing,
    /// A status the (transient) goal accepts passed by.
    Passed(AgentStatus),
    /// The agent was released, with this final status ([`Goal::on_release`] decides).
    Released(Option<AgentStatus>),
    /// The pinned agent is gone.
    Gone,
}

impl Goal<'_> {
    pub fn satisfied_by(&self, info: &AgentInfo) -> bool {
        self.until.contains(&info.agent_status)
            && self.after_seq.is_none_or(|seq| info.state_change_seq > seq)
    }

    /// How a release ends the wait: with the pane's record (`info`, now) at the final status
    /// when the goal accepts it, else `agent_not_running`.
    pub fn on_release(
        &self,
        info: Option<AgentInfo>,
        final_status: Option<AgentStatus>,
    ) -> Result<AgentInfo, ApiError> {
        let info = info.ok_or_else(not_running)?;
        match final_status {
            Some(status) if self.until.contains(&status) => Ok(AgentInfo { agent_status: status, ..info }),
            _ => Err(not_running()),
        }
    }
}

impl AgentWait {
    /// Pins the agent of `info` (the record of pane `key`), found by `target`: a name is pinned
    /// only when the target was that name.
    pub fn new(key: PaneKey, info: &AgentInfo, target: &str) -> Self {
        AgentWait {
            key,
            pane_id: info.pane_id.clone(),
            terminal_id: info.terminal_id.clone(),
            agent: info.agent.clone(),
            name: info.name.clone().filter(|n| n == target),
        }
    }

    /// The agent's record now (`info`, the pane's record looked up by [`AgentWait::key`]), or
    /// `agent_not_running` if it is no longer the pinned one.
    pub fn check(&self, info: Option<AgentInfo>) -> Result<AgentInfo, ApiError> {
        let info = info.ok_or_else(not_running)?;
        let same_agent = self.agent.is_none() || info.agent == self.agent;
        let same_name = self.name.is_none() || info.name == self.name;
        if info.terminal_id != self.terminal_id || info.pane_id != self.pane_id || !same_agent || !same_name {
            return Err(not_running());
        }
        Ok(info)
    }

    /// What `event` means for this wait under `goal`. A launch that had no agent yet follows
    /// the first one detected.
    pub fn see(&mut self, event: &Event, goal: &Goal<'_>) -> Seen {
        match event {
            Event::PaneAgentStatusChanged { pane_id, agent_status, .. }
                if *pane_id == self.pane_id && goal.transient && goal.until.contains(agent_status) =>
            {
                Seen::Passed(*agent_status)
            }
            Event::PaneAgentDetected { pane_id, agent, released, final_status, .. }
                if *pane_id == self.pane_id =>
            {
                if *released {
                    return Seen::Released(*final_status);
                }
                match &self.agent {
                    None => self.agent.clone_from(agent),
                    Some(pinned) if agent.as_ref() != Some(pinned) => return Seen::Gone,
                    Some(_) => {}
                }
                Seen::Nothing
            }
            Event::PaneClosed { pane_id, .. } | Event::PaneExited { pane_id, .. }
                if *pane_id == self.pane_id =>
            {
                Seen::Gone
            }
            Event::PaneMoved { previous_pane_id, .. } if *previous_pane_id == self.pane_id => Seen::Gone,
            _ => Seen::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(agent: Option<&str>, status: AgentStatus) -> AgentInfo {
        let mut info: AgentInfo = serde_json::from_value(serde_json::json!({
            "terminal_id": "t1", "agent_status": "working", "workspace_id": "w1", "tab_id": "w1:t1",
            "pane_id": "w1:p1", "focused": false, "revision": 0,
        }))
        .expect("an agent record");
        info.agent = agent.map(str::to_owned);
        info.agent_status = status;
        info
    }

    fn detected(agent: Option<&str>, released: bool, final_status: Option<AgentStatus>) -> Event {
        Event::PaneAgentDetected {
            pane_id: "w1:p1".into(),
            workspace_id: "w1".into(),
            agent: agent.map(str::to_owned),
            released,
            final_status,
        }
    }

    const UNTIL: [AgentStatus; 2] = [AgentStatus::Idle, AgentStatus::Done];

    #[test]
    fn a_launch_without_an_agent_follows_the_first_detected_then_refuses_another() {
        let goal = Goal { until: &UNTIL, transient: true, after_seq: None };
        let mut wait = AgentWait::new(PaneKey(1), &info(None, AgentStatus::Working), "w1:p1");
        assert_eq!(wait.see(&detected(Some("claude"), false, None), &goal), Seen::Nothing);
        assert!(wait.check(Some(info(Some("claude"), AgentStatus::Idle))).is_ok());
        assert_eq!(wait.see(&detected(Some("codex"), false, None), &goal), Seen::Gone);
        let swapped = wait.check(Some(info(Some("codex"), AgentStatus::Idle))).expect_err("another agent");
        assert_eq!(swapped.code, ErrorCode::AgentNotRunning);
    }

    #[test]
    fn statuses_pass_by_only_for_a_transient_goal_and_a_release_ends_with_its_final_status() {
        let mut wait = AgentWait::new(PaneKey(1), &info(Some("claude"), AgentStatus::Working), "w1:p1");
        let idle = Event::PaneAgentStatusChanged {
            pane_id: "w1:p1".into(),
            workspace_id: "w1".into(),
            agent_status: AgentStatus::Idle,
            agent: Some("claude".into()),
            title: None,
            display_agent: None,
            state_labels: Default::default(),
        };
        let transient = Goal { until: &UNTIL, transient: true, after_seq: None };
        let steady = Goal { transient: false, ..transient };
        assert_eq!(wait.see(&idle, &transient), Seen::Passed(AgentStatus::Idle));
        assert_eq!(wait.see(&idle, &steady), Seen::Nothing);
        assert_eq!(
            wait.see(&detected(Some("claude"), true, Some(AgentStatus::Done)), &transient),
            Seen::Released(Some(AgentStatus::Done))
        );
        let now = Some(info(Some("claude"), AgentStatus::Working));
        let done = transient.on_release(now.clone(), Some(AgentStatus::Done)).expect("accepted");
        assert_eq!(done.agent_status, AgentStatus::Done);
        assert!(transient.on_release(now, Some(AgentStatus::Blocked)).is_err(), "not a status it waits for");
        let closed = Event::PaneClosed { pane_id: "w1:p1".into(), workspace_id: "w1".into() };
        assert_eq!(wait.see(&closed, &transient), Seen::Gone);
    }

    #[test]
    fn a_prompt_goal_takes_only_records_after_its_state_change_count() {
        let goal = Goal { until: &UNTIL, transient: false, after_seq: Some(3) };
        let mut record = info(Some("claude"), AgentStatus::Idle);
        record.state_change_seq = 3;
        assert!(!goal.satisfied_by(&record));
        record.state_change_seq = 4;
        assert!(goal.satisfied_by(&record));
    }
}
