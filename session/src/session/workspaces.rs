//! `workspace.*` methods.

use herdr_protocol::api::requests::{
    WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceMoveBlockParams, WorkspaceMoveParams,
    WorkspaceRenameParams, WorkspaceTarget,
};
use std::collections::HashSet;

use herdr_protocol::api::{ApiError, ApiResult, Event};

use super::model::Session;
use super::params;
use super::{Effects, Handled};

/// Labels are trimmed; an empty label means "none" (the automatic one).
pub(super) fn clean_label(label: Option<String>) -> Option<String> {
    label.map(|l| l.trim().to_owned()).filter(|l| !l.is_empty())
}

impl Session {
    /// The cwd of the focused pane of workspace `wi`'s active tab.
    pub(super) fn focused_cwd(&self, wi: usize) -> Option<String> {
        let ws = &self.workspaces[wi];
        let tab = ws.tabs.get(ws.active_tab_index())?;
        self.panes.get(&tab.focused)?.cwd.clone()
    }

    pub(super) fn workspace_create(&mut self, p: WorkspaceCreateParams, fx: &mut Effects) -> Handled {
        let focus = p.focus();
        let source = match &p.source_workspace_id {
            Some(id) => Some(self.resolve_workspace(id)?),
            None => self.active_index(),
        };
        let cwd = p.cwd.or_else(|| source.and_then(|wi| self.focused_cwd(wi)));
        let (wi, key) = self.add_workspace(clean_label(p.label), cwd.clone());
        fx.spawn(key, cwd, None, params::env_pairs(p.env));
        if focus || self.active.is_none() {
            self.activate(key);
        }
        let workspace = self.workspace_info(wi);
        let tab = self.tab_info(wi, 0);
        let pane = self.pane_info(key).ok_or_else(|| ApiError::internal("new pane is not placed"))?;
        fx.event(Event::WorkspaceCreated { workspace: Box::new(workspace.clone()) });
        fx.event(Event::TabCreated { tab: Box::new(tab.clone()) });
        fx.event(Event::PaneCreated { pane: Box::new(pane.clone()) });
        Ok(ApiResult::WorkspaceCreated {
            workspace: Box::new(workspace),
            tab: Box::new(tab),
            root_pane: Box::new(pane),
        })
    }

    pub(super) fn workspace_get(&mut self, p: WorkspaceTarget) -> Handled {
        let wi = self.resolve_workspace(&p.workspace_id)?;
        Ok(ApiResult::WorkspaceInfo { workspace: Box::new(self.workspace_info(wi)) })
    }

    pub(super) fn workspace_focus(&mut self, p: WorkspaceTarget) -> Handled {
        let wi = self.resolve_workspace(&p.workspace_id)?;
        let ws = &self.workspaces[wi];
        let focused = ws.tabs[ws.active_tab_index()].focused;
        self.activate(focused);
        Ok(ApiResult::WorkspaceInfo { workspace: Box::new(self.workspace_info(wi)) })
    }

    pub(super) fn workspace_rename(&mut self, p: WorkspaceRenameParams, fx: &mut Effects) -> Handled {
        let wi = self.resolve_workspace(&p.workspace_id)?;
        self.workspaces[wi].label = clean_label(Some(p.label));
        let info = self.workspace_info(wi);
        fx.event(Event::WorkspaceRenamed {
            workspace_id: info.workspace_id.clone(),
            label: info.label.clone(),
        });
        Ok(ApiResult::WorkspaceInfo { workspace: Box::new(info) })
    }

    pub(super) fn workspace_move(&mut self, p: WorkspaceMoveParams, fx: &mut Effects) -> Handled {
        let wi = self.resolve_workspace(&p.workspace_id)?;
        let ws = self.workspaces.remove(wi);
        let index = p.insert_index.min(self.workspaces.len());
        let workspace_id = ws.id();
        self.workspaces.insert(index, ws);
        let workspaces = self.workspace_infos();
        fx.event(Event::WorkspaceMoved { workspace_id, insert_index: index, workspaces: workspaces.clone() });
        Ok(ApiResult::WorkspaceList { workspaces })
    }

    pub(super) fn workspace_move_block(&mut self, p: WorkspaceMoveBlockParams, fx: &mut Effects) -> Handled {
        if p.workspace_ids.is_empty() {
            return Err(ApiError::workspace_move_block_failed("workspace_ids must not be empty").into());
        }
        let mut block = Vec::new();
        let mut seen = HashSet::new();
        for id in &p.workspace_ids {
            let number = self.workspaces[self.resolve_workspace(id)?].number;
            if !seen.insert(number) {
                return Err(
                    ApiError::workspace_move_block_failed(format!("workspace {id} is listed twice")).into()
                );
            }
            block.push(number);
        }
        let anchor = match &p.before_workspace_id {
            Some(id) => {
                let number = self.workspaces[self.resolve_workspace(id)?].number;
                if seen.contains(&number) {
                    return Err(ApiError::workspace_move_block_failed(format!(
                        "before_workspace_id {id} is part of the moved block"
                    ))
                    .into());
                }
                Some(number)
            }
            None => None,
        };
        let mut moved = Vec::new();
        for number in &block {
            if let Some(wi) = self.ws_index(*number) {
                moved.push(self.workspaces.remove(wi));
            }
        }
        let at = anchor.and_then(|n| self.ws_index(n)).unwrap_or(self.workspaces.len());
        let workspace_ids: Vec<String> = moved.iter().map(|w| w.id()).collect();
        self.workspaces.splice(at..at, moved);
        let workspaces = self.workspace_infos();
        fx.event(Event::WorkspaceReordered {
            workspace_ids,
            before_workspace_id: anchor.map(super::ids::workspace_id),
            workspaces: workspaces.clone(),
        });
        Ok(ApiResult::WorkspaceList { workspaces })
    }

    pub(super) fn workspace_close(&mut self, p: WorkspaceCloseParams, fx: &mut Effects) -> Handled {
        let wi = self.resolve_workspace(&p.workspace_id)?;
        let info = self.workspace_info(wi);
        fx.closes.extend(self.remove_workspace(wi));
        fx.event(Event::WorkspaceClosed {
            workspace_id: info.workspace_id.clone(),
            workspace: Some(Box::new(info)),
        });
        Ok(ApiResult::Ok)
    }
}
