//! The event hub: a ring of the last [`RING_CAPACITY`] lifecycle events, each with a sequence
//! number that is never exposed on the wire. Subscribers and waiters sleep on a watch channel and
//! read what is new since their cursor; nothing polls.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use herdr_protocol::api::Event;
use tokio::sync::watch;

pub const RING_CAPACITY: usize = 512;

#[derive(Debug)]
pub struct Hub {
    ring: Mutex<Ring>,
    latest: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct Ring {
    events: VecDeque<(u64, Arc<Event>)>,
    next_seq: u64,
}

/// What a reader got: the events after its cursor, and whether older ones it never saw were
/// already pushed out of the ring.
#[derive(Debug)]
pub struct Batch {
    pub events: Vec<(u64, Arc<Event>)>,
    pub lost: bool,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        Self { ring: Mutex::new(Ring { events: VecDeque::new(), next_seq: 1 }), latest: watch::channel(0).0 }
    }

    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
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

    /// The sequence number of the newest event (0 before any).
    pub fn cursor(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Events with a sequence number greater than `cursor`.
    pub fn since(&self, cursor: u64) -> Batch {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let oldest = ring.events.front().map_or(ring.next_seq, |(seq, _)| *seq);
        let events = ring.events.iter().filter(|(seq, _)| *seq > cursor).cloned().collect();
        Batch { events, lost: cursor + 1 < oldest }
    }

    /// Wakes whenever events are published.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}
