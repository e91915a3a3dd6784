//! `pane.*` methods about pane existence and metadata (list, get, current, focus, split, rename,
//! close) and the worker-reported changes (exit, title, cwd, agent status).

use herdr_protocol::api::requests::{
    OptionalWorkspace, PaneCurrentParams, PaneRenameParams, PaneSplitParams, PaneTarget, RightClickTarget,
};
use herdr_protocol::api::{AgentStatus, ApiError, ApiResult, Event};

use super::model::Session;
use super::params;
use super::tree::clamp_ratio;
use super::workspaces::clean_label;
use super::{Effects, Handled, PaneKey};

/// A split ratio from the wire: absent = even split; must be finite and strictly inside (0, 1).
pub(super) fn split_ratio(ratio: Option<f64>) -> Result<f32, ApiError> {
    match ratio {
        None => Ok(0.5),
        Some(r) if r.is_finite() && r > 0.0 && r < 1.0 => Ok(clamp_ratio(r as f32)),
        Some(r) => Err(ApiError::invalid_ratio(r)),
    }
}

/// The title without leading spinner/status glyphs (`⠋ Working` → `Working`); None if nothing
/// is left. Lets pure spinner animation update the title without a `pane_updated` event.
fn strip_title(title: &str) -> Option<String> {
    let stripped = title
        .trim_start_matches(|c: char| c.is_whitespace() || !(c.is_alphanumeric() || c.is_ascii_punctuation()))
        .trim_end();
    (!stripped.is_empty()).then(|| stripped.to_owned())
}

impl Session {
    /// `pane_id` if given, else the focused pane.
    pub(super) fn pane_or_focused(&self, pane_id: Option<&str>) -> Result<PaneKey, ApiError> {
        match pane_id {
            Some(id) => self.resolve_pane(id),
            None => self.focused_pane().ok_or_else(ApiError::no_active_pane),
        }
    }

    pub(super) fn info_of(&self, key: PaneKey) -> Result<herdr_protocol::api::PaneInfo, ApiError> {
        self.pane_info(key).ok_or_else(|| ApiError::internal("pane is not placed in any tab"))
    }

    pub(super) fn pane_list(&mut self, p: OptionalWorkspace) -> Handled {
        let wi = p.workspace_id.as_deref().map(|id| self.resolve_workspace(id)).transpose()?;
        Ok(ApiResult::PaneList { panes: self.pane_infos(wi) })
    }

    pub(super) fn pane_get(&mut self, p: PaneTarget) -> Handled {
        let key = self.resolve_pane(&p.pane_id)?;
        Ok(ApiResult::PaneInfo { pane: Box::new(self.info_of(key)?) })
    }

    pub(super) fn pane_current(&mut self, p: PaneCurrentParams) -> Handled {
        let key = self.pane_or_focused(p.caller_pane_id.as_deref())?;
        Ok(ApiResult::PaneCurrent { pane: Box::new(self.info_of(key)?) })
    }

    pub(super) fn pane_focus(&mut self, p: PaneTarget) -> Handled {
        let key = self.resolve_pane(&p.pane_id)?;
        self.activate(key);
        Ok(ApiResult::PaneInfo { pane: Box::new(self.info_of(key)?) })
    }

    pub(super) fn pane_split(&mut self, p: PaneSplitParams, fx: &mut Effects) -> Handled {
        let focus = p.focus();
        let target = match (&p.target_pane_id, &p.workspace_id) {
            (Some(id), _) => self.resolve_pane(id)?,
            (None, Some(ws)) => {
                let wi = self.resolve_workspace(ws)?;
                let ws = &self.workspaces[wi];
                ws.tabs[ws.active_tab_index()].focused
            }
            (None, None) => {
                self.active_index().ok_or_else(ApiError::no_active_workspace)?;
                self.focused_pane().ok_or_else(ApiError::no_active_pane)?
            }
        };
        let ratio = split_ratio(p.ratio)?;
        let loc = self.loc_of(target)?;
        let cwd = p.cwd.or_else(|| self.panes.get(&target).and_then(|t| t.cwd.clone()));
        let key = self.new_pane(loc.wi, cwd.clone(), None);
        self.set_pane_right_click(key, p.right_click.unwrap_or_default());
        self.attach_split(target, p.direction, ratio, key);
        fx.spawn(key, cwd, None, params::env_pairs(p.env));
        if focus {
            self.activate(key);
        }
        let pane = self.info_of(key)?;
        fx.event(Event::PaneCreated { pane: Box::new(pane.clone()) });
        fx.event(Event::LayoutUpdated { layout: Box::new(self.layout_snapshot(self.loc_of(key)?)) });
        Ok(ApiResult::PaneInfo { pane: Box::new(pane) })
    }

    /// Sets who handles right clicks in the pane (`pane.input.set`, `pane.split`).
    pub fn set_pane_right_click(&mut self, key: PaneKey, target: RightClickTarget) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.right_click = target;
        }
    }

    /// Who handles right clicks in the pane (`None`: no such pane).
    pub fn pane_right_click(&self, key: PaneKey) -> Option<RightClickTarget> {
        self.panes.get(&key).map(|pane| pane.right_click)
    }

    pub(super) fn pane_rename(&mut self, p: PaneRenameParams, fx: &mut Effects) -> Handled {
        let key = self.resolve_pane(&p.pane_id)?;
        let label = clean_label(p.label);
        if let Some(pane) = self.panes.get_mut(&key)
            && pane.label != label
        {
            pane.label = label;
            pane.revision += 1;
            fx.event(Event::PaneUpdated { pane: Box::new(self.info_of(key)?) });
        }
        Ok(ApiResult::PaneInfo { pane: Box::new(self.info_of(key)?) })
    }

    pub(super) fn pane_close(&mut self, p: PaneTarget, fx: &mut Effects) -> Handled {
        let key = self.resolve_pane(&p.pane_id)?;
        self.remove_pane(key, false, fx);
        fx.closes.push(key);
        Ok(ApiResult::Ok)
    }

    /// Takes a pane out of the session with the events of a close (`exited: false`) or of its
    /// program's exit: the pane event, then tab/workspace closes or the surviving tab's layout.
    fn remove_pane(&mut self, key: PaneKey, exited: bool, fx: &mut Effects) {
        let Some((workspace_id, _, pane_id)) = self.pane_ids(key) else { return };
        let ws_info = self.locate(key).map(|loc| self.workspace_info(loc.wi));
        let detached = self.detach(key);
        self.forget(&[key]);
        fx.event(if exited {
            Event::PaneExited { pane_id, workspace_id }
        } else {
            Event::PaneClosed { pane_id, workspace_id }
        });
        if let Some(ws_id) = detached.closed_workspace {
            fx.event(Event::WorkspaceClosed { workspace_id: ws_id, workspace: ws_info.map(Box::new) });
        }
        if let Some((tab_id, workspace_id)) = detached.closed_tab {
            fx.event(Event::TabClosed { tab_id, workspace_id });
        }
        if let Some(loc) = detached.surviving_tab.and_then(|(ws, tab)| self.loc_of_numbers(ws, tab)) {
            fx.event(Event::LayoutUpdated { layout: Box::new(self.layout_snapshot(loc)) });
        }
    }

    pub(super) fn loc_of_numbers(&self, ws: u64, tab: u64) -> Option<super::model::Loc> {
        let wi = self.ws_index(ws)?;
        let ti = self.workspaces[wi].tab_index(tab)?;
        Some(super::model::Loc { wi, ti })
    }

    /// The pane's program exited (its worker reported it): the pane leaves the layout.
    pub fn pane_exited(&mut self, key: PaneKey) -> Effects {
        self.observed(|s, fx| s.remove_pane(key, true, fx))
    }

    /// The program set (or cleared) the terminal title. `pane_updated` only when the title
    /// changed beyond its leading spinner glyphs.
    pub fn set_pane_title(&mut self, key: PaneKey, title: Option<String>) -> Effects {
        self.observed(|s, fx| {
            let Some(pane) = s.panes.get_mut(&key) else { return };
            if pane.terminal_title == title {
                return;
            }
            let stripped = title.as_deref().and_then(strip_title);
            pane.terminal_title = title;
            if pane.terminal_title_stripped != stripped {
                pane.terminal_title_stripped = stripped;
                pane.revision += 1;
                if let Some(info) = s.pane_info(key) {
                    fx.event(Event::PaneUpdated { pane: Box::new(info) });
                }
            }
        })
    }

    /// The program reported its working directory (OSC 7).
    pub fn set_pane_cwd(&mut self, key: PaneKey, cwd: String) -> Effects {
        self.observed(|s, fx| {
            let Some(pane) = s.panes.get_mut(&key) else { return };
            if pane.cwd.as_deref() == Some(cwd.as_str()) {
                return;
            }
            pane.cwd = Some(cwd.clone());
            pane.revision += 1;
            if let Some(info) = s.pane_info(key) {
                fx.event(Event::PaneUpdated { pane: Box::new(info) });
            }
            if let Some(loc) = s.locate(key)
                && s.workspaces[loc.wi].identity_cwd.is_none()
            {
                s.workspaces[loc.wi].identity_cwd = Some(cwd);
                fx.event(Event::WorkspaceUpdated { workspace: Box::new(s.workspace_info(loc.wi)) });
            }
        })
    }

    /// Sets the pane's agent view directly (tests and callers without detection): see
    /// `Session::emit_agent_change`.
    pub fn set_pane_agent(&mut self, key: PaneKey, agent: Option<String>, status: AgentStatus) -> Effects {
        self.observed(|s, fx| s.emit_agent_change(key, agent, status, fx))
    }

    /// Records the pane's published agent and status: `pane_agent_detected` when the agent
    /// label changes, `pane_agent_status_changed` when it or the status does.
    pub(super) fn emit_agent_change(
        &mut self,
        key: PaneKey,
        agent: Option<String>,
        status: AgentStatus,
        fx: &mut Effects,
    ) {
        let Some((workspace_id, _, pane_id)) = self.pane_ids(key) else { return };
        let Some(pane) = self.panes.get_mut(&key) else { return };
        let agent_changed = pane.agent != agent;
        let status_changed = pane.agent_status != status;
        let released = agent_changed && agent.is_none();
        let final_status = released.then_some(pane.agent_status);
        pane.agent.clone_from(&agent);
        pane.agent_status = status;
        if agent_changed {
            pane.revision += 1;
            fx.event(Event::PaneAgentDetected {
                pane_id: pane_id.clone(),
                workspace_id: workspace_id.clone(),
                agent: agent.clone(),
                released,
                final_status,
            });
        }
        // The event carries the pane's reported presentation (title, display agent, state
        // labels) as its record does, like the one `*.report_metadata` emits.
        if (status_changed || agent_changed)
            && let Some(info) = self.pane_info(key)
        {
            fx.event(Event::agent_status_of(&info));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_validated_then_clamped() {
        assert_eq!(split_ratio(None), Ok(0.5));
        assert_eq!(split_ratio(Some(0.3)), Ok(0.3));
        assert_eq!(split_ratio(Some(0.02)), Ok(0.1));
        assert_eq!(split_ratio(Some(0.97)), Ok(0.9));
        for bad in [0.0, 1.0, -0.5, 2.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                split_ratio(Some(bad)).map_err(|e| e.code.as_str().to_owned()),
                Err("invalid_ratio".to_owned()),
                "{bad}"
            );
        }
    }

    #[test]
    fn titles_lose_leading_spinners() {
        assert_eq!(strip_title("⠋ Working on it").as_deref(), Some("Working on it"));
        assert_eq!(strip_title("✳ Claude Code").as_deref(), Some("Claude Code"));
        assert_eq!(strip_title("~/src: vim").as_deref(), Some("~/src: vim"));
        assert_eq!(strip_title("⠙ "), None);
    }
}
