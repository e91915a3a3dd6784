//! Workspaces opened on git checkouts: each workspace's worktree membership ([`WorktreeSpace`],
//! upstream's `worktree_space`, saved in `session.json` and reported as `WorkspaceInfo.worktree`),
//! and the model's side of `worktree.*`: what the API needs to pick a repository and to find the
//! workspace a checkout is open in ([`WorkspaceProbe`]), opening a workspace on a checkout, and
//! closing one whose checkout was removed.
//!
//! Pure like the rest of the model: git, paths on disk and canonical paths are the API's business
//! (`crate::api::worktrees`); the model compares the strings it is given.

use herdr_protocol::api::{ApiError, Event, PaneInfo, TabInfo, WorkspaceInfo, WorkspaceWorktreeInfo};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Effects;
use super::model::Session;
use super::workspaces::clean_label;

/// A workspace's place in a repository: upstream's `worktree_space` as `session.json` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeSpace {
    /// The repository's identity (its common git dir).
    pub key: String,
    /// The repository's name.
    pub label: String,
    /// The repository's main checkout.
    pub repo_root: String,
    /// The checkout this workspace is open on.
    pub checkout_path: String,
    /// Whether that checkout is a linked worktree (false: the main checkout itself).
    pub is_linked_worktree: bool,
}

impl WorktreeSpace {
    /// The public `WorkspaceInfo.worktree` record.
    pub fn info(&self) -> WorkspaceWorktreeInfo {
        WorkspaceWorktreeInfo {
            repo_key: self.key.clone(),
            repo_name: self.label.clone(),
            repo_root: self.repo_root.clone(),
            checkout_path: self.checkout_path.clone(),
            is_linked_worktree: self.is_linked_worktree,
        }
    }

    /// The saved form; a value that is not one (a newer upstream's) is dropped with a warning.
    pub(super) fn from_saved(value: Value) -> Option<Self> {
        match serde_json::from_value(value) {
            Ok(space) => Some(space),
            Err(e) => {
                log::warn!("session.json: a workspace's worktree_space is not understood, dropped: {e}");
                None
            }
        }
    }

    pub(super) fn to_saved(&self) -> Value {
        // Plain strings and a bool: serializing cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// What `worktree.*` needs to know about one workspace: its id, its membership, and the
/// directories it stands for (its identity cwd, then its focused pane's reported and live cwd).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceProbe {
    pub workspace_id: String,
    pub space: Option<WorktreeSpace>,
    pub cwds: Vec<String>,
}

/// The records of a workspace opened on a checkout (or found open).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedWorkspace {
    pub workspace: WorkspaceInfo,
    pub tab: TabInfo,
    pub root_pane: PaneInfo,
}

impl Session {
    fn probe(&self, wi: usize) -> WorkspaceProbe {
        let ws = &self.workspaces[wi];
        let focused = ws.tabs.get(ws.active_tab_index()).and_then(|t| self.panes.get(&t.focused));
        let mut cwds: Vec<String> = Vec::new();
        let candidates = [
            ws.identity_cwd.clone(),
            focused.and_then(|p| p.cwd.clone()),
            focused.and_then(|p| p.live_cwd.clone()),
        ];
        for cwd in candidates.into_iter().flatten() {
            if !cwds.contains(&cwd) {
                cwds.push(cwd);
            }
        }
        WorkspaceProbe { workspace_id: ws.id(), space: ws.worktree_space.clone(), cwds }
    }

    /// Every workspace, in display order.
    pub fn worktree_probes(&self) -> Vec<WorkspaceProbe> {
        (0..self.workspaces.len()).map(|wi| self.probe(wi)).collect()
    }

    /// Workspace `id` (any accepted id form).
    pub fn worktree_probe(&self, id: &str) -> Result<WorkspaceProbe, ApiError> {
        Ok(self.probe(self.resolve_workspace(id)?))
    }

    /// The active workspace, if any.
    pub fn active_worktree_probe(&self) -> Option<WorkspaceProbe> {
        self.active_index().map(|wi| self.probe(wi))
    }

    /// Gives workspace `id` its membership; `workspace_updated` when that changed it.
    pub fn set_worktree_space(&mut self, id: &str, space: WorktreeSpace) -> Result<Effects, ApiError> {
        let wi = self.resolve_workspace(id)?;
        let mut fx = Effects::default();
        if self.workspaces[wi].worktree_space.as_ref() != Some(&space) {
            self.workspaces[wi].worktree_space = Some(space);
            fx.event(Event::WorkspaceUpdated { workspace: Box::new(self.workspace_info(wi)) });
        }
        Ok(fx)
    }

    /// A new workspace on `checkout` (its only pane starts there), member of `space`:
    /// `workspace_created`, `tab_created`, `pane_created`, and the focus events when it takes the
    /// focus (asked, or the session had none).
    pub fn open_worktree_workspace(
        &mut self,
        checkout: &str,
        space: WorktreeSpace,
        label: Option<String>,
        focus: bool,
    ) -> Result<(OpenedWorkspace, Effects), ApiError> {
        let mut opened = Err(ApiError::internal("the new workspace has no pane"));
        let fx = self.observed(|s, fx| {
            let (appended, key) = s.add_workspace(clean_label(label), Some(checkout.to_owned()));
            let wi = s.next_to_its_repository(appended, &space.key);
            s.workspaces[wi].worktree_space = Some(space);
            fx.spawn(key, Some(checkout.to_owned()), None, Vec::new());
            if focus || s.active.is_none() {
                s.activate(key);
            }
            opened = s.opened(wi);
            if let Ok(o) = &opened {
                fx.event(Event::WorkspaceCreated { workspace: Box::new(o.workspace.clone()) });
                fx.event(Event::TabCreated { tab: Box::new(o.tab.clone()) });
                fx.event(Event::PaneCreated { pane: Box::new(o.root_pane.clone()) });
            }
        });
        Ok((opened?, fx))
    }

    /// Moves the just appended workspace `appended` right after the last workspace open on a
    /// checkout of repository `key`, so the sidebar shows a repository's worktrees together under
    /// it; returns where it now is (still last when no workspace of that repository is open).
    fn next_to_its_repository(&mut self, appended: usize, key: &str) -> usize {
        let same_repo =
            |ws: &super::model::Workspace| ws.worktree_space.as_ref().is_some_and(|sp| sp.key == key);
        let Some(last) = self.workspaces[..appended].iter().rposition(same_repo) else {
            return appended;
        };
        let ws = self.workspaces.remove(appended);
        self.workspaces.insert(last + 1, ws);
        last + 1
    }

    /// Workspace `id` as it is now (focused first when `focus`; renamed when `label`, with
    /// `workspace_renamed`).
    pub fn existing_worktree_workspace(
        &mut self,
        id: &str,
        label: Option<String>,
        focus: bool,
    ) -> Result<(OpenedWorkspace, Effects), ApiError> {
        let wi = self.resolve_workspace(id)?;
        let number = self.workspaces[wi].number;
        let fx = self.observed(|s, fx| {
            let Some(wi) = s.ws_index(number) else { return };
            if focus {
                let ws = &s.workspaces[wi];
                let focused = ws.tabs[ws.active_tab_index()].focused;
                s.activate(focused);
            }
            if let Some(label) = clean_label(label) {
                s.workspaces[wi].label = Some(label.clone());
                fx.event(Event::WorkspaceRenamed { workspace_id: s.workspaces[wi].id(), label });
            }
        });
        let wi = self.ws_index(number).ok_or_else(|| ApiError::workspace_not_found(id))?;
        Ok((self.opened(wi)?, fx))
    }

    /// The workspace, its active tab and that tab's root (first) pane.
    fn opened(&self, wi: usize) -> Result<OpenedWorkspace, ApiError> {
        let ws = &self.workspaces[wi];
        let ti = ws.active_tab_index();
        let root =
            ws.tabs[ti].root.leaves().first().copied().ok_or_else(|| ApiError::internal("an empty tab"))?;
        Ok(OpenedWorkspace {
            workspace: self.workspace_info(wi),
            tab: self.tab_info(wi, ti),
            root_pane: self
                .pane_info(root)
                .ok_or_else(|| ApiError::internal("the root pane is not placed"))?,
        })
    }

    /// Closes workspace `id` after its checkout `checkout` was removed, if it is still open on
    /// it: its record just before (for the events) and `workspace_closed`. `None` when it is
    /// gone or was moved to another checkout meanwhile.
    pub fn close_worktree_workspace(&mut self, id: &str, checkout: &str) -> Option<(WorkspaceInfo, Effects)> {
        let wi = self.resolve_workspace(id).ok()?;
        if self.workspaces[wi].worktree_space.as_ref().map(|s| s.checkout_path.as_str()) != Some(checkout) {
            return None;
        }
        let info = self.workspace_info(wi);
        let fx = self.observed(|s, fx| {
            fx.closes.extend(s.remove_workspace(wi));
            fx.event(Event::WorkspaceClosed {
                workspace_id: info.workspace_id.clone(),
                workspace: Some(Box::new(info.clone())),
            });
        });
        Some((info, fx))
    }
}

#[cfg(test)]
#[path = "tests_worktrees.rs"]
mod tests;
