//! The detection state machine driven with synthetic instants: grace, working→idle confirmation,
//! blocker republish, identity drop, release suppression, and "idle costs nothing".

use std::time::{Duration, Instant};

use herdr_manifests::machine::{
    AGENT_MISS_CONFIRMATION_ATTEMPTS, AGENT_STARTUP_GRACE, OUTPUT_SETTLE, PENDING_IDLE_RECHECK,
    PROCESS_RECHECK_IDENTIFIED, QUIET_RECHECK, RELEASE_REACQUIRE_SUPPRESSION, STABLE_VISIBLE_SIGNAL_REFRESH,
};
use herdr_manifests::{
    Agent, AgentChangeReason, AgentState, Detector, Foreground, ForegroundProcess, ManifestSet, PaneView,
    Publication, ScreenText, Step,
};

/// The pane as the worker would present it: a foreground answer and the live screen text.
/// Counts reads so tests can prove that nothing is read when nothing is due.
struct ScriptedPane {
    foreground: Foreground,
    screen: ScreenText,
    probes: usize,
    scans: usize,
}

impl PaneView for ScriptedPane {
    fn foreground(&mut self) -> Foreground {
        self.probes += 1;
        self.foreground.clone()
    }
    fn detection_text(&mut self) -> ScreenText {
        self.scans += 1;
        self.screen.clone()
    }
}

fn job(argv: &[&str]) -> Foreground {
    Foreground::Job(vec![ForegroundProcess {
        pid: 42,
        argv: argv.iter().map(|s| s.to_string()).collect(),
        comm: None,
        agent_hint: None,
    }])
}

fn text(screen: &str) -> ScreenText {
    ScreenText { screen: screen.to_string(), osc_title: None, osc_progress: None }
}

const CODEX_WORKING: &str = "• Working (3s • esc to interrupt)\n\n› Ask Codex\n\n  100% context left";
const CODEX_IDLE: &str = "• Done.\n\n› Ask Codex\n\n  100% context left";
const CODEX_APPROVAL: &str = "  Would you like to run the following command?\n\n› 1. Yes, proceed (y)\n  2. No (esc)\n\n  Press enter to confirm or esc to cancel";
const CLAUDE_IDLE_BOX: &str = "⏺ Done.\n\n────────────\n❯ \n────────────\n  ? for shortcuts";

struct Rig {
    set: ManifestSet,
    pane: ScriptedPane,
    det: Detector,
    t0: Instant,
}

impl Rig {
    fn new(foreground: Foreground, screen: &str) -> Rig {
        let t0 = Instant::now();
        Rig {
            set: ManifestSet::bundled().expect("bundled"),
            pane: ScriptedPane { foreground, screen: text(screen), probes: 0, scans: 0 },
            det: Detector::new(t0),
            t0,
        }
    }
    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }
    fn poll(&mut self, ms: u64) -> Step {
        let now = self.at(ms);
        self.det.poll(now, &self.set, &mut self.pane)
    }
    /// New output at `ms`, then the poll the worker's timer makes once the output settled.
    fn output(&mut self, ms: u64, screen: &str) -> Step {
        self.pane.screen = text(screen);
        self.det.note_output(self.at(ms));
        let early = self.det.poll(self.at(ms), &self.set, &mut self.pane);
        let settle = OUTPUT_SETTLE.as_millis() as u64;
        let mut step = self.poll(ms + settle);
        step.publish.splice(0..0, early.publish);
        step
    }
    /// Codex identified at t=0 and its first screen scanned when the grace ends.
    fn codex_after_grace(screen: &str) -> (Rig, Step) {
        let mut rig = Rig::new(job(&["codex"]), screen);
        rig.poll(0);
        let grace = AGENT_STARTUP_GRACE.as_millis() as u64;
        let step = rig.poll(grace);
        (rig, step)
    }
}

fn states(step: &Step) -> Vec<AgentState> {
    step.publish
        .iter()
        .filter_map(|p| match p {
            Publication::State(r) => Some(r.state),
            Publication::Agent { .. } => None,
        })
        .collect()
}

#[test]
fn a_new_agent_is_announced_unknown_and_scanned_only_after_the_startup_grace() {
    let mut rig = Rig::new(job(&["codex"]), CODEX_WORKING);
    let step = rig.poll(0);
    assert_eq!(
        step.publish[0],
        Publication::Agent { agent: Some(Agent::Codex), previous: None, reason: AgentChangeReason::Detected }
    );
    assert_eq!(states(&step), vec![AgentState::Unknown]);
    assert_eq!(rig.pane.scans, 0);
    // Output during the grace is not scanned.
    let step = rig.output(1000, CODEX_WORKING);
    assert!(states(&step).is_empty());
    assert_eq!(rig.pane.scans, 0);
    // Probes on the acquisition cadence happen meanwhile; the scan waits for the grace.
    assert!(step.wake_at.is_some_and(|t| t <= rig.at(3000)));
    let step = rig.poll(3000);
    assert_eq!(states(&step), vec![AgentState::Working]);
    assert_eq!(rig.pane.scans, 1);
}

#[test]
fn working_to_plain_idle_is_held_for_three_rechecks() {
    let (mut rig, step) = Rig::codex_after_grace(CODEX_WORKING);
    assert_eq!(states(&step), vec![AgentState::Working]);
    let step = rig.output(4000, CODEX_IDLE);
    assert!(step.publish.is_empty(), "first idle sighting is held");
    let recheck = PENDING_IDLE_RECHECK.as_millis() as u64;
    assert_eq!(step.wake_at, Some(rig.at(4010 + recheck)));
    assert!(rig.poll(4110).publish.is_empty());
    assert!(rig.poll(4210).publish.is_empty());
    let step = rig.poll(4310);
    assert_eq!(states(&step), vec![AgentState::Idle]);
    assert_eq!(rig.det.state(), AgentState::Idle);
}

#[test]
fn a_working_reading_clears_the_idle_hold() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_WORKING);
    rig.output(4000, CODEX_IDLE);
    rig.poll(4100);
    let step = rig.output(4150, CODEX_WORKING);
    assert!(step.publish.is_empty(), "still working, nothing changed");
    rig.pane.screen = text(CODEX_IDLE);
    rig.det.note_output(rig.at(4250));
    // The hold restarts: three more rechecks are needed.
    assert!(rig.poll(4260).publish.is_empty());
    assert!(rig.poll(4360).publish.is_empty());
    assert!(rig.poll(4460).publish.is_empty());
    assert_eq!(states(&rig.poll(4560)), vec![AgentState::Idle]);
}

#[test]
fn the_idle_hold_is_capped_when_rechecks_run_late() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_WORKING);
    rig.output(4000, CODEX_IDLE);
    // The worker's timer fired very late: the 700 ms cap publishes at the next reading.
    assert_eq!(states(&rig.poll(4750)), vec![AgentState::Idle]);
}

#[test]
fn visible_idle_chrome_publishes_immediately() {
    let mut rig = Rig::new(job(&["claude"]), "⠋ Working… (esc to interrupt)");
    rig.poll(0);
    rig.pane.screen.osc_title = Some("⠐ Task".into());
    assert_eq!(states(&rig.poll(3000)), vec![AgentState::Working]);
    rig.pane.screen.osc_title = Some("✳ Task".into());
    let step = rig.output(3500, CLAUDE_IDLE_BOX);
    assert_eq!(states(&step), vec![AgentState::Idle]);
}

#[test]
fn a_visible_blocker_publishes_at_once_and_is_republished_while_it_stays() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_WORKING);
    let step = rig.output(4000, CODEX_APPROVAL);
    assert_eq!(states(&step), vec![AgentState::Blocked]);
    let refresh = STABLE_VISIBLE_SIGNAL_REFRESH.as_millis() as u64;
    assert_eq!(step.wake_at, Some(rig.at(4010 + refresh)));
    let scans = rig.pane.scans;
    let step = rig.poll(4010 + refresh);
    match step.publish.as_slice() {
        [Publication::State(r)] => assert!(r.refresh && r.visible_blocker && r.state == AgentState::Blocked),
        other => panic!("expected one refresh, got {other:?}"),
    }
    assert_eq!(rig.pane.scans, scans, "an unchanged screen is not re-read for a refresh");
}

#[test]
fn a_quiet_pane_parks_its_identity_recheck_until_it_prints() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    // Past the acquisition window the steady recheck comes due with nothing printed since the
    // last probe: it is parked, and the pane has no timer at all.
    let step = rig.poll(8000);
    assert_eq!(step.wake_at, None, "a silent idle agent needs no wake-up");
    let (scans, probes) = (rig.pane.scans, rig.pane.probes);
    for ms in [8100, 13000, 60000] {
        assert!(rig.poll(ms).publish.is_empty());
    }
    assert_eq!((rig.pane.scans, rig.pane.probes), (scans, probes), "nothing read while nothing is due");
    // Output probes at once and makes a scan due as soon as it settles; the cadence resumes.
    rig.pane.screen = text(CODEX_IDLE);
    rig.det.note_output(rig.at(60500));
    let step = rig.poll(60500);
    assert_eq!(rig.pane.probes, probes + 1);
    assert_eq!(step.wake_at, Some(rig.at(60500) + OUTPUT_SETTLE));
    let step = rig.poll(60510);
    assert_eq!(rig.pane.scans, scans + 1);
    assert_eq!(step.wake_at, None, "the probe saw that output; nothing printed since");
    // Output after a probe is rechecked once the pane has been silent for QUIET_RECHECK, and
    // then the pane parks again.
    rig.det.note_output(rig.at(62000));
    assert_eq!(rig.poll(62010).wake_at, Some(rig.at(62000) + QUIET_RECHECK));
    assert_eq!(rig.poll(63000).wake_at, None);
    assert_eq!(rig.pane.probes, probes + 2);
    // Printing without a pause keeps the 5 s cadence, and its end is rechecked once it settles.
    let cadence = 63000 + PROCESS_RECHECK_IDENTIFIED.as_millis() as u64;
    for ms in (63500..=69000).step_by(500) {
        rig.det.note_output(rig.at(ms));
        rig.poll(ms);
        let step = rig.poll(ms + 10);
        // At the cadence the probe runs with this output and nothing is owed after it.
        let owed = match ms.cmp(&cadence) {
            std::cmp::Ordering::Less => Some(rig.at(cadence).min(rig.at(ms) + QUIET_RECHECK)),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(rig.at(ms) + QUIET_RECHECK),
        };
        assert_eq!(step.wake_at, owed, "at {ms} ms");
    }
    assert_eq!(rig.pane.probes, probes + 3, "one cadence probe while printing");
    assert_eq!(rig.poll(70000).wake_at, None);
    assert_eq!(rig.pane.probes, probes + 4);
}

#[test]
fn an_agent_that_exits_while_parked_is_dropped_at_the_shells_prompt() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    assert_eq!(rig.poll(8000).wake_at, None);
    // The prompt the shell prints: the worker sees the foreground group change on that output.
    rig.pane.foreground = Foreground::Shell;
    rig.det.note_output(rig.at(20000));
    rig.det.note_foreground_changed(rig.at(20000));
    let step = rig.poll(20000);
    assert!(step.publish.contains(&Publication::Agent {
        agent: None,
        previous: Some(Agent::Codex),
        reason: AgentChangeReason::Exited
    }));
    // Even output alone (no group change seen) probes a parked pane.
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    assert_eq!(rig.poll(8000).wake_at, None);
    rig.pane.foreground = Foreground::Shell;
    rig.det.note_output(rig.at(20000));
    assert!(rig.poll(20000).publish.iter().any(|p| matches!(p, Publication::Agent { agent: None, .. })));
}

#[test]
fn a_shell_pane_parks_too_and_an_agent_it_starts_is_found_at_its_first_output() {
    let mut rig = Rig::new(Foreground::Shell, "$ ");
    rig.poll(0);
    let mut ms = 0;
    let mut step = rig.poll(ms);
    while let Some(wake) = step.wake_at {
        ms = (wake - rig.t0).as_millis() as u64;
        step = rig.poll(ms);
        assert!(ms < 60_000, "the acquisition probes end");
    }
    rig.pane.foreground = job(&["codex"]);
    rig.det.note_output(rig.at(ms + 100_000));
    let step = rig.poll(ms + 100_000);
    assert_eq!(
        step.publish[0],
        Publication::Agent { agent: Some(Agent::Codex), previous: None, reason: AgentChangeReason::Detected }
    );
}

#[test]
fn viewer_screens_leave_the_state_untouched() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_WORKING);
    let transcript = "› q\n• a\n ↑/↓ to scroll   pgup/pgdn to page\n q to quit   esc to edit prev";
    let step = rig.output(4000, transcript);
    assert!(step.publish.is_empty());
    assert_eq!(rig.det.state(), AgentState::Working);
}

#[test]
fn an_agent_is_dropped_after_six_misses_or_at_once_when_the_shell_returns() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    rig.pane.foreground = job(&["cargo", "build"]);
    let mut ms = 3000;
    let mut drops = Vec::new();
    for _ in 0..AGENT_MISS_CONFIRMATION_ATTEMPTS {
        ms += 2000;
        rig.det.note_foreground_changed(rig.at(ms));
        drops = rig.poll(ms).publish;
    }
    assert_eq!(drops.len(), 2, "{drops:?}");
    assert!(
        matches!(&drops[0], Publication::State(r) if r.process_exited && r.state == AgentState::Idle && r.visible_idle)
    );
    assert_eq!(
        drops[1],
        Publication::Agent { agent: None, previous: Some(Agent::Codex), reason: AgentChangeReason::Exited }
    );
    assert_eq!(rig.det.agent(), None);

    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    rig.pane.foreground = Foreground::Shell;
    rig.det.note_foreground_changed(rig.at(4000));
    assert_eq!(rig.poll(4000).publish.len(), 2);
    assert_eq!(rig.det.agent(), None);
}

#[test]
fn fewer_than_six_misses_keep_the_agent() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    rig.pane.foreground = Foreground::Unavailable;
    for i in 1..AGENT_MISS_CONFIRMATION_ATTEMPTS as u64 {
        rig.det.note_foreground_changed(rig.at(3000 + i * 100));
        assert!(rig.poll(3000 + i * 100).publish.is_empty());
    }
    rig.pane.foreground = job(&["codex"]);
    rig.det.note_foreground_changed(rig.at(4000));
    assert!(rig.poll(4000).publish.is_empty());
    assert_eq!(rig.det.agent(), Some(Agent::Codex));
}

#[test]
fn a_released_agent_is_not_reacquired_for_a_second() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    rig.det.note_released(rig.at(4000));
    let step = rig.poll(4000);
    assert_eq!(
        step.publish,
        vec![Publication::Agent {
            agent: None,
            previous: Some(Agent::Codex),
            reason: AgentChangeReason::Released
        }]
    );
    rig.det.note_foreground_changed(rig.at(4500));
    assert!(rig.poll(4500).publish.is_empty());
    assert_eq!(rig.det.agent(), None);
    let after = 4000 + RELEASE_REACQUIRE_SUPPRESSION.as_millis() as u64;
    rig.det.note_foreground_changed(rig.at(after));
    let step = rig.poll(after);
    assert!(step.publish.contains(&Publication::Agent {
        agent: Some(Agent::Codex),
        previous: None,
        reason: AgentChangeReason::Detected
    }));
}

#[test]
fn suspended_scans_read_nothing() {
    let (mut rig, _) = Rig::codex_after_grace(CODEX_IDLE);
    rig.det.set_scans_suspended(true, rig.at(3500));
    let scans = rig.pane.scans;
    let step = rig.output(4000, CODEX_APPROVAL);
    assert!(step.publish.is_empty());
    assert_eq!(rig.pane.scans, scans);
    rig.det.set_scans_suspended(false, rig.at(5000));
    assert_eq!(states(&rig.poll(5000)), vec![AgentState::Blocked]);
}

#[test]
fn no_agent_means_no_scans() {
    let mut rig = Rig::new(Foreground::Shell, "$ ls");
    assert!(rig.poll(0).publish.is_empty());
    let step = rig.output(100, "$ ls\nCargo.toml");
    assert!(step.publish.is_empty());
    assert_eq!(rig.pane.scans, 0);
    assert!(step.wake_at.is_some(), "acquisition probes continue for a while");
}
