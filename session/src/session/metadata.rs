//! The session side of display metadata: applying `pane.report_metadata` /
//! `workspace.report_metadata` to the pane's or workspace's [`crate::metadata`] state, removing
//! expired tokens, and the events that announce a change — `pane_updated` (plus
//! `pane_agent_status_changed` when the presentation changed, as upstream's status stream
//! reports presentation) for a pane, `workspace_metadata_updated` for a workspace. Nothing
//! changes, and nothing is published, for a stale `seq` or a report that changes no value.

use std::time::{Duration, Instant};

use herdr_protocol::api::{ApiError, Event};

use super::model::Session;
use super::{Effects, PaneKey};
use crate::metadata::{AgentNow, Changed, MetadataError, PaneReport, tokens};

/// Why a metadata report failed: the target is missing, or the report breaks a rule.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Target(#[from] ApiError),
    #[error(transparent)]
    Metadata(#[from] MetadataError),
}

/// A checked `workspace.report_metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceReport {
    pub source: String,
    pub seq: Option<u64>,
    pub ttl: Option<Duration>,
    pub tokens: tokens::Patch,
}

impl WorkspaceReport {
    /// Source, ttl, then tokens, as for panes.
    pub fn parse(
        source: &str,
        seq: Option<u64>,
        ttl_ms: Option<u64>,
        raw: &std::collections::BTreeMap<String, Option<String>>,
    ) -> Result<Self, MetadataError> {
        let source = tokens::normalize_source(source)?;
        let ttl = tokens::normalize_ttl(ttl_ms)?;
        let tokens = tokens::normalize_tokens(raw)?;
        Ok(WorkspaceReport { source, seq, ttl, tokens })
    }
}

impl Session {
    /// `pane.report_metadata` on the pane `pane_id` names.
    pub fn report_pane_metadata(
        &mut self,
        pane_id: &str,
        report: &PaneReport,
        now: Instant,
    ) -> Result<Effects, ReportError> {
        let key = self.resolve_pane(pane_id)?;
        let Some(pane) = self.panes.get_mut(&key) else { return Ok(Effects::default()) };
        let agent = pane.agent_state.effective().agent.clone();
        let authority = pane.agent_state.authority().map(|a| a.source.clone());
        let now_agent = AgentNow { agent: agent.as_deref(), authority_source: authority.as_deref() };
        let changed = pane.metadata.apply(report, now_agent, now)?;
        let mut fx = Effects::default();
        self.announce_pane(key, changed, &mut fx);
        Ok(fx)
    }

    /// `workspace.report_metadata` on the workspace `workspace_id` names.
    pub fn report_workspace_metadata(
        &mut self,
        workspace_id: &str,
        report: &WorkspaceReport,
        now: Instant,
    ) -> Result<Effects, ReportError> {
        let wi = self.resolve_workspace(workspace_id)?;
        let ledger = &mut self.workspaces[wi].tokens;
        let mut fx = Effects::default();
        if ledger.check(&report.source, report.seq, &report.tokens, "workspace")? == tokens::Verdict::Stale {
            return Ok(fx);
        }
        if ledger.apply(&report.source, report.seq, report.tokens.clone(), report.ttl, now) {
            fx.event(Event::WorkspaceMetadataUpdated { workspace: Box::new(self.workspace_info(wi)) });
        }
        Ok(fx)
    }

    /// Removes every token whose ttl ran out by `now`, announcing each pane and workspace that
    /// lost one.
    pub fn expire_metadata(&mut self, now: Instant) -> Effects {
        let mut fx = Effects::default();
        let keys: Vec<PaneKey> = self.panes.keys().copied().collect();
        for key in keys {
            let expired = self.panes.get_mut(&key).is_some_and(|p| p.metadata.tokens.expire(now));
            self.announce_pane(key, Changed { tokens: expired, presentation: false }, &mut fx);
        }
        for wi in 0..self.workspaces.len() {
            if self.workspaces[wi].tokens.expire(now) {
                fx.event(Event::WorkspaceMetadataUpdated { workspace: Box::new(self.workspace_info(wi)) });
            }
        }
        fx
    }

    /// When the next token of any pane or workspace expires (None while none can).
    pub fn next_metadata_expiry(&self) -> Option<Instant> {
        let panes = self.panes.values().filter_map(|p| p.metadata.tokens.next_expiry());
        let workspaces = self.workspaces.iter().filter_map(|ws| ws.tokens.next_expiry());
        panes.chain(workspaces).min()
    }

    fn announce_pane(&mut self, key: PaneKey, changed: Changed, fx: &mut Effects) {
        if !changed.any() {
            return;
        }
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.revision += 1;
        }
        let Some(info) = self.pane_info(key) else { return };
        if changed.presentation {
            fx.event(Event::agent_status_of(&info));
        }
        fx.event(Event::PaneUpdated { pane: Box::new(info) });
    }
}
