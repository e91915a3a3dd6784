//! The pane's agent detection: drives `herdr_manifests::Detector` with this pane's live facts —
//! the PTY's foreground process group read through `/proc`, the live screen's text, the OSC
//! title/progress — and turns what it publishes into `AgentIdentity` / `ScreenState` events.
//!
//! Cost model: nothing runs unless output arrives, a request asks, or the detector's one deadline
//! comes due. A pane whose own program (its shell) is in front with no agent arms no timer at all:
//! a foreground change is noticed by the `tcgetpgrp` check made on every output batch, and a due
//! probe still runs then. Only the identified agent's manifest is compiled, when it is first
//! identified (and again when a different agent takes over), so shell-only panes pay nothing and
//! an agent pane pays for one manifest, not all of them.
//!
//! Not here: hook arbitration and `done` (the supervisor's), the evaluation rules (the manifests
//! crate), the event loop (`pane`).

use std::{
    fs,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use herdr_manifests::{
    Agent, AgentChangeReason, AgentState, Detector, Foreground, ManifestSet, OverrideFile, PaneView,
    Publication, ScreenText, StateReport, effective_manifests_for, identify, machine::ACQUISITION_FAST_PHASE,
};
use herdr_protocol::{
    ipc::{DetectedState, IdentityReason, ReadFormat, ReadSource, ReadSpec, ScreenState, WorkerEvent},
    paths,
};

use crate::{engine::Engine, osc::OscTracker, procinfo};

/// Sub-directory of the config dir holding per-agent manifest overrides.
pub const OVERRIDES_DIR_NAME: &str = "agent-detection";

/// Least time between identity probes forced by output while the foreground settles.
const FORCED_PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// Why explain reports skipped screen detection while scans are suspended.
const SKIP_REASON_FULL_LIFECYCLE: &str = "full_lifecycle_hook_authority";

pub struct PaneDetection {
    detector: Detector,
    /// The manifest of `manifests_for` only (empty until an agent is identified); see
    /// `ensure_manifests`.
    manifests: ManifestSet,
    manifests_for: Option<Agent>,
    /// `<config dir>/agent-detection`, if the config dir is known.
    overrides_dir: Option<PathBuf>,
    osc: OscTracker,
    /// The foreground group seen at the last check.
    foreground_pgrp: Option<i32>,
    /// OSC change count at the end of the last poll, and at the last poll before the foreground
    /// group changed: a newly detected agent keeps only OSC evidence newer than the latter.
    osc_seq_polled: u64,
    osc_seq_before_foreground: u64,
    /// What the last identity probe found in front.
    probed: Option<Probed>,
    /// Until when output may force an identity probe while the shell is taken to be in front:
    /// the pane's program (or a new foreground job) may still be a wrapper that is about to exec
    /// the agent (`/usr/bin/env node cli.js`, a launcher script), and no timer is armed then.
    settling_until: Instant,
    last_forced_probe: Option<Instant>,
    scans_suspended: bool,
    wake_at: Option<Instant>,
    /// The last screen verdict published, re-sent to a supervisor that adopts the worker.
    last_state: Option<ScreenState>,
}

impl PaneDetection {
    /// Detection for a pane that starts now; overrides are looked up in the config dir named by
    /// this process's environment.
    pub fn new(now: Instant) -> Self {
        let env = paths::PathEnv::from_process_env();
        let config = paths::config_dir(
            env.xdg_config_home.as_deref().map(Path::new),
            env.home.as_deref().map(Path::new),
        );
        Self::with_overrides_dir(now, config.ok().map(|dir| dir.join(OVERRIDES_DIR_NAME)))
    }

    pub fn with_overrides_dir(now: Instant, overrides_dir: Option<PathBuf>) -> Self {
        Self {
            detector: Detector::new(now),
            manifests: ManifestSet::default(),
            manifests_for: None,
            overrides_dir,
            osc: OscTracker::default(),
            foreground_pgrp: None,
            osc_seq_polled: 0,
            osc_seq_before_foreground: 0,
            probed: None,
            settling_until: now + ACQUISITION_FAST_PHASE,
            last_forced_probe: None,
            scans_suspended: false,
            wake_at: None,
            last_state: None,
        }
    }

    /// One chunk of raw PTY output (for the OSC title/progress capture).
    pub fn feed(&mut self, bytes: &[u8]) {
        self.osc.feed(bytes);
    }

    /// A batch of output was consumed (or the terminal changed locally, e.g. a resize).
    pub fn note_output(&mut self, now: Instant) {
        self.detector.note_output(now);
    }

    pub fn set_scans_suspended(&mut self, suspended: bool, now: Instant) {
        self.scans_suspended = suspended;
        self.detector.set_scans_suspended(suspended, now);
    }

    pub fn release(&mut self, now: Instant) {
        self.detector.note_released(now);
    }

    /// `ReloadManifests`: with an agent in front, re-reads the overrides and recompiles its
    /// manifest now and the screen is judged afresh; without one, drops what was compiled so the
    /// next agent's is read fresh (a shell pane does not grow for a reload).
    pub fn reload(&mut self, now: Instant) {
        self.manifests = ManifestSet::default();
        self.manifests_for = None;
        self.prepare();
        self.detector.note_output(now);
    }

    /// When `poll` must run next if nothing else happens; None: no timer.
    pub fn wake_at(&self) -> Option<Instant> {
        self.wake_at
    }

    /// Checks the foreground group, runs whatever the detector has due, and returns the events to
    /// send. `program_pid` is the pane's own program (its shell).
    pub fn poll(
        &mut self,
        now: Instant,
        engine: &Engine,
        foreground_pgrp: Option<i32>,
        program_pid: i32,
    ) -> Vec<WorkerEvent> {
        if foreground_pgrp != self.foreground_pgrp {
            self.foreground_pgrp = foreground_pgrp;
            self.osc_seq_before_foreground = self.osc_seq_polled;
            self.settling_until = now + ACQUISITION_FAST_PHASE;
            self.detector.note_foreground_changed(now);
        } else if self.probe_on_output(now) {
            self.last_forced_probe = Some(now);
            self.detector.note_foreground_changed(now);
        }
        // Normally `prepare` already compiled for the current agent. A different agent identified
        // in the poll below gets its manifest in the next `prepare`: acquisition always starts the
        // startup grace, so no scan runs in the poll that changes the agent.
        self.ensure_manifests();
        let mut view = LiveView { engine, osc: &self.osc, foreground_pgrp, program_pid, probed: None };
        let step = self.detector.poll(now, &self.manifests, &mut view);
        if view.probed.is_some() {
            self.probed = view.probed;
        }
        let parked = self.probed == Some(Probed::Shell) && self.detector.agent().is_none();
        self.wake_at = if parked { None } else { step.wake_at };
        let events = step.publish.into_iter().map(|p| self.event(p)).collect();
        self.osc_seq_polled = self.osc.seq();
        events
    }

    fn event(&mut self, publication: Publication) -> WorkerEvent {
        match publication {
            Publication::Agent { agent, previous, reason } => {
                let reason = match reason {
                    AgentChangeReason::Detected => {
                        self.osc.clear_up_to(self.osc_seq_before_foreground);
                        IdentityReason::Detected
                    }
                    AgentChangeReason::Exited => IdentityReason::Exited,
                    AgentChangeReason::Released => IdentityReason::Released,
                };
                WorkerEvent::AgentIdentity {
                    agent: agent.map(|a| a.label().to_string()),
                    previous: previous.map(|a| a.label().to_string()),
                    reason,
                }
            }
            Publication::State(report) => {
                let state = screen_state(report);
                self.last_state = Some(state.clone());
                WorkerEvent::ScreenState(state)
            }
        }
    }

    /// What a supervisor that just adopted the worker needs to know without waiting for a
    /// change: the agent in front (none included, so stale state it restored is cleared) and,
    /// with an agent, the screen verdict last published for it (not a refresh, not an exit).
    pub fn current(&self) -> Vec<WorkerEvent> {
        let agent = self.detector.agent();
        let label = agent.map(|a| a.label().to_string());
        let mut events = vec![WorkerEvent::AgentIdentity {
            agent: label.clone(),
            previous: None,
            reason: IdentityReason::Detected,
        }];
        if label.is_some() {
            let state = match &self.last_state {
                Some(state) if state.agent == label && !state.process_exited => {
                    ScreenState { refresh: false, ..state.clone() }
                }
                // Identified, not judged yet (the startup grace).
                _ => ScreenState {
                    agent: label,
                    state: DetectedState::Unknown,
                    visible_idle: false,
                    visible_blocker: false,
                    visible_working: false,
                    rule: None,
                    process_exited: false,
                    refresh: false,
                },
            };
            events.push(WorkerEvent::ScreenState(state));
        }
        events
    }

    /// `agent.explain`'s JSON for the live screen and OSC evidence, judged with the identified
    /// agent's manifest (with no agent, none is needed).
    pub fn explain(&mut self, engine: &Engine) -> String {
        self.ensure_manifests();
        let text = detection_text(engine, &self.osc);
        let explanation = self.manifests.explain(self.detector.agent(), &text.input());
        let mut value = match serde_json::to_value(&explanation) {
            Ok(value) => value,
            Err(err) => serde_json::json!({ "error": format!("could not serialise the explanation: {err}") }),
        };
        if let Some(fields) = value.as_object_mut() {
            fields.insert("screen_detection_skipped".into(), self.scans_suspended.into());
            if self.scans_suspended {
                fields.insert("screen_detection_skip_reason".into(), SKIP_REASON_FULL_LIFECYCLE.into());
            }
        }
        value.to_string()
    }

    /// Whether this poll (with no timer armed, it comes from output or a request) should probe
    /// identity now: the program was caught mid-exec, or the shell seemed to be in front while a
    /// wrapper may still be turning into the agent. Rate-limited; only while settling.
    fn probe_on_output(&self, now: Instant) -> bool {
        let rested = self.last_forced_probe.is_none_or(|last| now >= last + FORCED_PROBE_INTERVAL);
        match self.probed {
            Some(Probed::Unsettled) => rested,
            Some(Probed::Shell) => self.detector.agent().is_none() && now < self.settling_until && rested,
            _ => false,
        }
    }

    /// Compiles the identified agent's manifest if it is not the one compiled: call after sending
    /// what `poll` returned, so a new agent's identity is not held up by the compile (the startup
    /// grace puts its first scan in a later poll anyway).
    pub fn prepare(&mut self) {
        self.ensure_manifests();
    }

    /// With no agent the compiled manifest is kept: a released agent comes back within seconds,
    /// and evaluating "no agent" reads no manifest.
    fn ensure_manifests(&mut self) {
        let Some(agent) = self.detector.agent() else { return };
        if self.manifests_for != Some(agent) {
            // Drop the old set first so the two are never held at once.
            self.manifests = ManifestSet::default();
            self.manifests = load_manifests(agent, self.overrides_dir.as_deref());
            self.manifests_for = Some(agent);
        }
    }
}

fn screen_state(report: StateReport) -> ScreenState {
    ScreenState {
        agent: report.agent.map(|a| a.label().to_string()),
        state: match report.state {
            AgentState::Idle => DetectedState::Idle,
            AgentState::Working => DetectedState::Working,
            AgentState::Blocked => DetectedState::Blocked,
            AgentState::Unknown => DetectedState::Unknown,
        },
        visible_idle: report.visible_idle,
        visible_blocker: report.visible_blocker,
        visible_working: report.visible_working,
        rule: report.rule,
        process_exited: report.process_exited,
        refresh: report.refresh,
    }
}

/// What the last identity probe saw, for the no-timer rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probed {
    Shell,
    /// The pane's own program could not be read yet (mid-exec).
    Unsettled,
    Other,
}

/// The detector's window on the pane, borrowed for one poll.
struct LiveView<'a> {
    engine: &'a Engine,
    osc: &'a OscTracker,
    foreground_pgrp: Option<i32>,
    program_pid: i32,
    probed: Option<Probed>,
}

impl PaneView for LiveView<'_> {
    fn foreground(&mut self) -> Foreground {
        let foreground = classify(self.foreground_pgrp, self.program_pid, procinfo::identity_group);
        let own = self.foreground_pgrp == Some(self.program_pid);
        self.probed = Some(match foreground {
            Foreground::Shell => Probed::Shell,
            Foreground::Unavailable if own => Probed::Unsettled,
            _ => Probed::Other,
        });
        foreground
    }

    fn detection_text(&mut self) -> ScreenText {
        detection_text(self.engine, self.osc)
    }
}

/// Decides what is in front: the pane's own program counts as its shell unless it (or a member of
/// its group, e.g. `sh -c 'claude'` without job control) is an agent — so a pane started directly
/// as `claude` is claude's, and a shell is "the shell" whatever it is called.
fn classify(
    foreground_pgrp: Option<i32>,
    program_pid: i32,
    group: impl FnOnce(i32) -> Vec<herdr_manifests::ForegroundProcess>,
) -> Foreground {
    let Some(pgrp) = foreground_pgrp else { return Foreground::Unavailable };
    let members = group(pgrp);
    if pgrp == program_pid && identify(&members).is_none() {
        // An empty argv is a program caught mid-exec (right after spawn): not known to be the
        // shell yet, so keep probing rather than settle on "shell" and arm no timer.
        let leader = members.iter().find(|p| i32::try_from(p.pid).ok() == Some(pgrp));
        if leader.is_none_or(|l| l.argv.is_empty()) {
            return Foreground::Unavailable;
        }
        return Foreground::Shell;
    }
    if members.is_empty() {
        return Foreground::Unavailable;
    }
    Foreground::Job(members)
}

/// The live screen (never the scrolled view: the worker's viewport always follows the active
/// area) as plain text, plus the OSC evidence.
fn detection_text(engine: &Engine, osc: &OscTracker) -> ScreenText {
    let spec = ReadSpec { source: ReadSource::Detection, lines: None, format: ReadFormat::Text };
    let screen = match engine.read(&spec) {
        Ok(read) => read.text,
        Err(err) => {
            log::warn!("agent detection could not read the screen: {err}");
            String::new()
        }
    };
    ScreenText {
        screen,
        osc_title: osc.title().map(str::to_string),
        osc_progress: osc.progress().map(str::to_string),
    }
}

/// `agent`'s manifest: its valid override from `dir`, else the bundled one; an ignored override
/// of its is logged (other agents' files are not compiled, so not judged).
pub fn load_manifests(agent: Agent, dir: Option<&Path>) -> ManifestSet {
    let overrides = dir.map(read_overrides).unwrap_or_default();
    let loaded = effective_manifests_for(&[agent], &overrides);
    for diagnostic in &loaded.diagnostics {
        log::warn!("agent detection: {}", diagnostic.message);
    }
    loaded.set
}

/// Every `*.toml` in `dir`, in name order; unreadable files are logged and skipped.
fn read_overrides(dir: &Path) -> Vec<OverrideFile> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(err) => {
            log::warn!("agent detection: cannot list {}: {err}", dir.display());
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| match fs::read_to_string(&path) {
            Ok(contents) => Some(OverrideFile { path: path.display().to_string(), contents }),
            Err(err) => {
                log::warn!("agent detection: cannot read {}: {err}", path.display());
                None
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "detection_tests.rs"]
mod tests;
