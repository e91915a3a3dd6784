//! The pane's agent detection: drives `herdr_manifests::Detector` with this pane's live facts —
//! the PTY's foreground process group read through `/proc`, the live screen's text, the OSC
//! title/progress — and turns what it publishes into `AgentIdentity` / `ScreenState` events.
//!
//! Cost model: nothing runs unless output arrives, a request asks, or the detector's one deadline
//! comes due. A pane whose own program (its shell) is in front with no agent arms no timer at all:
//! a foreground change is noticed by the `tcgetpgrp` check made on every output batch, and a due
//! probe still runs then. Manifests are compiled the first time an agent is identified (or
//! `explain` asks), so shell-only panes never pay for them.
//!
//! Not here: hook arbitration and `done` (the supervisor's), the evaluation rules (the manifests
//! crate), the event loop (`pane`).

use std::{
    fs,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use herdr_manifests::{
    AgentChangeReason, AgentState, Detector, Foreground, ManifestSet, OverrideFile, PaneView, Publication,
    ScreenText, StateReport, effective_manifests, identify, machine::ACQUISITION_FAST_PHASE,
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
    /// Empty until first needed; see `ensure_manifests`.
    manifests: ManifestSet,
    manifests_loaded: bool,
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
            manifests_loaded: false,
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

    /// `ReloadManifests`: with an agent in front, re-reads the overrides and recompiles now and
    /// the screen is judged afresh; without one, drops what was compiled so the next need reads
    /// the files fresh (a shell pane does not grow by a whole manifest set for a reload).
    pub fn reload(&mut self, now: Instant) {
        self.manifests = ManifestSet::default();
        self.manifests_loaded = false;
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
        if self.detector.agent().is_some() {
            self.ensure_manifests();
        }
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
            Publication::State(report) => WorkerEvent::ScreenState(screen_state(report)),
        }
    }

    /// `agent.explain`'s JSON for the live screen and OSC evidence.
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

    /// Compiles the manifests if an agent is known and they are not yet: call after sending what
    /// `poll` returned, so a new agent's identity is not held up by the compile (the startup grace
    /// puts its first scan in a later poll anyway).
    pub fn prepare(&mut self) {
        if self.detector.agent().is_some() {
            self.ensure_manifests();
        }
    }

    fn ensure_manifests(&mut self) {
        if !self.manifests_loaded {
            self.manifests = load_manifests(self.overrides_dir.as_deref());
            self.manifests_loaded = true;
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

/// Bundled manifests with the valid overrides from `dir` applied; every ignored file is logged.
pub fn load_manifests(dir: Option<&Path>) -> ManifestSet {
    let overrides = dir.map(read_overrides).unwrap_or_default();
    let loaded = effective_manifests(&overrides);
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
mod tests {
    use herdr_manifests::{Agent, ForegroundProcess};

    use super::*;

    fn process(pid: u32, argv: &[&str]) -> ForegroundProcess {
        ForegroundProcess {
            pid,
            argv: argv.iter().map(|a| a.to_string()).collect(),
            comm: argv.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()),
            agent_hint: None,
        }
    }

    #[test]
    fn own_program_is_the_shell_unless_it_is_an_agent() {
        let bash = |_| vec![process(10, &["bash", "-i"])];
        assert_eq!(classify(Some(10), 10, bash), Foreground::Shell);
        let claude = |_| vec![process(10, &["/bin/sh", "/tmp/bin/claude"])];
        assert!(matches!(classify(Some(10), 10, claude), Foreground::Job(p) if p[0].pid == 10));
        // `sh -c` without job control: the agent is a member of the program's own group.
        let wrapped = |_| vec![process(10, &["sh", "-c", "cd x; claude"]), process(11, &["claude"])];
        assert!(matches!(classify(Some(10), 10, wrapped), Foreground::Job(p) if p.len() == 2));
        // Caught mid-exec, or gone: not (yet) the shell.
        assert_eq!(classify(Some(10), 10, |_| vec![process(10, &[])]), Foreground::Unavailable);
        assert_eq!(classify(Some(10), 10, |_| Vec::new()), Foreground::Unavailable);
    }

    #[test]
    fn other_groups_are_jobs_and_nothing_is_unavailable() {
        let vim = |_| vec![process(20, &["vim", "x"])];
        assert!(matches!(classify(Some(20), 10, vim), Foreground::Job(_)));
        assert_eq!(classify(Some(20), 10, |_| Vec::new()), Foreground::Unavailable);
        assert_eq!(classify(None, 10, |_| panic!("no group to read")), Foreground::Unavailable);
    }

    #[test]
    fn shell_arms_no_timer_and_a_new_agent_keeps_only_its_own_osc_evidence() {
        use std::os::unix::process::CommandExt;
        let now = Instant::now();
        let engine = Engine::new(80, 24).expect("engine");
        let mut d = PaneDetection::with_overrides_dir(now, None);
        // SAFETY: getpgrp has no preconditions.
        let ours = unsafe { libc::getpgrp() };
        // Our own group plays the pane's shell: in front, not an agent.
        d.feed(b"\x1b]0;user@host: ~\x07\x1b]9;4;1;10\x07");
        assert!(d.poll(now, &engine, Some(ours), ours).is_empty());
        assert_eq!(d.wake_at(), None, "a shell in front arms no timer");

        // The fake claude in its own group takes the foreground; its title came in the same output.
        let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents/claude");
        let mut agent = std::process::Command::new("bash")
            .arg(fake)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .expect("spawn the fake agent");
        let pgrp = i32::try_from(agent.id()).expect("pid");
        // spawn can return while the exec is still in flight (empty cmdline): wait it out.
        let cmdline = format!("/proc/{pgrp}/cmdline");
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        while !fs::read(&cmdline).is_ok_and(|c| c.windows(6).any(|w| w == b"claude")) {
            assert!(Instant::now() < deadline, "the fake agent did not start");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        d.feed("\x1b]0;⠐ Refactoring\x07".as_bytes());
        let events = d.poll(now, &engine, Some(pgrp), ours);
        let _ = (agent.kill(), agent.wait());
        assert_eq!(
            events.first(),
            Some(&WorkerEvent::AgentIdentity {
                agent: Some("claude".into()),
                previous: None,
                reason: IdentityReason::Detected
            }),
            "{events:?}"
        );
        assert_eq!((d.osc.title(), d.osc.progress()), (Some("⠐ Refactoring"), None));
        assert!(d.wake_at().is_some(), "an agent keeps the detector's deadline");
    }

    #[test]
    fn manifests_are_compiled_only_when_needed() {
        let now = Instant::now();
        let engine = Engine::new(80, 24).expect("engine");
        let mut d = PaneDetection::with_overrides_dir(now, None);
        d.prepare();
        d.reload(now);
        assert!(!d.manifests_loaded, "no agent: nothing to compile");
        let explained: serde_json::Value = serde_json::from_str(&d.explain(&engine)).expect("json");
        assert!(d.manifests_loaded);
        assert_eq!(explained["state"], "unknown");
        assert_eq!(explained["screen_detection_skipped"], false);
        d.reload(now);
        assert!(!d.manifests_loaded, "a reload without an agent drops them");
    }

    #[test]
    fn overrides_replace_one_agent_and_bad_ones_are_ignored() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(read_overrides(&dir.path().join("missing")).is_empty());
        fs::write(dir.path().join("codex.toml"), "this is [not toml").expect("write");
        fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
        let claude =
            "id = \"claude\"\n\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"zzz\"]\n";
        fs::write(dir.path().join("claude.toml"), claude).expect("write");
        let files = read_overrides(dir.path());
        assert_eq!(files.len(), 2, "{files:?}");
        let set = load_manifests(Some(dir.path()));
        let rules = |agent| set.get(agent).map(|m| m.rules.iter().map(|r| r.id.clone()).collect::<Vec<_>>());
        assert_eq!(rules(Agent::Claude), Some(vec!["mine".to_string()]));
        // The invalid codex override left the bundled manifest in force, with a warning.
        assert!(rules(Agent::Codex).is_some_and(|r| r.len() > 1));
        assert!(set.warning(Agent::Codex).is_some());
    }
}
