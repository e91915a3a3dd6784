//! The pure agent core: source classes, arbitration, done/seen, names, launches.

use std::time::{Duration, Instant};

use herdr_protocol::api::{AgentSessionRefKind, AgentStatus};
use herdr_protocol::ipc::{DetectedState, IdentityReason, ScreenState};

use super::launch::LaunchPhase;
use super::sources::{SourceClass, canonical_label};
use super::*;

const HIDDEN: Visibility = Visibility::Hidden;

fn screen(agent: &str, state: DetectedState) -> ScreenState {
    ScreenState {
        agent: Some(agent.into()),
        state,
        visible_idle: false,
        visible_blocker: false,
        visible_working: false,
        rule: Some(format!("{agent}_{state:?}").to_lowercase()),
        process_exited: false,
        refresh: false,
    }
}

fn blocker(agent: &str) -> ScreenState {
    ScreenState { visible_blocker: true, ..screen(agent, DetectedState::Blocked) }
}

fn report(source: &str, agent: &str, state: DetectedState, seq: Option<u64>) -> Report {
    Report { source: source.into(), agent: agent.into(), state, message: None, seq, session: None }
}

/// A pane whose worker detected `agent` and saw it idle.
fn detected(agent: &str) -> PaneAgent {
    let mut a = PaneAgent::default();
    a.identity(Some(agent.into()), IdentityReason::Detected, HIDDEN);
    a.screen(&screen(agent, DetectedState::Idle), HIDDEN);
    a
}

#[test]
fn sources_fall_into_three_classes() {
    assert_eq!(SourceClass::of("herdr:pi"), SourceClass::FullLifecycle);
    assert_eq!(SourceClass::of("herdr:opencode"), SourceClass::FullLifecycle);
    assert_eq!(SourceClass::of("herdr:claude"), SourceClass::SessionOnly);
    assert_eq!(SourceClass::of("herdr:hermes"), SourceClass::SessionOnly);
    assert_eq!(SourceClass::of("custom:my-agent"), SourceClass::Custom);
    assert_eq!(canonical_label("claude-code"), "claude");
    assert_eq!(canonical_label("docs-bot"), "docs-bot");
}

#[test]
fn names_follow_the_grammar() {
    for ok in ["a", "reviewer", "agent-2_b", &format!("a{}", "b".repeat(31))] {
        assert!(validate_name(ok).is_ok(), "{ok}");
    }
    for bad in ["", "2agent", "Agent", "has space", "a:b", &format!("a{}", "b".repeat(32))] {
        assert!(validate_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_plain_shell_is_unknown_and_a_fresh_agent_first_idle_is_not_done() {
    let mut a = PaneAgent::default();
    assert_eq!(a.status(), AgentStatus::Unknown);
    a.identity(Some("claude".into()), IdentityReason::Detected, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Unknown);
    assert_eq!(a.effective().agent.as_deref(), Some("claude"));
    a.screen(&screen("claude", DetectedState::Idle), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Idle, "acquisition idle is not a completion");
    assert_eq!(a.state_change_seq(), 2);
}

#[test]
fn a_hidden_completion_is_done_until_seen_and_a_shown_one_is_idle() {
    let mut a = detected("codex");
    a.screen(&screen("codex", DetectedState::Working), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working);
    a.screen(&screen("codex", DetectedState::Idle), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Done);
    let seq = a.state_change_seq();
    assert!(a.mark_seen());
    assert_eq!(a.status(), AgentStatus::Idle);
    assert_eq!(a.state_change_seq(), seq, "being seen is not a state change");
    assert!(!a.mark_seen());

    a.screen(&screen("codex", DetectedState::Blocked), HIDDEN);
    a.screen(&screen("codex", DetectedState::Idle), Visibility::Shown);
    assert_eq!(a.status(), AgentStatus::Idle);
}

#[test]
fn unchanged_verdicts_do_not_bump_the_sequence() {
    let mut a = detected("claude");
    let seq = a.state_change_seq();
    a.screen(&screen("claude", DetectedState::Idle), HIDDEN);
    assert_eq!(a.state_change_seq(), seq);
}

#[test]
fn custom_hook_authority_is_the_state_until_cleared() {
    let mut a = detected("claude");
    a.report(report("custom:ci", "claude", DetectedState::Working, None), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working);
    a.screen(&screen("claude", DetectedState::Idle), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working, "a plain idle screen does not beat the hook");
    a.clear_authority(Some("custom:ci"), None, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Done, "the screen decides again: working -> idle unseen");
}

#[test]
fn a_visible_blocker_beats_a_hook_saying_working_until_the_hook_reports_again() {
    let mut a = detected("claude");
    a.report(report("custom:ci", "claude", DetectedState::Working, Some(1)), HIDDEN);
    a.screen(&blocker("claude"), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Blocked);
    a.report(report("custom:ci", "claude", DetectedState::Working, Some(2)), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working, "a newer hook report than the blocker wins");
    let refresh = ScreenState { refresh: true, ..blocker("claude") };
    a.screen(&refresh, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Blocked, "the re-asserted blocker is newer again");
}

#[test]
fn full_lifecycle_authority_suspends_scans_and_ignores_the_screen() {
    let mut a = detected("pi");
    let change = a.report(report("herdr:pi", "pi", DetectedState::Working, None), HIDDEN);
    assert_eq!(change.suspend_scans, Some(true));
    assert!(a.scans_suspended());
    a.screen(&blocker("pi"), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working, "no blocker override under live lifecycle hooks");
    let change = a.report(report("herdr:pi", "pi", DetectedState::Idle, None), HIDDEN);
    assert_eq!(change.suspend_scans, None, "still live");
    assert_eq!(a.status(), AgentStatus::Done);
    let change = a.identity(None, IdentityReason::Exited, HIDDEN);
    assert_eq!(change.suspend_scans, Some(false));
    assert!(a.authority().is_none(), "herdr's own authority ends with the process");
    assert_eq!(a.status(), AgentStatus::Unknown);
}

#[test]
fn full_lifecycle_authority_waits_for_its_agent_to_be_detected() {
    let mut a = PaneAgent::default();
    let change = a.report(report("herdr:opencode", "opencode", DetectedState::Working, None), HIDDEN);
    assert_eq!(change.suspend_scans, None);
    assert_eq!(a.status(), AgentStatus::Unknown, "not effective without the detected agent");
    let change = a.identity(Some("opencode".into()), IdentityReason::Detected, HIDDEN);
    assert_eq!(change.suspend_scans, Some(true));
    assert_eq!(a.status(), AgentStatus::Working);
}

#[test]
fn session_only_sources_set_the_session_ref_but_not_the_state() {
    let mut a = detected("claude");
    let mut r = report("herdr:claude", "claude", DetectedState::Working, None);
    r.session = Some((AgentSessionRefKind::Id, "sess-1".into()));
    a.report(r, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Idle);
    assert!(a.authority().is_none());
    let s = a.session_ref().expect("session ref");
    assert_eq!((s.source.as_str(), s.agent.as_str(), s.value.as_str()), ("herdr:claude", "claude", "sess-1"));
    a.identity(None, IdentityReason::Exited, HIDDEN);
    assert!(a.session_ref().is_none(), "cleared with the agent's exit");
}

#[test]
fn stale_sequence_numbers_are_ignored_per_source() {
    let mut a = detected("claude");
    a.report(report("custom:a", "claude", DetectedState::Working, Some(5)), HIDDEN);
    a.report(report("custom:a", "claude", DetectedState::Blocked, Some(5)), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working, "equal seq ignored");
    a.report(report("custom:a", "claude", DetectedState::Blocked, Some(4)), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Working, "older seq ignored");
    a.report(report("custom:b", "claude", DetectedState::Blocked, Some(1)), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Blocked, "another source has its own sequence");
}

#[test]
fn reports_for_another_known_agent_or_an_exited_one_are_ignored() {
    let mut a = detected("claude");
    a.report(report("custom:x", "codex", DetectedState::Working, None), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Idle);
    assert!(a.authority().is_none());
    a.identity(None, IdentityReason::Exited, HIDDEN);
    a.report(report("custom:x", "claude", DetectedState::Working, None), HIDDEN);
    assert_eq!(a.status(), AgentStatus::Unknown, "the exited generation cannot report");
}

#[test]
fn custom_sources_may_name_agents_herdr_does_not_know() {
    let mut a = PaneAgent::default();
    a.report(report("custom:bot", "docs-bot", DetectedState::Working, None), HIDDEN);
    assert_eq!(a.effective().agent.as_deref(), Some("docs-bot"));
    assert_eq!(a.status(), AgentStatus::Working);
    assert!(a.hosts_agent());
    a.release("custom:bot", "docs-bot", None, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Unknown);
    assert!(!a.hosts_agent());
}

#[test]
fn release_by_a_custom_source_frees_the_detected_agent_but_official_release_is_ignored() {
    let mut a = detected("claude");
    let change = a.release("herdr:claude", "claude", None, HIDDEN);
    assert!(!change.release_worker);
    assert_eq!(a.foreground_agent(), Some("claude"));
    let change = a.release("custom:x", "claude", None, HIDDEN);
    assert!(change.release_worker);
    assert_eq!(a.foreground_agent(), None);
    assert_eq!(a.status(), AgentStatus::Unknown);
}

#[test]
fn names_go_with_the_agent() {
    let mut a = detected("claude");
    a.set_name(Some("rev".into()));
    a.screen(&screen("claude", DetectedState::Working), HIDDEN);
    assert_eq!(a.name(), Some("rev"));
    a.identity(Some("codex".into()), IdentityReason::Detected, HIDDEN);
    assert_eq!(a.name(), None, "replaced");
    a.set_name(Some("next".into()));
    a.identity(None, IdentityReason::Exited, HIDDEN);
    assert_eq!(a.name(), None, "exited");
}

#[test]
fn identity_change_drops_a_conflicting_authority_and_stale_screen() {
    let mut a = detected("claude");
    a.report(report("custom:x", "claude", DetectedState::Working, None), HIDDEN);
    a.identity(Some("codex".into()), IdentityReason::Detected, HIDDEN);
    assert!(a.authority().is_none());
    assert_eq!(a.status(), AgentStatus::Unknown, "no verdict for the new agent yet");
    assert_eq!(a.screen_rule(), None);
}

#[test]
fn a_launch_is_pending_until_its_agent_is_detected_idle() {
    let now = Instant::now();
    let mut a = PaneAgent::default();
    a.start_launch("w1".into(), "claude".into(), now + Duration::from_secs(30));
    assert!(a.hosts_agent());
    assert!(a.launch().is_some_and(|l| l.pending()));
    a.identity(Some("claude".into()), IdentityReason::Detected, HIDDEN);
    assert!(a.launch().is_some_and(|l| l.pending()), "unknown is not ready");
    a.screen(&screen("claude", DetectedState::Idle), HIDDEN);
    assert!(a.launch().is_some_and(|l| l.ready()));
    assert_eq!(a.name(), Some("w1"), "the launched agent keeps its name");
}

#[test]
fn a_launch_blocked_at_startup_is_not_ready() {
    let now = Instant::now();
    let mut a = PaneAgent::default();
    a.start_launch("w1".into(), "gemini".into(), now + Duration::from_secs(30));
    a.identity(Some("gemini".into()), IdentityReason::Detected, HIDDEN);
    a.screen(&blocker("gemini"), HIDDEN);
    assert_eq!(a.launch().map(|l| l.phase), Some(LaunchPhase::Blocked));
    assert_eq!(a.status(), AgentStatus::Blocked);
}

#[test]
fn an_expired_launch_without_an_agent_frees_its_name() {
    let now = Instant::now();
    let mut a = PaneAgent::default();
    a.start_launch("w1".into(), "claude".into(), now + Duration::from_secs(5));
    assert!(!a.reconcile(now));
    assert!(a.reconcile(now + Duration::from_secs(5)));
    assert_eq!(a.name(), None);
    assert!(!a.hosts_agent());
}

#[test]
fn a_different_program_ends_the_launch() {
    let now = Instant::now();
    let mut a = PaneAgent::default();
    a.start_launch("w1".into(), "claude".into(), now + Duration::from_secs(30));
    a.identity(Some("codex".into()), IdentityReason::Detected, HIDDEN);
    assert!(a.launch().is_none());
    assert_eq!(a.name(), None);
    assert_eq!(a.effective().agent.as_deref(), Some("codex"));
}

#[test]
fn process_exit_verdict_completes_before_the_release() {
    let mut a = detected("claude");
    a.screen(&screen("claude", DetectedState::Working), HIDDEN);
    let exit =
        ScreenState { process_exited: true, visible_idle: true, ..screen("claude", DetectedState::Idle) };
    a.screen(&exit, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Done, "the exit publishes idle first (final status)");
    a.identity(None, IdentityReason::Exited, HIDDEN);
    assert_eq!(a.status(), AgentStatus::Unknown);
    assert_eq!(a.effective().agent, None);
}
