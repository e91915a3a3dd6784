//! Copy mode and mouse selection over a pane: the selected cells in the theme's selection
//! colour (their text kept), the copy cursor as the frame's cursor, and the copy prompt on the
//! mode bar. All in the pane's viewport cells as the worker reports them ([`CopyView`]).
//!
//! Not here: moving the cursor, searching or extracting text (the pane worker does that).

use herdr_protocol::grid::{CursorPlacement, CursorShape, PaneGrid};
use herdr_protocol::ipc::CopyView;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::Style;
use ratatui_core::text::Line;

use super::compose::{fill, put_line};
use super::theme::ThemeColors;

/// Width of the mode bar's ` COPY ` badge, after which the hint starts.
const COPY_BADGE_WIDTH: u16 = 6;

/// Paints the selection of `copy` over a pane's blitted `grid` inside `content`.
pub(crate) fn draw_selection(
    buf: &mut Buffer,
    content: Rect,
    grid: &PaneGrid,
    copy: &CopyView,
    colors: &ThemeColors,
) {
    let Some(((start_col, start_row), (end_col, end_row))) = copy.selection else { return };
    let cols = content.width.min(grid.cols);
    let rows = content.height.min(grid.rows);
    if cols == 0 {
        return;
    }
    for row in start_row..=end_row.min(rows.saturating_sub(1)) {
        let first = if row == start_row { start_col } else { 0 };
        let last = if row == end_row { end_col.min(cols - 1) } else { cols - 1 };
        for col in first..=last {
            if let Some(cell) = buf.cell_mut((content.x + col, content.y + row)) {
                cell.set_style(Style::new().bg(colors.selection_bg));
            }
        }
    }
}

/// Where the frame's cursor goes for a pane in copy mode: a visible block at the copy cursor,
/// or nowhere while the copy cursor is scrolled out of view.
pub(crate) fn copy_cursor(content: Rect, grid: &PaneGrid, copy: &CopyView) -> Option<CursorPlacement> {
    let (col, row) = copy.cursor?;
    let inside = col < content.width.min(grid.cols) && row < content.height.min(grid.rows);
    inside.then_some(CursorPlacement {
        x: content.x + col,
        y: content.y + row,
        visible: true,
        shape: CursorShape::Block,
        blinking: false,
    })
}

/// What copy mode's bar says instead of its key hints: the prompt being typed, or that the
/// last search found nothing; `None` keeps the hints.
pub fn copy_hint(prompt: Option<&str>, copy: Option<&CopyView>) -> Option<String> {
    if let Some(prompt) = prompt {
        return Some(prompt.to_owned());
    }
    let search = copy?.search.as_ref()?;
    (!search.found).then(|| format!("no match: {}", search.query))
}

/// Writes `hint` over the hints of the copy-mode bar on the bottom row of `buf` (drawn by the
/// compositor when the mode is [`super::ModeBadge::Copy`]).
pub fn draw_copy_hint(buf: &mut Buffer, hint: &str, colors: &ThemeColors) {
    let area = buf.area;
    if area.height == 0 || area.width <= COPY_BADGE_WIDTH {
        return;
    }
    let y = area.bottom() - 1;
    let rest = Rect::new(COPY_BADGE_WIDTH, y, area.width - COPY_BADGE_WIDTH, 1);
    let style = Style::new().bg(colors.surface0).fg(colors.text);
    fill(buf, rest, style);
    put_line(buf, rest.x, y, rest.width, &Line::styled(format!(" {hint}"), style));
}

#[cfg(test)]
mod tests {
    use herdr_protocol::grid::GridCell;
    use herdr_protocol::ipc::CopySearch;

    use super::*;
    use crate::render::tests::one_pane;
    use crate::render::{ModeBadge, PaneView, RenderOptions, TabView, Theme, ViewModel, compose};

    /// A 22×5 grid showing `lines`, its program cursor at (0, 4).
    fn grid(lines: &[&str]) -> PaneGrid {
        let mut grid = PaneGrid::blank(22, 5);
        for (y, line) in lines.iter().enumerate() {
            for (x, c) in line.chars().enumerate() {
                grid.cells[y * 22 + x] = GridCell { text: c.into(), ..GridCell::default() };
            }
        }
        grid.cursor.y = 4;
        grid
    }

    /// Composes a 50×9 frame (sidebar collapsed away) of the pane with `copy` over it.
    fn frame(grid: &PaneGrid, copy: Option<CopyView>, mode: ModeBadge) -> crate::render::Frame {
        let layout = one_pane(24, 7);
        let pane = PaneView { grid: Some(grid), copy, ..PaneView::default() };
        let view = ViewModel {
            tabs: vec![TabView { label: "1".into(), focused: true, ..TabView::default() }],
            layout: Some(&layout),
            panes: [("w1:p1".to_owned(), pane)].into_iter().collect(),
            mode,
            ..ViewModel::default()
        };
        let options = RenderOptions {
            sidebar_mode: crate::render::SidebarMode::Hidden,
            mobile_width_threshold: 0,
            ..RenderOptions::default()
        };
        compose(&view, &options, &Theme::default(), 24, 8)
    }

    /// The pane's content rows (inside the box at (1, 2)) with selected cells as `#`.
    fn selection_mask(frame: &crate::render::Frame) -> Vec<String> {
        let selected = Theme::default().colors.selection_bg;
        (2..7)
            .map(|y| {
                (1..23)
                    .map(|x| {
                        let cell = &frame.buffer[(x, y)];
                        if cell.bg == selected { '#' } else { cell.symbol().chars().next().unwrap_or(' ') }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_selection_spans_rows_in_reading_order_and_keeps_the_text_under_it() {
        let grid = grid(&["alpha beta", "gamma delta", "epsilon", "", "$ "]);
        let copy = CopyView { selection: Some(((6, 0), (4, 2))), ..CopyView::default() };
        let frame = frame(&grid, Some(copy), ModeBadge::Terminal);
        assert_eq!(
            selection_mask(&frame),
            [
                "alpha ################",
                "######################",
                "#####on               ",
                "                      ",
                "$                     ",
            ]
        );
        assert_eq!(frame.buffer[(7, 2)].symbol(), "b", "the text under the selection stays");
        // A mouse selection alone keeps the program's cursor.
        assert_eq!(frame.cursor.map(|c| (c.x, c.y)), Some((1, 6)));
    }

    #[test]
    fn copy_mode_puts_a_block_cursor_at_its_cursor_or_hides_it_when_scrolled_away() {
        let grid = grid(&["one", "two"]);
        let copy = CopyView { cursor: Some((2, 1)), active: true, ..CopyView::default() };
        let shown = frame(&grid, Some(copy.clone()), ModeBadge::Copy);
        let cursor = shown.cursor.expect("a cursor");
        assert_eq!((cursor.x, cursor.y, cursor.shape), (3, 3, CursorShape::Block));
        let away = CopyView { cursor: None, ..copy };
        assert_eq!(frame(&grid, Some(away), ModeBadge::Copy).cursor, None);
    }

    #[test]
    fn the_copy_bar_shows_the_prompt_or_a_failed_search() {
        let failed = CopyView {
            active: true,
            search: Some(CopySearch { query: "zzz".into(), backward: true, found: false }),
            ..CopyView::default()
        };
        let found = CopyView {
            search: Some(CopySearch { query: "a".into(), backward: false, found: true }),
            ..failed.clone()
        };
        assert_eq!(copy_hint(Some("/abc"), Some(&failed)).as_deref(), Some("/abc"));
        assert_eq!(copy_hint(None, Some(&failed)).as_deref(), Some("no match: zzz"));
        assert_eq!(copy_hint(None, Some(&found)), None);
        assert_eq!(copy_hint(None, None), None);

        let grid = grid(&["x"]);
        let mut frame = frame(&grid, None, ModeBadge::Copy);
        let bottom = |frame: &crate::render::Frame| {
            crate::render::tests::text_of(&frame.buffer).lines().last().map(str::to_owned)
        };
        assert_eq!(bottom(&frame).as_deref(), Some(" COPY  hjkl move  v sele"));
        draw_copy_hint(&mut frame.buffer, "?needle", &Theme::default().colors);
        assert_eq!(bottom(&frame).as_deref(), Some(" COPY  ?needle          "));
    }
}
