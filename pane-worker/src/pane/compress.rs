//! When the pane's history pass runs (`Engine::compress_step`: the terminal's history moves
//! into the worker's archive, the archive's blocks are packed, and libghostty-vt compresses
//! whatever history pages it still holds). A pass starts once output has paused for
//! [`COMPRESS_IDLE`], or [`COMPRESS_MAX_WAIT`] after the first output since the last pass when
//! output never pauses (a spinner, a flood), and runs one bounded step per loop turn. Waiting
//! for a pause keeps a flood from packing rows the byte budget is about to drop anyway.
//! A pure, clock-driven type: the caller gives `now`.
//!
//! Not here: the compression itself (`engine`).

use std::time::Duration;

use tokio::time::Instant;

/// How long output must pause before a pass starts.
pub(crate) const COMPRESS_IDLE: Duration = Duration::from_millis(500);

/// The longest a pass waits for a pause after the history changed.
pub(crate) const COMPRESS_MAX_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Default)]
pub(crate) struct CompressTimer {
    /// The first output since the last pass finished.
    since: Option<Instant>,
    /// When the next step runs; `None` while no pass is due.
    at: Option<Instant>,
}

impl CompressTimer {
    /// Output came at `now`: the history may have changed.
    pub(crate) fn output(&mut self, now: Instant) {
        let since = *self.since.get_or_insert(now);
        self.at = Some((now + COMPRESS_IDLE).min(since + COMPRESS_MAX_WAIT));
    }

    /// When the next step is due.
    pub(crate) fn at(&self) -> Option<Instant> {
        self.at
    }

    /// A step ran at `now`: with `more` to do the next one runs at once, else the pass is over.
    pub(crate) fn stepped(&mut self, more: bool, now: Instant) {
        if more {
            self.at = Some(now);
        } else {
            *self = Self::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_waits_for_a_pause_but_not_forever() {
        let t0 = Instant::now();
        let mut timer = CompressTimer::default();
        assert_eq!(timer.at(), None);
        timer.output(t0);
        assert_eq!(timer.at(), Some(t0 + COMPRESS_IDLE));
        // Steady output keeps pushing the pass back, up to the longest wait.
        let ms = Duration::from_millis;
        timer.output(t0 + ms(400));
        assert_eq!(timer.at(), Some(t0 + ms(400) + COMPRESS_IDLE));
        timer.output(t0 + COMPRESS_MAX_WAIT - ms(100));
        assert_eq!(timer.at(), Some(t0 + COMPRESS_MAX_WAIT));
        timer.output(t0 + COMPRESS_MAX_WAIT + ms(300));
        assert_eq!(timer.at(), Some(t0 + COMPRESS_MAX_WAIT), "overdue: output does not delay it");
        // Steps follow each other; output between them does not hold the pass up once overdue.
        let t1 = t0 + COMPRESS_MAX_WAIT + ms(301);
        timer.stepped(true, t1);
        assert_eq!(timer.at(), Some(t1));
        timer.output(t1);
        assert_eq!(timer.at(), Some(t0 + COMPRESS_MAX_WAIT));
        // A finished pass: the next one counts from the next output.
        timer.stepped(false, t1);
        assert_eq!(timer.at(), None);
        timer.output(t1 + ms(5));
        assert_eq!(timer.at(), Some(t1 + ms(5) + COMPRESS_IDLE));
    }
}
