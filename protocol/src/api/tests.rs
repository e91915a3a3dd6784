//! Every result and event kind serializes to JSON the protocol-22 schema accepts, with the
//! reference's field order; absent optionals are omitted.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::schema_check::{SchemaKind, validate};

fn rect(x: u16, y: u16, width: u16, height: u16) -> PaneLayoutRect {
    PaneLayoutRect { x, y, width, height }
}

fn pane(id: &str) -> PaneInfo {
    PaneInfo {
        pane_id: id.into(),
        terminal_id: "term_1a2b".into(),
        workspace_id: "w1".into(),
        tab_id: "w1:t1".into(),
        focused: true,
        cwd: Some("/tmp".into()),
        foreground_cwd: None,
        label: None,
        agent: None,
        title: None,
        terminal_title: Some("bash".into()),
        terminal_title_stripped: Some("bash".into()),
        display_agent: None,
        agent_status: AgentStatus::Unknown,
        state_labels: BTreeMap::new(),
        tokens: BTreeMap::new(),
        agent_session: None,
        scroll: None,
        revision: 3,
    }
}

fn workspace() -> WorkspaceInfo {
    WorkspaceInfo {
        workspace_id: "w1".into(),
        number: 1,
        label: "tmp".into(),
        focused: true,
        pane_count: 2,
        tab_count: 1,
        active_tab_id: "w1:t1".into(),
        agent_status: AgentStatus::Idle,
        tokens: BTreeMap::new(),
        worktree: None,
    }
}

fn tab() -> TabInfo {
    TabInfo {
        tab_id: "w1:t1".into(),
        workspace_id: "w1".into(),
        number: 1,
        label: "1".into(),
        focused: true,
        pane_count: 2,
        agent_status: AgentStatus::Unknown,
    }
}

fn layout() -> PaneLayoutSnapshot {
    PaneLayoutSnapshot {
        workspace_id: "w1".into(),
        tab_id: "w1:t1".into(),
        zoomed: false,
        area: rect(0, 0, 120, 40),
        focused_pane_id: "w1:p1".into(),
        panes: vec![
            PaneLayoutPane { pane_id: "w1:p1".into(), focused: true, rect: rect(0, 0, 60, 40) },
            PaneLayoutPane { pane_id: "w1:p2".into(), focused: false, rect: rect(60, 0, 60, 40) },
        ],
        splits: vec![PaneLayoutSplit {
            id: "split_0_root".into(),
            direction: SplitDirection::Right,
            ratio: 0.5,
            rect: rect(0, 0, 120, 40),
        }],
    }
}

fn agent() -> AgentInfo {
    AgentInfo {
        terminal_id: "term_1a2b".into(),
        name: Some("reviewer".into()),
        agent: Some("claude".into()),
        title: None,
        terminal_title: None,
        terminal_title_stripped: None,
        display_agent: None,
        agent_status: AgentStatus::Working,
        screen_detection_skipped: false,
        state_labels: BTreeMap::new(),
        tokens: BTreeMap::new(),
        agent_session: Some(AgentSessionInfo {
            source: "claude".into(),
            agent: "claude".into(),
            kind: AgentSessionRefKind::Id,
            value: "abc".into(),
        }),
        workspace_id: "w1".into(),
        tab_id: "w1:t1".into(),
        pane_id: "w1:p1".into(),
        focused: false,
        launch_pending: false,
        interactive_ready: true,
        state_change_seq: 4,
        cwd: None,
        foreground_cwd: None,
        revision: 0,
    }
}

fn read() -> PaneReadResult {
    PaneReadResult {
        pane_id: "w1:p1".into(),
        workspace_id: "w1".into(),
        tab_id: "w1:t1".into(),
        source: ReadSource::RecentUnwrapped,
        format: ReadFormat::Text,
        text: "$ ls\n".into(),
        revision: 0,
        truncated: false,
    }
}

fn all_results() -> Vec<ApiResult> {
    let snapshot = SessionSnapshot {
        version: "0.1.0".into(),
        protocol: 22,
        focused_workspace_id: Some("w1".into()),
        focused_tab_id: Some("w1:t1".into()),
        focused_pane_id: Some("w1:p1".into()),
        workspaces: vec![workspace()],
        tabs: vec![tab()],
        panes: vec![pane("w1:p1"), pane("w1:p2")],
        layouts: vec![layout()],
        agents: vec![agent()],
    };
    let description = LayoutDescription {
        workspace_id: "w1".into(),
        tab_id: "w1:t1".into(),
        zoomed: false,
        focused_pane_id: "w1:p1".into(),
        root: LayoutNode::Split {
            direction: SplitDirection::Down,
            ratio: 0.25,
            first: Box::new(LayoutNode::Pane {
                pane_id: Some("w1:p1".into()),
                label: Some("editor".into()),
                cwd: Some("/tmp".into()),
                command: Some(vec!["vim".into()]),
                env: BTreeMap::new(),
            }),
            second: Box::new(LayoutNode::Pane {
                pane_id: None,
                label: None,
                cwd: None,
                command: None,
                env: BTreeMap::new(),
            }),
        },
    };
    vec![
        ApiResult::Pong {
            version: "0.1.0".into(),
            protocol: 22,
            capabilities: Some(ServerCapabilities {
                live_handoff: true,
                detached_server_daemon: true,
                endpoint_protocol_generation: None,
                health_check: true,
                surface_interest: false,
            }),
            binary: Some(ServerBinary {
                path: "/usr/bin/herdr".into(),
                identity: "2049:131:9000000:1700000000.5".into(),
            }),
            service: Some(ServiceState {
                mode: ServiceMode::Systemd,
                unit: Some("herdr.service".into()),
                pid: 42,
            }),
        },
        ApiResult::Pong {
            version: "0.1.0".into(),
            protocol: 22,
            capabilities: None,
            binary: None,
            service: Some(ServiceState { mode: ServiceMode::Foreground, unit: None, pid: 7 }),
        },
        ApiResult::Ok,
        ApiResult::SessionSnapshot { snapshot: Box::new(snapshot) },
        ApiResult::WorkspaceInfo { workspace: Box::new(workspace()) },
        ApiResult::WorkspaceCreated {
            workspace: Box::new(workspace()),
            tab: Box::new(tab()),
            root_pane: Box::new(pane("w1:p1")),
        },
        ApiResult::WorkspaceList { workspaces: vec![workspace()] },
        ApiResult::TabInfo { tab: Box::new(tab()) },
        ApiResult::TabCreated { tab: Box::new(tab()), root_pane: Box::new(pane("w1:p1")) },
        ApiResult::TabList { tabs: vec![tab()] },
        ApiResult::AgentInfo { agent: Box::new(agent()) },
        ApiResult::AgentList { agents: vec![agent()] },
        ApiResult::PaneInfo { pane: Box::new(pane("w1:p1")) },
        ApiResult::PaneList { panes: vec![pane("w1:p1")] },
        ApiResult::PaneCurrent { pane: Box::new(pane("w1:p1")) },
        ApiResult::PaneSwap {
            swap: Box::new(PaneSwapResult {
                changed: false,
                reason: Some(PaneSwapReason::NoNeighbor),
                source_pane_id: "w1:p1".into(),
                target_pane_id: None,
                focused_pane_id: "w1:p1".into(),
                layout: layout(),
            }),
        },
        ApiResult::PaneMove {
            move_result: Box::new(PaneMoveResult {
                changed: true,
                reason: None,
                previous_pane_id: "w1:p2".into(),
                previous_workspace_id: "w1".into(),
                previous_tab_id: "w1:t1".into(),
                pane: pane("w2:p1"),
                source_layout: Some(layout()),
                target_layout: layout(),
                created_workspace: Some(workspace()),
                created_tab: Some(tab()),
                closed_workspace_id: None,
                closed_tab_id: None,
                focused_pane_id: "w1:p1".into(),
            }),
        },
        ApiResult::PaneZoom {
            zoom: Box::new(PaneZoomResult {
                changed: true,
                zoom_changed: true,
                focus_changed: false,
                reason: None,
                pane_id: "w1:p1".into(),
                focused_pane_id: "w1:p1".into(),
                zoomed: true,
                layout: layout(),
            }),
        },
        ApiResult::PaneLayout { layout: Box::new(layout()) },
        ApiResult::PaneProcessInfo {
            process_info: Box::new(PaneProcessInfo {
                pane_id: "w1:p1".into(),
                shell_pid: Some(10),
                foreground_process_group_id: Some(12),
                tty: Some("/dev/pts/3".into()),
                foreground_processes: vec![PaneProcessInfoProcess {
                    pid: 12,
                    name: "vim".into(),
                    argv0: Some("vim".into()),
                    argv: Some(vec!["vim".into(), "x".into()]),
                    cmdline: Some("vim x".into()),
                    cwd: None,
                }],
            }),
        },
        ApiResult::LayoutExport { layout: Box::new(description.clone()) },
        ApiResult::LayoutApply { layout: Box::new(description.clone()) },
        ApiResult::LayoutSplitRatioSet { layout: Box::new(description) },
        ApiResult::PaneNeighbor {
            neighbor: Box::new(PaneNeighborResult {
                pane_id: "w1:p1".into(),
                direction: PaneDirection::Right,
                neighbor_pane_id: Some("w1:p2".into()),
                layout: layout(),
            }),
        },
        ApiResult::PaneEdges {
            edges: Box::new(PaneEdgesResult {
                pane_id: "w1:p1".into(),
                left: true,
                right: false,
                up: true,
                down: true,
                layout: layout(),
            }),
        },
        ApiResult::PaneFocusDirection {
            focus: Box::new(PaneFocusDirectionResult {
                changed: false,
                reason: Some(PaneFocusDirectionReason::NoNeighbor),
                source_pane_id: "w1:p1".into(),
                focused_pane_id: Some("w1:p1".into()),
                layout: layout(),
            }),
        },
        ApiResult::PaneResize {
            resize: Box::new(PaneResizeResult {
                changed: false,
                reason: Some(PaneResizeReason::Unchanged),
                pane_id: "w1:p1".into(),
                focused_pane_id: "w1:p1".into(),
                layout: layout(),
            }),
        },
        ApiResult::PaneRead { read: Box::new(read()) },
        ApiResult::SubscriptionStarted {
            epoch: None,
            seq: None,
            truncated: false,
            first_available_seq: None,
        },
        ApiResult::SubscriptionStarted {
            epoch: Some("0123456789abcdef".into()),
            seq: Some(42),
            truncated: true,
            first_available_seq: Some(7),
        },
        ApiResult::WaitMatched {
            event: Event::PaneAgentStatusChanged {
                pane_id: "w1:p1".into(),
                workspace_id: "w1".into(),
                agent_status: AgentStatus::Idle,
                agent: Some("codex".into()),
                title: None,
                display_agent: None,
                state_labels: BTreeMap::new(),
            }
            .to_wire(),
        },
        ApiResult::OutputMatched {
            pane_id: "w1:p1".into(),
            revision: 0,
            matched_line: Some("$ ls".into()),
            read: Box::new(read()),
        },
    ]
}

fn worktree() -> WorktreeInfo {
    WorktreeInfo {
        path: "/home/me/.herdr/worktrees/api/fix-login".into(),
        branch: Some("fix/login".into()),
        is_bare: false,
        is_detached: false,
        is_prunable: false,
        is_linked_worktree: true,
        open_workspace_id: Some("w2".into()),
        label: "api".into(),
    }
}

fn all_events() -> Vec<Event> {
    vec![
        Event::WorkspaceCreated { workspace: Box::new(workspace()) },
        Event::WorkspaceUpdated { workspace: Box::new(workspace()) },
        Event::WorkspaceClosed { workspace_id: "w1".into(), workspace: Some(Box::new(workspace())) },
        Event::WorkspaceRenamed { workspace_id: "w1".into(), label: "api".into() },
        Event::WorkspaceMoved { workspace_id: "w1".into(), insert_index: 0, workspaces: vec![workspace()] },
        Event::WorkspaceReordered {
            workspace_ids: vec!["w1".into()],
            before_workspace_id: None,
            workspaces: vec![workspace()],
        },
        Event::WorkspaceFocused { workspace_id: "w1".into() },
        Event::WorktreeCreated { workspace: Box::new(workspace()), worktree: Box::new(worktree()) },
        Event::WorktreeOpened {
            workspace: Box::new(workspace()),
            worktree: Box::new(worktree()),
            already_open: true,
        },
        Event::WorktreeRemoved {
            workspace_id: "w2".into(),
            workspace: Some(Box::new(workspace())),
            worktree: Box::new(worktree()),
            forced: true,
        },
        Event::TabCreated { tab: Box::new(tab()) },
        Event::TabClosed { tab_id: "w1:t2".into(), workspace_id: "w1".into() },
        Event::TabRenamed { tab_id: "w1:t1".into(), workspace_id: "w1".into(), label: "logs".into() },
        Event::TabMoved {
            tab_id: "w1:t1".into(),
            workspace_id: "w1".into(),
            insert_index: 1,
            tabs: vec![tab()],
        },
        Event::TabFocused { tab_id: "w1:t1".into(), workspace_id: "w1".into() },
        Event::PaneCreated { pane: Box::new(pane("w1:p2")) },
        Event::PaneClosed { pane_id: "w1:p2".into(), workspace_id: "w1".into() },
        Event::PaneUpdated { pane: Box::new(pane("w1:p1")) },
        Event::PaneFocused { pane_id: "w1:p1".into(), workspace_id: "w1".into() },
        Event::PaneMoved {
            previous_pane_id: "w1:p2".into(),
            previous_workspace_id: "w1".into(),
            previous_tab_id: "w1:t1".into(),
            pane: Box::new(pane("w2:p1")),
            created_workspace: Some(Box::new(workspace())),
            created_tab: None,
            closed_workspace_id: None,
            closed_tab_id: Some("w1:t2".into()),
        },
        Event::PaneExited { pane_id: "w1:p2".into(), workspace_id: "w1".into() },
        Event::PaneAgentDetected {
            pane_id: "w1:p1".into(),
            workspace_id: "w1".into(),
            agent: None,
            released: true,
            final_status: Some(AgentStatus::Done),
        },
        Event::PaneAgentStatusChanged {
            pane_id: "w1:p1".into(),
            workspace_id: "w1".into(),
            agent_status: AgentStatus::Blocked,
            agent: Some("claude".into()),
            title: Some("permission".into()),
            display_agent: None,
            state_labels: BTreeMap::from([("blocked".into(), "needs you".into())]),
        },
        Event::LayoutUpdated { layout: Box::new(layout()) },
    ]
}

#[test]
fn every_result_kind_validates_as_a_success_response() {
    for result in all_results() {
        let envelope = json!({"id": "t", "result": result});
        if let Err(errors) = validate(SchemaKind::SuccessResponse, &envelope) {
            panic!("{} does not validate: {errors:#?}", envelope["result"]["type"]);
        }
        assert!(envelope["result"].as_object().is_some_and(|m| m.keys().next().is_some_and(|k| k == "type")));
    }
}

#[test]
fn every_event_kind_validates_and_names_itself_twice() {
    for event in all_events() {
        let wire = event.to_wire();
        if let Err(errors) = validate(SchemaKind::Event, &wire) {
            panic!("{} does not validate: {errors:#?}", event.kind());
        }
        assert_eq!(wire["event"], event.kind());
        assert_eq!(wire["data"]["type"], event.kind());
        assert_eq!(event.subscription_type().replacen('.', "_", 1), event.kind());
        let back: Event = serde_json::from_value(wire["data"].clone()).expect("event data round-trips");
        assert_eq!(back, event);
    }
}

#[test]
fn agent_status_subscription_line_uses_the_dotted_name_without_type() {
    let event = all_events().into_iter().find(|e| e.kind() == "pane_agent_status_changed").expect("present");
    let line = event.to_subscription_wire().expect("parameterised kind");
    assert_eq!(line["event"], "pane.agent_status_changed");
    assert!(line["data"].get("type").is_none());
    validate(SchemaKind::SubscriptionEvent, &line).expect("valid subscription event");
    assert!(
        Event::PaneExited { pane_id: "w1:p1".into(), workspace_id: "w1".into() }
            .to_subscription_wire()
            .is_none()
    );
}

#[test]
fn pane_info_keeps_reference_order_and_omits_absent_optionals() {
    let value = serde_json::to_value(pane("w1:p1")).expect("serializes");
    let keys: Vec<&str> = value.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "pane_id",
            "terminal_id",
            "workspace_id",
            "tab_id",
            "focused",
            "cwd",
            "terminal_title",
            "terminal_title_stripped",
            "agent_status",
            "revision"
        ]
    );
}

#[test]
fn the_validator_rejects_a_wrong_shape() {
    let mut value = json!({"id": "t", "result": ApiResult::PaneInfo { pane: Box::new(pane("w1:p1")) }});
    value["result"]["pane"]["agent_status"] = Value::String("sleeping".into());
    let errors = validate(SchemaKind::SuccessResponse, &value).expect_err("bad enum value");
    assert!(!errors.is_empty());
    let missing = json!({"event": "pane_closed", "data": {"type": "pane_closed", "pane_id": "w1:p1"}});
    assert!(validate(SchemaKind::Event, &missing).is_err());
}

#[test]
fn api_error_serializes_as_code_and_message() {
    let envelope = json!({"id": "x", "error": ApiError::pane_not_found("w9:p1")});
    validate(SchemaKind::ErrorResponse, &envelope).expect("valid error response");
    assert_eq!(envelope["error"]["message"], "pane w9:p1 not found");
}
