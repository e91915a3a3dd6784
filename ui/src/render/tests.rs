//! Compositor snapshots: the text of composed frames is compared with files under
//! `ui/tests/snapshots/` (regenerate with `UPDATE_SNAPSHOTS=1`, then review the diff),
//! and colours are asserted cell by cell.

use std::collections::HashMap;

use herdr_protocol::api::{AgentStatus, PaneLayoutPane, PaneLayoutRect, PaneLayoutSnapshot};
use ratatui_core::buffer::Buffer;
use ratatui_core::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

use super::*;

/// A tab with one focused pane `w1:p1` filling a `width` x `height` layout area.
pub(super) fn one_pane(width: u16, height: u16) -> herdr_protocol::api::PaneLayoutSnapshot {
    use herdr_protocol::api::{PaneLayoutPane, PaneLayoutRect, PaneLayoutSnapshot};
    let rect = PaneLayoutRect { x: 0, y: 0, width, height };
    PaneLayoutSnapshot {
        workspace_id: "w1".into(),
        tab_id: "w1:1".into(),
        zoomed: false,
        area: rect,
        focused_pane_id: "w1:p1".into(),
        panes: vec![PaneLayoutPane { pane_id: "w1:p1".into(), focused: true, rect }],
        splits: Vec::new(),
    }
}

pub(super) fn text_of(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut x = 0;
        while x < buf.area.width {
            let symbol = buf[(x, y)].symbol();
            out.push_str(symbol);
            x += symbol.width().max(1) as u16;
        }
        out.push('\n');
    }
    out
}

pub(super) fn snapshot(name: &str, buf: &Buffer) {
    let path = format!("{}/tests/snapshots/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let actual = text_of(buf);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(format!("{}/tests/snapshots", env!("CARGO_MANIFEST_DIR"))).expect("mkdir");
        std::fs::write(&path, &actual).expect("write snapshot");
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing snapshot {path}"));
    assert_eq!(actual, expected, "snapshot {name} differs");
}

fn rect(x: u16, y: u16, width: u16, height: u16) -> PaneLayoutRect {
    PaneLayoutRect { x, y, width, height }
}

fn layout(
    panes: &[(&str, PaneLayoutRect)],
    focused: &str,
    zoomed: bool,
    area: PaneLayoutRect,
) -> PaneLayoutSnapshot {
    PaneLayoutSnapshot {
        workspace_id: "w1".into(),
        tab_id: "w1:1".into(),
        zoomed,
        area,
        focused_pane_id: focused.into(),
        panes: panes
            .iter()
            .map(|(id, r)| PaneLayoutPane { pane_id: id.to_string(), focused: *id == focused, rect: *r })
            .collect(),
        splits: Vec::new(),
    }
}

fn grid_with(cols: u16, rows: u16, lines: &[&str]) -> PaneGrid {
    let mut grid = PaneGrid::blank(cols, rows);
    for (y, line) in lines.iter().enumerate() {
        grid.put_str(0, y as u16, line, GridColor::Default, GridColor::Default, CellAttrs::default());
    }
    grid.cursor = CursorPlacement { x: 2, y: 1, visible: true, shape: CursorShape::Bar, blinking: false };
    grid
}

fn workspaces() -> Vec<WorkspaceView> {
    let ws = |label: &str, status, focused| WorkspaceView {
        label: label.into(),
        status,
        focused,
        ..WorkspaceView::default()
    };
    let mut api = ws("api", AgentStatus::Working, true);
    api.tokens.insert("branch".into(), "main".into());
    let mut wt = ws("api-fix", AgentStatus::Done, false);
    wt.depth = 1;
    vec![
        api,
        wt,
        ws("docs", AgentStatus::Blocked, false),
        ws("scratch", AgentStatus::Idle, false),
        ws("notes", AgentStatus::Unknown, false),
    ]
}

fn agents() -> Vec<AgentView> {
    let agent = |agent: &str, workspace: &str, status, focused| AgentView {
        agent: agent.into(),
        workspace: workspace.into(),
        tab: "1".into(),
        status,
        focused,
        ..AgentView::default()
    };
    vec![
        agent("claude", "api", AgentStatus::Working, true),
        agent("codex", "docs", AgentStatus::Blocked, false),
    ]
}

fn tabs(count: usize, zoomed: bool) -> Vec<TabView> {
    (0..count)
        .map(|i| TabView {
            label: ["main", "build", "logs"][i % 3].into(),
            focused: i == 0,
            zoomed: zoomed && i == 0,
            status: if i == 1 { AgentStatus::Blocked } else { AgentStatus::Unknown },
            bell: false,
        })
        .collect()
}

/// Two panes side by side in an 80x24 terminal: the pane area is 54x23.
fn split_view<'a>(layout: &'a PaneLayoutSnapshot, grids: &'a HashMap<String, PaneGrid>) -> ViewModel<'a> {
    let mut panes = HashMap::new();
    for (id, label) in [("p1", Some("editor")), ("p2", None)] {
        panes.insert(
            id.to_string(),
            PaneView { label: label.map(str::to_string), grid: grids.get(id), ..PaneView::default() },
        );
    }
    ViewModel {
        workspaces: workspaces(),
        agents: agents(),
        tabs: tabs(3, false),
        layout: Some(layout),
        panes,
        mode: ModeBadge::Terminal,
    }
}

fn split_layout() -> PaneLayoutSnapshot {
    layout(&[("p1", rect(0, 0, 27, 23)), ("p2", rect(27, 0, 27, 23))], "p1", false, rect(0, 0, 54, 23))
}

fn split_grids() -> HashMap<String, PaneGrid> {
    let mut grids = HashMap::new();
    grids.insert("p1".into(), grid_with(25, 21, &["$ ls", "src  tests", "日本語 wide ok"]));
    grids.insert("p2".into(), grid_with(25, 21, &["$ cargo test", "running 3 tests"]));
    grids
}

#[test]
fn desktop_split_with_sidebar_tabs_and_borders() {
    let (layout, grids) = (split_layout(), split_grids());
    let view = split_view(&layout, &grids);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 80, 24);
    assert_eq!(frame.layout.pane_area, ratatui_core::layout::Rect::new(26, 1, 54, 23));
    snapshot("desktop_split", &frame.buffer);
    // The focused pane's cursor: content starts one cell inside its box.
    let cursor = frame.cursor.expect("focused pane cursor");
    assert_eq!((cursor.x, cursor.y, cursor.shape), (26 + 1 + 2, 1 + 1 + 1, CursorShape::Bar));
    assert_eq!(
        frame.layout.pane_content_sizes(&layout),
        vec![("p1".to_string(), 25, 21), ("p2".to_string(), 25, 21)]
    );
}

#[test]
fn status_dots_and_focus_use_theme_colours() {
    let (layout, grids) = (split_layout(), split_grids());
    let view = split_view(&layout, &grids);
    let theme = Theme::default();
    let c = theme.colors;
    let frame = compose(&view, &RenderOptions::default(), &theme, 80, 24);
    let buf = &frame.buffer;
    // Spaces panel: header on row 0, then api (working), its branch row, api-fix (done, indented),
    // docs (blocked), scratch (idle), notes (unknown).
    let expect = [
        (1, 1, "●", c.yellow),
        (3, 3, "●", c.teal),
        (1, 4, "●", c.red),
        (1, 5, "○", c.green),
        (1, 6, "·", c.overlay0),
    ];
    for (x, y, glyph, color) in expect {
        assert_eq!((buf[(x, y)].symbol(), buf[(x, y)].fg), (glyph, color), "cell {x},{y}");
    }
    // The focused workspace row is highlighted across the sidebar; the focused label is bold.
    assert_eq!(buf[(20, 1)].bg, c.active_row_bg);
    assert!(buf[(3, 1)].modifier.contains(Modifier::BOLD));
    assert_eq!(buf[(25, 5)].symbol(), "│");
    // Focused pane border: thick and accent; the other pane thin and dim.
    assert_eq!((buf[(26, 1)].symbol(), buf[(26, 1)].fg), ("┏", c.accent));
    assert_eq!((buf[(53, 1)].symbol(), buf[(53, 1)].fg), ("┌", c.surface1));
    // Tab bar: the focused tab in accent, the blocked tab's dot red.
    assert_eq!(buf[(27, 0)].fg, c.accent);
    let blocked_dot = (26..80).find(|&x| buf[(x, 0)].symbol() == "●").expect("tab status dot");
    assert_eq!(buf[(blocked_dot, 0)].fg, c.red);
}

#[test]
fn true_colour_and_attributes_reach_the_buffer() {
    let (layout, mut grids) = (split_layout(), split_grids());
    let grid = grids.get_mut("p2").expect("p2");
    grid.put_str(
        0,
        3,
        "ERR",
        GridColor::Rgb(255, 10, 20),
        GridColor::Indexed(236),
        CellAttrs(CellAttrs::BOLD | CellAttrs::UNDERLINE),
    );
    let view = split_view(&layout, &grids);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 80, 24);
    let cell = &frame.buffer[(26 + 27 + 1, 1 + 1 + 3)];
    assert_eq!(cell.symbol(), "E");
    assert_eq!((cell.fg, cell.bg), (Color::Rgb(255, 10, 20), Color::Indexed(236)));
    assert_eq!(cell.modifier, Modifier::BOLD | Modifier::UNDERLINED);
}

#[test]
fn wide_character_at_the_right_edge_never_spills_onto_the_border() {
    let area = rect(0, 0, 54, 23);
    let layout = layout(&[("p1", rect(0, 0, 6, 4)), ("p2", rect(6, 0, 48, 23))], "p1", false, area);
    let mut grids = HashMap::new();
    // Content is 4 columns wide: a wide char at column 3 cannot fit, one at column 2 can.
    let mut grid = grid_with(4, 2, &["abc", "中文"]);
    grid.cells[3] = GridCell { text: "中".into(), ..GridCell::default() };
    grids.insert("p1".to_string(), grid);
    let view = split_view(&layout, &grids);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 80, 24);
    let text = text_of(&frame.buffer);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[2].contains("┃abc ┃"), "{}", rows[2]);
    assert!(rows[3].contains("┃中文┃"), "{}", rows[3]);
}

#[test]
fn zoom_shows_only_the_focused_pane_over_the_area() {
    let area = rect(0, 0, 54, 23);
    let layout = layout(&[("p1", rect(0, 0, 27, 23)), ("p2", area)], "p2", true, area);
    let grids = split_grids();
    let mut view = split_view(&layout, &grids);
    view.tabs = tabs(2, true);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 80, 24);
    snapshot("zoomed", &frame.buffer);
    assert_eq!(frame.layout.pane_content_sizes(&layout), vec![("p2".to_string(), 52, 21)]);
}

#[test]
fn symbols_style_compact_sidebar_and_bottom_tab_bar() {
    let (layout, grids) = (split_layout(), split_grids());
    let view = split_view(&layout, &grids);
    let options = RenderOptions {
        status_style: StatusStyle::Symbols,
        sidebar_mode: SidebarMode::Compact,
        tab_bar_bottom: true,
        ..RenderOptions::default()
    };
    let area = FrameLayout::compute(80, 24, 3, &options).pane_area;
    assert_eq!((area.x, area.y, area.width, area.height), (4, 0, 76, 23));
    let frame = compose(&view, &options, &Theme::default(), 80, 24);
    snapshot("compact_symbols", &frame.buffer);
    let glyphs: Vec<&str> = (0..5).map(|y| frame.buffer[(1, y)].symbol()).collect();
    assert_eq!(glyphs, ["◐", "✓", "×", "○", "·"]);
}

#[test]
fn mobile_layout_under_the_threshold() {
    let area = rect(0, 0, 40, 18);
    let layout = layout(&[("p1", rect(0, 0, 20, 18)), ("p2", rect(20, 0, 20, 18))], "p1", false, area);
    let grids = split_grids();
    let view = split_view(&layout, &grids);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 40, 20);
    assert!(frame.layout.mobile);
    snapshot("mobile", &frame.buffer);
    assert_eq!(frame.layout.pane_content_sizes(&layout), vec![("p1".to_string(), 40, 18)]);
    // At the threshold itself the layout is still mobile; one column more is the desktop.
    assert!(FrameLayout::compute(64, 20, 1, &RenderOptions::default()).mobile);
    assert!(!FrameLayout::compute(65, 20, 1, &RenderOptions::default()).mobile);
}

#[test]
fn very_wide_terminal_and_mode_bar() {
    let area = rect(0, 0, 274, 49);
    let layout = layout(&[("p1", rect(0, 0, 137, 49)), ("p2", rect(137, 0, 137, 49))], "p1", false, area);
    let grids = split_grids();
    let mut view = split_view(&layout, &grids);
    view.mode = ModeBadge::Prefix;
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 300, 50);
    assert_eq!(frame.layout.pane_area.width, 274);
    let text = text_of(&frame.buffer);
    let last = text.lines().last().expect("rows");
    assert!(last.starts_with(" PREFIX  c tab"), "{last}");
    assert_eq!(frame.buffer[(299, 2)].symbol(), "│");
}

#[test]
fn tiny_terminals_do_not_panic() {
    let (layout, grids) = (split_layout(), split_grids());
    let mut view = split_view(&layout, &grids);
    for mode in [ModeBadge::Terminal, ModeBadge::Navigate] {
        view.mode = mode;
        for (cols, rows) in
            [(0, 0), (1, 1), (0, 5), (5, 0), (2, 1), (3, 2), (10, 3), (65, 1), (65, 2), (80, 1), (200, 3)]
        {
            for sidebar_mode in [SidebarMode::Expanded, SidebarMode::Compact, SidebarMode::Hidden] {
                let options = RenderOptions { sidebar_mode, ..RenderOptions::default() };
                let frame = compose(&view, &options, &Theme::default(), cols, rows);
                assert_eq!(frame.buffer.area.width, cols);
            }
        }
    }
}

#[test]
fn view_model_from_a_session_snapshot() {
    let snapshot = crate::tests_fixtures::session("split_right_54x23");
    let grids = HashMap::new();
    let view = ViewModel::from_snapshot(&snapshot, &grids, ModeBadge::Terminal);
    assert_eq!(view.workspaces.len(), 1);
    assert_eq!(view.workspaces[0].label, "api");
    assert_eq!(view.tabs.len(), 1);
    let layout = view.layout.expect("active layout");
    assert_eq!(layout.panes.len(), 2);
    assert_eq!(view.panes.len(), 2);
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 80, 24);
    assert_eq!(frame.layout.pane_content_sizes(layout).len(), 2);
}

#[test]
fn a_tab_whose_pane_rang_unseen_shows_a_bell_marker() {
    let session = crate::tests_fixtures::session("three_tabs_54x23");
    let pane_of = |label: &str| {
        let tab = session.tabs.iter().find(|t| t.label == label).expect("the tab");
        session.panes.iter().find(|p| p.tab_id == tab.tab_id).expect("its pane").pane_id.clone()
    };
    // The focused tab's pane and the build tab's pane rang; only build is marked.
    let belled = [pane_of("build"), pane_of(&session.tabs[0].label)];
    let grids = HashMap::new();
    let mut view = ViewModel::from_snapshot(&session, &grids, ModeBadge::Terminal);
    view.mark_bells(&session, |id| belled.iter().any(|b| b == id));
    assert_eq!(view.tabs.iter().map(|t| t.bell).collect::<Vec<_>>(), [false, true, false]);
    let theme = Theme::default();
    let frame = compose(&view, &RenderOptions::default(), &theme, 80, 24);
    snapshot("tab_bell", &frame.buffer);
    let bang = (0..80).find(|&x| frame.buffer[(x, 0)].symbol() == "!").expect("a bell marker");
    assert_eq!(frame.buffer[(bang, 0)].fg, theme.colors.peach);
}
