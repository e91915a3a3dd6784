//! `pane.move`: a pane (and its running program) changes tab, possibly workspace. The pane keeps
//! its key; a move to another workspace gives it a new public id there and keeps the old one as
//! an alias. Reported as `pane_moved` (never as a close plus a create).

use herdr_protocol::api::requests::{MoveDestination, PaneMoveParams};
use herdr_protocol::api::{ApiError, ApiResult, Event, PaneMoveReason, PaneMoveResult, SplitDirection};

use super::model::{Loc, Session};
use super::panes::split_ratio;
use super::workspaces::clean_label;
use super::{Effects, Handled, PaneKey};

/// A validated destination, by stable numbers (indices shift when the source closes).
enum Plan {
    Split { target: PaneKey, direction: SplitDirection, ratio: f32 },
    NewTab { workspace: u64, label: Option<String> },
    NewWorkspace { label: Option<String>, tab_label: Option<String> },
}

impl Session {
    pub(super) fn pane_move(&mut self, p: PaneMoveParams, fx: &mut Effects) -> Handled {
        let focus = p.focus();
        let key = self.resolve_pane(&p.pane_id)?;
        let loc = self.loc_of(key)?;
        let plan = match p.destination {
            MoveDestination::Tab { tab_id, target_pane_id, split, ratio } => {
                let tloc = self.resolve_tab(&tab_id)?;
                if tloc == loc {
                    return self.unchanged_move(key, PaneMoveReason::SameTab, tloc);
                }
                if self.tab(tloc).zoomed {
                    return self.unchanged_move(key, PaneMoveReason::ZoomedTab, tloc);
                }
                let target = match target_pane_id {
                    Some(id) => self
                        .resolve_pane(&id)
                        .ok()
                        .filter(|t| self.locate(*t) == Some(tloc))
                        .ok_or_else(|| ApiError::target_pane_not_found(&id))?,
                    None => self.tab(tloc).focused,
                };
                Plan::Split { target, direction: split, ratio: split_ratio(ratio)? }
            }
            MoveDestination::NewTab { workspace_id, label } => {
                let wi = match workspace_id {
                    Some(id) => self.resolve_workspace(&id)?,
                    None => loc.wi,
                };
                if wi == loc.wi && self.tab(loc).root.leaf_count() == 1 {
                    return self.unchanged_move(key, PaneMoveReason::SameTab, loc);
                }
                Plan::NewTab { workspace: self.workspaces[wi].number, label: clean_label(label) }
            }
            MoveDestination::NewWorkspace { label, tab_label } => {
                Plan::NewWorkspace { label: clean_label(label), tab_label: clean_label(tab_label) }
            }
        };

        let (previous_workspace_id, previous_tab_id, previous_pane_id) =
            self.pane_ids(key).ok_or_else(|| ApiError::internal("moved pane has no ids"))?;
        let source_ws = self.workspaces[loc.wi].number;
        let detached = self.detach(key);
        let (mut created_workspace, mut created_tab) = (None, None);
        match plan {
            Plan::Split { target, direction, ratio } => {
                if !self.attach_split(target, direction, ratio, key) {
                    return Err(ApiError::pane_move_failed("target pane vanished during the move").into());
                }
            }
            Plan::NewTab { workspace, label } => {
                let wi = self
                    .ws_index(workspace)
                    .ok_or_else(|| ApiError::pane_move_failed("workspace vanished"))?;
                let ti = self.add_tab(wi, label, key);
                created_tab = Some((wi, ti));
            }
            Plan::NewWorkspace { label, tab_label } => {
                let cwd = self.panes.get(&key).and_then(|p| p.cwd.clone());
                let wi = self.push_workspace(label, cwd);
                let ti = self.add_tab(wi, tab_label, key);
                created_workspace = Some(wi);
                created_tab = Some((wi, ti));
            }
        }
        let tloc = self.loc_of(key)?;
        if self.workspaces[tloc.wi].number != source_ws {
            self.renumber(key, tloc.wi, previous_pane_id.clone());
        }
        if focus {
            self.activate(key);
        }
        let pane = self.info_of(key)?;
        let source_layout = detached
            .surviving_tab
            .and_then(|(ws, tab)| self.loc_of_numbers(ws, tab))
            .map(|l| self.layout_snapshot(l));
        let target_layout = self.layout_snapshot(tloc);
        let created_workspace = created_workspace.map(|wi| self.workspace_info(wi));
        let created_tab = created_tab.map(|(wi, ti)| self.tab_info(wi, ti));
        let closed_tab_id = detached.closed_tab.map(|(tab, _)| tab);
        let closed_workspace_id = detached.closed_workspace;
        fx.event(Event::PaneMoved {
            previous_pane_id: previous_pane_id.clone(),
            previous_workspace_id: previous_workspace_id.clone(),
            previous_tab_id: previous_tab_id.clone(),
            pane: Box::new(pane.clone()),
            created_workspace: created_workspace.clone().map(Box::new),
            created_tab: created_tab.clone().map(Box::new),
            closed_workspace_id: closed_workspace_id.clone(),
            closed_tab_id: closed_tab_id.clone(),
        });
        if let Some(layout) = &source_layout {
            fx.event(Event::LayoutUpdated { layout: Box::new(layout.clone()) });
        }
        fx.event(Event::LayoutUpdated { layout: Box::new(target_layout.clone()) });
        let focused_pane_id = self.focused_pane_id_or(&pane.pane_id);
        Ok(ApiResult::PaneMove {
            move_result: Box::new(PaneMoveResult {
                changed: true,
                reason: None,
                previous_pane_id,
                previous_workspace_id,
                previous_tab_id,
                pane,
                source_layout,
                target_layout,
                created_workspace,
                created_tab,
                closed_workspace_id,
                closed_tab_id,
                focused_pane_id,
            }),
        })
    }

    /// Gives `key` the next pane number of workspace `wi`; its old id stays an alias.
    fn renumber(&mut self, key: PaneKey, wi: usize, old_id: String) {
        let ws = &mut self.workspaces[wi];
        let number = ws.next_pane;
        ws.next_pane += 1;
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.number = number;
            pane.revision += 1;
        }
        // Numbers are never reused in a workspace, so the old id cannot shadow a live one.
        self.aliases.insert(old_id, key);
    }

    fn focused_pane_id_or(&self, fallback: &str) -> String {
        self.focused_pane().and_then(|k| self.public_pane_id(k)).unwrap_or_else(|| fallback.to_owned())
    }

    fn unchanged_move(&self, key: PaneKey, reason: PaneMoveReason, target: Loc) -> Handled {
        let (previous_workspace_id, previous_tab_id, previous_pane_id) =
            self.pane_ids(key).ok_or_else(|| ApiError::internal("pane has no ids"))?;
        let pane = self.info_of(key)?;
        Ok(ApiResult::PaneMove {
            move_result: Box::new(PaneMoveResult {
                changed: false,
                reason: Some(reason),
                previous_pane_id,
                previous_workspace_id,
                previous_tab_id,
                focused_pane_id: self.focused_pane_id_or(&pane.pane_id),
                pane,
                source_layout: None,
                target_layout: self.layout_snapshot(target),
                created_workspace: None,
                created_tab: None,
                closed_workspace_id: None,
                closed_tab_id: None,
            }),
        })
    }
}
