//! The session core hands pane output to the client side it was made with, never naming it.

use std::sync::Mutex;

use super::*;

/// A client side that writes down what the core handed it.
#[derive(Debug, Default)]
struct Recorded(Mutex<Vec<(&'static str, PaneKey)>>);

impl ClientSide for Recorded {
    fn pane_damage(&self, key: PaneKey, _: GridDamage) {
        self.0.lock().expect("lock").push(("damage", key));
    }
    fn pane_bell(&self, _: &Shared, key: PaneKey) {
        self.0.lock().expect("lock").push(("bell", key));
    }
    fn pane_gone(&self, key: PaneKey) {
        self.0.lock().expect("lock").push(("gone", key));
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[test]
fn bells_and_ended_panes_reach_the_registered_client_side() {
    let recorded = Arc::new(Recorded::default());
    let shared = Shared::with_clients(ServerConfig::for_tests(), recorded.clone());
    let created = shared.session().handle_json("workspace.create", serde_json::json!({"focus": true}));
    assert!(matches!(created, Some(Ok(_))), "{created:?}");
    let key = shared.session().focused_pane().expect("a focused pane");
    let observer = shared.observer();
    observer.worker_event(key, WorkerEvent::Bell);
    assert_eq!(*recorded.0.lock().expect("lock"), [("bell", key)]);
    observer.pane_gone(key, Gone::Exited { code: Some(0), signal: None });
    assert_eq!(*recorded.0.lock().expect("lock"), [("bell", key), ("gone", key)]);
    assert!(shared.session().pane_keys().is_empty(), "the pane left the layout");
}
