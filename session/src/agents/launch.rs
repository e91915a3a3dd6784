//! Managed launches (`agent.start`): the phases between typing the agent's command into an idle
//! shell and the expected agent being ready for prompts.

use std::time::Instant;

use herdr_protocol::ipc::DetectedState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchPhase {
    /// Typed; waiting for the expected agent to be detected and idle (`launch_pending`).
    Pending,
    /// The expected agent is detected and idle (`interactive_ready`).
    Ready,
    /// The expected agent showed a blocker during startup (trust or login screen): it is not
    /// ready for prompts, and no longer pending.
    Blocked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The canonical label of the expected agent.
    pub kind: String,
    pub deadline: Instant,
    pub phase: LaunchPhase,
}

impl Launch {
    pub fn new(kind: String, deadline: Instant) -> Self {
        Self { kind, deadline, phase: LaunchPhase::Pending }
    }

    pub fn pending(&self) -> bool {
        self.phase == LaunchPhase::Pending
    }

    pub fn ready(&self) -> bool {
        self.phase == LaunchPhase::Ready
    }

    /// Moves on with the pane's detected agent and effective state. A ready launch stays ready
    /// (later turns do not make it "not ready"); a blocked one becomes ready once the agent idles.
    pub fn advance(&mut self, detected: Option<&str>, state: DetectedState) {
        if detected != Some(self.kind.as_str()) || self.phase == LaunchPhase::Ready {
            return;
        }
        match state {
            DetectedState::Idle => self.phase = LaunchPhase::Ready,
            DetectedState::Blocked => self.phase = LaunchPhase::Blocked,
            DetectedState::Working | DetectedState::Unknown => {}
        }
    }

    /// Whether a pending launch ran out of time at `now`.
    pub fn expired(&self, now: Instant) -> bool {
        self.pending() && now >= self.deadline
    }
}
