//! Repainting a few rows in place: when nothing but some pane rows changed since a client's last
//! frame (a spinner, a progress line, a typed character), the paint task redraws just those rows
//! of the previous frame and sends just their changed cells, instead of composing and diffing
//! the whole screen. The rows are drawn with the same blit as a full composition, so the result
//! equals what a full paint would have produced there.
//!
//! Not here: deciding whether only rows changed (the paint task knows what it has painted), and
//! anything outside a pane's content rect (chrome, overlays, borders).

use herdr_protocol::grid::{CellUpdate, CursorPlacement, PaneGrid};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::diff::cell_update;
use super::panes::{blit_row, place_cursor};

/// Redraws `rows` (0-based rows of the pane's grid) of a pane whose content sits at `content`
/// in `frame`, updating `frame` in place and appending every cell that changed to `out`.
pub fn repaint_rows(
    frame: &mut Buffer,
    content: Rect,
    grid: &PaneGrid,
    rows: &[u16],
    out: &mut Vec<CellUpdate>,
) {
    let shown = content.intersection(frame.area);
    let height = shown.height.min(grid.rows);
    for &y in rows {
        if y >= height || shown.width == 0 {
            continue;
        }
        let line = Rect::new(shown.x, shown.y + y, shown.width, 1);
        let mut fresh = Buffer::empty(line);
        blit_row(&mut fresh, content, grid, y);
        let mut before = Buffer::empty(line);
        for x in line.left()..line.right() {
            before[(x, line.y)] = frame[(x, line.y)].clone();
        }
        out.extend(before.diff_iter(&fresh).map(|(x, y, cell)| cell_update(x, y, cell)));
        for x in line.left()..line.right() {
            frame[(x, line.y)] = fresh[(x, line.y)].clone();
        }
    }
}

/// Where the focused pane's program wants the cursor, as a full paint would place it.
pub fn pane_cursor(content: Rect, grid: &PaneGrid) -> Option<CursorPlacement> {
    place_cursor(content, grid).filter(|c| c.visible)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::GridCell;
    use herdr_protocol::grid::{CellText, GridColor};
    use unicode_width::UnicodeWidthChar;

    fn grid_with(rows: &[&str], cols: u16) -> PaneGrid {
        let mut grid = PaneGrid::blank(cols, rows.len() as u16);
        for (y, text) in rows.iter().enumerate() {
            let mut x = 0;
            for ch in text.chars() {
                let i = y * usize::from(cols) + x;
                grid.cells[i] =
                    GridCell { text: ch.into(), fg: GridColor::Indexed(3), ..GridCell::default() };
                x += 1;
                if ch.width().unwrap_or(1) > 1 {
                    // The wire form: a wide grapheme is followed by an empty spacer cell.
                    grid.cells[i + 1] = GridCell { text: CellText::EMPTY, ..GridCell::default() };
                    x += 1;
                }
            }
        }
        grid
    }

    fn full_paint(grid: &PaneGrid, content: Rect, area: Rect) -> Buffer {
        let mut buf = Buffer::empty(area);
        for y in 0..grid.rows {
            blit_row(&mut buf, content, grid, y);
        }
        buf
    }

    #[test]
    fn repainting_changed_rows_equals_a_full_paint_and_sends_only_changed_cells() {
        let area = Rect::new(0, 0, 12, 5);
        let content = Rect::new(1, 1, 10, 3);
        let before = grid_with(&["⠋ working", "line two", "wide 表x"], 10);
        let after = grid_with(&["⠙ working", "line two", "wide 表y"], 10);
        let mut frame = full_paint(&before, content, area);
        let mut cells = Vec::new();
        repaint_rows(&mut frame, content, &after, &[0, 2], &mut cells);
        assert_eq!(frame, full_paint(&after, content, area));
        let (old, new) = (full_paint(&before, content, area), full_paint(&after, content, area));
        let full: Vec<CellUpdate> = old.diff_iter(&new).map(|(x, y, cell)| cell_update(x, y, cell)).collect();
        assert_eq!(cells, full);
        assert_eq!(
            cells.iter().map(|c| (c.x, c.y, c.symbol.as_str())).collect::<Vec<_>>(),
            [(1, 1, "⠙"), (8, 3, "y")]
        );
    }

    #[test]
    fn rows_outside_the_grid_or_the_frame_are_ignored() {
        let area = Rect::new(0, 0, 6, 2);
        let content = Rect::new(0, 0, 6, 4);
        let grid = grid_with(&["ab", "cd", "ef", "gh"], 6);
        let mut frame = Buffer::empty(area);
        let mut cells = Vec::new();
        repaint_rows(&mut frame, content, &grid, &[1, 3, 9], &mut cells);
        assert_eq!(cells.iter().map(|c| (c.x, c.y)).collect::<Vec<_>>(), [(0, 1), (1, 1)]);
    }
}
