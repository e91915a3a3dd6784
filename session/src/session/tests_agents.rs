//! Agents in the session model: worker frames and hook reports become PaneInfo/AgentInfo
//! fields, roll-ups and events; focus marks panes seen; agent targets and names. Every record,
//! result and event is checked against the protocol-22 schema.

use std::time::{Duration, Instant};

use herdr_protocol::api::{AgentSessionRefKind, AgentStatus, ApiResult, Event};
use herdr_protocol::ipc::{DetectedState, IdentityReason, ScreenState, WorkerRequest};
use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::json;

use crate::agents::Report;
use crate::session::{Effects, PaneKey, Session};

fn verdict(agent: &str, state: DetectedState) -> ScreenState {
    ScreenState {
        agent: Some(agent.into()),
        state,
        visible_idle: false,
        visible_blocker: state == DetectedState::Blocked,
        visible_working: false,
        rule: None,
        process_exited: false,
        refresh: false,
    }
}

fn valid_events(fx: &Effects) -> Vec<Event> {
    for event in &fx.events {
        if let Err(errors) = validate(SchemaKind::Event, &event.to_wire()) {
            panic!("event {} does not validate: {errors:#?}", event.kind());
        }
        if let Some(line) = event.to_subscription_wire()
            && let Err(errors) = validate(SchemaKind::SubscriptionEvent, &line)
        {
            panic!("subscription line does not validate: {errors:#?}");
        }
    }
    fx.events.clone()
}

fn valid_result(result: ApiResult) {
    let envelope = json!({"id": "t", "result": result});
    if let Err(errors) = validate(SchemaKind::SuccessResponse, &envelope) {
        panic!("result does not validate: {errors:#?}\n{envelope:#}");
    }
}

fn statuses(events: &[Event]) -> Vec<AgentStatus> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::PaneAgentStatusChanged { agent_status, .. } => Some(*agent_status),
            _ => None,
        })
        .collect()
}

/// A workspace with two panes side by side; the first (left) keeps the focus.
fn two_panes() -> (Session, PaneKey, PaneKey) {
    let mut s = Session::new(120, 40);
    s.handle_json("workspace.create", json!({})).and_then(Result::ok).expect("workspace");
    s.handle_json("pane.split", json!({"direction": "right"})).and_then(Result::ok).expect("split");
    let keys = s.pane_keys();
    (s, keys[0], keys[1])
}

#[test]
fn detection_feeds_pane_records_roll_ups_and_events() {
    let (mut s, _left, right) = two_panes();
    let events = valid_events(&s.agent_identity(right, Some("claude".into()), IdentityReason::Detected));
    assert!(
        matches!(&events[0], Event::PaneAgentDetected { agent: Some(a), released: false, .. } if a == "claude")
    );
    assert_eq!(statuses(&events), [AgentStatus::Unknown]);
    valid_events(&s.agent_screen(right, &verdict("claude", DetectedState::Idle)));
    let events = valid_events(&s.agent_screen(right, &verdict("claude", DetectedState::Working)));
    assert_eq!(statuses(&events), [AgentStatus::Working]);
    let info = s.pane_info(right).expect("pane");
    assert_eq!((info.agent.as_deref(), info.agent_status), (Some("claude"), AgentStatus::Working));
    assert_eq!(s.workspace_infos()[0].agent_status, AgentStatus::Working);

    // Completion in a pane nobody is shown: done, and the roll-ups say so.
    let events = valid_events(&s.agent_screen(right, &verdict("claude", DetectedState::Idle)));
    assert_eq!(statuses(&events), [AgentStatus::Done]);
    assert_eq!(s.workspace_infos()[0].agent_status, AgentStatus::Done);
    let snapshot = ApiResult::SessionSnapshot { snapshot: Box::new(s.snapshot()) };
    valid_result(snapshot);
    assert_eq!(s.snapshot().agents.len(), 1);
    assert_eq!(s.snapshot().agents[0].state_change_seq, 4, "detected, idle, working, idle");

    // Reads do not mark seen; focusing the pane does.
    let _ = s.handle_json("pane.get", json!({"pane_id": "w1:p2"}));
    assert_eq!(s.published_status(right), Some(AgentStatus::Done));
    let (_, fx) =
        s.handle_json("pane.focus", json!({"pane_id": "w1:p2"})).and_then(Result::ok).expect("focus");
    assert_eq!(statuses(&valid_events(&fx)), [AgentStatus::Idle]);

    // The exit releases the agent with its final status.
    let events = valid_events(&s.agent_identity(right, None, IdentityReason::Exited));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PaneAgentDetected { agent: None, released: true, final_status: Some(AgentStatus::Idle), .. }
    )));
    assert!(s.agent_infos().is_empty());
}

#[test]
fn focusing_the_already_focused_pane_still_marks_it_seen() {
    let (mut s, left, _right) = two_panes();
    s.agent_identity(left, Some("codex".into()), IdentityReason::Detected);
    s.agent_screen(left, &verdict("codex", DetectedState::Working));
    s.agent_screen(left, &verdict("codex", DetectedState::Idle));
    assert_eq!(s.published_status(left), Some(AgentStatus::Done), "no client shows it");
    let (_, fx) =
        s.handle_json("pane.focus", json!({"pane_id": "w1:p1"})).and_then(Result::ok).expect("focus");
    assert_eq!(statuses(&fx.events), [AgentStatus::Idle]);
}

#[test]
fn a_focused_client_sees_completions_in_the_active_tab() {
    let (mut s, left, right) = two_panes();
    s.set_client_focus(true);
    for key in [left, right] {
        s.agent_identity(key, Some("claude".into()), IdentityReason::Detected);
        s.agent_screen(key, &verdict("claude", DetectedState::Working));
        s.agent_screen(key, &verdict("claude", DetectedState::Idle));
        assert_eq!(s.published_status(key), Some(AgentStatus::Idle));
    }
}

#[test]
fn agent_targets_are_canonical_pane_ids_or_live_names() {
    let (mut s, left, right) = two_panes();
    assert_eq!(
        s.resolve_agent("w1:p2").map_err(|e| e.code.as_str().to_owned()),
        Err("agent_not_found".to_owned())
    );
    s.agent_identity(right, Some("claude".into()), IdentityReason::Detected);
    assert_eq!(s.resolve_agent("w1:p2"), Ok(right));
    assert_eq!(
        s.resolve_agent("p_2").map_err(|e| e.code.as_str().to_owned()),
        Err("agent_not_found".into()),
        "no aliases"
    );
    let fx = s.agent_rename(right, Some("reviewer".into())).expect("rename");
    assert!(valid_events(&fx).iter().any(|e| matches!(e, Event::PaneUpdated { .. })));
    assert_eq!(s.resolve_agent("reviewer"), Ok(right));
    s.agent_identity(left, Some("codex".into()), IdentityReason::Detected);
    let taken =
        s.agent_rename(left, Some("reviewer".into())).map(|_| ()).map_err(|e| e.code.as_str().to_owned());
    assert_eq!(taken, Err("agent_name_taken".into()));
    let bad =
        s.agent_rename(left, Some("Bad Name".into())).map(|_| ()).map_err(|e| e.code.as_str().to_owned());
    assert_eq!(bad, Err("invalid_agent_name".into()));
    let infos = s.agent_infos();
    assert_eq!(infos.iter().map(|i| i.pane_id.as_str()).collect::<Vec<_>>(), ["w1:p1", "w1:p2"]);
    valid_result(ApiResult::AgentList { agents: infos });
    s.agent_identity(right, None, IdentityReason::Exited);
    assert_eq!(
        s.resolve_agent("reviewer").map_err(|e| e.code.as_str().to_owned()),
        Err("agent_not_found".into())
    );
}

#[test]
fn hooks_set_state_session_refs_and_scan_suspension() {
    let (mut s, _left, right) = two_panes();
    s.agent_identity(right, Some("pi".into()), IdentityReason::Detected);
    let report = Report {
        source: "herdr:pi".into(),
        agent: "pi".into(),
        state: DetectedState::Working,
        message: Some("thinking".into()),
        seq: Some(1),
        session: Some((AgentSessionRefKind::Path, "/home/u/.pi/s.jsonl".into())),
    };
    let fx = s.agent_report(right, report);
    assert_eq!(fx.notices, [(right, WorkerRequest::SetScansSuspended(true))]);
    assert_eq!(statuses(&valid_events(&fx)), [AgentStatus::Working]);
    let info = s.agent_info(right).expect("agent");
    assert!(info.screen_detection_skipped);
    let session = info.agent_session.clone().expect("session ref");
    assert_eq!((session.kind, session.value.as_str()), (AgentSessionRefKind::Path, "/home/u/.pi/s.jsonl"));
    valid_result(ApiResult::AgentInfo { agent: Box::new(info) });
    let fx = s.agent_clear_authority(right, Some("herdr:pi"), Some(2));
    assert_eq!(fx.notices, [(right, WorkerRequest::SetScansSuspended(false))]);
}

#[test]
fn a_custom_release_tells_the_worker() {
    let (mut s, _left, right) = two_panes();
    s.agent_identity(right, Some("claude".into()), IdentityReason::Detected);
    let fx = s.agent_release(right, "custom:x", "claude", None);
    assert_eq!(fx.notices, [(right, WorkerRequest::ReleaseAgent)]);
    assert!(valid_events(&fx).iter().any(|e| matches!(e, Event::PaneAgentDetected { released: true, .. })));
}

#[test]
fn launches_show_pending_then_ready_and_expire() {
    let (mut s, left, right) = two_panes();
    let now = Instant::now();
    s.agent_launch(right, "w1".into(), "claude".into(), now + Duration::from_secs(30));
    let info = s.agent_info(right).expect("agent");
    assert!(info.launch_pending && !info.interactive_ready);
    assert_eq!(s.resolve_agent("w1"), Ok(right));
    valid_result(ApiResult::AgentStarted { agent: Box::new(info), argv: vec!["claude".into()] });
    s.agent_identity(right, Some("claude".into()), IdentityReason::Detected);
    s.agent_screen(right, &verdict("claude", DetectedState::Idle));
    let info = s.agent_info(right).expect("agent");
    assert!(!info.launch_pending && info.interactive_ready);
    assert_eq!(info.name.as_deref(), Some("w1"));
    valid_result(ApiResult::AgentPrompted { agent: Box::new(info) });

    s.agent_launch(left, "w2".into(), "codex".into(), now + Duration::from_secs(5));
    s.reconcile_launches(now + Duration::from_secs(6));
    assert_eq!(s.resolve_agent("w2").map_err(|e| e.code.as_str().to_owned()), Err("agent_not_found".into()));
}

#[test]
fn the_other_agent_results_validate() {
    valid_result(ApiResult::AgentExplain { explain: json!({"agent": "claude", "state": "idle"}) });
    valid_result(ApiResult::AgentView {
        active: true,
        source: Some("custom:x".into()),
        label: Some("Mine".into()),
    });
    valid_result(ApiResult::AgentView { active: false, source: None, label: None });
}
