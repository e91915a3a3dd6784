//! A client's `last_pane` history ([`herdr_ui::recent::RecentPanes`]) fed from the event hub's
//! `pane.focused` and `pane.closed` events, read from a cursor; when the hub's ring dropped some,
//! the focus as it is now stands in for what was missed.

use herdr_protocol::api::SessionSnapshot;
use herdr_ui::recent;

use crate::hub::Hub;

#[derive(Debug, Clone, Default)]
pub(super) struct RecentPanes {
    panes: recent::RecentPanes,
    /// The hub sequence number read up to.
    cursor: u64,
}

impl RecentPanes {
    /// A history that starts at `focused` and reads the hub's events from now on.
    pub(super) fn new(hub: &Hub, focused: Option<&str>) -> RecentPanes {
        RecentPanes { panes: recent::RecentPanes::new(focused), cursor: hub.cursor() }
    }

    /// Reads the events published since the last call. When the hub's ring has dropped some of
    /// them, the focus as it is now (`focused`) is the best there is for what was missed.
    pub(super) fn catch_up(&mut self, hub: &Hub, focused: impl FnOnce() -> Option<String>) {
        let batch = hub.since(self.cursor);
        if let Some((seq, _)) = batch.events.last() {
            self.cursor = *seq;
        }
        for (_, event) in &batch.events {
            self.panes.see(event);
        }
        if batch.lost
            && let Some(pane) = focused()
        {
            self.panes.focused(&pane);
        }
    }

    /// The most recently focused pane other than the focused one that is still open.
    pub(super) fn previous(&self, snapshot: &SessionSnapshot) -> Option<&str> {
        self.panes.previous(snapshot)
    }
}

#[cfg(test)]
mod tests {
    use herdr_protocol::api::Event;
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
        hub.publish((0..herdr_session::events::RING_CAPACITY + 1).map(|_| focus("w1:p2")));
        recent.catch_up(&hub, || Some("w1:p3".to_owned()));
        assert_eq!(recent.panes.panes().collect::<Vec<_>>(), ["w1:p3", "w1:p2", "w1:p1"]);
    }
}
