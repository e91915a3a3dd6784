//! Session ↔ `session.json`: a session built through the API survives save → encode → decode →
//! restore with every public id and record unchanged; upstream files restore; live workers the
//! layout did not know are recovered.

use std::collections::HashSet;

use herdr_protocol::api::AgentSessionRefKind;
use serde_json::{Value, json};

use super::tests::{call, key, workspace_ids};
use super::{Session, SpawnOrigin, valid_uid};
use crate::agents::SessionReport;
use crate::persist::{SessionSnapshot, decode, encode};

const CURRENT: &str = include_str!("../../tests/fixtures/session/current-herdr-session.json");
const CURRENT_DEV: &str = include_str!("../../tests/fixtures/session/current-herdr-dev-session.json");
const LEGACY: &str = include_str!("../../tests/fixtures/session/legacy-pre-tabs-v2.json");

/// Drops `revision` everywhere: a change counter for clients of one server, restarted at 0.
fn without_revisions(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => {
            map.remove("revision");
            for v in map.values_mut() {
                *v = without_revisions(v.take());
            }
        }
        Value::Array(items) => {
            for v in items {
                *v = without_revisions(v.take());
            }
        }
        _ => {}
    }
    value
}

/// What clients can see of a session: the records every id shows up in.
fn public_view(s: &mut Session) -> Vec<Value> {
    let mut views = vec![
        call(s, "session.snapshot", json!({})).0,
        call(s, "pane.list", json!({})).0,
        call(s, "workspace.list", json!({})).0,
        call(s, "tab.list", json!({})).0,
    ];
    let tabs = call(s, "tab.list", json!({})).0;
    for tab in tabs["tabs"].as_array().expect("tabs") {
        let export = call(s, "layout.export", json!({"tab_id": tab["tab_id"]})).0;
        let focused = export["layout"]["focused_pane_id"].clone();
        views.push(export);
        views.push(call(s, "pane.layout", json!({"pane_id": focused})).0);
    }
    views.into_iter().map(without_revisions).collect()
}

fn through_the_file(snapshot: &SessionSnapshot) -> SessionSnapshot {
    decode(&encode(snapshot)).expect("our own file decodes")
}

/// Two workspaces (reordered), tabs with labels, nested splits with custom ratios, a zoomed tab,
/// focus on a non-first pane, a pane moved across workspaces, a closed pane (a gap in the
/// numbers), a command pane, a reported cwd, an agent session ref and name.
fn busy_session() -> Session {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    call(&mut s, "workspace.create", json!({"cwd": "/src/web", "label": "web"}));
    call(&mut s, "pane.split", json!({"target_pane_id": "w1:p1", "direction": "right", "ratio": 0.3}));
    call(&mut s, "pane.split", json!({"target_pane_id": "w1:p2", "direction": "down", "ratio": 0.7}));
    call(&mut s, "pane.rename", json!({"pane_id": "w1:p3", "label": "logs"}));
    call(&mut s, "tab.create", json!({"workspace_id": "w1", "label": "build"}));
    call(&mut s, "pane.split", json!({"target_pane_id": "w1:p4", "direction": "down", "ratio": 0.4}));
    call(&mut s, "pane.close", json!({"pane_id": "w1:p5"}));
    call(&mut s, "pane.split", json!({"target_pane_id": "w1:p4", "direction": "right", "ratio": 0.6}));
    call(&mut s, "pane.zoom", json!({"pane_id": "w1:p6", "mode": "on"}));
    call(&mut s, "pane.split", json!({"target_pane_id": "w2:p1", "direction": "down"}));
    call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w2:p2", "destination": {"type": "tab", "tab_id": "w1:t1", "target_pane_id": "w1:p1", "split": "down", "ratio": 0.35}}),
    );
    let tree = json!({"type": "split", "direction": "right", "ratio": 0.25,
        "first": {"type": "pane", "label": "editor", "command": ["vim", "notes.md"]},
        "second": {"type": "pane", "cwd": "/tmp"}});
    call(&mut s, "layout.apply", json!({"workspace_id": "w2", "tab_label": "dev", "root": tree}));
    call(&mut s, "tab.rename", json!({"tab_id": "w2:t1", "label": "main"}));
    call(&mut s, "workspace.move", json!({"workspace_id": "w2", "insert_index": 0}));
    call(&mut s, "tab.move", json!({"tab_id": "w1:t2", "insert_index": 0}));
    let p3 = key(&s, "w1:p3");
    s.set_pane_cwd(p3, "/src/api/logs".into());
    s.agent_report_session(
        p3,
        SessionReport {
            source: "herdr:claude".into(),
            agent: "claude".into(),
            seq: None,
            session: Some((AgentSessionRefKind::Id, "abc-123".into())),
        },
    );
    s.agent_rename(p3, Some("reviewer".into())).expect("rename");
    call(&mut s, "pane.focus", json!({"pane_id": "w1:p3"}));
    s
}

#[test]
fn a_session_survives_save_and_restore_with_its_ids() {
    let mut s = busy_session();
    let saved = s.to_snapshot();
    let before = public_view(&mut s);
    let (mut restored, fx) = Session::restore(through_the_file(&saved), 120, 40);
    assert_eq!(restored.to_snapshot(), saved);
    assert_eq!(public_view(&mut restored), before);
    assert!(fx.events.is_empty() && fx.closes.is_empty() && fx.resizes.is_empty());

    // Every pane is started (or re-adopted) once, by its old uid, at its shown size.
    let keys = restored.pane_keys();
    assert_eq!(fx.spawns.len(), keys.len());
    assert_eq!(fx.spawns.len(), s.pane_keys().len());
    for spawn in &fx.spawns {
        assert_eq!(spawn.origin, SpawnOrigin::Restored);
        let old = s.resolve_pane(&spawn.pane_id).expect("same id before");
        assert_eq!(s.pane_uid(old), Some(spawn.uid.as_str()));
        assert_eq!(restored.pane_by_uid(&spawn.uid), Some(spawn.pane));
        let layout = call(&mut restored, "pane.layout", json!({"pane_id": spawn.pane_id})).0;
        let rect = layout["layout"]["panes"]
            .as_array()
            .expect("panes")
            .iter()
            .find(|p| p["pane_id"] == spawn.pane_id.as_str())
            .map(|p| p["rect"].clone())
            .expect("rect");
        assert_eq!(
            (u64::from(spawn.cols), u64::from(spawn.rows)),
            (rect["width"].as_u64().expect("w"), rect["height"].as_u64().expect("h"))
        );
    }
    let editor = fx.spawns.iter().find(|sp| sp.argv.is_some()).expect("the command pane");
    assert_eq!(editor.argv.as_deref(), Some(&["vim".to_owned(), "notes.md".to_owned()][..]));
    assert_eq!(editor.pane_id, "w2:p3");
    // A restored command pane that came back as a shell stops naming its old program.
    let mut shell = restored.clone();
    shell.clear_pane_program(editor.pane);
    assert_eq!(shell.to_snapshot().workspaces[0].tabs[1].panes[&2].launch_argv, None);
    let logs = fx.spawns.iter().find(|sp| sp.pane_id == "w1:p3").expect("logs");
    assert_eq!(logs.cwd.as_deref(), Some("/src/api/logs"));

    // The agent's name and session ref came back too.
    let p3 = key(&restored, "w1:p3");
    let agent = restored.pane_agent(p3).expect("agent state");
    assert_eq!(agent.name(), Some("reviewer"));
    assert_eq!(agent.session_ref().map(|r| r.value.as_str()), Some("abc-123"));

    // Counters came back: new things get fresh numbers, never a closed pane's.
    let (r, fx) = call(&mut restored, "pane.split", json!({"target_pane_id": "w1:p4", "direction": "down"}));
    assert_eq!(r["pane"]["pane_id"], "w1:p8");
    assert_eq!(fx.spawns[0].origin, SpawnOrigin::New);
    let (r, _) = call(&mut restored, "workspace.create", json!({}));
    assert_eq!(r["workspace"]["workspace_id"], "w3");
    let (r, _) = call(&mut restored, "tab.create", json!({"workspace_id": "w2"}));
    assert_eq!(r["tab"]["tab_id"], "w2:t3");
}

#[test]
fn saving_prefers_the_live_cwd_and_ids_are_file_local() {
    let mut s = busy_session();
    let p1 = key(&s, "w1:p1");
    s.set_pane_live_cwd(p1, "/src/api/deep".into());
    let saved = s.to_snapshot();
    let pane_id = "w1:p1";
    let (restored, fx) = Session::restore(through_the_file(&saved), 120, 40);
    let spawn = fx.spawns.iter().find(|sp| sp.pane_id == pane_id).expect("p1");
    assert_eq!(spawn.cwd.as_deref(), Some("/src/api/deep"));
    // The public record follows the live cwd too (the program's report was "/src/api").
    assert_eq!(call(&mut s, "pane.get", json!({"pane_id": pane_id})).0["pane"]["cwd"], "/src/api/deep");
    // Raw ids run 1, 2, … in display order, whatever the internal keys were.
    let raws: Vec<u32> =
        saved.workspaces.iter().flat_map(|w| &w.tabs).flat_map(|t| t.layout.leaves()).collect();
    assert_eq!(raws, (1..=raws.len() as u32).collect::<Vec<_>>());
    // Saving an unchanged session gives the same bytes.
    assert_eq!(encode(&restored.to_snapshot()), encode(&saved));
}

#[test]
fn uids_are_well_formed_unique_and_differ_between_sessions() {
    let a = busy_session();
    let b = busy_session();
    let uids = |s: &Session| -> Vec<String> {
        s.pane_keys().into_iter().filter_map(|k| s.pane_uid(k).map(str::to_owned)).collect()
    };
    let (ua, ub) = (uids(&a), uids(&b));
    assert!(ua.iter().all(|u| valid_uid(u)), "{ua:?}");
    assert_eq!(ua.iter().collect::<HashSet<_>>().len(), ua.len());
    assert!(ua.iter().all(|u| !ub.contains(u)), "two sessions share a uid");
    // A new pane's spawn carries its uid, which is also in its terminal id.
    let mut s = Session::new(80, 24);
    let (r, fx) = call(&mut s, "workspace.create", json!({}));
    let uid = &fx.spawns[0].uid;
    assert!(valid_uid(uid));
    assert_eq!(r["root_pane"]["terminal_id"], format!("term_{uid}"));
}

#[test]
fn file_uids_are_kept_only_when_trustworthy() {
    let mut snapshot = Session::new(80, 24).to_snapshot();
    let mut ws = busy_session().to_snapshot().workspaces.remove(1);
    let panes = &mut ws.tabs[1].panes;
    let raws: Vec<u32> = panes.keys().copied().collect();
    panes.get_mut(&raws[0]).expect("pane").uid = Some("../../etc/passwd".into());
    panes.get_mut(&raws[1]).expect("pane").uid = Some("00000000000000aa".into());
    panes.get_mut(&raws[2]).expect("pane").uid = Some("00000000000000aa".into());
    snapshot.workspaces.push(ws);
    let (restored, fx) = Session::restore(snapshot, 80, 24);
    let uids: Vec<&str> = fx.spawns.iter().map(|sp| sp.uid.as_str()).collect();
    assert!(uids.iter().all(|u| valid_uid(u)), "{uids:?}");
    assert_eq!(uids.iter().collect::<HashSet<_>>().len(), uids.len(), "duplicates replaced");
    assert!(restored.pane_by_uid("00000000000000aa").is_some());
}

#[test]
fn upstream_sessions_restore_with_fresh_workspace_ids() {
    let (mut s, fx) = Session::restore(decode(CURRENT.as_bytes()).expect("fixture"), 100, 30);
    let ws = call(&mut s, "workspace.list", json!({})).0;
    let ids = workspace_ids(&ws);
    assert_eq!(ids, ["w1", "w2"]);
    assert_eq!(ws["workspaces"][0]["label"], "project-a");
    assert_eq!(ws["workspaces"][0]["focused"], true);
    let tabs = call(&mut s, "tab.list", json!({"workspace_id": "w1"})).0;
    assert_eq!(tabs["tabs"][0]["label"], "separate-pane");
    assert_eq!(tabs["tabs"][1]["label"], "p");
    assert_eq!(tabs["tabs"][0]["focused"], true);
    let panes: Vec<String> = fx.spawns.iter().map(|sp| sp.pane_id.clone()).collect();
    assert_eq!(panes, ["w1:p1", "w1:p2", "w2:p1"]);
    assert!(
        fx.spawns.iter().all(|sp| sp.cwd.as_deref().is_some_and(|c| c.starts_with("/home/test/projects/")))
    );
    assert!(fx.spawns.iter().all(|sp| (sp.cols, sp.rows) == (100, 30) && valid_uid(&sp.uid)));

    let (mut dev, _) = Session::restore(decode(CURRENT_DEV.as_bytes()).expect("fixture"), 100, 30);
    let w1 = call(&mut dev, "workspace.get", json!({"workspace_id": "w1"})).0;
    assert_eq!(w1["workspace"]["active_tab_id"], "w1:t2");
    let layout = call(&mut dev, "layout.export", json!({"tab_id": "w2:t1"})).0;
    assert_eq!(layout["layout"]["root"]["direction"], "down", "upstream Vertical is stacked");
    assert_eq!(layout["layout"]["root"]["first"]["cwd"], "/home/test/projects/project-c");
    // Unknown upstream fields go back out with the next save.
    let saved = dev.to_snapshot();
    assert_eq!(saved.extra.get("agent_panel_scope"), Some(&json!("CurrentWorkspace")));
    assert_eq!(saved.sidebar_section_split, Some(0.4));
    assert_eq!(saved.workspaces[0].id.as_deref(), Some("w1"));
}

#[test]
fn legacy_sessions_restore_into_one_tab() {
    let (mut s, fx) = Session::restore(decode(LEGACY.as_bytes()).expect("fixture"), 120, 40);
    assert_eq!(fx.spawns.len(), 2);
    let w = call(&mut s, "workspace.get", json!({"workspace_id": "w1"})).0;
    assert_eq!(w["workspace"]["label"], "legacy");
    assert_eq!(w["workspace"]["tab_count"], 1);
    assert_eq!(w["workspace"]["pane_count"], 2);
    let layout = call(&mut s, "layout.export", json!({})).0["layout"].clone();
    assert_eq!(layout["root"]["type"], "split");
    assert_eq!(layout["root"]["direction"], "right", "upstream Horizontal is side by side");
    assert_eq!(layout["root"]["ratio"], 0.5);
    assert_eq!(layout["root"]["first"]["cwd"], "/tmp/pion");
    assert_eq!(layout["root"]["second"]["cwd"], "/tmp/herdr");
    // The saved focus was the second pane.
    assert_eq!(layout["focused_pane_id"], "w1:p2");
    assert_eq!(call(&mut s, "pane.current", json!({})).0["pane"]["cwd"], "/tmp/herdr");
    let rects = call(&mut s, "pane.layout", json!({})).0;
    assert_eq!(rects["layout"]["panes"][0]["rect"]["width"], 60);
}

#[test]
fn damaged_layouts_restore_what_they_can() {
    let text = r#"{"version":3,"active":7,"selected":0,"workspaces":[
        {"id":"w1","identity_cwd":"/w","tabs":[]},
        {"id":"w1","identity_cwd":"/w","active_tab":9,"tabs":[
            {"layout":{"Split":{"direction":"Vertical","ratio":7.5,"first":{"Pane":4},"second":{"Pane":4}}},
             "panes":{"4":{"cwd":"","launch_argv":[]}},"zoomed":true,"focused":99}]},
        {"id":"w1","identity_cwd":"","tabs":[{"layout":{"Pane":1},"panes":{},"zoomed":true}]}]}"#;
    let (mut s, fx) = Session::restore(decode(text.as_bytes()).expect("decodes"), 80, 24);
    // The empty workspace is dropped; the duplicate id gets a fresh number.
    let list = call(&mut s, "workspace.list", json!({})).0;
    let ids = workspace_ids(&list);
    assert_eq!(ids, ["w1", "w2"]);
    assert_eq!(list["workspaces"][0]["focused"], true, "an out-of-range active falls back to the first");
    assert_eq!(fx.spawns.len(), 3);
    // A duplicated raw id becomes two panes; an empty cwd falls back to the identity cwd; an
    // empty argv is the shell; a bad ratio is an even split; focus falls back to the first leaf.
    assert_eq!(fx.spawns[0].cwd.as_deref(), Some("/w"));
    assert!(fx.spawns.iter().all(|sp| sp.argv.is_none()));
    let layout = call(&mut s, "layout.export", json!({"tab_id": "w1:t1"})).0["layout"].clone();
    assert_eq!(layout["root"]["ratio"], 0.5);
    assert_eq!(layout["focused_pane_id"], "w1:p1");
    assert_eq!(layout["zoomed"], true);
    // A one-pane tab cannot be zoomed; a leaf without an entry is a shell without a cwd.
    let other = call(&mut s, "layout.export", json!({"tab_id": "w2:t1"})).0["layout"].clone();
    assert_eq!(other["zoomed"], false);
    assert_eq!(fx.spawns[2].cwd, None);
}

#[test]
fn recovered_panes_gather_in_one_workspace() {
    let (mut s, _) = Session::restore(decode(CURRENT.as_bytes()).expect("fixture"), 100, 30);
    let focus_before = s.focused_pane();
    let (a, fx) = s.add_recovered_pane("00000000000000a1".into(), Some("/tmp/a".into()));
    assert_eq!(fx.spawns.len(), 1);
    assert_eq!(fx.spawns[0].origin, SpawnOrigin::Recovered);
    assert_eq!(fx.spawns[0].uid, "00000000000000a1");
    assert_eq!((fx.spawns[0].workspace_id.as_str(), fx.spawns[0].pane_id.as_str()), ("w3", "w3:p1"));
    assert_eq!(fx.spawns[0].cwd.as_deref(), Some("/tmp/a"));
    let kinds: Vec<&str> = fx.events.iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["workspace_created", "tab_created", "pane_created"]);
    let (b, fx) = s.add_recovered_pane("00000000000000b2".into(), None);
    assert_eq!(fx.spawns[0].pane_id, "w3:p2");
    assert_eq!(fx.spawns[0].tab_id, "w3:t2", "one tab per recovered pane");
    assert_ne!(a, b);
    assert_eq!(s.focused_pane(), focus_before, "recovery does not steal the focus");
    let ws = call(&mut s, "workspace.get", json!({"workspace_id": "w3"})).0;
    assert_eq!(ws["workspace"]["label"], "recovered");
    assert_eq!(ws["workspace"]["tab_count"], 2);
    // A uid already placed is not placed twice.
    let (again, fx) = s.add_recovered_pane("00000000000000a1".into(), None);
    assert_eq!(again, a);
    assert!(fx.spawns.is_empty() && fx.events.is_empty());
    // Into an empty session: the recovered workspace is the first, and focused.
    let mut empty = Session::new(80, 24);
    let (only, _) = empty.add_recovered_pane("00000000000000c3".into(), None);
    assert_eq!(empty.focused_pane(), Some(only));
    // It survives a save like any other workspace.
    let (back, _) = Session::restore(through_the_file(&s.to_snapshot()), 100, 30);
    assert_eq!(
        back.pane_by_uid("00000000000000b2").and_then(|k| back.pane_ids(k)).map(|ids| ids.2),
        Some("w3:p2".into())
    );
}

#[test]
fn an_empty_session_round_trips() {
    let saved = Session::new(80, 24).to_snapshot();
    assert!(saved.workspaces.is_empty() && saved.active.is_none());
    let (s, fx) = Session::restore(through_the_file(&saved), 80, 24);
    assert!(s.pane_keys().is_empty() && fx.spawns.is_empty());
    assert_eq!(s.to_snapshot(), saved);
}
