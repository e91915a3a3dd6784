//! Mouse hit-testing against the same geometry the compositor draws.

use herdr_protocol::api::{
    PaneLayoutPane, PaneLayoutRect, PaneLayoutSnapshot, PaneLayoutSplit, SplitDirection,
};

use super::*;

fn rect(x: u16, y: u16, width: u16, height: u16) -> PaneLayoutRect {
    PaneLayoutRect { x, y, width, height }
}

/// Two panes side by side (split at 0.5) in a 94x39 pane area, as a 120x40 client with the
/// default 26-column sidebar and a top tab bar sees them.
fn side_by_side() -> PaneLayoutSnapshot {
    let pane = |id: &str, r| PaneLayoutPane { pane_id: id.into(), focused: id == "w1:p1", rect: r };
    PaneLayoutSnapshot {
        workspace_id: "w1".into(),
        tab_id: "w1:1".into(),
        zoomed: false,
        area: rect(0, 0, 94, 39),
        focused_pane_id: "w1:p1".into(),
        panes: vec![pane("w1:p1", rect(0, 0, 47, 39)), pane("w1:p2", rect(47, 0, 47, 39))],
        splits: vec![PaneLayoutSplit {
            id: "split_0_root".into(),
            direction: SplitDirection::Right,
            ratio: 0.5,
            rect: rect(0, 0, 94, 39),
        }],
    }
}

fn view(layout: &PaneLayoutSnapshot) -> ViewModel<'_> {
    let ws =
        |label: &str, focused| WorkspaceView { label: label.into(), focused, ..WorkspaceView::default() };
    let tab = |label: &str, focused| TabView { label: label.into(), focused, ..TabView::default() };
    ViewModel {
        workspaces: vec![ws("api", true), ws("web", false)],
        agents: vec![AgentView { agent: "claude".into(), workspace: "api".into(), ..AgentView::default() }],
        tabs: vec![tab("build", true), tab("logs", false)],
        layout: Some(layout),
        ..ViewModel::default()
    }
}

fn hit<'a>(view: &ViewModel<'a>, x: u16, y: u16) -> Hit<'a> {
    hit_test(view, &RenderOptions::default(), &Theme::default(), (120, 40), (x, y))
}

#[test]
fn sidebar_rows_tabs_and_the_sidebar_edge() {
    let layout = side_by_side();
    let v = view(&layout);
    // Row 0 is the "spaces" header; each workspace takes one row (no branch token here).
    assert_eq!(hit(&v, 3, 0), Hit::Nothing);
    assert_eq!(hit(&v, 3, 1), Hit::Workspace(0));
    assert_eq!(hit(&v, 3, 2), Hit::Workspace(1));
    assert_eq!(hit(&v, 3, 3), Hit::Nothing);
    // The agents panel starts halfway down (row 20 is its header); an agent has two rows.
    assert_eq!(hit(&v, 3, 21), Hit::Agent(0));
    assert_eq!(hit(&v, 3, 22), Hit::Agent(0));
    assert_eq!(hit(&v, 3, 23), Hit::Nothing);
    assert_eq!(hit(&v, 25, 10), Hit::SidebarEdge);
    // The tab bar: " 1 build " is 9 columns from x = 26, then " 2 logs ".
    assert_eq!(hit(&v, 26, 0), Hit::Tab(0));
    assert_eq!(hit(&v, 34, 0), Hit::Tab(0));
    assert_eq!(hit(&v, 35, 0), Hit::Tab(1));
    assert_eq!(hit(&v, 42, 0), Hit::Tab(1));
    assert_eq!(hit(&v, 43, 0), Hit::Nothing);
}

#[test]
fn panes_and_the_border_between_them() {
    let layout = side_by_side();
    let v = view(&layout);
    match hit(&v, 30, 10) {
        Hit::Pane { pane_id, content } => {
            assert_eq!(pane_id, "w1:p1");
            assert_eq!((content.x, content.y, content.width, content.height), (27, 2, 45, 37));
        }
        other => panic!("expected the first pane, got {other:?}"),
    }
    // The first pane's right border (x = 26 + 46) and the second's left border both drag.
    assert_eq!(hit(&v, 72, 10), Hit::SplitBorder(&layout.splits[0]));
    assert_eq!(hit(&v, 73, 10), Hit::SplitBorder(&layout.splits[0]));
    assert!(matches!(hit(&v, 74, 10), Hit::Pane { pane_id: "w1:p2", .. }));
    // Dragging to x = 82 puts the first side's last cell there: 57 of 94 columns.
    let frame = FrameLayout::compute(120, 40, 2, &RenderOptions::default());
    let ratio = split_ratio_at(&frame, &layout.splits[0], (82, 10));
    assert!((ratio - 57.0 / 94.0).abs() < 1e-6, "{ratio}");
}

#[test]
fn zoomed_tabs_have_no_borders_to_drag() {
    let mut layout = side_by_side();
    layout.zoomed = true;
    let v = view(&layout);
    assert!(matches!(hit(&v, 72, 10), Hit::Pane { pane_id: "w1:p1", .. }));
}

#[test]
fn split_paths_come_from_split_ids() {
    assert_eq!(split_path("split_0_root"), Some(vec![]));
    assert_eq!(split_path("split_2_01"), Some(vec![false, true]));
    assert_eq!(split_path("split_1_x"), None);
    assert_eq!(split_path("root"), None);
}

#[test]
fn a_scrolled_panes_scrollbar_wins_over_the_split_border_it_covers() {
    use herdr_protocol::ipc::ScrollPosition;
    let layout = side_by_side();
    let mut v = view(&layout);
    let scroll = ScrollPosition { offset_from_bottom: 10, max_offset_from_bottom: 100 };
    v.panes.insert("w1:p1".into(), PaneView { scroll, ..PaneView::default() });
    let track = ratatui_core::layout::Rect::new(72, 2, 1, 37);
    assert_eq!(hit(&v, 72, 10), Hit::Scrollbar { pane_id: "w1:p1", track });
    // The other side of the border still drags the split; the corners are not the track.
    assert_eq!(hit(&v, 73, 10), Hit::SplitBorder(&layout.splits[0]));
    assert_eq!(hit(&v, 72, 1), Hit::SplitBorder(&layout.splits[0]));
    assert_eq!(scrollbar_offset(track, 100, 2), 100, "the top is the oldest history");
    assert_eq!(scrollbar_offset(track, 100, 38), 0, "the bottom is the live screen");
    assert_eq!(scrollbar_offset(track, 100, 20), 50);
    assert_eq!(scrollbar_offset(track, 100, 0), 100, "above the track clamps to its top");
}
