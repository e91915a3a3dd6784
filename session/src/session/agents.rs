//! The session side of agents: each pane's [`PaneAgent`] fed by worker frames and hook reports,
//! its published view (`PaneInfo.agent` / `agent_status`, `AgentInfo`, roll-ups, the
//! `pane_agent_detected` / `pane_agent_status_changed` events), agent targets and names, and
//! focus marking panes seen.

use std::time::Instant;

use herdr_protocol::api::{AgentInfo, AgentStatus, ApiError, ErrorCode, Event};
use herdr_protocol::ipc::{IdentityReason, ScreenState, WorkerRequest};

use super::model::Session;
use super::{Effects, PaneKey};
use crate::agents::{Change, PaneAgent, Report, SessionReport, Visibility, validate_name};

/// `agent_not_found` for a target that is neither a pane hosting an agent nor a live name.
pub fn agent_not_found(target: &str) -> ApiError {
    ApiError::new(ErrorCode::AgentNotFound, format!("agent {target} not found"))
}

impl Session {
    /// Whether a focused client shows `key` now (its tab is the active one).
    fn visibility(&self, key: PaneKey) -> Visibility {
        let active_tab = self.focus_triple().and_then(|(_, _, focused)| self.locate(focused));
        if self.client_focused && active_tab.is_some() && active_tab == self.locate(key) {
            Visibility::Shown
        } else {
            Visibility::Hidden
        }
    }

    /// Runs `change` on the pane's agent state, then publishes what changed.
    fn with_agent(
        &mut self,
        key: PaneKey,
        change: impl FnOnce(&mut PaneAgent, Visibility) -> Change,
    ) -> Effects {
        let vis = self.visibility(key);
        self.observed(|s, fx| {
            let Some(pane) = s.panes.get_mut(&key) else { return };
            let record =
                (pane.agent_state.name().map(str::to_owned), pane.agent_state.session_ref().cloned());
            let outcome = change(&mut pane.agent_state, vis);
            let record_changed = record
                != (pane.agent_state.name().map(str::to_owned), pane.agent_state.session_ref().cloned());
            if let Some(suspend) = outcome.suspend_scans {
                fx.notices.push((key, WorkerRequest::SetScansSuspended(suspend)));
            }
            if outcome.release_worker {
                fx.notices.push((key, WorkerRequest::ReleaseAgent));
            }
            s.publish_agent(key, record_changed, fx);
        })
    }

    /// Brings the pane's published agent view up to date: `pane_agent_detected` when the agent
    /// label changed, `pane_agent_status_changed` when it or the status did, `pane_updated` when
    /// only the agent's name or session ref did.
    pub(super) fn publish_agent(&mut self, key: PaneKey, record_changed: bool, fx: &mut Effects) {
        let Some(pane) = self.panes.get(&key) else { return };
        let agent = pane.agent_state.effective().agent.clone();
        let status = pane.agent_state.status();
        let before = fx.events.len();
        self.emit_agent_change(key, agent, status, fx);
        if !record_changed {
            return;
        }
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.revision += 1;
        }
        // An agent event already carries the news; a bare name or session change needs one.
        if fx.events.len() == before
            && let Some(info) = self.pane_info(key)
        {
            fx.event(Event::PaneUpdated { pane: Box::new(info) });
        }
    }

    /// The worker's `AgentIdentity` frame.
    pub fn agent_identity(&mut self, key: PaneKey, agent: Option<String>, reason: IdentityReason) -> Effects {
        self.with_agent(key, |a, vis| a.identity(agent, reason, vis))
    }

    /// The worker's `ScreenState` frame.
    pub fn agent_screen(&mut self, key: PaneKey, verdict: &ScreenState) -> Effects {
        self.with_agent(key, |a, vis| a.screen(verdict, vis))
    }

    pub fn agent_report(&mut self, key: PaneKey, report: Report) -> Effects {
        self.with_agent(key, |a, vis| a.report(report, vis))
    }

    pub fn agent_report_session(&mut self, key: PaneKey, report: SessionReport) -> Effects {
        self.with_agent(key, |a, _| {
            a.report_session(report);
            Change::default()
        })
    }

    pub fn agent_release(&mut self, key: PaneKey, source: &str, agent: &str, seq: Option<u64>) -> Effects {
        self.with_agent(key, |a, vis| a.release(source, agent, seq, vis))
    }

    pub fn agent_clear_authority(&mut self, key: PaneKey, source: Option<&str>, seq: Option<u64>) -> Effects {
        self.with_agent(key, |a, vis| a.clear_authority(source, seq, vis))
    }

    /// Marks every pane of the focused tab seen (`done` → `idle`).
    pub(super) fn mark_focused_tab_seen(&mut self, fx: &mut Effects) {
        let Some(loc) = self.focus_triple().and_then(|(_, _, key)| self.locate(key)) else { return };
        for key in self.tab(loc).root.leaves() {
            let changed = self.panes.get_mut(&key).is_some_and(|p| p.agent_state.mark_seen());
            if changed {
                self.publish_agent(key, false, fx);
            }
        }
    }

    /// A client gained or lost terminal focus; gaining it marks the focused tab seen.
    pub fn set_client_focus(&mut self, focused: bool) -> Effects {
        self.observed(|s, fx| {
            s.client_focused = focused;
            if focused {
                s.mark_focused_tab_seen(fx);
            }
        })
    }

    /// The pane's agent state, for handlers that need more than the public record.
    pub fn pane_agent(&self, key: PaneKey) -> Option<&PaneAgent> {
        self.panes.get(&key).map(|p| &p.agent_state)
    }

    /// Panes in display order (workspace, tab, leaf).
    fn ordered_panes(&self) -> Vec<PaneKey> {
        self.workspaces.iter().flat_map(|ws| ws.tabs.iter().flat_map(|t| t.root.leaves())).collect()
    }

    /// An `agent.*` target: the canonical pane id of a pane hosting an agent, or a live name.
    pub fn resolve_agent(&self, target: &str) -> Result<PaneKey, ApiError> {
        let hits: Vec<PaneKey> = self
            .ordered_panes()
            .into_iter()
            .filter(|key| {
                let Some(agent) = self.pane_agent(*key).filter(|a| a.hosts_agent()) else { return false };
                agent.name() == Some(target) || self.public_pane_id(*key).as_deref() == Some(target)
            })
            .collect();
        match hits.as_slice() {
            [] => Err(agent_not_found(target)),
            [key] => Ok(*key),
            many => {
                let ids: Vec<String> = many.iter().filter_map(|k| self.public_pane_id(*k)).collect();
                Err(ApiError::new(
                    ErrorCode::AgentTargetAmbiguous,
                    format!("agent target {target} is ambiguous: {}", ids.join(", ")),
                ))
            }
        }
    }

    /// The public agent record of a pane (whether or not it hosts an agent).
    pub fn agent_info(&self, key: PaneKey) -> Option<AgentInfo> {
        let pane = self.pane_info(key)?;
        let state = self.pane_agent(key)?;
        let launch = state.launch();
        Some(AgentInfo {
            terminal_id: pane.terminal_id,
            name: state.name().map(str::to_owned),
            agent: pane.agent,
            title: pane.title,
            terminal_title: pane.terminal_title,
            terminal_title_stripped: pane.terminal_title_stripped,
            display_agent: pane.display_agent,
            agent_status: pane.agent_status,
            screen_detection_skipped: state.scans_suspended(),
            state_labels: pane.state_labels,
            tokens: pane.tokens,
            agent_session: pane.agent_session,
            workspace_id: pane.workspace_id,
            tab_id: pane.tab_id,
            pane_id: pane.pane_id,
            focused: pane.focused,
            launch_pending: launch.is_some_and(|l| l.pending()),
            interactive_ready: launch.is_some_and(|l| l.ready()),
            state_change_seq: state.state_change_seq(),
            cwd: pane.cwd,
            foreground_cwd: pane.foreground_cwd,
            revision: pane.revision,
        })
    }

    /// Every pane hosting an agent, in display order.
    pub fn agent_infos(&self) -> Vec<AgentInfo> {
        self.ordered_panes()
            .into_iter()
            .filter(|key| self.pane_agent(*key).is_some_and(PaneAgent::hosts_agent))
            .filter_map(|key| self.agent_info(key))
            .collect()
    }

    /// Checks that `name` is valid and not held by another live agent than `key`'s.
    fn check_name(&self, key: PaneKey, name: &str) -> Result<(), ApiError> {
        validate_name(name).map_err(|e| ApiError::new(ErrorCode::InvalidAgentName, e.to_string()))?;
        let taken = self
            .panes
            .iter()
            .any(|(k, p)| *k != key && p.agent_state.hosts_agent() && p.agent_state.name() == Some(name));
        if taken {
            return Err(ApiError::new(
                ErrorCode::AgentNameTaken,
                format!("agent name {name} is already in use"),
            ));
        }
        Ok(())
    }

    /// `agent.rename`: sets or (with None) clears the agent's name.
    pub fn agent_rename(&mut self, key: PaneKey, name: Option<String>) -> Result<Effects, ApiError> {
        if let Some(name) = &name {
            self.check_name(key, name)?;
        }
        Ok(self.with_agent(key, |a, _| {
            a.set_name(name);
            Change::default()
        }))
    }

    /// `agent.focus`: focus the pane (switching workspace and tab) and mark its tab seen.
    pub fn agent_focus(&mut self, key: PaneKey) -> Effects {
        self.observed(|s, fx| {
            s.activate(key);
            s.mark_focused_tab_seen(fx);
        })
    }

    /// Checks an `agent.start` name before anything is typed.
    pub fn check_launch_name(&self, key: PaneKey, name: &str) -> Result<(), ApiError> {
        self.check_name(key, name)
    }

    /// `agent.start` typed the command: the pane hosts a pending launch named `name`.
    pub fn agent_launch(&mut self, key: PaneKey, name: String, kind: String, deadline: Instant) -> Effects {
        self.with_agent(key, |a, _| {
            a.start_launch(name, kind, deadline);
            Change::default()
        })
    }

    /// Ends launches whose startup deadline passed (called before agent reads).
    pub fn reconcile_launches(&mut self, now: Instant) -> Effects {
        let keys: Vec<PaneKey> = self.panes.keys().copied().collect();
        let mut fx = Effects::default();
        for key in keys {
            if self.panes.get(&key).is_some_and(|p| p.agent_state.launch().is_some_and(|l| l.expired(now))) {
                let more = self.with_agent(key, |a, _| {
                    a.reconcile(now);
                    Change::default()
                });
                fx.events.extend(more.events);
            }
        }
        fx
    }

    /// `agent.view.set` / `agent.view.clear`: the sidebar projection (only recorded; the
    /// sidebar applies it). Returns `(active, source, label)`.
    pub fn set_agent_view(&mut self, view: Option<(String, Option<String>)>) {
        self.agent_view = view;
    }

    pub fn agent_view(&self) -> Option<&(String, Option<String>)> {
        self.agent_view.as_ref()
    }

    /// Any pane's status as published (for roll-up checks in tests and waits).
    pub fn published_status(&self, key: PaneKey) -> Option<AgentStatus> {
        self.panes.get(&key).map(|p| p.agent_status)
    }
}
