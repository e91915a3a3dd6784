//! Session model behaviour through `Session::handle`: ids, focus, events, spawns and closes.

use herdr_protocol::api::Event;
use serde_json::{Value, json};

use super::{Effects, HandleError, PaneKey, Session};

/// Runs a method that must succeed; the result as JSON plus the effects.
pub(super) fn call(s: &mut Session, method: &str, params: Value) -> (Value, Effects) {
    match s.handle_json(method, params) {
        Some(Ok((result, fx))) => (serde_json::to_value(result).expect("result serializes"), fx),
        Some(Err(e)) => panic!("{method} failed: {e}"),
        None => panic!("{method} is not a session method"),
    }
}

/// Runs a method that must fail with an API error; its code.
pub(super) fn api_error(s: &mut Session, method: &str, params: Value) -> (String, String) {
    match s.handle_json(method, params) {
        Some(Err(HandleError::Api(e))) => (e.code.as_str().to_owned(), e.message),
        Some(Err(e)) => panic!("{method}: expected an API error, got {e}"),
        Some(Ok((result, _))) => panic!("{method}: expected an error, got {result:?}"),
        None => panic!("{method} is not a session method"),
    }
}

pub(super) fn kinds(fx: &Effects) -> Vec<&'static str> {
    fx.events.iter().map(Event::kind).collect()
}

/// A session with workspace w1 (pane w1:p1, cwd /src/api), focused.
pub(super) fn one_workspace() -> Session {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    s
}

pub(super) fn key(s: &Session, id: &str) -> PaneKey {
    s.resolve_pane(id).expect("pane exists")
}

#[test]
fn first_workspace_is_created_focused_with_spawn_and_events() {
    let mut s = Session::new(120, 40);
    let (r, fx) = call(&mut s, "workspace.create", json!({"cwd": "/src/api", "env": {"A": "1"}}));
    assert_eq!(r["type"], "workspace_created");
    assert_eq!(r["workspace"]["workspace_id"], "w1");
    assert_eq!(r["workspace"]["label"], "api");
    assert_eq!(r["workspace"]["focused"], true);
    assert_eq!(r["tab"]["tab_id"], "w1:t1");
    assert_eq!(r["tab"]["label"], "1");
    assert_eq!(r["root_pane"]["pane_id"], "w1:p1");
    assert_eq!(r["root_pane"]["cwd"], "/src/api");
    assert_eq!(r["root_pane"]["focused"], true);
    assert_eq!(
        kinds(&fx),
        [
            "workspace_created",
            "tab_created",
            "pane_created",
            "workspace_focused",
            "tab_focused",
            "pane_focused"
        ]
    );
    assert_eq!(fx.spawns.len(), 1);
    let spawn = &fx.spawns[0];
    assert_eq!((spawn.cols, spawn.rows), (120, 40));
    assert_eq!(
        (spawn.workspace_id.as_str(), spawn.tab_id.as_str(), spawn.pane_id.as_str()),
        ("w1", "w1:t1", "w1:p1")
    );
    assert_eq!(spawn.cwd.as_deref(), Some("/src/api"));
    assert_eq!(spawn.env, vec![("A".to_owned(), "1".to_owned())]);
    assert_eq!(s.focused_pane(), Some(spawn.pane));
    assert!(fx.resizes.is_empty() && fx.closes.is_empty());
}

#[test]
fn later_workspaces_stay_in_the_background_unless_focused() {
    let mut s = one_workspace();
    let (r, fx) = call(&mut s, "workspace.create", json!({"label": "docs"}));
    assert_eq!(r["workspace"]["workspace_id"], "w2");
    assert_eq!(r["workspace"]["label"], "docs");
    assert_eq!(r["workspace"]["focused"], false);
    assert_eq!(r["workspace"]["number"], 2);
    assert_eq!(r["root_pane"]["pane_id"], "w2:p1");
    // No cwd given: the focused pane's cwd carries over.
    assert_eq!(r["root_pane"]["cwd"], "/src/api");
    assert_eq!(kinds(&fx), ["workspace_created", "tab_created", "pane_created"]);
    let (r, fx) = call(&mut s, "workspace.create", json!({"focus": true}));
    assert_eq!(r["workspace"]["workspace_id"], "w3");
    assert_eq!(r["workspace"]["focused"], true);
    assert_eq!(kinds(&fx)[3..], ["workspace_focused", "tab_focused", "pane_focused"]);
    let (list, _) = call(&mut s, "workspace.list", json!({}));
    let focused: Vec<bool> =
        list["workspaces"].as_array().expect("list").iter().map(|w| w["focused"] == true).collect();
    assert_eq!(focused, [false, false, true]);
}

/// The `workspace_id`s of a `workspace.list` result, in order.
pub(super) fn workspace_ids(list: &Value) -> Vec<String> {
    list["workspaces"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|w| w["workspace_id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn workspace_ids_use_bijective_base32_and_are_never_reused() {
    let mut s = Session::new(80, 24);
    for _ in 0..33 {
        call(&mut s, "workspace.create", json!({}));
    }
    let (list, _) = call(&mut s, "workspace.list", json!({}));
    let ids = workspace_ids(&list);
    assert_eq!(ids[9], "wA");
    assert_eq!(ids[31], "w0");
    assert_eq!(ids[32], "w11");
    call(&mut s, "workspace.close", json!({"workspace_id": "w11"}));
    let (r, _) = call(&mut s, "workspace.create", json!({}));
    assert_eq!(r["workspace"]["workspace_id"], "w12");
}

#[test]
fn bad_params_and_unknown_methods() {
    let mut s = one_workspace();
    assert!(
        s.handle_json("pane.send_text", json!({"pane_id": "w1:p1", "text": "x"})).is_none(),
        "a worker method"
    );
    match s.handle_json("workspace.get", json!({})) {
        Some(Err(HandleError::BadParams(msg))) => assert!(msg.contains("workspace_id"), "{msg}"),
        other => panic!("expected bad params, got {other:?}"),
    }
    match s.handle_json("pane.split", json!({"direction": "left"})) {
        Some(Err(e @ HandleError::BadParams(_))) => assert!(e.to_string().starts_with("invalid request: ")),
        other => panic!("expected bad params, got {other:?}"),
    }
    assert!(matches!(
        s.handle_json("workspace.create", json!({"focus": "yes"})),
        Some(Err(HandleError::BadParams(_)))
    ));
    // Unknown params are ignored.
    call(&mut s, "workspace.list", json!({"whatever": 1}));
    assert_eq!(api_error(&mut s, "workspace.get", json!({"workspace_id": "w9"})).0, "workspace_not_found");
    assert_eq!(
        api_error(&mut s, "pane.get", json!({"pane_id": "w1:p7"})),
        ("pane_not_found".to_owned(), "pane w1:p7 not found".to_owned())
    );
    assert_eq!(api_error(&mut s, "tab.get", json!({"tab_id": "w1:t4"})).0, "tab_not_found");
}

#[test]
fn empty_session_errors() {
    let mut s = Session::new(80, 24);
    assert_eq!(
        api_error(&mut s, "tab.create", json!({})),
        ("workspace_not_found".to_owned(), "no active workspace".to_owned())
    );
    assert_eq!(api_error(&mut s, "pane.current", json!({})).0, "no_active_pane");
    assert_eq!(api_error(&mut s, "pane.layout", json!({})).0, "no_active_pane");
    assert_eq!(api_error(&mut s, "pane.split", json!({"direction": "right"})).0, "workspace_not_found");
    let (snap, _) = call(&mut s, "session.snapshot", json!({}));
    assert_eq!(snap["snapshot"]["protocol"], 22);
    assert!(snap["snapshot"].get("focused_pane_id").is_none());
    assert_eq!(snap["snapshot"]["workspaces"], json!([]));
}

#[test]
fn alias_forms_resolve() {
    let mut s = one_workspace();
    call(&mut s, "workspace.create", json!({}));
    call(&mut s, "tab.create", json!({"workspace_id": "w2"}));
    call(&mut s, "pane.split", json!({"direction": "right", "target_pane_id": "w2:p2"}));
    let p3 = key(&s, "w2:p3");
    for alias in
        ["w2:p3", "w_2:p3", "2:p3", "w2-3", format!("p_{}", p3.0).as_str(), format!("p_w2_{}", p3.0).as_str()]
    {
        assert_eq!(s.resolve_pane(alias), Ok(p3), "{alias}");
    }
    assert!(s.resolve_pane(&format!("p_w1_{}", p3.0)).is_err());
    for (alias, expected) in [("w2", "w2"), ("w_2", "w2"), ("2", "w2"), ("1", "w1")] {
        let (r, _) = call(&mut s, "workspace.get", json!({"workspace_id": alias}));
        assert_eq!(r["workspace"]["workspace_id"], expected, "{alias}");
    }
    for (alias, expected) in [("w2:t2", "w2:t2"), ("w2:2", "w2:t2"), ("t_w2_2", "w2:t2"), ("t_2_1", "w2:t1")]
    {
        let (r, _) = call(&mut s, "tab.get", json!({"tab_id": alias}));
        assert_eq!(r["tab"]["tab_id"], expected, "{alias}");
    }
    assert!(s.resolve_pane("w2:pZZ").is_err());
    assert!(s.resolve_pane("").is_err());
}

#[test]
fn focus_methods_emit_the_focus_triple_once() {
    let mut s = one_workspace();
    call(&mut s, "workspace.create", json!({}));
    let (r, fx) = call(&mut s, "workspace.focus", json!({"workspace_id": "w2"}));
    assert_eq!(r["workspace"]["focused"], true);
    assert_eq!(kinds(&fx), ["workspace_focused", "tab_focused", "pane_focused"]);
    match &fx.events[2] {
        Event::PaneFocused { pane_id, workspace_id } => {
            assert_eq!((pane_id.as_str(), workspace_id.as_str()), ("w2:p1", "w2"))
        }
        other => panic!("unexpected {other:?}"),
    }
    let (_, fx) = call(&mut s, "workspace.focus", json!({"workspace_id": "w2"}));
    assert!(fx.events.is_empty(), "no change, no events");
    let (r, fx) = call(&mut s, "pane.focus", json!({"pane_id": "w1:p1"}));
    assert_eq!(r["pane"]["focused"], true);
    assert_eq!(kinds(&fx), ["workspace_focused", "tab_focused", "pane_focused"]);
    let (r, _) = call(&mut s, "pane.current", json!({}));
    assert_eq!(r["pane"]["pane_id"], "w1:p1");
    let (r, _) = call(&mut s, "pane.current", json!({"caller_pane_id": "w2:p1"}));
    assert_eq!(r["type"], "pane_current");
    assert_eq!(r["pane"]["pane_id"], "w2:p1");
    assert_eq!(r["pane"]["focused"], false);
}

#[test]
fn tabs_create_list_rename_move_focus_close() {
    let mut s = one_workspace();
    let (r, fx) = call(&mut s, "tab.create", json!({"label": "logs"}));
    assert_eq!(r["type"], "tab_created");
    assert_eq!(r["tab"]["tab_id"], "w1:t2");
    assert_eq!(r["tab"]["label"], "logs");
    assert_eq!(r["tab"]["focused"], false);
    assert_eq!(r["root_pane"]["pane_id"], "w1:p2");
    assert_eq!(r["root_pane"]["cwd"], "/src/api");
    assert_eq!(kinds(&fx), ["tab_created", "pane_created"]);
    assert_eq!(fx.spawns.len(), 1);
    call(&mut s, "tab.create", json!({"focus": true}));
    let (r, _) = call(&mut s, "tab.list", json!({"workspace_id": "w1"}));
    let labels: Vec<&str> =
        r["tabs"].as_array().expect("tabs").iter().filter_map(|t| t["label"].as_str()).collect();
    assert_eq!(labels, ["1", "logs", "3"]);
    let (r, fx) = call(&mut s, "tab.rename", json!({"tab_id": "w1:t1", "label": "main"}));
    assert_eq!(r["tab"]["label"], "main");
    assert_eq!(kinds(&fx), ["tab_renamed"]);
    let (r, fx) = call(&mut s, "tab.move", json!({"tab_id": "w1:t3", "insert_index": 0}));
    let ids: Vec<&str> =
        r["tabs"].as_array().expect("tabs").iter().filter_map(|t| t["tab_id"].as_str()).collect();
    assert_eq!(ids, ["w1:t3", "w1:t1", "w1:t2"]);
    assert_eq!(r["tabs"][0]["number"], 3);
    assert_eq!(r["tabs"][0]["label"], "1", "default label is the position");
    assert_eq!(kinds(&fx), ["tab_moved"]);
    let (r, fx) = call(&mut s, "tab.focus", json!({"tab_id": "w1:t2"}));
    assert_eq!(r["tab"]["focused"], true);
    assert_eq!(kinds(&fx), ["workspace_focused", "tab_focused", "pane_focused"]);
    let p2 = key(&s, "w1:p2");
    let (_, fx) = call(&mut s, "tab.close", json!({"tab_id": "w1:t2"}));
    assert_eq!(kinds(&fx)[0], "tab_closed");
    assert_eq!(fx.closes, vec![p2]);
    // Focus moved to the tab that took the closed one's place.
    let (r, _) = call(&mut s, "pane.current", json!({}));
    assert_eq!(r["pane"]["tab_id"], "w1:t1");
    // Numbers are never reused.
    let (r, _) = call(&mut s, "tab.create", json!({}));
    assert_eq!(r["tab"]["tab_id"], "w1:t4");
    assert_eq!(r["root_pane"]["pane_id"], "w1:p4");
}

#[test]
fn closing_the_last_tab_closes_the_workspace_and_moves_focus() {
    let mut s = one_workspace();
    call(&mut s, "workspace.create", json!({}));
    let p1 = key(&s, "w1:p1");
    let (r, fx) = call(&mut s, "tab.close", json!({"tab_id": "w1:t1"}));
    assert_eq!(r["type"], "ok");
    assert_eq!(kinds(&fx), ["workspace_closed", "workspace_focused", "tab_focused", "pane_focused"]);
    assert_eq!(fx.closes, vec![p1]);
    let (list, _) = call(&mut s, "workspace.list", json!({}));
    assert_eq!(list["workspaces"][0]["workspace_id"], "w2");
    assert_eq!(list["workspaces"][0]["number"], 1);
    assert_eq!(list["workspaces"][0]["focused"], true);
}

#[test]
fn workspace_rename_move_block_and_close() {
    let mut s = one_workspace();
    for _ in 0..3 {
        call(&mut s, "workspace.create", json!({}));
    }
    let (r, fx) = call(&mut s, "workspace.rename", json!({"workspace_id": "w2", "label": "web"}));
    assert_eq!(r["workspace"]["label"], "web");
    assert!(matches!(&fx.events[..], [Event::WorkspaceRenamed { label, .. }] if label == "web"));
    let (r, fx) = call(&mut s, "workspace.move", json!({"workspace_id": "w1", "insert_index": 99}));
    let order = |v: &Value| -> Vec<String> {
        v["workspaces"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|w| w["workspace_id"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(order(&r), ["w2", "w3", "w4", "w1"]);
    assert!(matches!(&fx.events[..], [Event::WorkspaceMoved { insert_index: 3, .. }]));
    let (r, fx) = call(
        &mut s,
        "workspace.move_block",
        json!({"workspace_ids": ["w4", "w1"], "before_workspace_id": "w2"}),
    );
    assert_eq!(order(&r), ["w4", "w1", "w2", "w3"]);
    assert_eq!(r["workspaces"][1]["number"], 2);
    assert!(
        matches!(&fx.events[..], [Event::WorkspaceReordered { before_workspace_id: Some(b), .. }] if b == "w2")
    );
    let (r, _) = call(&mut s, "workspace.move_block", json!({"workspace_ids": ["w4"]}));
    assert_eq!(order(&r), ["w1", "w2", "w3", "w4"]);
    let dup = api_error(&mut s, "workspace.move_block", json!({"workspace_ids": ["w1", "1"]}));
    assert_eq!(dup.0, "workspace_move_block_failed");
    let anchor = api_error(
        &mut s,
        "workspace.move_block",
        json!({"workspace_ids": ["w1"], "before_workspace_id": "w1"}),
    );
    assert_eq!(anchor.0, "workspace_move_block_failed");
    call(&mut s, "pane.split", json!({"direction": "down", "workspace_id": "w3"}));
    let (_, fx) = call(&mut s, "workspace.close", json!({"workspace_id": "w3"}));
    assert_eq!(kinds(&fx), ["workspace_closed"]);
    assert_eq!(fx.closes.len(), 2);
    match &fx.events[0] {
        Event::WorkspaceClosed { workspace: Some(info), .. } => assert_eq!(info.pane_count, 2),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn pane_rename_title_and_cwd_updates() {
    let mut s = one_workspace();
    let p1 = key(&s, "w1:p1");
    let (r, fx) = call(&mut s, "pane.rename", json!({"pane_id": "w1:p1", "label": "server"}));
    assert_eq!(r["pane"]["label"], "server");
    assert_eq!(r["pane"]["revision"], 1);
    assert_eq!(kinds(&fx), ["pane_updated"]);
    let (r, fx) = call(&mut s, "pane.rename", json!({"pane_id": "w1:p1", "label": "server"}));
    assert_eq!(r["pane"]["revision"], 1);
    assert!(fx.events.is_empty());
    let (r, _) = call(&mut s, "pane.rename", json!({"pane_id": "w1:p1"}));
    assert!(r["pane"].get("label").is_none());

    let fx = s.set_pane_title(p1, Some("⠋ Claude Code".into()));
    assert_eq!(kinds(&fx), ["pane_updated"]);
    let fx = s.set_pane_title(p1, Some("⠙ Claude Code".into()));
    assert!(fx.events.is_empty(), "spinner-only change");
    let info = s.pane_info(p1).expect("pane");
    assert_eq!(info.terminal_title.as_deref(), Some("⠙ Claude Code"));
    assert_eq!(info.terminal_title_stripped.as_deref(), Some("Claude Code"));
    let fx = s.set_pane_title(p1, None);
    assert_eq!(kinds(&fx), ["pane_updated"]);

    let fx = s.set_pane_cwd(p1, "/src/web".into());
    assert_eq!(kinds(&fx), ["pane_updated"]);
    assert_eq!(s.pane_info(p1).expect("pane").cwd.as_deref(), Some("/src/web"));
    assert!(s.set_pane_cwd(p1, "/src/web".into()).events.is_empty());
}

#[test]
fn workspace_without_cwd_takes_its_label_from_the_first_reported_cwd() {
    let mut s = Session::new(80, 24);
    let (r, _) = call(&mut s, "workspace.create", json!({}));
    assert_eq!(r["workspace"]["label"], "w1");
    let p1 = key(&s, "w1:p1");
    let fx = s.set_pane_cwd(p1, "/home/u/notes".into());
    assert_eq!(kinds(&fx), ["pane_updated", "workspace_updated"]);
    let (r, _) = call(&mut s, "workspace.get", json!({"workspace_id": "w1"}));
    assert_eq!(r["workspace"]["label"], "notes");
}

#[test]
fn agent_reports_roll_up_and_emit_events() {
    use herdr_protocol::api::AgentStatus;
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    let p2 = key(&s, "w1:p2");
    let fx = s.set_pane_agent(p2, Some("claude".into()), AgentStatus::Working);
    assert_eq!(kinds(&fx), ["pane_agent_detected", "pane_agent_status_changed"]);
    let fx = s.set_pane_agent(p2, Some("claude".into()), AgentStatus::Blocked);
    assert_eq!(kinds(&fx), ["pane_agent_status_changed"]);
    let (r, _) = call(&mut s, "workspace.get", json!({"workspace_id": "w1"}));
    assert_eq!(r["workspace"]["agent_status"], "blocked");
    let fx = s.set_pane_agent(p2, None, AgentStatus::Unknown);
    match &fx.events[0] {
        Event::PaneAgentDetected { released, final_status, .. } => {
            assert!(*released);
            assert_eq!(*final_status, Some(AgentStatus::Blocked));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn pane_exit_removes_the_pane_and_reports_it() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right", "focus": true}));
    let p1 = key(&s, "w1:p1");
    let p2 = key(&s, "w1:p2");
    let fx = s.pane_exited(p2);
    assert_eq!(
        kinds(&fx),
        ["pane_exited", "layout_updated", "workspace_focused", "tab_focused", "pane_focused"]
    );
    assert!(fx.closes.is_empty(), "the program is already gone");
    assert_eq!(fx.resizes, vec![(p1, 120, 40)]);
    assert_eq!(s.focused_pane(), Some(p1));
    assert_eq!(s.pane_keys(), vec![p1]);
    let fx = s.pane_exited(p1);
    assert_eq!(kinds(&fx), ["pane_exited", "workspace_closed"]);
    assert_eq!(s.focused_pane(), None);
    assert!(s.pane_exited(p1).events.is_empty(), "unknown pane: nothing happens");
}

#[test]
fn snapshot_lists_everything_with_focus() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "down"}));
    call(&mut s, "workspace.create", json!({}));
    let snap = s.snapshot();
    assert_eq!(snap.focused_workspace_id.as_deref(), Some("w1"));
    assert_eq!(snap.focused_tab_id.as_deref(), Some("w1:t1"));
    assert_eq!(snap.focused_pane_id.as_deref(), Some("w1:p1"));
    assert_eq!(snap.workspaces.len(), 2);
    assert_eq!(snap.tabs.len(), 2);
    assert_eq!(snap.panes.len(), 3);
    assert_eq!(snap.layouts.len(), 2);
    assert!(snap.agents.is_empty());
    assert_eq!(s.pane_ids(key(&s, "w2:p1")), Some(("w2".into(), "w2:t1".into(), "w2:p1".into())));
    let (r, _) = call(&mut s, "pane.list", json!({"workspace_id": "w1"}));
    assert_eq!(r["panes"].as_array().map(Vec::len), Some(2));
    let (r, _) = call(&mut s, "pane.list", json!({}));
    assert_eq!(r["panes"].as_array().map(Vec::len), Some(3));
}

#[test]
fn area_changes_resize_every_pane() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "workspace.create", json!({}));
    let fx = s.set_area(100, 30);
    let mut sizes: Vec<(u16, u16)> = fx.resizes.iter().map(|&(_, c, r)| (c, r)).collect();
    sizes.sort();
    assert_eq!(sizes, [(50, 30), (50, 30), (100, 30)]);
    assert_eq!(s.area(), (100, 30));
    assert!(s.set_area(100, 30).resizes.is_empty());
}

#[test]
fn content_inset_sizes_programs_inside_their_boxes() {
    let mut s = one_workspace();
    let p1 = key(&s, "w1:p1");
    // Boxed panes: every program loses a cell on each side, once, through the model.
    let fx = s.set_content_inset(1);
    assert_eq!(fx.resizes, vec![(p1, 118, 38)]);
    assert!(s.set_content_inset(1).resizes.is_empty());
    let (_, fx) = call(&mut s, "pane.split", json!({"direction": "right"}));
    assert_eq!((fx.spawns[0].cols, fx.spawns[0].rows), (58, 38));
    assert_eq!(fx.resizes, vec![(p1, 58, 38)]);
    // Pane rects stay the boxes.
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    assert_eq!(r["layout"]["panes"][0]["rect"]["width"], 60);
    // Zoom: the box is the whole area, the program its inside.
    let (_, fx) = call(&mut s, "pane.zoom", json!({"pane_id": "w1:p1"}));
    assert_eq!(fx.resizes, vec![(p1, 118, 38)]);
    // No borders: the whole box again.
    let p2 = key(&s, "w1:p2");
    let fx = s.set_content_inset(0);
    assert_eq!(fx.resizes, vec![(p1, 120, 40), (p2, 60, 40)]);
}

#[test]
fn single_view_sizes_the_focused_program_to_the_whole_area() {
    let mut s = one_workspace();
    let p1 = key(&s, "w1:p1");
    let (_, _) = call(&mut s, "pane.split", json!({"direction": "right"}));
    let p2 = key(&s, "w1:p2");
    // The mobile layout shows the focused pane alone: its program gets the whole area.
    let fx = s.set_single_view(true);
    assert_eq!(fx.resizes, vec![(p1, 120, 40)]);
    // Focus moves: the newly shown program grows, the other goes back to its split size.
    let (_, fx) = call(&mut s, "pane.focus", json!({"pane_id": "w1:p2"}));
    assert_eq!(fx.resizes, vec![(p1, 60, 40), (p2, 120, 40)]);
    // Pane rects stay the split's.
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    assert_eq!(r["layout"]["panes"][1]["rect"]["width"], 60);
    let fx = s.set_single_view(false);
    assert_eq!(fx.resizes, vec![(p2, 60, 40)]);
}
