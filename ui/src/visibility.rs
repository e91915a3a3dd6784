//! Which panes an attached client shows: every client shows the session's focused tab (its
//! zoomed pane alone when zoomed); with no client attached nothing is visible. [`Visible`]
//! remembers what the panes' workers were last told (visible or hidden, and which one has the
//! focus) and says what changed. Keyed by whatever the caller keys panes by.
//!
//! Not here: telling the workers (the supervisor's `clients/visibility.rs`), how a pane is drawn
//! (the compositor decides per client, e.g. the mobile layout draws only the focused pane).

use std::collections::HashSet;
use std::hash::Hash;

use herdr_protocol::api::SessionSnapshot;

/// The panes whose workers were last told they are visible, and the one told it has focus.
#[derive(Debug)]
pub struct Visible<K> {
    shown: HashSet<K>,
    focused: Option<K>,
}

impl<K> Default for Visible<K> {
    fn default() -> Self {
        Visible { shown: HashSet::new(), focused: None }
    }
}

impl<K: Copy + Eq + Hash + Ord> Visible<K> {
    /// Records `wanted` as the visible set; returns what changed: `(pane, now visible)`, sorted.
    pub fn update(&mut self, wanted: HashSet<K>) -> Vec<(K, bool)> {
        let mut changes: Vec<(K, bool)> = wanted
            .difference(&self.shown)
            .map(|key| (*key, true))
            .chain(self.shown.difference(&wanted).map(|key| (*key, false)))
            .collect();
        changes.sort();
        self.shown = wanted;
        changes
    }

    /// The panes recorded as visible, in no order.
    pub fn shown(&self) -> impl Iterator<Item = &K> {
        self.shown.iter()
    }

    /// Records `focused` (a visible pane, or none) as the focused one; returns what changed:
    /// `(pane, now focused)`, the pane losing focus first.
    pub fn focus(&mut self, focused: Option<K>) -> Vec<(K, bool)> {
        let focused = focused.filter(|key| self.shown.contains(key));
        if focused == self.focused {
            return Vec::new();
        }
        let lost = self.focused.map(|key| (key, false));
        self.focused = focused;
        lost.into_iter().chain(focused.map(|key| (key, true))).collect()
    }
}

/// The panes a client attached to `snapshot` sees; `panes` maps the caller's keys to public pane
/// ids.
pub fn wanted<K: Copy + Eq + Hash>(
    snapshot: &SessionSnapshot,
    panes: &[(K, String)],
    attached: bool,
) -> HashSet<K> {
    let Some(tab) = attached
        .then(|| snapshot.layouts.iter().find(|l| Some(&l.tab_id) == snapshot.focused_tab_id.as_ref()))
        .flatten()
    else {
        return HashSet::new();
    };
    let shown = |pane_id: &str| !tab.zoomed || pane_id == tab.focused_pane_id;
    tab.panes.iter().filter(|p| shown(&p.pane_id)).filter_map(|p| key_of(panes, &p.pane_id)).collect()
}

/// The key `panes` gives the public pane id `pane_id`.
pub fn key_of<K: Copy>(panes: &[(K, String)], pane_id: &str) -> Option<K> {
    panes.iter().find(|(_, id)| id == pane_id).map(|(key, _)| *key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_fixtures::session;

    #[test]
    fn visible_panes_follow_the_focused_tab_and_zoom() {
        let panes = [(0, "w1:p1".to_owned()), (1, "w1:p2".to_owned())];
        let mut visible = Visible::default();
        let split = session("split_in_two");
        assert_eq!(visible.update(wanted(&split, &panes, true)), vec![(0, true), (1, true)]);
        assert!(visible.update(wanted(&split, &panes, true)).is_empty());
        let zoomed = session("first_zoomed");
        assert_eq!(visible.update(wanted(&zoomed, &panes, true)), vec![(1, false)]);
        // The focus goes to a visible pane only, and moves with one notice each way.
        assert_eq!(visible.focus(Some(1)), vec![], "a hidden pane is not told it has focus");
        assert_eq!(visible.focus(Some(0)), vec![(0, true)]);
        assert!(visible.focus(Some(0)).is_empty());
        // The last client leaves: nothing is visible, and nothing keeps the focus rate.
        assert_eq!(visible.update(wanted(&zoomed, &panes, false)), vec![(0, false)]);
        assert_eq!(visible.focus(Some(0)), vec![(0, false)]);
    }
}
