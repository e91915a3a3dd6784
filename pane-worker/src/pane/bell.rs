//! The bell's rate limit on the link: a program may ring BEL thousands of times a second (a
//! runaway `yes $'\a'`, a test suite beeping per failure), and every bell would otherwise be a
//! frame to the supervisor. A pure, clock-driven type: the caller gives `now`.
//!
//! Not here: noticing a bell (`engine`), what the supervisor does with it.

use std::time::{Duration, Instant};

/// At most one bell per pane this often; the bells in between are dropped, not delayed (the
/// user already heard one).
pub(crate) const BELL_INTERVAL: Duration = Duration::from_millis(100);

#[derive(Debug, Default)]
pub(crate) struct BellLimit {
    last: Option<Instant>,
}

impl BellLimit {
    /// Whether a bell rung at `now` goes to the supervisor.
    pub(crate) fn admit(&mut self, now: Instant) -> bool {
        if self.last.is_some_and(|at| now.saturating_duration_since(at) < BELL_INTERVAL) {
            return false;
        }
        self.last = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bell_per_interval_passes_and_the_rest_are_dropped() {
        let t0 = Instant::now();
        let mut limit = BellLimit::default();
        assert!(limit.admit(t0));
        assert!(!limit.admit(t0 + Duration::from_millis(1)));
        assert!(!limit.admit(t0 + Duration::from_millis(99)));
        // The interval counts from the last bell sent, not the last one dropped.
        assert!(limit.admit(t0 + BELL_INTERVAL));
        assert!(!limit.admit(t0 + BELL_INTERVAL + Duration::from_millis(50)));
        assert!(limit.admit(t0 + Duration::from_secs(5)));
    }
}
