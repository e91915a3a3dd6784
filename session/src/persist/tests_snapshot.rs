//! The `session.json` format against upstream's fixtures and its edge cases.

use herdr_protocol::api::SplitDirection;
use serde_json::{Value, json};

use super::snapshot::{DecodeError, DirectionSnapshot, LayoutSnapshot, SNAPSHOT_VERSION, decode};
use super::{PaneSnapshot, encode};

const CURRENT: &str = include_str!("../../tests/fixtures/session/current-herdr-session.json");
const CURRENT_DEV: &str = include_str!("../../tests/fixtures/session/current-herdr-dev-session.json");
const LEGACY: &str = include_str!("../../tests/fixtures/session/legacy-pre-tabs-v2.json");

fn decoded(text: &str) -> super::SessionSnapshot {
    decode(text.as_bytes()).expect("fixture decodes")
}

#[test]
fn upstream_fixtures_decode() {
    let s = decoded(CURRENT);
    assert_eq!(s.version, 3);
    assert_eq!(s.workspaces.len(), 2);
    let ws = &s.workspaces[0];
    assert_eq!(ws.id.as_deref(), Some("wproj1"));
    assert_eq!(ws.identity_cwd, "/home/test/projects/project-a");
    assert_eq!(ws.tabs.len(), 2);
    assert_eq!(ws.tabs[0].custom_name.as_deref(), Some("separate-pane"));
    assert_eq!(ws.tabs[1].layout, LayoutSnapshot::Pane(2));
    assert_eq!(ws.tabs[1].panes[&2].cwd, "/home/test/projects/project-a");
    assert!(ws.public_pane_numbers.is_empty() && ws.next_public_pane_number == 0);
    assert_eq!(s.active, Some(0));

    let dev = decoded(CURRENT_DEV);
    assert_eq!(dev.workspaces[0].active_tab, 1);
    assert_eq!(dev.sidebar_section_split, Some(0.4));
    assert_eq!(dev.extra.get("agent_panel_scope"), Some(&json!("CurrentWorkspace")));
    let LayoutSnapshot::Split { direction, ratio, first, second } = &dev.workspaces[1].tabs[0].layout else {
        panic!("a split");
    };
    assert_eq!((*direction, *ratio), (DirectionSnapshot::Vertical, 0.5));
    assert_eq!((first.as_ref(), second.as_ref()), (&LayoutSnapshot::Pane(6), &LayoutSnapshot::Pane(7)));
}

#[test]
fn legacy_workspaces_become_one_tab() {
    let s = decoded(LEGACY);
    assert_eq!(s.version, 2);
    let ws = &s.workspaces[0];
    assert_eq!(ws.custom_name.as_deref(), Some("legacy"));
    assert_eq!(ws.id, None);
    // The root pane's cwd, like upstream.
    assert_eq!(ws.identity_cwd, "/tmp/pion");
    assert_eq!(ws.tabs.len(), 1);
    let tab = &ws.tabs[0];
    assert_eq!(tab.custom_name, None);
    assert_eq!(tab.focused, Some(1));
    assert_eq!(tab.layout.leaves(), vec![0, 1]);
    assert_eq!(tab.panes[&1].cwd, "/tmp/herdr");
    let LayoutSnapshot::Split { direction, ratio, .. } = &tab.layout else { panic!("a split") };
    assert_eq!((*direction, *ratio), (DirectionSnapshot::Horizontal, 0.5));
}

#[test]
fn encoding_round_trips_and_keeps_unknown_fields() {
    for fixture in [CURRENT, CURRENT_DEV, LEGACY] {
        let s = decoded(fixture);
        let bytes = encode(&s);
        assert_eq!(bytes.last(), Some(&b'\n'));
        assert_eq!(decode(&bytes).expect("our output decodes"), s);
    }
    let text = String::from_utf8(encode(&decoded(CURRENT_DEV))).expect("utf-8");
    assert!(text.contains("\"agent_panel_scope\": \"CurrentWorkspace\""), "{text}");
}

#[test]
fn encoding_looks_like_upstream() {
    let mut s = decoded(CURRENT);
    s.workspaces[0].tabs[0].panes.insert(
        9,
        PaneSnapshot { cwd: "/x".into(), uid: Some("0123456789abcdef".into()), ..PaneSnapshot::default() },
    );
    let value: Value = serde_json::from_slice(&encode(&s)).expect("json");
    let pane = &value["workspaces"][0]["tabs"][0]["panes"]["9"];
    // Optional pane fields are left out when unset; our uid is the only addition.
    assert_eq!(pane, &json!({"cwd": "/x", "uid": "0123456789abcdef"}));
    assert_eq!(
        value["workspaces"][0]["tabs"][0]["panes"]["1"],
        json!({"cwd": "/home/test/projects/project-a"})
    );
    // Upstream writes these even when null.
    assert!(value["workspaces"][0].get("custom_name").is_some());
    assert!(value["workspaces"][0].get("worktree_space").is_none());
    assert_eq!(value["workspaces"][0]["tabs"][0]["layout"], json!({"Pane": 1}));
    assert_eq!(value["collapsed_space_keys"], json!([]));
}

#[test]
fn agent_session_refs_use_upstream_kinds() {
    let text = r#"{"version":3,"workspaces":[{"id":"w1","identity_cwd":"/a","tabs":[{"layout":{"Pane":1},
        "panes":{"1":{"cwd":"/a","agent_name":"rev","managed_agent_kind":"claude",
        "agent_session":{"source":"herdr:claude","agent":"claude","kind":"path","value":"/s.jsonl"},
        "launch_argv":["claude"]}},"zoomed":false}]}],"selected":0}"#;
    let s = decode(text.as_bytes()).expect("decodes");
    let pane = &s.workspaces[0].tabs[0].panes[&1];
    let session = pane.agent_session.as_ref().expect("session ref");
    assert_eq!(session.kind, super::SessionRefKind::Path);
    assert_eq!(pane.launch_argv.as_deref(), Some(&["claude".to_owned()][..]));
    let again: Value = serde_json::from_slice(&encode(&s)).expect("json");
    assert_eq!(again["workspaces"][0]["tabs"][0]["panes"]["1"]["agent_session"]["kind"], "path");
}

#[test]
fn directions_map_side_by_side_to_right() {
    assert_eq!(DirectionSnapshot::from(SplitDirection::Right), DirectionSnapshot::Horizontal);
    assert_eq!(DirectionSnapshot::from(SplitDirection::Down), DirectionSnapshot::Vertical);
    assert_eq!(SplitDirection::from(DirectionSnapshot::Horizontal), SplitDirection::Right);
    assert_eq!(SplitDirection::from(DirectionSnapshot::Vertical), SplitDirection::Down);
}

#[test]
fn newer_versions_are_refused_before_their_shape_matters() {
    let newer =
        format!(r#"{{"version": {}, "workspaces": "whatever a later herdr writes"}}"#, SNAPSHOT_VERSION + 1);
    let err = decode(newer.as_bytes()).expect_err("refused");
    assert!(matches!(err, DecodeError::Newer { found: 4 }), "{err:?}");
    assert!(err.to_string().contains("newer herdr"), "{err}");
}

#[test]
fn garbage_and_unknown_shapes_fail_with_a_reason() {
    for garbage in [&b""[..], b"{", b"null", b"[1,2]", b"\xff\xfe"] {
        assert!(matches!(decode(garbage), Err(DecodeError::Json(_))), "{garbage:?}");
    }
    let odd = br#"{"version":3,"workspaces":[{"id":"w1"}]}"#;
    assert!(matches!(decode(odd), Err(DecodeError::UnknownWorkspaceShape { index: 0 })));
    let bad_tab = br#"{"version":3,"workspaces":[{"id":"w1","tabs":[{"layout":{"Leaf":1}}]}]}"#;
    let err = decode(bad_tab).expect_err("bad layout");
    assert!(matches!(err, DecodeError::Workspace { index: 0, .. }), "{err:?}");
}

#[test]
fn an_empty_object_is_an_empty_session() {
    let s = decode(b"{}").expect("decodes");
    assert!(s.workspaces.is_empty());
    assert_eq!((s.version, s.active, s.selected), (0, None, 0));
}
