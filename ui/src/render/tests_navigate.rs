//! Navigate mode's workspace selection in the composed sidebar: the selected row is marked and
//! highlighted apart from the focused one, expanded and compact.

use ratatui_core::style::Color;

use super::tests::text_of;
use super::*;

fn view(selected: usize) -> ViewModel<'static> {
    let workspaces = ["api", "docs", "notes"]
        .iter()
        .enumerate()
        .map(|(i, label)| WorkspaceView {
            label: (*label).into(),
            focused: i == 0,
            selected: i == selected,
            ..WorkspaceView::default()
        })
        .collect();
    ViewModel { workspaces, mode: ModeBadge::Navigate, ..ViewModel::default() }
}

fn options() -> RenderOptions {
    RenderOptions { spaces_rows: vec![vec!["state_icon".into(), "workspace".into()]], ..Default::default() }
}

fn row_bg(frame: &Frame, y: u16) -> Color {
    frame.buffer[(3, y)].bg
}

#[test]
fn the_selection_is_marked_apart_from_the_focused_workspace() {
    let theme = Theme::default();
    let frame = compose(&view(1), &options(), &theme, 80, 8);
    let text = text_of(&frame.buffer);
    let rows: Vec<&str> = text.lines().collect();
    let sidebar: Vec<String> = rows.iter().map(|r| r.chars().take(26).collect()).collect();
    assert_eq!(sidebar[0], " spaces                  │");
    assert_eq!(sidebar[1], " · api                   │");
    assert_eq!(sidebar[2], "▌· docs                  │");
    assert_eq!(sidebar[3], " · notes                 │");
    let colors = &theme.colors;
    assert_eq!(row_bg(&frame, 1), colors.active_row_bg, "the focused workspace keeps its row colour");
    assert_eq!(row_bg(&frame, 2), colors.selection_bg, "the selection has its own");
    assert_eq!(row_bg(&frame, 3), colors.sidebar_bg);
    assert!(rows[7].contains("NAVIGATE"), "{}", rows[7]);
}

#[test]
fn selecting_the_focused_workspace_shows_the_selection() {
    let theme = Theme::default();
    let frame = compose(&view(0), &options(), &theme, 80, 8);
    assert!(text_of(&frame.buffer).lines().nth(1).is_some_and(|r| r.starts_with("▌· api")));
    assert_eq!(row_bg(&frame, 1), theme.colors.selection_bg);
}

#[test]
fn the_compact_sidebar_marks_the_selection_too() {
    let theme = Theme::default();
    let options = RenderOptions { sidebar_mode: SidebarMode::Compact, ..options() };
    let frame = compose(&view(2), &options, &theme, 80, 8);
    let text = text_of(&frame.buffer);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[2].starts_with("▌· "), "{:?}", rows[2]);
    assert!(rows[0].starts_with(" · "), "{:?}", rows[0]);
    assert_eq!(frame.buffer[(1, 2)].bg, theme.colors.selection_bg);
    assert_eq!(frame.buffer[(1, 0)].bg, theme.colors.active_row_bg);
}
