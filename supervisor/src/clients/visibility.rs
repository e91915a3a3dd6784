//! Which panes an attached client shows, and telling their workers: a visible pane's worker sends
//! screen damage, a hidden one keeps parsing and sends nothing. Every client shows the session's
//! focused tab (its zoomed pane alone when zoomed); with no client attached nothing is visible.
//!
//! Not here: how a pane is drawn (the compositor decides per client, e.g. the mobile layout draws
//! only the focused pane of the panes made visible here).

use std::collections::HashSet;

use herdr_protocol::api::SessionSnapshot;
use herdr_protocol::ipc::WorkerRequest;

use super::Hub;
use crate::session::PaneKey;

/// The panes whose workers were last told they are visible.
#[derive(Debug, Default)]
pub(super) struct Visible(HashSet<PaneKey>);

impl Visible {
    /// Records `wanted` as the visible set; returns what changed: `(pane, now visible)`, sorted.
    pub(super) fn update(&mut self, wanted: HashSet<PaneKey>) -> Vec<(PaneKey, bool)> {
        let mut changes: Vec<(PaneKey, bool)> = wanted
            .difference(&self.0)
            .map(|key| (*key, true))
            .chain(self.0.difference(&wanted).map(|key| (*key, false)))
            .collect();
        changes.sort();
        self.0 = wanted;
        changes
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
    let key_of = |pane_id: &str| panes.iter().find(|(_, id)| id == pane_id).map(|(key, _)| *key);
    tab.panes.iter().filter(|p| shown(&p.pane_id)).filter_map(|p| key_of(&p.pane_id)).collect()
}

/// Brings the workers' visibility in line with the session as it is now. A pane that stops being
/// visible loses its mirrored grid (it would be stale when shown again; the worker sends a whole
/// frame then); a pane shown now is no longer one that rang unseen.
pub(super) fn sync(hub: &Hub, snapshot: &SessionSnapshot, panes: &[(PaneKey, String)]) {
    let attached = hub.registry().count() > 0;
    let wanted = wanted(snapshot, panes, attached);
    let shared = &hub.shared;
    shared.screens.settle_bells(&wanted, panes);
    // The lock is held while notifying so two paint tasks cannot send changes out of order.
    let mut visible = hub.visible.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (key, now_visible) in visible.update(wanted) {
        if let Some(handle) = shared.pane_handle(key) {
            handle.notify(shared.next_request_id(), WorkerRequest::SetVisible(now_visible));
        }
        if !now_visible {
            shared.screens.remove(key);
        }
    }
}
