//! Layout and navigation methods: `pane.layout`, `pane.neighbor`, `pane.edges`,
//! `pane.focus_direction`, `pane.resize`, `pane.swap`, `pane.zoom`, `layout.export`.
//! Geometry questions use the split tree's rectangles (zoom does not hide neighbours).

use herdr_protocol::api::requests::{
    LayoutExportParams, OptionalPane, PaneDirectional, PaneResizeParams, PaneSwapParams, PaneZoomParams,
    ZoomMode,
};
use herdr_protocol::api::{
    ApiError, ApiResult, Event, PaneEdgesResult, PaneFocusDirectionReason, PaneFocusDirectionResult,
    PaneNeighborResult, PaneResizeReason, PaneResizeResult, PaneSwapReason, PaneSwapResult, PaneZoomReason,
    PaneZoomResult,
};

use super::model::{Loc, Session};
use super::tree::{self, clamp_ratio};
use super::{Effects, Handled, PaneKey};

/// How far `pane.resize` moves a divider without `amount` (share of the split's size).
const DEFAULT_RESIZE_AMOUNT: f64 = 0.05;

impl Session {
    fn tree_rects(&self, loc: Loc) -> Vec<(PaneKey, tree::Rect)> {
        self.tab(loc).root.pane_rects(self.area)
    }

    fn id_of(&self, key: PaneKey) -> String {
        self.public_pane_id(key).unwrap_or_default()
    }

    pub(super) fn pane_layout(&mut self, p: OptionalPane) -> Handled {
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        Ok(ApiResult::PaneLayout { layout: Box::new(self.layout_snapshot(self.loc_of(key)?)) })
    }

    pub(super) fn pane_neighbor(&mut self, p: PaneDirectional) -> Handled {
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        let loc = self.loc_of(key)?;
        let neighbor = tree::neighbor(&self.tree_rects(loc), key, p.direction);
        Ok(ApiResult::PaneNeighbor {
            neighbor: Box::new(PaneNeighborResult {
                pane_id: self.id_of(key),
                direction: p.direction,
                neighbor_pane_id: neighbor.map(|n| self.id_of(n)),
                layout: self.layout_snapshot(loc),
            }),
        })
    }

    pub(super) fn pane_edges(&mut self, p: OptionalPane) -> Handled {
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        let loc = self.loc_of(key)?;
        let rect = self
            .tree_rects(loc)
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| r)
            .ok_or_else(|| ApiError::internal("pane has no rectangle"))?;
        let (left, right, up, down) = tree::edges(self.area, rect);
        Ok(ApiResult::PaneEdges {
            edges: Box::new(PaneEdgesResult {
                pane_id: self.id_of(key),
                left,
                right,
                up,
                down,
                layout: self.layout_snapshot(loc),
            }),
        })
    }

    pub(super) fn pane_focus_direction(&mut self, p: PaneDirectional) -> Handled {
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        let loc = self.loc_of(key)?;
        let source_pane_id = self.id_of(key);
        let neighbor = tree::neighbor(&self.tree_rects(loc), key, p.direction);
        if let Some(next) = neighbor {
            self.activate(next);
        }
        let focused = self.tab(loc).focused;
        Ok(ApiResult::PaneFocusDirection {
            focus: Box::new(PaneFocusDirectionResult {
                changed: neighbor.is_some(),
                reason: neighbor.is_none().then_some(PaneFocusDirectionReason::NoNeighbor),
                source_pane_id,
                focused_pane_id: Some(self.id_of(focused)),
                layout: self.layout_snapshot(loc),
            }),
        })
    }

    pub(super) fn pane_resize(&mut self, p: PaneResizeParams, fx: &mut Effects) -> Handled {
        let amount = p.amount.unwrap_or(DEFAULT_RESIZE_AMOUNT);
        if !(amount.is_finite() && amount > 0.0 && amount < 1.0) {
            return Err(ApiError::invalid_request(format!(
                "invalid resize amount {amount}: must be greater than 0 and less than 1"
            ))
            .into());
        }
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        let loc = self.loc_of(key)?;
        let mut changed = false;
        if let Some((path, sign)) = tree::resize_target(&self.tab(loc).root, key, p.direction)
            && let Some(split) = self.tab_mut(loc).root.split_at_mut(&path)
        {
            let ratio = clamp_ratio(split.ratio + sign * amount as f32);
            changed = ratio != split.ratio;
            split.ratio = ratio;
        }
        let layout = self.layout_snapshot(loc);
        if changed {
            fx.event(Event::LayoutUpdated { layout: Box::new(layout.clone()) });
        }
        Ok(ApiResult::PaneResize {
            resize: Box::new(PaneResizeResult {
                changed,
                reason: (!changed).then_some(PaneResizeReason::Unchanged),
                pane_id: self.id_of(key),
                focused_pane_id: layout.focused_pane_id.clone(),
                layout,
            }),
        })
    }

    pub(super) fn pane_swap(&mut self, p: PaneSwapParams, fx: &mut Effects) -> Handled {
        let source_id = p.source_pane_id.as_deref().or(p.pane_id.as_deref());
        let source = self.pane_or_focused(source_id)?;
        let loc = self.loc_of(source)?;
        let (target, reason) = match (&p.target_pane_id, p.direction) {
            (Some(id), _) => match self.resolve_pane(id) {
                Ok(t) if t == source => (Some(t), Some(PaneSwapReason::SamePane)),
                Ok(t) if self.locate(t) != Some(loc) => (Some(t), Some(PaneSwapReason::CrossTab)),
                Ok(t) => (Some(t), None),
                Err(_) => (None, Some(PaneSwapReason::NotFound)),
            },
            (None, Some(direction)) => match tree::neighbor(&self.tree_rects(loc), source, direction) {
                Some(t) => (Some(t), None),
                None => (None, Some(PaneSwapReason::NoNeighbor)),
            },
            (None, None) => {
                return Err(ApiError::invalid_pane_swap("pane.swap needs target_pane_id or direction").into());
            }
        };
        let changed = reason.is_none();
        if let (true, Some(target)) = (changed, target) {
            self.tab_mut(loc).root.swap_leaves(source, target);
        }
        let layout = self.layout_snapshot(loc);
        if changed {
            fx.event(Event::LayoutUpdated { layout: Box::new(layout.clone()) });
        }
        Ok(ApiResult::PaneSwap {
            swap: Box::new(PaneSwapResult {
                changed,
                reason,
                source_pane_id: self.id_of(source),
                target_pane_id: target.map(|t| self.id_of(t)),
                focused_pane_id: layout.focused_pane_id.clone(),
                layout,
            }),
        })
    }

    pub(super) fn pane_zoom(&mut self, p: PaneZoomParams, fx: &mut Effects) -> Handled {
        let key = self.pane_or_focused(p.pane_id.as_deref())?;
        let loc = self.loc_of(key)?;
        let tab = self.tab(loc);
        let zoomed_on_key = tab.zoomed && tab.focused == key;
        let (want, mut reason) = match p.mode() {
            ZoomMode::Toggle => (!zoomed_on_key, None),
            ZoomMode::On => (true, zoomed_on_key.then_some(PaneZoomReason::AlreadyZoomed)),
            ZoomMode::Off => (false, (!tab.zoomed).then_some(PaneZoomReason::AlreadyUnzoomed)),
        };
        if want && tab.root.leaf_count() < 2 {
            reason = Some(PaneZoomReason::SinglePane);
        }
        let (mut zoom_changed, mut focus_changed) = (false, false);
        if reason.is_none() {
            let tab = self.tab_mut(loc);
            zoom_changed = tab.zoomed != want;
            if want {
                focus_changed = tab.focused != key;
                tab.focused = key;
            }
            tab.zoomed = want;
        }
        let layout = self.layout_snapshot(loc);
        if zoom_changed || focus_changed {
            fx.event(Event::LayoutUpdated { layout: Box::new(layout.clone()) });
        }
        Ok(ApiResult::PaneZoom {
            zoom: Box::new(PaneZoomResult {
                changed: zoom_changed || focus_changed,
                zoom_changed,
                focus_changed,
                reason,
                pane_id: self.id_of(key),
                focused_pane_id: layout.focused_pane_id.clone(),
                zoomed: layout.zoomed,
                layout,
            }),
        })
    }

    pub(super) fn layout_export(&mut self, p: LayoutExportParams) -> Handled {
        let loc = match (&p.tab_id, &p.pane_id) {
            (Some(tab), _) => self.resolve_tab(tab)?,
            (None, pane) => self.loc_of(self.pane_or_focused(pane.as_deref())?)?,
        };
        Ok(ApiResult::LayoutExport { layout: Box::new(self.layout_description(loc)) })
    }
}
