//! Which panes an attached client shows, and telling their workers: a visible pane's worker sends
//! screen damage, a hidden one keeps parsing and sends nothing. Every client shows the session's
//! focused tab (its zoomed pane alone when zoomed); with no client attached nothing is visible.
//! The session's focused pane among them is told it has the focus: it may send damage at the
//! full frame rate, the other visible panes at a background rate.
//!
//! Not here: how a pane is drawn (the compositor decides per client, e.g. the mobile layout draws
//! only the focused pane of the panes made visible here).

use std::collections::HashSet;

use herdr_protocol::api::SessionSnapshot;
use herdr_protocol::ipc::WorkerRequest;

use super::Hub;
use crate::session::PaneKey;

/// The panes whose workers were last told they are visible, and the one told it has focus.
#[derive(Debug, Default)]
pub(super) struct Visible {
    shown: HashSet<PaneKey>,
    focused: Option<PaneKey>,
}

impl Visible {
    /// Records `wanted` as the visible set; returns what changed: `(pane, now visible)`, sorted.
    pub(super) fn update(&mut self, wanted: HashSet<PaneKey>) -> Vec<(PaneKey, bool)> {
        let mut changes: Vec<(PaneKey, bool)> = wanted
            .difference(&self.shown)
            .map(|key| (*key, true))
            .chain(self.shown.difference(&wanted).map(|key| (*key, false)))
            .collect();
        changes.sort();
        self.shown = wanted;
        changes
    }

    /// Records `focused` (a visible pane, or none) as the focused one; returns what changed:
    /// `(pane, now focused)`, the pane losing focus first.
    pub(super) fn focus(&mut self, focused: Option<PaneKey>) -> Vec<(PaneKey, bool)> {
        let focused = focused.filter(|key| self.shown.contains(key));
        if focused == self.focused {
            return Vec::new();
        }
        let lost = self.focused.map(|key| (key, false));
        self.focused = focused;
        lost.into_iter().chain(focused.map(|key| (key, true))).collect()
    }
}

/// The panes a client attached to `snapshot` sees; `panes` maps keys to public pane ids.
pub(super) fn wanted(
    snapshot: &SessionSnapshot,
    panes: &[(PaneKey, String)],
    attached: bool,
) -> HashSet<PaneKey> {
    let Some(tab) = attached
        .then(|| snapshot.layouts.iter().find(|l| Some(&l.tab_id) == snapshot.focused_tab_id.as_ref()))
        .flatten()
    else {
        return HashSet::new();
    };
    let shown = |pane_id: &str| !tab.zoomed || pane_id == tab.focused_pane_id;
    tab.panes.iter().filter(|p| shown(&p.pane_id)).filter_map(|p| key_of(panes, &p.pane_id)).collect()
}

/// Brings the workers' visibility in line with the session as it is now. A pane that stops being
/// visible loses its mirrored grid (it would be stale when shown again; the worker sends a whole
/// frame then); a pane shown now is no longer one that rang unseen.
pub(super) fn sync(hub: &Hub, snapshot: &SessionSnapshot, panes: &[(PaneKey, String)]) {
    let attached = hub.registry().count() > 0;
    let wanted = wanted(snapshot, panes, attached);
    let shared = &hub.shared;
    shared.screens().settle_bells(&wanted, panes);
    // The lock is held while notifying so two paint tasks cannot send changes out of order.
    let mut visible = hub.visible.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (key, now_visible) in visible.update(wanted) {
        if let Some(handle) = shared.pane_handle(key) {
            handle.notify(shared.next_request_id(), WorkerRequest::SetVisible(now_visible));
        }
        if !now_visible {
            shared.screens().remove(key);
        }
    }
    let focused = snapshot.focused_pane_id.as_deref().and_then(|id| key_of(panes, id));
    for (key, now_focused) in visible.focus(focused) {
        if let Some(handle) = shared.pane_handle(key) {
            handle.notify(shared.next_request_id(), WorkerRequest::SetFocused(now_focused));
        }
    }
}

fn key_of(panes: &[(PaneKey, String)], pane_id: &str) -> Option<PaneKey> {
    panes.iter().find(|(_, id)| id == pane_id).map(|(key, _)| *key)
}
