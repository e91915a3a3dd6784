//! Turns the id forms clients send into model positions (reference §4). Canonical ids first, then
//! the aliases: workspace `w_<n>` (decimal id number) or bare `<n>` (1-based position); tab
//! `t_<ws>_<n>` (decimal tab number) or `<ws>:<n>` (position); pane `p_<ws>_<raw>` / `p_<raw>`
//! (raw = the internal pane key), `<ws>-<n>` (decimal pane number), and old pane ids kept after a
//! cross-workspace move.

use herdr_protocol::api::{ApiError, WorkspaceRef};

use super::PaneKey;
use super::ids;
use super::model::{Loc, Session};

impl Session {
    /// The index of workspace `id`.
    pub(super) fn resolve_workspace(&self, id: &str) -> Result<usize, ApiError> {
        self.find_workspace(id).ok_or_else(|| ApiError::workspace_not_found(id))
    }

    fn find_workspace(&self, id: &str) -> Option<usize> {
        match WorkspaceRef::parse(id)? {
            WorkspaceRef::Number(n) => self.ws_index(n),
            WorkspaceRef::Position(position) => {
                position.checked_sub(1).map(|i| i as usize).filter(|&i| i < self.workspaces.len())
            }
        }
    }

    /// The location of tab `id` (its `ti`).
    pub(super) fn resolve_tab(&self, id: &str) -> Result<Loc, ApiError> {
        self.find_tab(id).ok_or_else(|| ApiError::tab_not_found(id))
    }

    fn find_tab(&self, id: &str) -> Option<Loc> {
        if let Some((ws, n)) = id.strip_prefix("t_").and_then(|rest| rest.rsplit_once('_')) {
            let wi = self.find_workspace(ws)?;
            let ti = self.workspaces[wi].tab_index(ids::decimal(n)?)?;
            return Some(Loc { wi, ti });
        }
        let (ws, rest) = id.rsplit_once(':')?;
        let wi = self.find_workspace(ws)?;
        let tabs = &self.workspaces[wi].tabs;
        if let Some(position) = ids::decimal(rest) {
            let ti = position.checked_sub(1)? as usize;
            return (ti < tabs.len()).then_some(Loc { wi, ti });
        }
        let number = rest.strip_prefix('t').and_then(ids::decode_number)?;
        Some(Loc { wi, ti: self.workspaces[wi].tab_index(number)? })
    }

    /// The pane `id` names: `pane_not_found "pane <id> not found"` otherwise.
    pub fn resolve_pane(&self, id: &str) -> Result<PaneKey, ApiError> {
        self.find_pane(id).ok_or_else(|| ApiError::pane_not_found(id))
    }

    fn find_pane(&self, id: &str) -> Option<PaneKey> {
        if let Some(rest) = id.strip_prefix("p_") {
            let (ws, raw) = match rest.rsplit_once('_') {
                Some((ws, raw)) => (Some(ws), raw),
                None => (None, rest),
            };
            let key = PaneKey(ids::decimal(raw)?);
            let loc = self.locate(key)?;
            if let Some(ws) = ws {
                (self.find_workspace(ws)? == loc.wi).then_some(())?;
            }
            return Some(key);
        }
        if let Some((ws, rest)) = id.rsplit_once(':') {
            let wi = self.find_workspace(ws)?;
            if let Some(number) = rest.strip_prefix('p').and_then(ids::decode_number)
                && let Some(key) = self.pane_numbered(wi, number)
            {
                return Some(key);
            }
        }
        if let Some(key) = self.aliases.get(id) {
            return Some(*key);
        }
        let (ws, n) = id.rsplit_once('-')?;
        self.pane_numbered(self.find_workspace(ws)?, ids::decimal(n)?)
    }

    fn pane_numbered(&self, wi: usize, number: u64) -> Option<PaneKey> {
        self.workspaces[wi]
            .tabs
            .iter()
            .flat_map(|t| t.root.leaves())
            .find(|key| self.panes.get(key).is_some_and(|p| p.number == number))
    }
}
