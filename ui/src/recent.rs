//! The panes a client has seen focused, newest first, for `last_pane`: kept from the session's
//! `pane.focused` events (whoever moved the focus: this client, another one, the API), so the
//! history runs across tab and workspace switches. Closed panes drop out when their
//! `pane.closed` arrives and are skipped when asked anyway.
//!
//! Not here: reading the events from the hub (the supervisor's `clients/recent.rs`) and
//! focusing the pane (the connection runs `pane.focus`).

use std::collections::VecDeque;

use herdr_protocol::api::{Event, SessionSnapshot};

/// How many panes the history keeps.
pub const DEPTH: usize = 32;

#[derive(Debug, Clone, Default)]
pub struct RecentPanes {
    /// Pane ids, most recently focused first, each once.
    panes: VecDeque<String>,
}

impl RecentPanes {
    /// A history that starts at `focused`.
    pub fn new(focused: Option<&str>) -> RecentPanes {
        let mut recent = RecentPanes::default();
        if let Some(pane) = focused {
            recent.focused(pane);
        }
        recent
    }

    /// Takes in one session event.
    pub fn see(&mut self, event: &Event) {
        match event {
            Event::PaneFocused { pane_id, .. } => self.focused(pane_id),
            Event::PaneClosed { pane_id, .. } => self.panes.retain(|p| p != pane_id),
            _ => {}
        }
    }

    /// `pane` is focused now (also what a reader that missed events knows at least).
    pub fn focused(&mut self, pane: &str) {
        self.panes.retain(|p| p != pane);
        self.panes.push_front(pane.to_owned());
        self.panes.truncate(DEPTH);
    }

    /// The most recently focused pane other than the focused one that is still open.
    pub fn previous(&self, snapshot: &SessionSnapshot) -> Option<&str> {
        let focused = snapshot.focused_pane_id.as_deref();
        let open = |pane: &str| snapshot.panes.iter().any(|p| p.pane_id == pane);
        self.panes.iter().map(String::as_str).find(|p| Some(*p) != focused && open(p))
    }

    /// The history, most recent first.
    pub fn panes(&self) -> impl Iterator<Item = &str> {
        self.panes.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_fixtures::session;

    fn focus(pane: &str) -> Event {
        Event::PaneFocused { pane_id: pane.into(), workspace_id: "w1".into() }
    }

    #[test]
    fn the_previous_pane_is_the_last_focused_other_one_still_open() {
        // `three_across`: w1:p1, w1:p2, w1:p3, the focus on w1:p3.
        let snapshot = session("three_across");
        let mut recent = RecentPanes::new(Some("w1:p1"));
        assert_eq!(recent.previous(&snapshot), Some("w1:p1"));
        recent.see(&focus("w1:p2"));
        recent.see(&focus("w1:p3"));
        assert_eq!(recent.previous(&snapshot), Some("w1:p2"), "the focused pane itself is skipped");
        recent.see(&Event::PaneClosed { pane_id: "w1:p2".into(), workspace_id: "w1".into() });
        assert_eq!(recent.previous(&snapshot), Some("w1:p1"), "a closed pane drops out");
        recent.see(&focus("w9:p9"));
        assert_eq!(recent.previous(&snapshot), Some("w1:p1"), "a pane the snapshot lacks is skipped");
        assert_eq!(recent.panes().collect::<Vec<_>>(), ["w9:p9", "w1:p3", "w1:p1"]);
    }

    #[test]
    fn each_pane_is_kept_once_and_only_the_newest_depth_of_them() {
        let mut recent = RecentPanes::new(None);
        for n in 0..DEPTH + 3 {
            recent.see(&focus(&format!("w1:p{n}")));
        }
        recent.see(&focus("w1:p5"));
        let panes: Vec<&str> = recent.panes().collect();
        assert_eq!(panes.len(), DEPTH);
        assert_eq!(panes[0], "w1:p5");
        assert_eq!(panes.iter().filter(|p| **p == "w1:p5").count(), 1);
        assert!(!panes.contains(&"w1:p0"), "the oldest are dropped");
    }
}
