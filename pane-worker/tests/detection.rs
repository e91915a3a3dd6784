//! Agent detection in the real worker: a scripted fake Claude (`tests/fake-agents/claude`, named
//! like the real binary) drawing Claude's real screens through a real PTY, and the worker's
//! identity and screen-state events, timings and requests, observed as the supervisor sees them.

mod support;

use std::{
    fs,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use herdr_manifests::machine::{
    ACQUISITION_WINDOW, AGENT_STARTUP_GRACE, PENDING_IDLE_CONFIRMATIONS, PENDING_IDLE_RECHECK,
    PROCESS_RECHECK_IDENTIFIED, RELEASE_REACQUIRE_SUPPRESSION,
};
use herdr_protocol::ipc::{
    DetectedState, IdentityReason, Matcher, ReadSource, ScreenState, SupervisorToWorker, WorkerEvent,
    WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use support::{Worker, wait_until};

fn fake_agents() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents")
}

/// PATH with the fake agents first.
fn agent_path() -> String {
    format!("{}:{}", fake_agents().display(), std::env::var("PATH").unwrap_or_default())
}

/// The next screen verdict that is not a blocker refresh, and when it was taken off the link
/// (for one already stashed: now, which only overstates its latency).
fn next_state(w: &mut Worker, what: &str) -> (ScreenState, Instant) {
    let state = w.expect(what, |f| match f {
        WorkerToSupervisor::Event(WorkerEvent::ScreenState(s)) if !s.refresh => Some(s.clone()),
        _ => None,
    });
    (state, Instant::now())
}

fn identity(w: &mut Worker, what: &str) -> WorkerEvent {
    w.event(what, |e| matches!(e, WorkerEvent::AgentIdentity { .. }))
}

fn detected(agent: &str) -> WorkerEvent {
    WorkerEvent::AgentIdentity { agent: Some(agent.into()), previous: None, reason: IdentityReason::Detected }
}

fn enter(w: &mut Worker) -> Instant {
    let sent = Instant::now();
    w.ok(WorkerRequest::SendKeys(vec!["Enter".into()]));
    sent
}

fn explain(w: &mut Worker) -> serde_json::Value {
    match w.request(WorkerRequest::Explain) {
        WorkerResponse::Explain(json) => serde_json::from_str(&json).expect("explain is JSON"),
        other => panic!("explain answered {other:?}"),
    }
}

/// Watches the link for `window` and fails on any screen verdict (an observation window, not a
/// synchronisation sleep: nothing is expected to happen in it).
fn assert_no_screen_state(w: &mut Worker, window: Duration) {
    let end = Instant::now() + window;
    while let Ok(frame) = w.recv_until(end) {
        if let Some(frame) = frame {
            assert!(
                !matches!(frame, WorkerToSupervisor::Event(WorkerEvent::ScreenState(_))),
                "unexpected {frame:?}"
            );
            w.stash.push(frame);
        } else {
            panic!("link closed");
        }
    }
}

#[test]
fn fake_claude_in_a_shell_goes_working_blocked_idle_and_exits() {
    let mut w = Worker::start();
    let path = agent_path();
    let env = [("PS1", "$ "), ("HISTFILE", "/dev/null"), ("PATH", path.as_str())];
    let (_pid, _master) = w.spawn(&["bash", "--norc", "--noprofile", "-i"], &env, None, (100, 30));
    w.wait_for(ReadSource::Visible, Matcher::Regex(r"^\$$".into()));
    let worker_pid = w.child.id();

    w.run("claude");
    assert_eq!(identity(&mut w, "claude identified"), detected("claude"));
    let identified_at = Instant::now();
    let (s, _) = next_state(&mut w, "acquisition verdict");
    assert_eq!((s.agent.as_deref(), s.state), (Some("claude"), DetectedState::Unknown));

    // The screen is judged once the startup grace is over.
    let (s, at) = next_state(&mut w, "working");
    assert_eq!(
        (s.state, s.visible_working, s.rule.as_deref()),
        (DetectedState::Working, true, Some("osc_title_working"))
    );
    assert!(
        at >= identified_at + AGENT_STARTUP_GRACE - Duration::from_millis(100),
        "grace skipped: {:?} {s:?}",
        at - identified_at
    );

    // Permission prompt: published as soon as it is drawn (how soon is a benchmark:
    // `bench/run --only agents`, blocker on screen → event).
    enter(&mut w);
    let (s, _) = next_state(&mut w, "blocked");
    assert_eq!(
        (s.state, s.visible_blocker, s.rule.as_deref()),
        (DetectedState::Blocked, true, Some("bash_permission_prompt"))
    );
    // A still-visible blocker re-asserts itself.
    w.event(
        "blocker refresh",
        |e| matches!(e, WorkerEvent::ScreenState(s) if s.refresh && s.visible_blocker),
    );

    enter(&mut w);
    let (s, _) = next_state(&mut w, "working again");
    assert_eq!(s.state, DetectedState::Working);

    // Working -> idle with no idle chrome is held until confirmed.
    let sent = enter(&mut w);
    let (s, at) = next_state(&mut w, "confirmed idle");
    assert_eq!((s.state, s.visible_idle, s.rule.as_deref()), (DetectedState::Idle, false, None));
    let held = at - sent;
    eprintln!("working -> plain idle published after {held:?}");
    assert!(held >= PENDING_IDLE_RECHECK * PENDING_IDLE_CONFIRMATIONS, "idle not confirmed: {held:?}");

    // The composer is visible idle chrome: published without the confirmation hold.
    enter(&mut w);
    let (s, _) = next_state(&mut w, "composer idle");
    assert_eq!(
        (s.state, s.visible_idle, s.rule.as_deref()),
        (DetectedState::Idle, true, Some("live_prompt_box"))
    );

    // An idle agent, once the acquisition window is over, keeps one timer: the identity
    // re-check, never due sooner than PROCESS_RECHECK_IDENTIFIED (the wake cost of idle agents
    // is measured by `bench/run --only agents`).
    let quiet = identified_at + ACQUISITION_WINDOW;
    wait_until("the acquisition window is over", || Instant::now() >= quiet);
    let timeout = support::asleep::shortest_timeout_when_asleep(worker_pid, "an idle agent's worker");
    let recheck = PROCESS_RECHECK_IDENTIFIED.as_millis() as u64;
    assert!(timeout.is_some_and(|ms| ms <= recheck), "no re-check timer armed: {timeout:?}");

    // The fake exits: the shell is back in front, the agent is gone.
    enter(&mut w);
    let (s, _) = next_state(&mut w, "process exited verdict");
    assert!(s.process_exited && s.state == DetectedState::Idle && s.visible_idle, "{s:?}");
    assert_eq!(
        identity(&mut w, "claude exited"),
        WorkerEvent::AgentIdentity {
            agent: None,
            previous: Some("claude".into()),
            reason: IdentityReason::Exited
        }
    );
    // And a shell in front with no agent arms no timer at all.
    w.wait_for(ReadSource::Visible, Matcher::Regex(r"^\$$".into()));
    support::asleep::assert_asleep_without_timers(worker_pid, "a shell pane after its agent left");
}

#[test]
fn agent_started_directly_is_reported_and_requests_work() {
    let config = tempfile::tempdir().expect("tempdir");
    let overrides = config.path().join("herdr/agent-detection");
    fs::create_dir_all(&overrides).expect("mkdir");
    fs::write(overrides.join("claude.toml"), "id = \"claude\"\n[[rules]]\nstate = \"idle\"\n")
        .expect("write");
    let xdg = config.path().to_str().expect("utf-8");
    let mut w = Worker::start_with_env(&[("XDG_CONFIG_HOME", xdg)]);
    let path = agent_path();
    let (_pid, _master) = w.spawn(&["claude"], &[("PATH", path.as_str())], None, (100, 30));

    // Nothing changes after start, yet the identity is reported.
    assert_eq!(identity(&mut w, "initial identity"), detected("claude"));
    next_state(&mut w, "acquisition verdict");
    let (s, _) = next_state(&mut w, "working");
    assert_eq!(s.state, DetectedState::Working);

    // Explain: the bundled manifest (the invalid override is ignored, with a warning) and rule.
    let e = explain(&mut w);
    assert_eq!(e["agent"], "claude");
    assert_eq!(e["manifest_source"], "bundled");
    assert_eq!(e["matched_rule"]["id"], "osc_title_working");
    assert_eq!(e["screen_detection_skipped"], false);
    assert!(e.get("screen_detection_skip_reason").is_none());
    assert!(e["warning"].as_str().is_some_and(|m| m.contains("claude.toml")), "{e}");
    assert!(e["evaluated_rules"].as_array().is_some_and(|r| r.len() > 5));

    // A full-lifecycle hook owns the state: no screen verdicts, and explain says why.
    w.ok(WorkerRequest::SetScansSuspended(true));
    let e = explain(&mut w);
    assert_eq!(e["screen_detection_skipped"], true);
    assert_eq!(e["screen_detection_skip_reason"], "full_lifecycle_hook_authority");
    enter(&mut w);
    w.wait_for(ReadSource::Visible, Matcher::Substring("Do you want to proceed?".into()));
    assert_no_screen_state(&mut w, Duration::from_millis(300));
    w.ok(WorkerRequest::SetScansSuspended(false));
    let (s, _) = next_state(&mut w, "blocked after resuming");
    assert_eq!(s.state, DetectedState::Blocked);

    // A valid override takes effect on reload.
    let mine = "id = \"claude\"\n\n[[rules]]\nid = \"my_blocker\"\nstate = \"blocked\"\nvisible_blocker = true\n\
                contains = [\"do you want to proceed?\"]\n";
    fs::write(overrides.join("claude.toml"), mine).expect("write");
    w.ok(WorkerRequest::ReloadManifests);
    let e = explain(&mut w);
    assert_eq!(e["matched_rule"]["id"], "my_blocker", "{e}");
    assert!(e["manifest_source"].as_str().is_some_and(|s| s.ends_with("claude.toml")), "{e}");
    assert!(e["warning"].is_null(), "{e}");

    // Release: forgotten now, re-acquired once the suppression is over (it is still in front).
    let released = Instant::now();
    w.ok(WorkerRequest::ReleaseAgent);
    assert_eq!(
        identity(&mut w, "released"),
        WorkerEvent::AgentIdentity {
            agent: None,
            previous: Some("claude".into()),
            reason: IdentityReason::Released
        }
    );
    assert_eq!(identity(&mut w, "re-acquired"), detected("claude"));
    assert!(released.elapsed() >= RELEASE_REACQUIRE_SUPPRESSION, "re-acquired during the suppression");

    w.send(&SupervisorToWorker::Shutdown);
    w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
}

#[test]
fn wrapper_that_execs_the_agent_is_identified_from_its_first_output() {
    let mut w = Worker::start();
    let path = agent_path();
    // The pane's program is first a plain shell (taken for the pane's shell: no timer), then
    // becomes claude, which draws once and stays silent.
    let env = [("PATH", path.as_str()), ("FAKE_CLAUDE_START", "idle")];
    let (_pid, _master) = w.spawn(&["sh", "-c", "sleep 0.3; exec claude"], &env, None, (100, 30));
    assert_eq!(identity(&mut w, "claude behind the wrapper"), detected("claude"));
    next_state(&mut w, "acquisition verdict");
    let (s, _) = next_state(&mut w, "idle after the grace");
    assert_eq!((s.state, s.visible_idle), (DetectedState::Idle, true));
    w.send(&SupervisorToWorker::Shutdown);
    w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
}

#[test]
fn a_supervisor_that_adopts_the_worker_learns_the_agent_and_its_state_at_once() {
    let mut w = Worker::start();
    let path = agent_path();
    let env = [("PATH", path.as_str()), ("FAKE_CLAUDE_START", "idle")];
    let (_pid, _master) = w.spawn(&["claude"], &env, None, (100, 30));
    assert_eq!(identity(&mut w, "claude"), detected("claude"));
    next_state(&mut w, "acquisition verdict");
    let (idle, _) = next_state(&mut w, "idle after the grace");
    assert_eq!((idle.state, idle.visible_idle), (DetectedState::Idle, true));

    w.close_link();
    w.adopt();
    // Re-sent as ordinary events, without waiting for the screen to change.
    assert_eq!(identity(&mut w, "identity after adoption"), detected("claude"));
    let (state, _) = next_state(&mut w, "state after adoption");
    assert_eq!(state, idle);
    w.send(&SupervisorToWorker::Shutdown);
    w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
}
