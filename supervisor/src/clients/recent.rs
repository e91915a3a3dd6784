//! The panes a client has seen focused, newest first, for `last_pane`: read from the event hub's
//! `pane.focused` events (whoever moved the focus: this client, another one, the API), so the
//! history runs across tab and workspace switches. Closed panes drop out when their
//! `pane.closed` arrives and are skipped when asked anyway.
//!
//! Not here: focusing the pane (the connection runs `pane.focus`).

use std::collections::VecDeque;

use herdr_protocol::api::{Event, SessionSnapshot};

use crate::hub::Hub;

/// How many panes the history keeps.
const DEPTH: usize = 32;

#[derive(Debug, Clone, Default)]
pub(super) struct RecentPanes {
    /// Pane ids, most recently focused first, each once.
    panes: VecDeque<String>,
    /// The hub sequence number read up to.
    cursor: u64,
}

impl RecentPanes {
    /// A history that starts at `focused` and reads the hub's events from now on.
    pub(super) fn new(hub: &Hub, focused: Option<&str>) -> RecentPanes {
        let mut recent = RecentPanes { panes: VecDeque::new(), cursor: hub.cursor() };
        if let Some(pane) = focused {
            recent.focused(pane);
        }
        recent
    }

    /// Reads the events published since the last call. When the hub's ring has dropped some of
    /// them, the focus as it is now (`focused`) is the best there is for what was missed.
    pub(super) fn catch_up(&mut self, hub: &Hub, focused: impl FnOnce() -> Option<String>) {
        let batch = hub.since(self.cursor);
        if let Some((seq, _)) = batch.events.last() {
            self.cursor = *seq;
        }
        for (_, event) in &batch.events {
            match event.as_ref() {
                Event::PaneFocused { pane_id, .. } => self.focused(pane_id),
                Event::PaneClosed { pane_id, .. } => self.panes.retain(|p| p != pane_id),
                _ => {}
            }
        }
        if batch.lost
            && let Some(pane) = focused()
        {
            self.focused(&pane);
        }
    }

    fn focused(&mut self, pane: &str) {
        self.panes.retain(|p| p != pane);
        self.panes.push_front(pane.to_owned());
        self.panes.truncate(DEPTH);
    }

    /// The most recently focused pane other than the focused one that is still open.
    pub(super) fn previous(&self, snapshot: &SessionSnapshot) -> Option<&str> {
        let focused = snapshot.focused_pane_id.as_deref();
        let open = |pane: &str| snapshot.panes.iter().any(|p| p.pane_id == pane);
        self.panes.iter().map(String::as_str).find(|p| Some(*p) != focused && open(p))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::session::Session;

    /// A session and hub wired as the supervisor wires them: every method's events published.
    struct World {
        session: Session,
        hub: Hub,
    }

    impl World {
        fn call(&mut self, method: &str, params: Value) -> Value {
            let (result, effects) =
                self.session.handle_json(method, params).expect("a session method").expect("it succeeds");
            self.hub.publish(effects.events);
            serde_json::to_value(result).expect("results serialize")
        }

        fn focused(&self) -> String {
            self.session.snapshot().focused_pane_id.expect("a focused pane")
        }
    }

    #[test]
    fn the_previous_pane_survives_tab_and_workspace_switches_and_skips_closed_ones() {
        let mut world = World { session: Session::new(120, 40), hub: Hub::new() };
        world.call("workspace.create", json!({ "focus": true }));
        let first = world.focused();
        let mut recent = RecentPanes::new(&world.hub, Some(&first));
        assert_eq!(recent.previous(&world.session.snapshot()), None, "nothing before the first pane");

        world.call("pane.split", json!({ "direction": "right", "focus": true }));
        let second = world.focused();
        recent.catch_up(&world.hub, || None);
        assert_eq!(recent.previous(&world.session.snapshot()), Some(first.as_str()));

        // A new tab, then a new workspace: the pane before is still the one to go back to.
        world.call("tab.create", json!({ "focus": true }));
        let third = world.focused();
        world.call("workspace.create", json!({ "focus": true }));
        recent.catch_up(&world.hub, || None);
        assert_eq!(recent.previous(&world.session.snapshot()), Some(third.as_str()));

        // Going back makes the pane we left the previous one (last_pane toggles).
        world.call("pane.focus", json!({ "pane_id": third }));
        recent.catch_up(&world.hub, || None);
        let fourth =
            recent.previous(&world.session.snapshot()).expect("the other workspace's pane").to_owned();
        assert_ne!(fourth, third);

        // Closed panes are skipped: close the fourth (its workspace) and the third's tab.
        world.call("pane.close", json!({ "pane_id": fourth }));
        world.call("pane.focus", json!({ "pane_id": second }));
        world.call(
            "tab.close",
            json!({ "tab_id": world.session.snapshot().panes.iter()
            .find(|p| p.pane_id == third).expect("the third pane").tab_id.clone() }),
        );
        recent.catch_up(&world.hub, || None);
        assert_eq!(recent.previous(&world.session.snapshot()), Some(first.as_str()));
    }

    #[test]
    fn events_lost_from_the_ring_fall_back_to_the_focus_now() {
        let hub = Hub::new();
        let mut recent = RecentPanes::new(&hub, Some("w1:p1"));
        let focus = |pane: &str| Event::PaneFocused { pane_id: pane.into(), workspace_id: "w1".into() };
        hub.publish((0..crate::hub::RING_CAPACITY + 1).map(|_| focus("w1:p2")));
        recent.catch_up(&hub, || Some("w1:p3".to_owned()));
        assert_eq!(recent.panes, ["w1:p3", "w1:p2", "w1:p1"]);
    }
}
