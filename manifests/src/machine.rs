//! The per-pane detection state machine: when to probe identity, when to scan the screen, and
//! what to publish — working→idle confirmation, startup grace, visible-blocker republish, the
//! identity drop rule and release suppression, with upstream's constants.
//!
//! Pure: time comes in as `now`, I/O goes through the caller's [`PaneView`] (called only when a
//! probe or scan is actually due). Every entry point is followed by [`Detector::poll`], which
//! returns what to publish and the ONE deadline the caller must wake up at (`None` = nothing
//! pending: an idle pane with no new output costs nothing).
//!
//! Beyond upstream: the steady identity rechecks (every 5 s with an agent, 30 s without) are only
//! made when the pane printed something since the last probe. A program starting, exiting or
//! handing the terminal to another prints (its own screen, the shell's prompt, the typed command's
//! echo), and the worker's `tcgetpgrp` on output calls [`Detector::note_foreground_changed`]; a
//! recheck of a silent pane could only find what the last one found. So a pane rechecks what it
//! printed since its last probe on the cadence while it keeps printing and once `QUIET_RECHECK`
//! (1 s) after it stops, then parks its probe timer (its next output after the cadence's time
//! probes at once), and 200 idle agents cost no wake-ups at all a second after they go quiet.

use std::time::{Duration, Instant};

use crate::agent::{Agent, AgentState};
use crate::eval::{Detection, DetectionInput};
use crate::identity::{ForegroundProcess, identify};
use crate::overrides::ManifestSet;

pub const PENDING_IDLE_RECHECK: Duration = Duration::from_millis(100);
pub const PENDING_IDLE_CONFIRMATIONS: u32 = 3;
pub const PENDING_IDLE_CAP: Duration = Duration::from_millis(700);
pub const STABLE_VISIBLE_SIGNAL_REFRESH: Duration = Duration::from_millis(800);
pub const AGENT_STARTUP_GRACE: Duration = Duration::from_secs(3);
pub const AGENT_MISS_CONFIRMATION_ATTEMPTS: u32 = 6;
pub const RELEASE_REACQUIRE_SUPPRESSION: Duration = Duration::from_secs(1);
pub const PROCESS_RECHECK_IDENTIFIED: Duration = Duration::from_secs(5);
pub const PROCESS_RECHECK_NO_AGENT: Duration = Duration::from_secs(30);
pub const ACQUISITION_WINDOW: Duration = Duration::from_secs(8);
pub const ACQUISITION_FAST_PHASE: Duration = Duration::from_millis(1500);
pub const ACQUISITION_FAST_PROBE: Duration = Duration::from_millis(500);
pub const ACQUISITION_SLOW_PROBE: Duration = Duration::from_secs(2);
/// Output is scanned after it has been quiet this long (a redraw arrives in several reads)...
pub const OUTPUT_SETTLE: Duration = Duration::from_millis(10);
/// A steady pane that printed since its last identity probe is re-probed once it has been silent
/// this long (or at the 5 s cadence if it keeps printing), and then needs no timer at all.
pub const QUIET_RECHECK: Duration = Duration::from_secs(1);
/// ...and no more often than this while it keeps streaming.
pub const MIN_SCAN_INTERVAL: Duration = Duration::from_millis(50);

/// What the pane's foreground is, as the worker probed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Foreground {
    /// The pane's own shell owns the terminal: any agent has exited.
    Shell,
    /// Another job: its process-group members (leader first).
    Job(Vec<ForegroundProcess>),
    /// Could not be determined (no foreground group, /proc unreadable).
    Unavailable,
}

/// The pane worker's I/O, called by `poll` only when needed.
pub trait PaneView {
    fn foreground(&mut self) -> Foreground;
    /// The live bottom rows (not the scrolled viewport), OSC title and OSC 9 payload.
    fn detection_text(&mut self) -> ScreenText;
}

/// Owned detection input as the worker produces it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScreenText {
    pub screen: String,
    pub osc_title: Option<String>,
    pub osc_progress: Option<String>,
}

impl ScreenText {
    pub fn input(&self) -> DetectionInput<'_> {
        DetectionInput {
            screen: &self.screen,
            osc_title: self.osc_title.as_deref(),
            osc_progress: self.osc_progress.as_deref(),
        }
    }
}

/// Why the foreground agent changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentChangeReason {
    Detected,
    Exited,
    Released,
}

/// Something the worker must send to the supervisor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Publication {
    /// The foreground agent changed. On `Detected` the worker clears its OSC title/progress
    /// evidence so the new agent does not inherit stale state.
    Agent { agent: Option<Agent>, previous: Option<Agent>, reason: AgentChangeReason },
    /// A screen verdict (the supervisor arbitrates it with hook authority).
    State(StateReport),
}

/// A screen verdict to publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateReport {
    pub agent: Option<Agent>,
    pub state: AgentState,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    /// The winning rule id (None for fallbacks and identity-driven reports).
    pub rule: Option<String>,
    /// The one-shot report when the agent's process left the foreground (forces idle).
    pub process_exited: bool,
    /// A re-assertion of an unchanged visible blocker (no state change to announce).
    pub refresh: bool,
}

/// `poll`'s answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub publish: Vec<Publication>,
    /// Call `poll` again at this instant (or earlier, on new input). None: nothing pending.
    pub wake_at: Option<Instant>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Published {
    state: AgentState,
    visible_idle: bool,
    visible_blocker: bool,
    visible_working: bool,
    /// The rule behind the verdict (repeated in refreshes; not part of "changed").
    rule: Option<String>,
    at: Instant,
}

impl Published {
    /// Nothing published yet (a new pane, or the screen state reset).
    fn unknown(at: Instant) -> Self {
        Published {
            state: AgentState::Unknown,
            visible_idle: false,
            visible_blocker: false,
            visible_working: false,
            rule: None,
            at,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct PendingIdle {
    since: Instant,
    confirmations: u32,
    next_check_at: Instant,
}

/// One pane's detector. Create it when the pane starts; feed it with `note_*`; call `poll`.
#[derive(Debug)]
pub struct Detector {
    agent: Option<Agent>,
    grace_until: Option<Instant>,
    misses: u32,
    suppressed: Option<(Agent, Instant)>,
    published: Published,
    pending_idle: Option<PendingIdle>,
    dirty_since: Option<Instant>,
    last_output_at: Option<Instant>,
    last_scan_at: Option<Instant>,
    scans_suspended: bool,
    /// The probe cadence's next time; a steady pane probes only after printing ([`Self::probe_due`]).
    next_probe_at: Instant,
    last_probe_at: Option<Instant>,
    acquisition_started: Option<Instant>,
    queued: Vec<Publication>,
}

impl Detector {
    /// A pane just started: identity is probed at the first `poll`.
    pub fn new(now: Instant) -> Self {
        Detector {
            agent: None,
            grace_until: None,
            misses: 0,
            suppressed: None,
            published: Published::unknown(now),
            pending_idle: None,
            dirty_since: None,
            last_output_at: None,
            last_scan_at: None,
            scans_suspended: false,
            next_probe_at: now,
            last_probe_at: None,
            acquisition_started: Some(now),
            queued: Vec::new(),
        }
    }

    pub fn agent(&self) -> Option<Agent> {
        self.agent
    }

    /// The last published screen state.
    pub fn state(&self) -> AgentState {
        self.published.state
    }

    /// New PTY output (or an OSC title/progress change, or a local terminal mutation).
    pub fn note_output(&mut self, now: Instant) {
        self.dirty_since.get_or_insert(now);
        self.last_output_at = Some(now);
    }

    /// The PTY's foreground process group changed (the worker checks `tcgetpgrp` on output):
    /// probe now and then on the acquisition cadence.
    pub fn note_foreground_changed(&mut self, now: Instant) {
        self.acquisition_started = Some(now);
        self.next_probe_at = now;
    }

    /// `pane.release_agent` was accepted: forget the agent and do not re-acquire it for 1 s.
    pub fn note_released(&mut self, now: Instant) {
        if let Some(previous) = self.agent.take() {
            self.suppressed = Some((previous, now + RELEASE_REACQUIRE_SUPPRESSION));
            self.reset_screen_state(now);
            self.queued.push(Publication::Agent {
                agent: None,
                previous: Some(previous),
                reason: AgentChangeReason::Released,
            });
            self.next_probe_at = now + RELEASE_REACQUIRE_SUPPRESSION;
        }
    }

    /// A live full-lifecycle hook authority owns the state: skip screen scans entirely.
    pub fn set_scans_suspended(&mut self, suspended: bool, now: Instant) {
        if self.scans_suspended && !suspended {
            self.dirty_since = Some(now);
        }
        self.scans_suspended = suspended;
        self.pending_idle = None;
    }

    /// Runs whatever is due at `now`: identity probe, screen scan, idle confirmation, blocker
    /// refresh. Returns publications and the next deadline.
    pub fn poll(&mut self, now: Instant, manifests: &ManifestSet, view: &mut impl PaneView) -> Step {
        if self.probe_due(now).is_some_and(|t| t <= now) {
            let foreground = view.foreground();
            self.apply_probe(now, foreground);
        }
        if self.scan_due().is_some_and(|t| t <= now) {
            let text = view.detection_text();
            let detection = manifests.evaluate(self.agent, &text.input());
            self.last_scan_at = Some(now);
            self.dirty_since = None;
            self.grace_until = None;
            self.apply_detection(now, &detection);
        }
        if self.refresh_due().is_some_and(|t| t <= now) {
            let mut report = self.report();
            report.refresh = true;
            self.published.at = now;
            self.queued.push(Publication::State(report));
        }
        let wake_at = [self.probe_due(now), self.scan_due(), self.refresh_due()].into_iter().flatten().min();
        Step { publish: std::mem::take(&mut self.queued), wake_at }
    }

    fn apply_probe(&mut self, now: Instant, foreground: Foreground) {
        let found = match &foreground {
            Foreground::Job(processes) => identify(processes).map(|i| i.agent),
            _ => None,
        };
        let found = found.filter(|a| !self.suppressed.is_some_and(|(s, until)| s == *a && now < until));
        match (found, self.agent) {
            (Some(agent), current) if current != Some(agent) => self.acquire(now, agent),
            (Some(_), _) => self.misses = 0,
            (None, Some(_)) if foreground == Foreground::Shell => self.exit(now),
            (None, Some(_)) => {
                self.misses += 1;
                if self.misses >= AGENT_MISS_CONFIRMATION_ATTEMPTS {
                    self.exit(now);
                }
            }
            (None, None) => {}
        }
        self.last_probe_at = Some(now);
        self.next_probe_at = now + self.probe_interval(now);
    }

    /// Past the acquisition window with no misses counting: the probes are the steady rechecks.
    fn steady(&self, now: Instant) -> bool {
        let acquiring = self.acquisition_started.is_some_and(|start| now < start + ACQUISITION_WINDOW);
        !acquiring && self.misses == 0
    }

    /// When the next identity probe runs. A steady pane probes only what it printed since its
    /// last probe: at the cadence while it keeps printing, `QUIET_RECHECK` after it stops, and
    /// never while it stays silent (parked: its next output finds the cadence's time passed).
    fn probe_due(&self, now: Instant) -> Option<Instant> {
        let next = self.next_probe_at;
        if !self.steady(now) {
            return Some(next);
        }
        match (self.last_probe_at, self.last_output_at) {
            (Some(probe), Some(output)) if output > probe => Some(next.min(output + QUIET_RECHECK)),
            (Some(_), _) => None,
            (None, _) => Some(next),
        }
    }

    fn probe_interval(&self, now: Instant) -> Duration {
        if let Some(start) = self.acquisition_started
            && now < start + ACQUISITION_WINDOW
        {
            return if now < start + ACQUISITION_FAST_PHASE {
                ACQUISITION_FAST_PROBE
            } else {
                ACQUISITION_SLOW_PROBE
            };
        }
        match self.agent {
            Some(_) if self.misses > 0 => ACQUISITION_FAST_PROBE,
            Some(_) => PROCESS_RECHECK_IDENTIFIED,
            None => PROCESS_RECHECK_NO_AGENT,
        }
    }

    fn acquire(&mut self, now: Instant, agent: Agent) {
        let previous = self.agent.replace(agent);
        self.misses = 0;
        self.grace_until = Some(now + AGENT_STARTUP_GRACE);
        self.reset_screen_state(now);
        self.queued.push(Publication::Agent {
            agent: Some(agent),
            previous,
            reason: AgentChangeReason::Detected,
        });
        self.queued.push(Publication::State(self.report()));
    }

    fn exit(&mut self, now: Instant) {
        let Some(previous) = self.agent else { return };
        // One-shot forced idle with visible_idle so the supervisor's arbitration releases the agent.
        let exited = StateReport {
            agent: Some(previous),
            state: AgentState::Idle,
            visible_idle: true,
            visible_blocker: false,
            visible_working: false,
            rule: None,
            process_exited: true,
            refresh: false,
        };
        self.queued.push(Publication::State(exited));
        self.agent = None;
        self.misses = 0;
        self.reset_screen_state(now);
        self.queued.push(Publication::Agent {
            agent: None,
            previous: Some(previous),
            reason: AgentChangeReason::Exited,
        });
    }

    fn reset_screen_state(&mut self, now: Instant) {
        self.pending_idle = None;
        if self.agent.is_none() {
            self.grace_until = None;
        }
        self.published = Published::unknown(now);
    }

    /// When the next screen scan must run, if one is pending.
    fn scan_due(&self) -> Option<Instant> {
        if self.agent.is_none() || self.scans_suspended {
            return None;
        }
        if let Some(grace) = self.grace_until {
            // The first scan after an agent appears happens when its startup grace ends.
            return Some(grace);
        }
        let output = self.dirty_since.map(|since| {
            let settled = self.last_output_at.unwrap_or(since) + OUTPUT_SETTLE;
            // A continuous stream must not starve scans: cap the wait at MIN_SCAN_INTERVAL.
            let settled = settled.min(since + MIN_SCAN_INTERVAL);
            match self.last_scan_at {
                Some(last) => settled.max(last + MIN_SCAN_INTERVAL),
                None => settled,
            }
        });
        let pending = self.pending_idle.map(|p| p.next_check_at);
        [output, pending].into_iter().flatten().min()
    }

    fn refresh_due(&self) -> Option<Instant> {
        let p = &self.published;
        (self.agent.is_some() && !self.scans_suspended && p.visible_blocker && p.state == AgentState::Blocked)
            .then_some(p.at + STABLE_VISIBLE_SIGNAL_REFRESH)
    }

    fn apply_detection(&mut self, now: Instant, detection: &Detection) {
        if detection.skip_state_update {
            self.pending_idle = None;
            return;
        }
        let plain_idle =
            detection.state == AgentState::Idle && !detection.visible_idle && !detection.visible_blocker;
        if plain_idle && self.published.state == AgentState::Working {
            match &mut self.pending_idle {
                None => {
                    self.pending_idle = Some(PendingIdle {
                        since: now,
                        confirmations: 0,
                        next_check_at: now + PENDING_IDLE_RECHECK,
                    });
                    return;
                }
                Some(p) => {
                    if now >= p.next_check_at {
                        p.confirmations += 1;
                        p.next_check_at = now + PENDING_IDLE_RECHECK;
                    }
                    let confirmed =
                        p.confirmations >= PENDING_IDLE_CONFIRMATIONS || now >= p.since + PENDING_IDLE_CAP;
                    if !confirmed {
                        return;
                    }
                }
            }
        }
        self.pending_idle = None;
        let p = &self.published;
        let changed = (p.state, p.visible_idle, p.visible_blocker, p.visible_working)
            != (
                detection.state,
                detection.visible_idle,
                detection.visible_blocker,
                detection.visible_working,
            );
        if changed {
            self.published = Published {
                state: detection.state,
                visible_idle: detection.visible_idle,
                visible_blocker: detection.visible_blocker,
                visible_working: detection.visible_working,
                rule: detection.matched_rule.as_ref().map(|r| r.id.clone()),
                at: now,
            };
            self.queued.push(Publication::State(self.report()));
        }
    }

    fn report(&self) -> StateReport {
        StateReport {
            agent: self.agent,
            state: self.published.state,
            visible_idle: self.published.visible_idle,
            visible_blocker: self.published.visible_blocker,
            visible_working: self.published.visible_working,
            rule: self.published.rule.clone(),
            process_exited: false,
            refresh: false,
        }
    }
}
