//! The sidebar as the session really fills it (fixture `worktrees_and_metadata`): a
//! repository's worktree workspaces indented under its main checkout, and an agent described by
//! an orchestrator's metadata (display agent, title, state label, `$` tokens).

use std::collections::HashMap;

use herdr_protocol::api::AgentStatus;

use super::tests::snapshot as compare_snapshot;
use super::*;

fn depths(view: &ViewModel<'_>) -> Vec<(String, u8)> {
    view.workspaces.iter().map(|w| (w.label.clone(), w.depth)).collect()
}

#[test]
fn worktree_workspaces_sit_under_their_repository_until_moved_away_from_it() {
    let mut snapshot = crate::tests_fixtures::session("worktrees_and_metadata");
    let grids = HashMap::new();
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    let expected = [("api", 0), ("fix-login", 1), ("new-ui", 1), ("docs", 0)];
    let expected: Vec<(String, u8)> = expected.iter().map(|(l, d)| (l.to_string(), *d)).collect();
    assert_eq!(depths(&view), expected, "opened after docs, the worktrees joined their group");

    // `new-ui` moved below `docs`: no longer in its repository's group, so not indented.
    let moved = snapshot.workspaces.remove(2);
    snapshot.workspaces.push(moved);
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    let labels: Vec<(String, u8)> = depths(&view);
    assert_eq!(labels[2], ("docs".to_string(), 0));
    assert_eq!(labels[3], ("new-ui".to_string(), 0));
    assert_eq!(labels[1], ("fix-login".to_string(), 1));

    // Without the main checkout's workspace a worktree has nothing to sit under.
    snapshot.workspaces.remove(0);
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    assert!(view.workspaces.iter().all(|w| w.depth == 0), "{:?}", depths(&view));
}

#[test]
fn an_agent_row_shows_the_metadata_an_orchestrator_reported() {
    let snapshot = crate::tests_fixtures::session("worktrees_and_metadata");
    let grids = HashMap::new();
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    let agent = &view.agents[0];
    assert_eq!(agent.agent, "reviewer", "the display agent stands in for the detected claude");
    assert_eq!(agent.terminal_title.as_deref(), Some("Fix the login bug"), "the metadata title wins");
    assert_eq!((agent.status, agent.state_label.as_deref()), (AgentStatus::Working, Some("reviewing")));
    assert_eq!(agent.tokens.get("ticket").map(String::as_str), Some("T-42"));
}

#[test]
fn sidebar_snapshot_with_worktree_groups_and_agent_metadata() {
    let snapshot = crate::tests_fixtures::session("worktrees_and_metadata");
    let grids = HashMap::new();
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    let row = |tokens: &[&str]| tokens.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    let options = RenderOptions {
        agents_rows: vec![
            row(&["state_icon", "state_text", "agent"]),
            row(&["terminal_title"]),
            row(&["workspace", "$ticket"]),
        ],
        ..RenderOptions::default()
    };
    let frame = compose(&view, &options, &Theme::default(), 90, 16);
    compare_snapshot("sidebar_worktrees_metadata", &frame.buffer);
    let text = super::tests::text_of(&frame.buffer);
    for shown in [
        " · api ",
        "   ● fix-login",
        "   · new-ui",
        " · docs ",
        "reviewing reviewer",
        "Fix the login bug",
        "fix-login T-42",
    ] {
        assert!(text.contains(shown), "{shown:?} missing from\n{text}");
    }
}
