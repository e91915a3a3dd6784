//! The ring of the last [`RING_CAPACITY`] events, each with a sequence number: contiguous from 1
//! for one run of the supervisor, so a reader's cursor finds what follows it by arithmetic.

use std::collections::VecDeque;
use std::sync::Arc;

use herdr_protocol::api::Event;

/// Events the ring keeps for resuming subscribers.
pub const RING_CAPACITY: usize = 4096;

#[derive(Debug)]
pub struct Ring {
    /// Contiguous sequence numbers, oldest first.
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

impl Default for Ring {
    fn default() -> Self {
        Self::new()
    }
}

impl Ring {
    /// An empty ring whose first event will be number 1.
    pub fn new() -> Ring {
        Ring { events: VecDeque::new(), next_seq: 1 }
    }

    /// The oldest sequence number still held (the next one when the ring is empty).
    fn oldest(&self) -> u64 {
        self.events.front().map_or(self.next_seq, |(seq, _)| *seq)
    }

    /// Appends `event`, pushing out the oldest one when full; returns its sequence number.
    pub fn push(&mut self, event: Event) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.events.len() == RING_CAPACITY {
            self.events.pop_front();
        }
        self.events.push_back((seq, Arc::new(event)));
        seq
    }

    /// Events with a sequence number greater than `cursor`.
    pub fn since(&self, cursor: u64) -> Batch {
        let oldest = self.oldest();
        // Sequence numbers are contiguous, so the first one wanted is found by arithmetic.
        let skip = usize::try_from((cursor + 1).saturating_sub(oldest)).unwrap_or(usize::MAX);
        let events = self.events.iter().skip(skip).cloned().collect();
        Batch { events, lost: cursor + 1 < oldest }
    }

    /// Where a subscriber that saw everything up to `after_seq` resumes: right after it when the
    /// ring still holds the next event, else at the oldest event held, marked truncated. A cursor
    /// past the newest event, or one from `another_run` (the caller compares epochs), means
    /// nothing here: everything held is replayed, truncated.
    pub fn resume(&self, after_seq: u64, another_run: bool) -> Resume {
        let oldest = self.oldest();
        let newest = self.next_seq - 1;
        if another_run || after_seq > newest || after_seq + 1 < oldest {
            return Resume { cursor: oldest - 1, truncated: true, first_available_seq: oldest };
        }
        Resume { cursor: after_seq, truncated: false, first_available_seq: oldest }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn focus(n: usize) -> Event {
        Event::PaneFocused { pane_id: format!("w1:p{n}"), workspace_id: "w1".into() }
    }

    fn ring_of(n: usize) -> Ring {
        let mut ring = Ring::new();
        for i in 0..n {
            ring.push(focus(i));
        }
        ring
    }

    #[test]
    fn since_returns_exactly_the_events_after_the_cursor() {
        let ring = ring_of(10);
        let seqs: Vec<u64> = ring.since(7).events.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [8, 9, 10]);
        assert!(ring.since(10).events.is_empty());
        assert!(!ring.since(0).lost);
    }

    #[test]
    fn resume_after_the_ring_is_truncated_with_the_first_available_seq() {
        let ring = ring_of(RING_CAPACITY + 5);
        let newest = (RING_CAPACITY + 5) as u64;
        assert!(ring.since(4).lost);
        assert_eq!(
            ring.resume(newest - 3, false),
            Resume { cursor: newest - 3, truncated: false, first_available_seq: 6 }
        );
        assert_eq!(ring.resume(5, false), Resume { cursor: 5, truncated: false, first_available_seq: 6 });
        assert_eq!(ring.resume(4, false), Resume { cursor: 5, truncated: true, first_available_seq: 6 });
        // Another run: a cursor from the future, or another epoch.
        assert!(ring.resume(newest + 1, false).truncated);
        assert_eq!(ring.resume(newest, true), Resume { cursor: 5, truncated: true, first_available_seq: 6 });
    }
}
