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

/// Keys typed while no server is connected, handed to the next one if it answers soon. A live
/// handoff drops every terminal client and the new supervisor welcomes it back a few hundred
/// milliseconds later; keys typed in that gap (a `q` for the `top` that is still on screen)
/// used to vanish. After a longer outage the user has been looking at the reconnect notice,
/// and what they typed blind is not sent: nothing older than [`HELD_INPUT_MAX_AGE`] is kept,
/// and at most [`HELD_INPUT_MAX_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct HeldInput {
    since: Option<Instant>,
    bytes: Vec<u8>,
}

/// How long typed keys wait for the next server.
pub(crate) const HELD_INPUT_MAX_AGE: Duration = Duration::from_secs(2);
/// How much typed input waits for the next server (a paste beyond it is dropped whole).
pub(crate) const HELD_INPUT_MAX_BYTES: usize = 4096;

impl HeldInput {
    /// Keeps `bytes` typed at `now`, unless that would go past the byte limit.
    pub(crate) fn hold(&mut self, now: Instant, bytes: &[u8]) {
        if self.since.is_some_and(|since| now.saturating_duration_since(since) > HELD_INPUT_MAX_AGE) {
            // The outage outlived the hold: start over with what is typed now.
            self.bytes.clear();
            self.since = None;
        }
        if self.bytes.len() + bytes.len() > HELD_INPUT_MAX_BYTES {
            return;
        }
        self.since.get_or_insert(now);
        self.bytes.extend_from_slice(bytes);
    }

    /// What to send to a server welcomed at `now`: everything held, if its first key is recent
    /// enough; empties the hold either way.
    pub(crate) fn take(&mut self, now: Instant) -> Option<Vec<u8>> {
        let since = self.since.take()?;
        let bytes = std::mem::take(&mut self.bytes);
        (now.saturating_duration_since(since) <= HELD_INPUT_MAX_AGE && !bytes.is_empty()).then_some(bytes)
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

    #[test]
    fn keys_typed_during_a_short_gap_reach_the_next_server() {
        let t0 = Instant::now();
        let mut held = HeldInput::default();
        assert_eq!(held.take(t0), None, "nothing typed");
        held.hold(t0, b"q");
        held.hold(t0 + Duration::from_millis(100), b"\r");
        assert_eq!(held.take(t0 + Duration::from_millis(400)), Some(b"q\r".to_vec()));
        assert_eq!(held.take(t0 + Duration::from_millis(400)), None, "sent once");
    }

    #[test]
    fn keys_typed_blind_during_a_long_outage_are_not_sent() {
        let t0 = Instant::now();
        let mut held = HeldInput::default();
        held.hold(t0, b"rm -rf build");
        assert_eq!(held.take(t0 + HELD_INPUT_MAX_AGE + Duration::from_millis(1)), None);
        // Typed long after the first key: the stale part goes, the fresh part is kept.
        held.hold(t0, b"old");
        held.hold(t0 + Duration::from_secs(10), b"new");
        assert_eq!(held.take(t0 + Duration::from_secs(10)), Some(b"new".to_vec()));
    }

    #[test]
    fn a_paste_past_the_limit_is_not_held() {
        let t0 = Instant::now();
        let mut held = HeldInput::default();
        held.hold(t0, b"ab");
        held.hold(t0, &vec![b'x'; HELD_INPUT_MAX_BYTES]);
        assert_eq!(held.take(t0), Some(b"ab".to_vec()), "what fitted is kept, the paste is not cut");
    }
}
