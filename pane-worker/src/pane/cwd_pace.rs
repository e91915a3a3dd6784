//! How often output makes the worker look at its program's working directory. A look is a
//! `readlink` of `/proc/<pid>/cwd` (about 11 µs here, more than the rest of a spinner frame's
//! syscalls together), and a program that is the pane's own foreground (an agent started as
//! the pane's program, `exec`'d tools) would pay it on every output turn. Output that follows
//! input by less than [`AFTER_INPUT`] looks every time, as before: a `cd` typed (or sent through
//! the API) is what moves a directory, and whatever acts on the pane's directory next (a split
//! that follows it, a `type = "shell"` command) must see it as soon as the prompt does. Other
//! output looks at most once per [`CWD_LOOK_INTERVAL`]; output inside the interval makes one
//! look due at its end, so a directory a program changes by itself still shows within it.
//! A pure, clock-driven type: the caller gives `now`.
//!
//! Not here: the look itself (`Pane::report_live_cwd`), when a look is worth it at all (only
//! while the program itself has the terminal).

use std::time::Duration;

use tokio::time::Instant;

/// At most one look per this long while output keeps coming and nobody typed.
pub(crate) const CWD_LOOK_INTERVAL: Duration = Duration::from_millis(250);

/// For this long after input was written to the program, every output turn looks.
pub(crate) const AFTER_INPUT: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
pub(crate) struct CwdPace {
    last: Option<Instant>,
    /// A look owed for output that came inside the interval.
    due: Option<Instant>,
    /// When input was last written to the program.
    input: Option<Instant>,
}

impl CwdPace {
    /// Input was written to the program at `now`.
    pub(crate) fn input(&mut self, now: Instant) {
        self.input = Some(now);
    }

    /// Output came at `now`: whether to look now. If not, a look is due at [`Self::at`].
    pub(crate) fn output(&mut self, now: Instant) -> bool {
        let answering_input = self.input.is_some_and(|at| now < at + AFTER_INPUT);
        match self.last {
            Some(last) if !answering_input && now < last + CWD_LOOK_INTERVAL => {
                self.due = Some(last + CWD_LOOK_INTERVAL);
                false
            }
            _ => {
                self.looked(now);
                true
            }
        }
    }

    /// When the owed look is due; `None` while none is owed.
    pub(crate) fn at(&self) -> Option<Instant> {
        self.due
    }

    /// A look happened at `now`: nothing is owed, and the interval counts from here.
    pub(crate) fn looked(&mut self, now: Instant) {
        self.last = Some(now);
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_looks_once_per_interval_and_owes_one_look_for_the_rest() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut pace = CwdPace::default();
        assert!(pace.output(t0), "the first output looks");
        assert_eq!(pace.at(), None);
        // A spinner's frames inside the interval do not look; the last one is still covered.
        assert!(!pace.output(t0 + ms(16)));
        assert!(!pace.output(t0 + ms(200)));
        assert_eq!(pace.at(), Some(t0 + CWD_LOOK_INTERVAL));
        // Output at the interval's end looks itself and pays the debt.
        assert!(pace.output(t0 + CWD_LOOK_INTERVAL));
        assert_eq!(pace.at(), None);
        // The owed look, taken by the timer, starts the next interval.
        let t1 = t0 + CWD_LOOK_INTERVAL + ms(10);
        assert!(!pace.output(t1));
        let due = pace.at().expect("a look is owed");
        pace.looked(due);
        assert_eq!(pace.at(), None);
        assert!(!pace.output(due + ms(1)), "inside the interval the timer's look started");
        assert!(pace.output(due + CWD_LOOK_INTERVAL));
    }

    #[test]
    fn output_answering_input_looks_every_time() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut pace = CwdPace::default();
        assert!(pace.output(t0));
        assert!(!pace.output(t0 + ms(10)));
        // `cd work` typed: its echo and the prompt after it each look, and pay the debt.
        pace.input(t0 + ms(20));
        assert!(pace.output(t0 + ms(21)));
        assert_eq!(pace.at(), None);
        assert!(pace.output(t0 + ms(30)));
        assert!(pace.output(t0 + ms(20) + AFTER_INPUT - ms(1)));
        // Once the input is a second old, output is paced again from the last look.
        let last = t0 + ms(19) + AFTER_INPUT;
        assert!(!pace.output(last + ms(1)));
        assert_eq!(pace.at(), Some(last + CWD_LOOK_INTERVAL));
    }
}
