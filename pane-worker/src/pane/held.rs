//! Held start failures: a pane restored from `session.json` (`hold_failure`) whose program cannot
//! start (its directory is gone, its executable missing) or fails within
//! [`HOLD_FAILURE_WINDOW_MS`] stays in the layout showing why, instead of vanishing from the
//! user's saved layout. What counts as failing at once and the messages are pure; [`Pane::hold`]
//! shows and reports the failure.
//!
//! Not here: what a held pane answers (`requests`), when it ends (`Shutdown`, the orphan timeout).

use std::time::Duration;

use herdr_protocol::ipc::{HOLD_FAILURE_WINDOW_MS, WorkerEvent};
use tokio::time::Instant;

use super::{Life, Pane};
use crate::{WorkerError, program::ExitStatus};

/// What the error line in the pane adds to the message: where the user goes from here.
const ADVICE: &str = "the pane keeps its saved directory; fix it and restart the server, or close the pane";

/// Holds a program's early failure for a pane started with `hold_failure`.
#[derive(Debug, Clone)]
pub struct HoldPolicy {
    program: String,
    cwd: String,
    /// A failure after this is an ordinary exit.
    until: Instant,
}

impl HoldPolicy {
    /// For `program` started in `cwd` at `started`.
    pub fn new(program: String, cwd: String, started: Instant) -> Self {
        Self { program, cwd, until: started + Duration::from_millis(HOLD_FAILURE_WINDOW_MS) }
    }

    pub fn until(&self) -> Instant {
        self.until
    }

    /// The message for a program that could not be started at all.
    pub fn could_not_start(&self, reason: &str) -> String {
        format!("could not start {} in {}: {reason}", self.program, self.cwd)
    }

    /// The message to hold when the program ending now with `status` is a failure at once.
    pub fn failure(&self, status: ExitStatus) -> Option<String> {
        self.failure_at(Instant::now(), status)
    }

    fn failure_at(&self, now: Instant, status: ExitStatus) -> Option<String> {
        if now >= self.until {
            return None;
        }
        let how = match (status.code, status.signal) {
            (_, Some(signal)) => format!("was killed by signal {signal}"),
            (Some(code), None) if code != 0 => format!("exited with status {code}"),
            // Success, or a status nobody could know: not a failure to hold.
            _ => return None,
        };
        Some(format!("{} in {} {how} right after starting", self.program, self.cwd))
    }
}

/// The error line fed into the pane's terminal: on a line of its own, red, with the advice.
fn shown(message: &str, after_output: bool) -> String {
    let lead = if after_output { "\r\n" } else { "" };
    format!("\x1b[0m{lead}\x1b[1;31mherdr: {message} ({ADVICE})\x1b[0m\r\n")
}

impl Pane {
    /// Turns the pane into a held failure: the error line goes into the terminal after whatever
    /// the program printed, the supervisor hears `StartFailed`, and the pane stays until closed.
    pub fn hold(&mut self, message: String) -> Result<(), WorkerError> {
        let printed = self.engine.revision() > 0;
        self.engine.feed(shown(&message, printed).as_bytes());
        let status = match &self.life {
            Life::Held { status, .. } => *status,
            Life::Running(_) | Life::Ended(_) => ExitStatus::default(),
        };
        self.life = Life::Held { message: message.clone(), status };
        self.event(WorkerEvent::StartFailed { message })?;
        self.recheck_waits()?;
        self.screen_changed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: Option<i32>, signal: Option<i32>) -> ExitStatus {
        ExitStatus { code, signal }
    }

    #[test]
    fn only_failures_inside_the_window_are_held() {
        let t0 = Instant::now();
        let policy = HoldPolicy::new("/bin/foo".into(), "/srv".into(), t0);
        let soon = t0 + Duration::from_millis(100);
        assert_eq!(
            policy.failure_at(soon, status(Some(1), None)).as_deref(),
            Some("/bin/foo in /srv exited with status 1 right after starting")
        );
        assert_eq!(
            policy.failure_at(soon, status(None, Some(9))).as_deref(),
            Some("/bin/foo in /srv was killed by signal 9 right after starting")
        );
        assert_eq!(policy.failure_at(soon, status(Some(0), None)), None, "success is an exit");
        assert_eq!(policy.failure_at(soon, status(None, None)), None, "unknown is not a failure");
        let late = t0 + Duration::from_millis(HOLD_FAILURE_WINDOW_MS);
        assert_eq!(policy.failure_at(late, status(Some(1), None)), None, "a late failure is an exit");
    }

    #[test]
    fn the_error_line_stands_alone_in_red() {
        let line = shown("could not start sh in /gone: No such file or directory", false);
        assert_eq!(
            line,
            "\x1b[0m\x1b[1;31mherdr: could not start sh in /gone: No such file or directory \
             (the pane keeps its saved directory; fix it and restart the server, or close the pane)\x1b[0m\r\n"
        );
        assert!(shown("x", true).starts_with("\x1b[0m\r\n"));
        let policy = HoldPolicy::new("sh".into(), "/gone".into(), Instant::now());
        assert_eq!(
            policy.could_not_start("No such file or directory"),
            "could not start sh in /gone: No such file or directory"
        );
    }
}
