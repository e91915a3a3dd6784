//! `tab.*` methods.

use herdr_protocol::api::requests::{
    OptionalWorkspace, TabCreateParams, TabMoveParams, TabRenameParams, TabTarget,
};
use herdr_protocol::api::{ApiError, ApiResult, Event};

use super::model::{Loc, Session};
use super::params;
use super::workspaces::clean_label;
use super::{Effects, Handled};

impl Session {
    pub(super) fn tab_create(&mut self, p: TabCreateParams, fx: &mut Effects) -> Handled {
        let focus = p.focus();
        let wi = match &p.workspace_id {
            Some(id) => self.resolve_workspace(id)?,
            None => self.active_index().ok_or_else(ApiError::no_active_workspace)?,
        };
        let cwd = p.cwd.or_else(|| self.focused_cwd(wi));
        let key = self.new_pane(wi, cwd.clone(), None);
        let ti = self.add_tab(wi, clean_label(p.label), key);
        fx.spawn(key, cwd, None, params::env_pairs(p.env));
        if focus {
            self.activate(key);
        }
        let tab = self.tab_info(wi, ti);
        let pane = self.pane_info(key).ok_or_else(|| ApiError::internal("new pane is not placed"))?;
        fx.event(Event::TabCreated { tab: Box::new(tab.clone()) });
        fx.event(Event::PaneCreated { pane: Box::new(pane.clone()) });
        Ok(ApiResult::TabCreated { tab: Box::new(tab), root_pane: Box::new(pane) })
    }

    /// Tabs of one workspace, or of every workspace in display order.
    pub(super) fn tab_list(&mut self, p: OptionalWorkspace) -> Handled {
        let tabs = match &p.workspace_id {
            Some(id) => self.tab_infos(self.resolve_workspace(id)?),
            None => (0..self.workspaces.len()).flat_map(|wi| self.tab_infos(wi)).collect(),
        };
        Ok(ApiResult::TabList { tabs })
    }

    pub(super) fn tab_get(&mut self, p: TabTarget) -> Handled {
        let loc = self.resolve_tab(&p.tab_id)?;
        Ok(ApiResult::TabInfo { tab: Box::new(self.tab_info(loc.wi, loc.ti)) })
    }

    pub(super) fn tab_focus(&mut self, p: TabTarget) -> Handled {
        let loc = self.resolve_tab(&p.tab_id)?;
        self.activate(self.tab(loc).focused);
        Ok(ApiResult::TabInfo { tab: Box::new(self.tab_info(loc.wi, loc.ti)) })
    }

    pub(super) fn tab_rename(&mut self, p: TabRenameParams, fx: &mut Effects) -> Handled {
        let loc = self.resolve_tab(&p.tab_id)?;
        self.tab_mut(loc).label = clean_label(Some(p.label));
        let info = self.tab_info(loc.wi, loc.ti);
        fx.event(Event::TabRenamed {
            tab_id: info.tab_id.clone(),
            workspace_id: info.workspace_id.clone(),
            label: info.label.clone(),
        });
        Ok(ApiResult::TabInfo { tab: Box::new(info) })
    }

    pub(super) fn tab_move(&mut self, p: TabMoveParams, fx: &mut Effects) -> Handled {
        let loc = self.resolve_tab(&p.tab_id)?;
        let tab_id = self.tab_public_id(loc.wi, loc.ti);
        let tabs = &mut self.workspaces[loc.wi].tabs;
        let tab = tabs.remove(loc.ti);
        let index = p.insert_index.min(tabs.len());
        tabs.insert(index, tab);
        let infos = self.tab_infos(loc.wi);
        fx.event(Event::TabMoved {
            tab_id,
            workspace_id: self.workspaces[loc.wi].id(),
            insert_index: index,
            tabs: infos.clone(),
        });
        Ok(ApiResult::TabList { tabs: infos })
    }

    /// Closes a tab and its panes; the last tab closes its workspace.
    pub(super) fn tab_close(&mut self, p: TabTarget, fx: &mut Effects) -> Handled {
        let loc = self.resolve_tab(&p.tab_id)?;
        if self.workspaces[loc.wi].tabs.len() == 1 {
            let info = self.workspace_info(loc.wi);
            fx.closes.extend(self.remove_workspace(loc.wi));
            fx.event(Event::WorkspaceClosed {
                workspace_id: info.workspace_id.clone(),
                workspace: Some(Box::new(info)),
            });
            return Ok(ApiResult::Ok);
        }
        let tab_id = self.tab_public_id(loc.wi, loc.ti);
        let ws = &mut self.workspaces[loc.wi];
        let workspace_id = ws.id();
        let tab = ws.tabs.remove(loc.ti);
        if ws.active_tab == tab.number {
            ws.active_tab = ws.tabs[loc.ti.min(ws.tabs.len() - 1)].number;
        }
        let keys = tab.root.leaves();
        self.forget(&keys);
        fx.closes.extend(keys);
        fx.event(Event::TabClosed { tab_id, workspace_id });
        Ok(ApiResult::Ok)
    }

    /// Location of the tab of pane `key`, as an API error when the pane vanished.
    pub(super) fn loc_of(&self, key: super::PaneKey) -> Result<Loc, ApiError> {
        self.locate(key).ok_or_else(|| ApiError::internal("pane is not placed in any tab"))
    }
}
