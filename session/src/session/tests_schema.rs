//! Every result and event the session model produces validates against the protocol-22 schema.
//! Needs `herdr-protocol` with feature `schema-check` (a dev-dependency of the supervisor).

use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::{Value, json};

use crate::session::{Effects, Session};

/// The methods and params of a scenario that reaches every result and event kind of the model.
fn scenario() -> Vec<(&'static str, Value)> {
    vec![
        ("session.snapshot", json!({})),
        ("workspace.create", json!({"cwd": "/src/api", "label": "api", "env": {"A": "1"}})),
        ("workspace.create", json!({"focus": true})),
        ("workspace.list", json!({})),
        ("workspace.get", json!({"workspace_id": "w1"})),
        ("workspace.focus", json!({"workspace_id": "w1"})),
        ("workspace.rename", json!({"workspace_id": "w2", "label": "docs"})),
        ("workspace.move", json!({"workspace_id": "w2", "insert_index": 0})),
        ("workspace.move_block", json!({"workspace_ids": ["w1"], "before_workspace_id": "w2"})),
        ("tab.create", json!({"label": "logs", "focus": true})),
        ("tab.list", json!({})),
        ("tab.get", json!({"tab_id": "w1:t2"})),
        ("tab.focus", json!({"tab_id": "w1:t1"})),
        ("tab.rename", json!({"tab_id": "w1:t1", "label": "main"})),
        ("tab.move", json!({"tab_id": "w1:t2", "insert_index": 0})),
        ("pane.split", json!({"direction": "right", "ratio": 0.3})),
        ("pane.split", json!({"direction": "down", "target_pane_id": "w1:p3", "focus": true})),
        ("pane.list", json!({})),
        ("pane.get", json!({"pane_id": "w1:p1"})),
        ("pane.current", json!({})),
        ("pane.focus", json!({"pane_id": "w1:p1"})),
        ("pane.rename", json!({"pane_id": "w1:p1", "label": "editor"})),
        ("pane.layout", json!({})),
        ("pane.neighbor", json!({"direction": "right"})),
        ("pane.neighbor", json!({"direction": "left"})),
        ("pane.edges", json!({})),
        ("pane.focus_direction", json!({"direction": "right"})),
        ("pane.focus_direction", json!({"direction": "right"})),
        ("pane.resize", json!({"direction": "up"})),
        ("pane.resize", json!({"direction": "up"})),
        ("pane.swap", json!({"direction": "left"})),
        ("pane.swap", json!({"source_pane_id": "w1:p1", "target_pane_id": "w1:p1"})),
        ("pane.zoom", json!({"mode": "on"})),
        ("pane.zoom", json!({"mode": "on"})),
        ("pane.zoom", json!({})),
        (
            "pane.move",
            json!({"pane_id": "w1:p4", "destination": {"type": "tab", "tab_id": "w2:t1", "split": "right"}}),
        ),
        ("pane.move", json!({"pane_id": "w1:p3", "destination": {"type": "new_tab"}})),
        ("pane.move", json!({"pane_id": "w1:p3", "destination": {"type": "new_workspace", "label": "x"}})),
        ("pane.move", json!({"pane_id": "w3:p1", "destination": {"type": "new_tab"}})),
        ("layout.export", json!({})),
        ("layout.set_split_ratio", json!({"tab_id": "w2:t1", "path": [], "ratio": 0.6})),
        (
            "layout.apply",
            json!({"tab_label": "dev", "root": {"type": "split", "direction": "down", "ratio": 0.5,
            "first": {"type": "pane", "command": ["sh"], "label": "a"}, "second": {"type": "pane"}}}),
        ),
        ("pane.close", json!({"pane_id": "w2:p2"})),
        ("tab.close", json!({"tab_id": "w1:t2"})),
        ("session.snapshot", json!({})),
        ("workspace.close", json!({"workspace_id": "w3"})),
    ]
}

fn check_effects(context: &str, fx: &Effects, seen: &mut Vec<&'static str>) {
    for event in &fx.events {
        if let Err(errors) = validate(SchemaKind::Event, &event.to_wire()) {
            panic!("{context}: event {} does not validate: {errors:#?}", event.kind());
        }
        seen.push(event.kind());
    }
}

#[test]
fn every_produced_result_and_event_validates() {
    let mut s = Session::new(120, 40);
    let mut results = Vec::new();
    let mut events = Vec::new();
    for (method, params) in scenario() {
        let (result, fx) = match s.handle_json(method, params.clone()) {
            Some(Ok(done)) => done,
            other => panic!("{method} {params}: {other:?}"),
        };
        let envelope = json!({"id": "t", "result": result});
        if let Err(errors) = validate(SchemaKind::SuccessResponse, &envelope) {
            panic!("{method}: result does not validate: {errors:#?}\n{envelope:#}");
        }
        results.push(envelope["result"]["type"].as_str().unwrap_or_default().to_owned());
        check_effects(method, &fx, &mut events);
    }
    let keys = s.pane_keys();
    check_effects("title", &s.set_pane_title(keys[0], Some("vim".into())), &mut events);
    check_effects("cwd", &s.set_pane_cwd(keys[0], "/tmp".into()), &mut events);
    let agent = s.set_pane_agent(keys[0], Some("claude".into()), herdr_protocol::api::AgentStatus::Working);
    check_effects("agent", &agent, &mut events);
    check_effects("exit", &s.pane_exited(keys[0]), &mut events);
    // A workspace created without any cwd learns its label from the first reported one.
    let mut fresh = Session::new(80, 24);
    let (_, fx) = fresh.handle_json("workspace.create", json!({})).and_then(Result::ok).expect("created");
    check_effects("fresh", &fx, &mut events);
    check_effects("fresh cwd", &fresh.set_pane_cwd(fx.spawns[0].pane, "/srv".into()), &mut events);
    for kind in [
        "session_snapshot",
        "workspace_created",
        "workspace_list",
        "workspace_info",
        "tab_created",
        "tab_list",
        "tab_info",
        "pane_info",
        "pane_list",
        "pane_current",
        "pane_layout",
        "pane_neighbor",
        "pane_edges",
        "pane_focus_direction",
        "pane_resize",
        "pane_swap",
        "pane_zoom",
        "pane_move",
        "layout_export",
        "layout_apply",
        "layout_split_ratio_set",
        "ok",
    ] {
        assert!(results.iter().any(|r| r == kind), "scenario never produced {kind}");
    }
    for kind in [
        "workspace_created",
        "workspace_updated",
        "workspace_closed",
        "workspace_renamed",
        "workspace_moved",
        "workspace_reordered",
        "workspace_focused",
        "tab_created",
        "tab_closed",
        "tab_renamed",
        "tab_moved",
        "tab_focused",
        "pane_created",
        "pane_closed",
        "pane_updated",
        "pane_focused",
        "pane_moved",
        "pane_exited",
        "pane_agent_detected",
        "pane_agent_status_changed",
        "layout_updated",
    ] {
        assert!(events.contains(&kind), "scenario never produced {kind}");
    }
}
