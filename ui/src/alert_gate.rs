//! Rate limits for agent alerts, as a pure clock-driven type (every call is given `now`):
//!
//! - the same pane and kind again while its toast would still show is dropped whole (no second
//!   toast, no second bell);
//! - alerts from several panes within [`BURST_WINDOW`] of the first become one toast whose title
//!   counts them ("3 agents need attention"), replacing the one on screen instead of flickering
//!   through each;
//! - OSC 9 / desktop notifications reach a pane at most once per [`NOTICE_INTERVAL`];
//! - the bell rings at most once per [`BURST_WINDOW`], whether an alert or a pane's program
//!   ([`AlertGate::admit_bell`]) rang it.
//!
//! It also remembers which panes alerted most recently, for `prefix+o` (open the notification's
//! target). Not here: deciding that a status change deserves an alert ([`crate::alert::decide`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::alert::{Alert, AlertKind, Delivery};

/// Alerts from other panes this soon after the first of a burst join its toast.
pub const BURST_WINDOW: Duration = Duration::from_secs(1);
/// At most one OSC 9 or desktop notification per pane this often.
pub const NOTICE_INTERVAL: Duration = Duration::from_secs(10);
/// How many alerted panes `prefix+o` can walk back through.
const RECENT_LIMIT: usize = 32;

/// The panes of a burst of toasts.
#[derive(Debug, Clone)]
struct Burst {
    started: Instant,
    panes: Vec<String>,
    /// Whether every alert of the burst was a finish (else someone needs attention).
    all_finished: bool,
}

#[derive(Debug, Clone)]
pub struct AlertGate {
    /// How long a toast stays: a repeat within it is dropped.
    toast_lifetime: Duration,
    announced: HashMap<(String, AlertKind), Instant>,
    noticed: HashMap<String, Instant>,
    last_bell: Option<Instant>,
    burst: Option<Burst>,
    /// Alerted panes, oldest first.
    recent: Vec<String>,
}

impl AlertGate {
    pub fn new(toast_lifetime: Duration) -> AlertGate {
        AlertGate {
            toast_lifetime,
            announced: HashMap::new(),
            noticed: HashMap::new(),
            last_bell: None,
            burst: None,
            recent: Vec::new(),
        }
    }

    /// What of `alert` (about `kind` for `pane_id`) to deliver at `now`: `None` when nothing is
    /// left (a repeat, or every channel limited away).
    pub fn admit(&mut self, now: Instant, pane_id: &str, kind: AlertKind, mut alert: Alert) -> Option<Alert> {
        self.remember(pane_id);
        let within = |at: &Instant, limit: Duration| now.saturating_duration_since(*at) < limit;
        let lifetime = self.toast_lifetime;
        self.announced.retain(|_, at| within(at, lifetime));
        self.noticed.retain(|_, at| within(at, NOTICE_INTERVAL));
        let key = (pane_id.to_owned(), kind);
        if self.announced.contains_key(&key) {
            return None;
        }
        self.announced.insert(key, now);
        match alert.delivery {
            Some(Delivery::Herdr) => {
                if let Some(title) = self.join_burst(now, pane_id, kind) {
                    alert.title = title;
                    alert.body = None;
                }
            }
            Some(Delivery::Terminal | Delivery::System) => {
                if self.noticed.contains_key(pane_id) {
                    alert.delivery = None;
                } else {
                    self.noticed.insert(pane_id.to_owned(), now);
                }
            }
            None => {}
        }
        if alert.sound {
            alert.sound = self.admit_bell(now);
        }
        (alert.delivery.is_some() || alert.sound).then_some(alert)
    }

    /// Whether a bell rung at `now` reaches the client: one per [`BURST_WINDOW`], shared by
    /// alerts and pane bells so that a program ringing while an agent alert rings is one bell.
    pub fn admit_bell(&mut self, now: Instant) -> bool {
        if self.last_bell.is_some_and(|at| now.saturating_duration_since(at) < BURST_WINDOW) {
            return false;
        }
        self.last_bell = Some(now);
        true
    }

    /// Adds a toast to the burst under way, or starts one; the summary title when the burst
    /// now has more than one pane.
    fn join_burst(&mut self, now: Instant, pane_id: &str, kind: AlertKind) -> Option<String> {
        let finished = kind == AlertKind::Finished;
        let ongoing = self.burst.as_mut().filter(|b| now.saturating_duration_since(b.started) < BURST_WINDOW);
        let Some(burst) = ongoing else {
            self.burst =
                Some(Burst { started: now, panes: vec![pane_id.to_owned()], all_finished: finished });
            return None;
        };
        if !burst.panes.iter().any(|p| p == pane_id) {
            burst.panes.push(pane_id.to_owned());
        }
        burst.all_finished &= finished;
        let n = burst.panes.len();
        (n > 1).then(|| {
            if burst.all_finished {
                format!("{n} agents finished")
            } else {
                format!("{n} agents need attention")
            }
        })
    }

    fn remember(&mut self, pane_id: &str) {
        self.recent.retain(|p| p != pane_id);
        self.recent.push(pane_id.to_owned());
        if self.recent.len() > RECENT_LIMIT {
            self.recent.remove(0);
        }
    }

    /// The most recently alerted pane for which `open` holds (it still exists), forgotten so
    /// that the next call goes one further back. Panes for which it fails are forgotten too.
    pub fn take_latest(&mut self, open: impl Fn(&str) -> bool) -> Option<String> {
        while let Some(pane) = self.recent.pop() {
            if open(&pane) {
                return Some(pane);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIFETIME: Duration = Duration::from_secs(4);

    fn alert(title: &str, delivery: Option<Delivery>) -> Alert {
        Alert {
            title: title.into(),
            body: Some("api · 1".into()),
            delivery,
            position: "bottom-right".into(),
            sound: true,
        }
    }

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn the_same_pane_and_kind_does_not_refire_while_its_toast_shows() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        let herdr = Some(Delivery::Herdr);
        let first = gate.admit(t0, "p1", AlertKind::NeedsAttention, alert("claude needs attention", herdr));
        assert_eq!(first.as_ref().map(|a| a.title.as_str()), Some("claude needs attention"));
        assert_eq!(gate.admit(t0 + secs(2.0), "p1", AlertKind::NeedsAttention, alert("x", herdr)), None);
        // Another kind for the same pane is news.
        let done = gate.admit(t0 + secs(2.5), "p1", AlertKind::Finished, alert("claude finished", herdr));
        assert!(done.is_some());
        // Once the toast would be gone, the same alert fires again.
        let again = gate.admit(t0 + secs(4.5), "p1", AlertKind::NeedsAttention, alert("again", herdr));
        assert_eq!(again.map(|a| a.title), Some("again".to_owned()));
    }

    #[test]
    fn a_burst_from_several_panes_becomes_one_counting_toast() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        let herdr = Some(Delivery::Herdr);
        let a = gate.admit(t0, "p1", AlertKind::NeedsAttention, alert("claude needs attention", herdr));
        assert_eq!(a.map(|a| a.title), Some("claude needs attention".to_owned()));
        let b = gate.admit(t0 + secs(0.3), "p2", AlertKind::Finished, alert("codex finished", herdr));
        let b = b.expect("the summary replaces the toast");
        assert_eq!((b.title.as_str(), b.body), ("2 agents need attention", None));
        assert!(!b.sound, "one bell per burst");
        let c = gate.admit(t0 + secs(0.9), "p3", AlertKind::NeedsAttention, alert("pi", herdr));
        assert_eq!(c.map(|a| a.title), Some("3 agents need attention".to_owned()));
        // After the window, a new pane starts a new burst with its own toast and bell.
        let d = gate.admit(t0 + secs(1.5), "p4", AlertKind::Finished, alert("amp finished", herdr));
        let d = d.expect("a fresh toast");
        assert_eq!(d.title, "amp finished");
        assert!(d.sound);
    }

    #[test]
    fn a_burst_of_finishes_says_finished() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        let herdr = Some(Delivery::Herdr);
        gate.admit(t0, "p1", AlertKind::Finished, alert("a finished", herdr));
        let b = gate.admit(t0 + secs(0.2), "p2", AlertKind::Finished, alert("b finished", herdr));
        assert_eq!(b.map(|a| a.title), Some("2 agents finished".to_owned()));
    }

    #[test]
    fn desktop_and_terminal_notifications_reach_a_pane_once_per_ten_seconds() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        let system = Some(Delivery::System);
        let first = gate.admit(t0, "p1", AlertKind::NeedsAttention, alert("a", system)).expect("delivered");
        assert_eq!(first.delivery, system);
        // Another kind 5 s later: no notification; the bell still rings (it is long past).
        let second = gate.admit(t0 + secs(5.0), "p1", AlertKind::Finished, alert("b", system));
        let second = second.expect("the bell is left");
        assert_eq!((second.delivery, second.sound), (None, true));
        // Other panes have their own allowance.
        let other = gate.admit(t0 + secs(5.5), "p2", AlertKind::Finished, alert("c", system));
        assert_eq!(other.and_then(|a| a.delivery), system);
        let later = gate.admit(t0 + secs(10.5), "p1", AlertKind::Finished, alert("d", system));
        assert_eq!(later.and_then(|a| a.delivery), system, "ten seconds on");
    }

    #[test]
    fn bells_are_coalesced_and_an_alert_with_nothing_left_is_dropped() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        let bell = gate.admit(t0, "p1", AlertKind::Finished, alert("a", None));
        assert!(bell.is_some_and(|a| a.sound));
        assert_eq!(gate.admit(t0 + secs(0.5), "p2", AlertKind::Finished, alert("b", None)), None);
        let rings = gate.admit(t0 + secs(1.2), "p3", AlertKind::Finished, alert("c", None));
        assert!(rings.is_some_and(|a| a.sound));
    }

    #[test]
    fn pane_bells_share_the_one_bell_per_second_with_alerts() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        assert!(gate.admit_bell(t0));
        assert!(!gate.admit_bell(t0 + secs(0.2)));
        assert!(!gate.admit_bell(t0 + secs(0.99)));
        // An alert right after a pane bell keeps its toast but not its bell.
        let herdr = Some(Delivery::Herdr);
        let toast = gate.admit(t0 + secs(0.5), "p1", AlertKind::Finished, alert("a", herdr));
        assert_eq!(toast.map(|a| (a.delivery, a.sound)), Some((herdr, false)));
        assert!(gate.admit_bell(t0 + secs(1.0)), "the window counts from the bell that rang");
        // And an alert's bell holds back a pane bell.
        let rang = gate.admit(t0 + secs(2.5), "p2", AlertKind::Finished, alert("b", None));
        assert!(rang.is_some_and(|a| a.sound));
        assert!(!gate.admit_bell(t0 + secs(3.0)));
        assert!(gate.admit_bell(t0 + secs(3.6)));
    }

    #[test]
    fn the_latest_open_alert_target_is_taken_newest_first() {
        let t0 = Instant::now();
        let mut gate = AlertGate::new(LIFETIME);
        for (i, pane) in ["p1", "p2", "p3", "p2"].iter().enumerate() {
            gate.admit(t0 + secs(i as f64 * 5.0), pane, AlertKind::Finished, alert("x", None));
        }
        // p2 alerted last; p3 is closed; then p1.
        assert_eq!(gate.take_latest(|p| p != "p3").as_deref(), Some("p2"));
        assert_eq!(gate.take_latest(|p| p != "p3").as_deref(), Some("p1"));
        assert_eq!(gate.take_latest(|_| true), None);
    }
}
