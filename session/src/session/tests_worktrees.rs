//! Worktree memberships in the model: a workspace opened on a checkout reports it, announces
//! itself in order, keeps it across `session.json`, and closes only while it is still on it.

use herdr_protocol::api::Event;
use serde_json::json;

use super::WorktreeSpace;
use crate::persist::{decode, encode};
use crate::session::Session;
use crate::session::tests::call;

fn space(checkout: &str, linked: bool) -> WorktreeSpace {
    WorktreeSpace {
        key: "/src/api/.git".into(),
        label: "api".into(),
        repo_root: "/src/api".into(),
        checkout_path: checkout.into(),
        is_linked_worktree: linked,
    }
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::kind).collect()
}

#[test]
fn a_workspace_opened_on_a_checkout_reports_it_and_announces_itself_in_order() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    let checkout = "/wt/api/fix-login";
    let (opened, fx) = s.open_worktree_workspace(checkout, space(checkout, true), None, true).expect("opens");
    assert_eq!(opened.workspace.workspace_id, "w2");
    assert_eq!(opened.workspace.label, "fix-login", "the auto label is the checkout's name");
    let worktree = opened.workspace.worktree.as_ref().expect("the workspace reports its checkout");
    assert_eq!((worktree.checkout_path.as_str(), worktree.is_linked_worktree), (checkout, true));
    assert_eq!(opened.root_pane.cwd.as_deref(), Some(checkout));
    assert_eq!(
        kinds(&fx.events),
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
    assert_eq!(fx.spawns[0].cwd.as_deref(), Some(checkout));
    assert_eq!(fx.spawns[0].pane_id, "w2:p1", "the spawn is completed like any other");
    let (got, _) = call(&mut s, "workspace.get", json!({"workspace_id": "w2"}));
    assert_eq!(got["workspace"]["worktree"]["repo_name"], "api");
    let (snapshot, _) = call(&mut s, "session.snapshot", json!({}));
    assert_eq!(snapshot["snapshot"]["workspaces"][1]["worktree"]["checkout_path"], checkout);
    assert!(snapshot["snapshot"]["workspaces"][0].get("worktree").is_none());
}

#[test]
fn an_unfocused_checkout_workspace_leaves_the_focus_alone() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    let (opened, fx) = s
        .open_worktree_workspace("/wt/a", space("/wt/a", true), Some(" task a ".into()), false)
        .expect("opens");
    assert_eq!(opened.workspace.label, "task a");
    assert!(!opened.workspace.focused);
    assert_eq!(kinds(&fx.events), ["workspace_created", "tab_created", "pane_created"]);
}

#[test]
fn membership_changes_announce_an_update_once() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    let fx = s.set_worktree_space("w1", space("/src/api", false)).expect("w1 exists");
    assert_eq!(kinds(&fx.events), ["workspace_updated"]);
    let Event::WorkspaceUpdated { workspace } = &fx.events[0] else { unreachable!() };
    assert_eq!(workspace.worktree.as_ref().map(|w| w.is_linked_worktree), Some(false));
    let again = s.set_worktree_space("w1", space("/src/api", false)).expect("w1 exists");
    assert!(again.events.is_empty(), "no change, no event: {:?}", again.events);
    assert_eq!(s.worktree_probe("w1").expect("w1").space, Some(space("/src/api", false)));
    assert!(s.set_worktree_space("w9", space("/x", true)).is_err());
}

#[test]
fn probes_name_each_workspaces_directories_once() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    call(&mut s, "workspace.create", json!({}));
    let probes = s.worktree_probes();
    assert_eq!(probes.len(), 2);
    assert_eq!(probes[0].cwds, ["/src/api"], "identity and pane cwd are the same directory");
    assert_eq!(s.active_worktree_probe().map(|p| p.workspace_id), Some("w1".into()));
}

#[test]
fn a_removed_checkouts_workspace_closes_only_while_it_is_still_on_it() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    s.open_worktree_workspace("/wt/a", space("/wt/a", true), None, false).expect("opens");
    assert!(s.close_worktree_workspace("w2", "/wt/other").is_none());
    assert!(s.close_worktree_workspace("w1", "/wt/a").is_none(), "w1 has no membership");
    let (info, fx) = s.close_worktree_workspace("w2", "/wt/a").expect("closes");
    assert_eq!(info.workspace_id, "w2");
    assert_eq!(kinds(&fx.events), ["workspace_closed"]);
    assert_eq!(fx.closes.len(), 1, "its pane is stopped");
    assert!(s.worktree_probe("w2").is_err());
}

#[test]
fn memberships_survive_session_json_in_upstreams_form() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    s.set_worktree_space("w1", space("/src/api", false)).expect("w1");
    s.open_worktree_workspace("/wt/a", space("/wt/a", true), None, false).expect("opens");
    let snapshot = s.to_snapshot();
    let saved = serde_json::to_value(&snapshot).expect("serializes");
    assert_eq!(
        saved["workspaces"][1]["worktree_space"],
        json!({"key": "/src/api/.git", "label": "api", "repo_root": "/src/api",
               "checkout_path": "/wt/a", "is_linked_worktree": true})
    );
    let (restored, _) = Session::restore(decode(&encode(&snapshot)).expect("decodes"), 120, 40);
    assert_eq!(restored.worktree_probe("w2").expect("w2").space, Some(space("/wt/a", true)));
    assert_eq!(restored.worktree_probe("w1").expect("w1").space, Some(space("/src/api", false)));
}

#[test]
fn a_membership_this_herdr_does_not_understand_is_dropped_not_fatal() {
    let mut s = Session::new(120, 40);
    call(&mut s, "workspace.create", json!({"cwd": "/src/api"}));
    let mut saved = serde_json::to_value(s.to_snapshot()).expect("serializes");
    saved["workspaces"][0]["worktree_space"] = json!({"key": 3});
    let snapshot = decode(&serde_json::to_vec(&saved).expect("bytes")).expect("still a session file");
    let (restored, _) = Session::restore(snapshot, 120, 40);
    assert_eq!(restored.worktree_probe("w1").expect("w1").space, None);
}
