//! One pane's agent state and its arbitration (reference §1.8–§1.10): the detected agent, the
//! last screen verdict, an optional hook authority, the session ref, the agent's name, a managed
//! launch, and the `seen` flag that turns a completion into `done`.

use std::collections::BTreeMap;
use std::time::Instant;

use herdr_protocol::api::{AgentSessionInfo, AgentSessionRefKind, AgentStatus};
use herdr_protocol::ipc::{DetectedState, IdentityReason, ScreenState};

use super::launch::Launch;
use super::sources::{SourceClass, canonical_label, is_known, is_official};

/// Whether a focused client shows the pane when a change happens: a completion it shows is seen
/// at once (`idle`), one it does not show becomes `done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Shown,
    Hidden,
}

/// The last screen verdict from the pane's worker.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ScreenVerdict {
    state: DetectedState,
    visible_blocker: bool,
    rule: Option<String>,
    /// Logical time of the observation (see [`PaneAgent::clock`]).
    at: u64,
}

/// A hook report that holds authority over the pane's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAuthority {
    pub source: String,
    pub class: SourceClass,
    /// Canonical label for known agents, else the label as reported (`docs-bot`).
    pub agent: String,
    pub state: DetectedState,
    pub message: Option<String>,
    at: u64,
}

/// `pane.report_agent`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub source: String,
    pub agent: String,
    pub state: DetectedState,
    pub message: Option<String>,
    pub seq: Option<u64>,
    pub session: Option<(AgentSessionRefKind, String)>,
}

/// `pane.report_agent_session`, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionReport {
    pub source: String,
    pub agent: String,
    pub seq: Option<u64>,
    pub session: Option<(AgentSessionRefKind, String)>,
}

/// The arbitrated agent and state of a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub agent: Option<String>,
    pub state: DetectedState,
}

/// What the runtime must tell the pane's worker after a change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Screen scans must pause (`true`) or resume (`false`): a full-lifecycle authority went
    /// live or stopped being live.
    pub suspend_scans: Option<bool>,
    /// `pane.release_agent` released the detected agent: the worker must forget it.
    pub release_worker: bool,
}

#[derive(Debug, Clone)]
pub struct PaneAgent {
    detected: Option<String>,
    screen: Option<ScreenVerdict>,
    authority: Option<HookAuthority>,
    /// Last accepted `seq` per source.
    seqs: BTreeMap<String, u64>,
    /// The agent whose process exited last; cleared when an agent is detected again.
    exited: Option<String>,
    session: Option<AgentSessionInfo>,
    name: Option<String>,
    launch: Option<Launch>,
    /// The kind of a managed agent restored from `session.json`, whose launch record did not
    /// survive the restart. Goes with the name when the agent does.
    restored_kind: Option<String>,
    /// A new identity has not produced its first verdict yet: its first idle is not a completion.
    acquiring: bool,
    seen: bool,
    state_change_seq: u64,
    effective: Effective,
    /// Whether the worker was last told to suspend scans.
    suspended: bool,
    /// Orders screen observations against hook reports.
    clock: u64,
}

impl Default for PaneAgent {
    fn default() -> Self {
        Self {
            detected: None,
            screen: None,
            authority: None,
            seqs: BTreeMap::new(),
            exited: None,
            session: None,
            name: None,
            launch: None,
            restored_kind: None,
            acquiring: false,
            seen: true,
            state_change_seq: 0,
            effective: Effective { agent: None, state: DetectedState::Unknown },
            suspended: false,
            clock: 0,
        }
    }
}

fn session_info(source: &str, agent: &str, session: (AgentSessionRefKind, String)) -> AgentSessionInfo {
    AgentSessionInfo { source: source.to_owned(), agent: agent.to_owned(), kind: session.0, value: session.1 }
}

impl PaneAgent {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The worker's foreground agent changed (`AgentIdentity`).
    pub fn identity(&mut self, agent: Option<String>, reason: IdentityReason, vis: Visibility) -> Change {
        match (agent.map(|a| canonical_label(&a)), reason) {
            (Some(agent), _) => self.detect(agent),
            (None, IdentityReason::Released) => {
                self.detected = None;
                self.screen = None;
            }
            (None, IdentityReason::Exited | IdentityReason::Detected) => {
                if let Some(old) = self.detected.take() {
                    self.process_exit(old);
                }
            }
        }
        self.recompute(vis)
    }

    fn detect(&mut self, agent: String) {
        if self.detected.as_deref() == Some(agent.as_str()) {
            return;
        }
        // Evidence about the previous program must not leak into the new one.
        self.screen = None;
        self.exited = None;
        self.acquiring = true;
        if self.authority.as_ref().is_some_and(|a| is_known(&a.agent) && a.agent != agent) {
            self.authority = None;
        }
        if self.session.as_ref().is_some_and(|s| is_known(&s.agent) && s.agent != agent) {
            self.session = None;
        }
        self.detected = Some(agent);
    }

    /// The agent's process exited: herdr's own authority and anything reported for that agent
    /// go; reports from that generation are ignored until an agent is detected again.
    fn process_exit(&mut self, agent: String) {
        if self.authority.as_ref().is_some_and(|a| is_official(&a.source) || a.agent == agent) {
            self.authority = None;
        }
        if self.session.as_ref().is_some_and(|s| s.agent == agent) {
            self.session = None;
        }
        self.screen = None;
        self.exited = Some(agent);
    }

    /// A screen verdict (`ScreenState`).
    pub fn screen(&mut self, verdict: &ScreenState, vis: Visibility) -> Change {
        if let Some(agent) = verdict.agent.as_deref().map(canonical_label)
            && self.detected.as_deref() != Some(agent.as_str())
            && !verdict.process_exited
        {
            // The verdict names an agent the identity frames did not: trust the worker.
            self.detect(agent);
        }
        let lifecycle_agent = self.live_lifecycle().map(|a| a.agent.clone());
        if !verdict.process_exited && lifecycle_agent.is_some() && lifecycle_agent == self.detected {
            // The lifecycle hooks are the state; a verdict that slipped through is stale.
            return self.recompute(vis);
        }
        let at = self.tick();
        self.screen = Some(ScreenVerdict {
            state: verdict.state,
            visible_blocker: verdict.visible_blocker,
            rule: verdict.rule.clone(),
            at,
        });
        self.recompute(vis)
    }

    /// Whether a report with `seq` from `source` is new; records it if so. Reports without a
    /// `seq` are always new.
    fn accept_seq(&mut self, source: &str, seq: Option<u64>) -> bool {
        let Some(seq) = seq else { return true };
        if self.seqs.get(source).is_some_and(|last| seq <= *last) {
            return false;
        }
        self.seqs.insert(source.to_owned(), seq);
        true
    }

    /// A report about `label` that must be ignored: it names a known agent other than the one
    /// in the foreground, or one whose process just exited.
    fn refuses(&self, label: &str) -> bool {
        let conflicts = is_known(label) && self.detected.as_deref().is_some_and(|d| d != label);
        conflicts || self.exited.as_deref() == Some(label)
    }

    /// `pane.report_agent`. Ignored reports change nothing (the call still succeeds).
    pub fn report(&mut self, report: Report, vis: Visibility) -> Change {
        let label = canonical_label(&report.agent);
        if self.refuses(&label) || !self.accept_seq(&report.source, report.seq) {
            return Change::default();
        }
        if let Some(session) = report.session {
            self.session = Some(session_info(&report.source, &label, session));
        }
        let class = SourceClass::of(&report.source);
        if class != SourceClass::SessionOnly {
            let at = self.tick();
            self.authority = Some(HookAuthority {
                source: report.source,
                class,
                agent: label,
                state: report.state,
                message: report.message,
                at,
            });
        }
        self.recompute(vis)
    }

    /// `pane.report_agent_session`: only the session ref.
    pub fn report_session(&mut self, report: SessionReport) {
        let label = canonical_label(&report.agent);
        if self.refuses(&label) || !self.accept_seq(&report.source, report.seq) {
            return;
        }
        if let Some(session) = report.session {
            self.session = Some(session_info(&report.source, &label, session));
        }
    }

    /// `pane.release_agent`: a custom source gives the agent up. herdr's own sources are
    /// ignored (their agent's exit is the release).
    pub fn release(&mut self, source: &str, agent: &str, seq: Option<u64>, vis: Visibility) -> Change {
        if is_official(source) || !self.accept_seq(source, seq) {
            return Change::default();
        }
        let label = canonical_label(agent);
        if self.authority.as_ref().is_some_and(|a| a.source == source) {
            self.authority = None;
        }
        if self.session.as_ref().is_some_and(|s| s.source == source) {
            self.session = None;
        }
        let release_worker = self.detected.as_deref() == Some(label.as_str());
        if release_worker {
            self.detected = None;
            self.screen = None;
        }
        Change { release_worker, ..self.recompute(vis) }
    }

    /// `pane.clear_agent_authority`: drop the hook authority (only `source`'s, if given) so the
    /// screen verdict decides again.
    pub fn clear_authority(&mut self, source: Option<&str>, seq: Option<u64>, vis: Visibility) -> Change {
        match source {
            Some(source) => {
                if !self.accept_seq(source, seq) {
                    return Change::default();
                }
                if self.authority.as_ref().is_some_and(|a| a.source == source) {
                    self.authority = None;
                }
            }
            None => self.authority = None,
        }
        self.recompute(vis)
    }

    /// The authority of a full-lifecycle source while it is live: its agent is the detected
    /// foreground agent and has not exited.
    fn live_lifecycle(&self) -> Option<&HookAuthority> {
        self.authority.as_ref().filter(|a| {
            a.class == SourceClass::FullLifecycle
                && self.detected.as_deref() == Some(a.agent.as_str())
                && self.exited.is_none()
        })
    }

    /// Arbitration (§1.9): a visible on-screen blocker beats a hook that says otherwise (unless a
    /// live full-lifecycle authority owns the state), else an effective hook authority, else the
    /// screen.
    fn arbitrate(&self) -> Effective {
        let lifecycle_live = self.live_lifecycle().is_some();
        let authority =
            self.authority.as_ref().filter(|a| a.class != SourceClass::FullLifecycle || lifecycle_live);
        let screen_state = self.screen.as_ref().map_or(DetectedState::Unknown, |s| s.state);
        let Some(authority) = authority else {
            return Effective { agent: self.detected.clone(), state: screen_state };
        };
        let blocker_shown = self
            .screen
            .as_ref()
            .is_some_and(|s| s.visible_blocker && s.state == DetectedState::Blocked && s.at >= authority.at);
        let same_agent = self.detected.as_deref() == Some(authority.agent.as_str());
        let state = if !lifecycle_live && blocker_shown && same_agent {
            DetectedState::Blocked
        } else {
            authority.state
        };
        Effective { agent: Some(authority.agent.clone()), state }
    }

    fn recompute(&mut self, vis: Visibility) -> Change {
        let next = self.arbitrate();
        let prev = std::mem::replace(&mut self.effective, next.clone());
        if next != prev {
            self.state_change_seq += 1;
            self.update_seen(&prev, &next, vis);
            if prev.agent.is_some() && prev.agent != next.agent {
                // The agent exited, was released or replaced: its name and launch go with it.
                self.name = None;
                self.launch = None;
                self.restored_kind = None;
            }
        }
        if next.agent.is_some() && next.state != DetectedState::Unknown {
            self.acquiring = false;
        }
        let detected = self.detected.clone();
        if let Some(launch) = &mut self.launch {
            if detected.as_deref().is_some_and(|d| d != launch.kind) {
                // A different program came up than the one launched.
                self.launch = None;
                self.name = None;
                self.restored_kind = None;
            } else {
                launch.advance(detected.as_deref(), next.state);
            }
        }
        let live = self.live_lifecycle().is_some();
        let mut change = Change::default();
        if live != self.suspended {
            self.suspended = live;
            change.suspend_scans = Some(live);
        }
        change
    }

    /// §1.10: any change to a non-idle state is seen; a completion (working/blocked → idle, or
    /// unknown → idle of the same agent after its acquisition) is seen only if a focused client
    /// shows it.
    fn update_seen(&mut self, prev: &Effective, next: &Effective, vis: Visibility) {
        if next.state != DetectedState::Idle {
            self.seen = true;
            return;
        }
        let completion = match prev.state {
            DetectedState::Working | DetectedState::Blocked => true,
            DetectedState::Unknown => prev.agent == next.agent && !self.acquiring,
            DetectedState::Idle => false,
        };
        if completion {
            self.seen = vis == Visibility::Shown;
        }
    }

    /// The pane was focused: a pending `done` becomes `idle`. True if the status changed.
    pub fn mark_seen(&mut self) -> bool {
        let before = self.status();
        self.seen = true;
        self.status() != before
    }

    /// The public status: plain shells are `unknown`; an idle agent nobody saw finish is `done`.
    pub fn status(&self) -> AgentStatus {
        if self.effective.agent.is_none() {
            return AgentStatus::Unknown;
        }
        match self.effective.state {
            DetectedState::Idle if self.seen => AgentStatus::Idle,
            DetectedState::Idle => AgentStatus::Done,
            DetectedState::Working => AgentStatus::Working,
            DetectedState::Blocked => AgentStatus::Blocked,
            DetectedState::Unknown => AgentStatus::Unknown,
        }
    }

    pub fn effective(&self) -> &Effective {
        &self.effective
    }

    /// The agent owning the pane's foreground, as detected from its process.
    pub fn foreground_agent(&self) -> Option<&str> {
        self.detected.as_deref()
    }

    /// The pane hosts an agent (an effective one, or a launch still starting): it is an
    /// `agent.*` target and appears in `agent.list`.
    pub fn hosts_agent(&self) -> bool {
        self.effective.agent.is_some() || self.launch.as_ref().is_some_and(Launch::pending)
    }

    pub fn state_change_seq(&self) -> u64 {
        self.state_change_seq
    }

    pub fn session_ref(&self) -> Option<&AgentSessionInfo> {
        self.session.as_ref()
    }

    pub fn authority(&self) -> Option<&HookAuthority> {
        self.authority.as_ref()
    }

    /// The winning rule of the last screen verdict.
    pub fn screen_rule(&self) -> Option<&str> {
        self.screen.as_ref().and_then(|s| s.rule.as_deref())
    }

    /// Screen scans are paused for a live full-lifecycle authority.
    pub fn scans_suspended(&self) -> bool {
        self.suspended
    }

    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Sets or clears the name; uniqueness is the caller's business (it sees every pane).
    pub fn set_name(&mut self, name: Option<String>) {
        self.name = name;
    }

    pub fn launch(&self) -> Option<&Launch> {
        self.launch.as_ref()
    }

    /// The kind of the managed agent the pane runs: a launch that is no longer pending, or one
    /// restored from `session.json`. None while a launch is still starting.
    pub fn managed_kind(&self) -> Option<&str> {
        match &self.launch {
            Some(launch) => (!launch.pending()).then_some(launch.kind.as_str()),
            None => self.restored_kind.as_deref(),
        }
    }

    /// Puts back what `session.json` kept about the pane's agent after a restart: its name,
    /// managed kind and session ref (for native resume). Nothing is detected yet, so the pane
    /// does not host an agent until its program shows one.
    pub fn restore_saved(
        &mut self,
        name: Option<String>,
        managed_kind: Option<String>,
        session: Option<AgentSessionInfo>,
    ) {
        self.name = name;
        self.restored_kind = managed_kind;
        self.session = session;
    }

    /// `agent.start` typed `kind`'s command: pending until it is detected idle or `deadline`.
    pub fn start_launch(&mut self, name: String, kind: String, deadline: Instant) {
        self.restored_kind = None;
        self.name = Some(name);
        self.launch = Some(Launch::new(kind, deadline));
    }

    /// Ends a pending launch whose deadline passed; a launch that never produced an agent also
    /// frees its name. True if anything changed.
    pub fn reconcile(&mut self, now: Instant) -> bool {
        if !self.launch.as_ref().is_some_and(|l| l.expired(now)) {
            return false;
        }
        self.launch = None;
        if self.effective.agent.is_none() {
            self.name = None;
        }
        true
    }
}
