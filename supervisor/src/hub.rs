//! The event hub: the session's ring of the last lifecycle events, each with a sequence number
//! (`herdr_session::events::Ring`), under a lock. Subscribers and waiters sleep on a watch
//! channel and read what is new since their cursor; nothing polls.
//!
//! Resumable events (an extension to protocol 22): each event line of `events.subscribe` carries
//! its sequence number as `seq`, and a subscribe with `after_seq` first replays the ring after it
//! ([`Hub::resume`]). Sequence numbers restart with every supervisor process, so each hub also has
//! an [`Hub::epoch`], a random id of this run, that the subscribe ack names: a cursor from
//! another epoch cannot be resumed and is answered as truncated.

use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, PoisonError};

use herdr_protocol::api::Event;
use herdr_session::events::{Batch, Resume, Ring};
use tokio::sync::watch;

#[derive(Debug)]
pub struct Hub {
    ring: Mutex<Ring>,
    latest: watch::Sender<u64>,
    epoch: String,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let epoch = format!("{:016x}", RandomState::new().hash_one((std::process::id(), nanos)));
        Self { ring: Mutex::new(Ring::new()), latest: watch::channel(0).0, epoch }
    }

    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        let mut ring = self.ring();
        let last = events.into_iter().map(|event| ring.push(event)).last();
        drop(ring);
        if let Some(seq) = last {
            self.latest.send_replace(seq);
        }
    }

    /// This run's id: sequence numbers of another epoch mean nothing here.
    pub fn epoch(&self) -> &str {
        &self.epoch
    }

    /// The sequence number of the newest event (0 before any).
    pub fn cursor(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Events with a sequence number greater than `cursor`.
    pub fn since(&self, cursor: u64) -> Batch {
        self.ring().since(cursor)
    }

    /// Where a subscriber that saw everything up to `after_seq` (in `epoch`, when it says)
    /// resumes ([`Ring::resume`]; a cursor of another epoch is from another run).
    pub fn resume(&self, after_seq: u64, epoch: Option<&str>) -> Resume {
        self.ring().resume(after_seq, epoch.is_some_and(|e| e != self.epoch))
    }

    /// Wakes whenever events are published.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use herdr_session::events::RING_CAPACITY;

    use super::*;

    fn focus(n: usize) -> Event {
        Event::PaneFocused { pane_id: format!("w1:p{n}"), workspace_id: "w1".into() }
    }

    #[test]
    fn publishing_moves_the_cursor_and_wakes_watchers() {
        let hub = Hub::new();
        let mut watch = hub.watch();
        hub.publish((0..10).map(focus));
        assert_eq!(hub.cursor(), 10);
        assert!(watch.has_changed().expect("hub alive"));
        assert_eq!(hub.since(7).events.len(), 3);
        hub.publish(std::iter::empty());
        watch.mark_unchanged();
        assert!(!watch.has_changed().expect("hub alive"), "nothing published, no wake");
    }

    #[test]
    fn a_cursor_of_another_epoch_resumes_truncated() {
        let hub = Hub::new();
        hub.publish((0..RING_CAPACITY + 5).map(focus));
        let newest = (RING_CAPACITY + 5) as u64;
        assert_eq!(
            hub.resume(5, Some(hub.epoch())),
            Resume { cursor: 5, truncated: false, first_available_seq: 6 }
        );
        assert_eq!(
            hub.resume(newest, Some("elsewhere")),
            Resume { cursor: 5, truncated: true, first_available_seq: 6 }
        );
        assert_ne!(Hub::new().epoch(), hub.epoch());
    }
}
