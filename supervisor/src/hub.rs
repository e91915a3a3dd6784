//! The event hub: a ring of the last [`RING_CAPACITY`] lifecycle events, each with a sequence
//! number. Subscribers and waiters sleep on a watch channel and read what is new since their
//! cursor; nothing polls.
//!
//! Resumable events (an extension to protocol 22): each event line of `events.subscribe` carries
//! its sequence number as `seq`, and a subscribe with `after_seq` first replays the ring after it
//! ([`Hub::resume`]). Sequence numbers restart with every supervisor process, so each hub also has
//! an [`Hub::epoch`], a random id of this run, that the subscribe ack names: a cursor from
//! another epoch cannot be resumed and is answered as truncated.

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError};

use herdr_protocol::api::Event;
use tokio::sync::watch;

/// Events the ring keeps for resuming subscribers.
pub const RING_CAPACITY: usize = 4096;

#[derive(Debug)]
pub struct Hub {
    ring: Mutex<Ring>,
    latest: watch::Sender<u64>,
    epoch: String,
}

#[derive(Debug, Default)]
struct Ring {
    /// Contiguous sequence numbers, oldest first.
    events: VecDeque<(u64, Arc<Event>)>,
    next_seq: u64,
}

impl Ring {
    /// The oldest sequence number still held (the next one when the ring is empty).
    fn oldest(&self) -> u64 {
        self.events.front().map_or(self.next_seq, |(seq, _)| *seq)
    }
}

/// What a reader got: the events after its cursor, and whether older ones it never saw were
/// already pushed out of the ring.
#[derive(Debug)]
pub struct Batch {
    pub events: Vec<(u64, Arc<Event>)>,
    pub lost: bool,
}

/// Where a resuming subscriber starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    /// Replay the events after this sequence number.
    pub cursor: u64,
    /// Events the subscriber asked for are gone (pushed out of the ring, or from another run);
    /// the replay starts at `first_available_seq`.
    pub truncated: bool,
    pub first_available_seq: u64,
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
        Self {
            ring: Mutex::new(Ring { events: VecDeque::new(), next_seq: 1 }),
            latest: watch::channel(0).0,
            epoch,
        }
    }

    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        let mut ring = self.ring();
        let mut last = None;
        for event in events {
            let seq = ring.next_seq;
            ring.next_seq += 1;
            if ring.events.len() == RING_CAPACITY {
                ring.events.pop_front();
            }
            ring.events.push_back((seq, Arc::new(event)));
            last = Some(seq);
        }
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
        let ring = self.ring();
        let oldest = ring.oldest();
        // Sequence numbers are contiguous, so the first one wanted is found by arithmetic.
        let skip = usize::try_from((cursor + 1).saturating_sub(oldest)).unwrap_or(usize::MAX);
        let events = ring.events.iter().skip(skip).cloned().collect();
        Batch { events, lost: cursor + 1 < oldest }
    }

    /// Where a subscriber that saw everything up to `after_seq` (in `epoch`, when it says)
    /// resumes: right after it when the ring still holds the next event, else at the oldest
    /// event held, marked truncated. A cursor past the newest event, or another epoch, is from
    /// another run of the supervisor: everything held is replayed, truncated.
    pub fn resume(&self, after_seq: u64, epoch: Option<&str>) -> Resume {
        let ring = self.ring();
        let oldest = ring.oldest();
        let newest = ring.next_seq - 1;
        let other_run = epoch.is_some_and(|e| e != self.epoch) || after_seq > newest;
        if other_run || after_seq + 1 < oldest {
            return Resume { cursor: oldest - 1, truncated: true, first_available_seq: oldest };
        }
        Resume { cursor: after_seq, truncated: false, first_available_seq: oldest }
    }

    /// Wakes whenever events are published.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn focus(n: usize) -> Event {
        Event::PaneFocused { pane_id: format!("w1:p{n}"), workspace_id: "w1".into() }
    }

    #[test]
    fn since_returns_exactly_the_events_after_the_cursor() {
        let hub = Hub::new();
        hub.publish((0..10).map(focus));
        let seqs: Vec<u64> = hub.since(7).events.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [8, 9, 10]);
        assert!(hub.since(10).events.is_empty());
        assert!(!hub.since(0).lost);
    }

    #[test]
    fn resume_after_the_ring_is_truncated_with_the_first_available_seq() {
        let hub = Hub::new();
        hub.publish((0..RING_CAPACITY + 5).map(focus));
        let newest = (RING_CAPACITY + 5) as u64;
        assert_eq!(
            hub.resume(newest - 3, None),
            Resume { cursor: newest - 3, truncated: false, first_available_seq: 6 }
        );
        assert_eq!(
            hub.resume(5, Some(hub.epoch())),
            Resume { cursor: 5, truncated: false, first_available_seq: 6 }
        );
        assert_eq!(hub.resume(4, None), Resume { cursor: 5, truncated: true, first_available_seq: 6 });
        // Another run: a cursor from the future, or another epoch.
        assert!(hub.resume(newest + 1, None).truncated);
        assert_eq!(
            hub.resume(newest, Some("elsewhere")),
            Resume { cursor: 5, truncated: true, first_available_seq: 6 }
        );
        assert_ne!(Hub::new().epoch(), hub.epoch());
    }
}
