//! `layout.apply` (build a tab from a portable layout tree, starting a fresh program per pane)
//! and `layout.set_split_ratio` (set one split's ratio by its path).

use herdr_protocol::api::requests::{LayoutApplyParams, LayoutSetSplitRatioParams};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, Event, LayoutNode};

use super::model::{Loc, Session};
use super::panes::split_ratio;
use super::params;
use super::tree::{Node, Split};
use super::workspaces::clean_label;
use super::{Effects, Handled, PaneKey};

/// More panes than any screen can show is a mistake, not a layout.
const MAX_LAYOUT_PANES: usize = 64;

fn invalid_layout(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidLayout, format!("invalid layout: {}", message.into()))
}

/// Checks the tree before anything is created: ratios in range, a sane number of panes.
fn validate(node: &LayoutNode) -> Result<usize, ApiError> {
    match node {
        LayoutNode::Pane { .. } => Ok(1),
        LayoutNode::Split { ratio, first, second, .. } => {
            split_ratio(Some(f64::from(*ratio))).map_err(|e| invalid_layout(e.message))?;
            let count = validate(first)? + validate(second)?;
            if count > MAX_LAYOUT_PANES {
                return Err(invalid_layout(format!("more than {MAX_LAYOUT_PANES} panes")));
            }
            Ok(count)
        }
    }
}

impl Session {
    /// Allocates the panes of `node` in workspace `wi` and records their spawns.
    fn build(&mut self, wi: usize, node: LayoutNode, default_cwd: &Option<String>, fx: &mut Effects) -> Node {
        match node {
            LayoutNode::Pane { label, cwd, command, env, .. } => {
                let cwd = cwd.or_else(|| default_cwd.clone());
                let key = self.new_pane(wi, cwd.clone(), command.clone());
                if let Some(pane) = self.panes.get_mut(&key) {
                    pane.label = clean_label(label);
                }
                fx.spawn(key, cwd, command, params::env_pairs(env));
                Node::Leaf(key)
            }
            LayoutNode::Split { direction, ratio, first, second } => Node::Split(Box::new(Split {
                direction,
                ratio: split_ratio(Some(f64::from(ratio))).unwrap_or(0.5),
                first: self.build(wi, *first, default_cwd, fx),
                second: self.build(wi, *second, default_cwd, fx),
            })),
        }
    }

    pub(super) fn layout_apply(&mut self, p: LayoutApplyParams, fx: &mut Effects) -> Handled {
        let focus = p.focus();
        validate(&p.root)?;
        let replaced = p.tab_id.as_deref().map(|id| self.resolve_tab(id)).transpose()?;
        let wi = match (&replaced, &p.workspace_id) {
            (Some(loc), _) => loc.wi,
            (None, Some(id)) => self.resolve_workspace(id)?,
            (None, None) => self.active_index().ok_or_else(ApiError::no_active_workspace)?,
        };
        let default_cwd = self.focused_cwd(wi);
        let root = self.build(wi, p.root, &default_cwd, fx);
        let first = root.leaves()[0];
        let loc = match replaced {
            Some(loc) => {
                let ws_id = self.workspaces[loc.wi].id();
                let old: Vec<PaneKey> = self.tab(loc).root.leaves();
                for key in &old {
                    if let Some(pane_id) = self.public_pane_id(*key) {
                        fx.event(Event::PaneClosed { pane_id, workspace_id: ws_id.clone() });
                    }
                }
                let tab = self.tab_mut(loc);
                tab.root = root;
                tab.focused = first;
                tab.zoomed = false;
                if let Some(label) = clean_label(p.tab_label) {
                    tab.label = Some(label);
                }
                self.forget(&old);
                fx.closes.extend(old);
                loc
            }
            None => {
                let ti = self.add_tab(wi, clean_label(p.tab_label), first);
                self.tab_mut(Loc { wi, ti }).root = root;
                let loc = Loc { wi, ti };
                fx.event(Event::TabCreated { tab: Box::new(self.tab_info(wi, ti)) });
                loc
            }
        };
        if focus {
            self.activate(first);
        }
        for key in self.tab(loc).root.leaves() {
            fx.event(Event::PaneCreated { pane: Box::new(self.info_of(key)?) });
        }
        fx.event(Event::LayoutUpdated { layout: Box::new(self.layout_snapshot(loc)) });
        Ok(ApiResult::LayoutApply { layout: Box::new(self.layout_description(loc)) })
    }

    pub(super) fn layout_set_split_ratio(
        &mut self,
        p: LayoutSetSplitRatioParams,
        fx: &mut Effects,
    ) -> Handled {
        let loc = match (&p.tab_id, &p.pane_id) {
            (Some(tab), _) => self.resolve_tab(tab)?,
            (None, pane) => self.loc_of(self.pane_or_focused(pane.as_deref())?)?,
        };
        let ratio = split_ratio(Some(p.ratio))?;
        let split = self.tab_mut(loc).root.split_at_mut(&p.path).ok_or_else(|| {
            let path: Vec<&str> =
                p.path.iter().map(|&second| if second { "second" } else { "first" }).collect();
            ApiError::new(ErrorCode::SplitNotFound, format!("no split at path [{}]", path.join(", ")))
        })?;
        if split.ratio != ratio {
            split.ratio = ratio;
            fx.event(Event::LayoutUpdated { layout: Box::new(self.layout_snapshot(loc)) });
        }
        Ok(ApiResult::LayoutSplitRatioSet { layout: Box::new(self.layout_description(loc)) })
    }
}
