//! The pure parts of reconnecting after the supervisor went away: the retry schedule, how often
//! the caller's "no server" hook may run, and the one-line notice shown meanwhile.
//!
//! Not here: sockets, threads or the terminal (the `pump` module drives those).

use std::time::{Duration, Instant};

/// How an attached client retries after the connection ended without a `Shutdown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectPolicy {
    /// The wait before the first attempt.
    pub first_delay: Duration,
    /// The wait doubles after each failed attempt up to this.
    pub max_delay: Duration,
    /// Without a successful reconnect for this long the attach ends with `ConnectionLost`.
    pub give_up_after: Duration,
    /// The least time between two starts of the `on_server_missing` hook.
    pub hook_interval: Duration,
}

impl Default for ReconnectPolicy {
    /// A new supervisor re-adopts the panes within about two seconds, so early attempts come
    /// fast; the cap keeps a long outage from busy-looping; a minute covers a slow restart.
    fn default() -> Self {
        ReconnectPolicy {
            first_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(1),
            give_up_after: Duration::from_secs(60),
            hook_interval: Duration::from_secs(5),
        }
    }
}

/// The waits between attempts: `first`, doubling, capped at `max`.
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    pub(crate) fn new(policy: &ReconnectPolicy) -> Backoff {
        Backoff { next: policy.first_delay.min(policy.max_delay), max: policy.max_delay }
    }

    /// The wait before the next attempt.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        delay
    }
}

/// Rate limit for the hook that starts a server: starting one takes seconds, and a server that
/// dies at once must not be restarted in a tight loop.
#[derive(Debug, Clone)]
pub(crate) struct HookThrottle {
    interval: Duration,
    last_start: Option<Instant>,
}

impl HookThrottle {
    pub(crate) fn new(interval: Duration) -> HookThrottle {
        HookThrottle { interval, last_start: None }
    }

    /// Whether the hook may start at `now`; if so, `now` counts as its last start.
    pub(crate) fn try_start(&mut self, now: Instant) -> bool {
        let due = self.last_start.is_none_or(|last| now.saturating_duration_since(last) >= self.interval);
        if due {
            self.last_start = Some(now);
        }
        due
    }
}

/// What the notice says the client is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Reconnecting,
    /// The caller's hook is starting a new server.
    StartingServer,
}

pub(crate) fn notice_text(phase: Phase) -> &'static str {
    match phase {
        Phase::Reconnecting => "herdr: connection to the server lost — reconnecting… (ctrl+b q detaches)",
        Phase::StartingServer => {
            "herdr: connection to the server lost — starting a new server… (ctrl+b q detaches)"
        }
    }
}

/// The bytes that put `text` in reverse video across the whole bottom row of a `cols` × `rows`
/// terminal and leave everything above as it was. Mouse reporting goes off (nothing would
/// receive it, and it would interleave reports with the user's keys); the next server turns it
/// back on after its `Welcome`. The cursor is hidden so it does not blink at the row's end.
pub(crate) fn notice(text: &str, cols: u16, rows: u16) -> Vec<u8> {
    let mut out = crate::terminal::mouse_capture(false);
    if cols == 0 || rows == 0 {
        return out;
    }
    let cols = usize::from(cols);
    // Every character of the notice texts is one cell wide, so chars are cells.
    let mut line: String = text.chars().take(cols).collect();
    let width = line.chars().count();
    line.extend(std::iter::repeat_n(' ', cols - width));
    out.extend_from_slice(format!("\x1b[?25l\x1b[{rows};1H\x1b[0;7m{line}\x1b[0m").as_bytes());
    out
}

/// Written once a new server welcomed the client, before its first paint: the old picture and
/// the notice must not survive in cells the new server's paint does not cover.
pub(crate) const RESET_SCREEN: &[u8] = b"\x1b[0m\x1b[H\x1b[2J";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_fifty_milliseconds_to_a_one_second_cap() {
        let mut backoff = Backoff::new(&ReconnectPolicy::default());
        let waits: Vec<u64> = (0..8).map(|_| backoff.next_delay().as_millis() as u64).collect();
        assert_eq!(waits, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
    }

    #[test]
    fn a_first_delay_above_the_cap_is_capped() {
        let policy = ReconnectPolicy {
            first_delay: Duration::from_secs(5),
            max_delay: Duration::from_secs(2),
            ..ReconnectPolicy::default()
        };
        let mut backoff = Backoff::new(&policy);
        assert_eq!(backoff.next_delay(), Duration::from_secs(2));
        assert_eq!(backoff.next_delay(), Duration::from_secs(2));
    }

    #[test]
    fn the_hook_runs_at_most_once_per_interval() {
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut throttle = HookThrottle::new(Duration::from_secs(5));
        assert!(throttle.try_start(at(0)));
        assert!(!throttle.try_start(at(10)));
        assert!(!throttle.try_start(at(4_999)));
        assert!(throttle.try_start(at(5_000)));
        assert!(!throttle.try_start(at(9_000)));
        assert!(throttle.try_start(at(10_000)));
    }

    #[test]
    fn the_notice_fills_the_bottom_row_in_reverse_video() {
        let bytes = notice("abc", 6, 24);
        let mouse_off = crate::terminal::mouse_capture(false);
        assert!(bytes.starts_with(&mouse_off), "mouse reporting goes off first");
        let text = String::from_utf8(bytes[mouse_off.len()..].to_vec()).expect("utf-8");
        assert!(text.ends_with("\x1b[?25l\x1b[24;1H\x1b[0;7mabc   \x1b[0m"), "{text:?}");
    }

    #[test]
    fn a_long_notice_is_cut_at_the_last_column() {
        let text = String::from_utf8(notice(notice_text(Phase::Reconnecting), 20, 5)).expect("utf-8");
        assert!(text.ends_with("\x1b[5;1H\x1b[0;7mherdr: connection to\x1b[0m"), "{text:?}");
    }

    #[test]
    fn the_notice_says_how_to_leave() {
        for phase in [Phase::Reconnecting, Phase::StartingServer] {
            let text = notice_text(phase);
            assert!(text.starts_with("herdr: connection to the server lost"), "{text}");
            assert!(text.ends_with("(ctrl+b q detaches)"), "{text}");
        }
    }

    #[test]
    fn a_zero_sized_terminal_gets_no_notice() {
        assert_eq!(notice("abc", 0, 0), crate::terminal::mouse_capture(false));
    }
}
