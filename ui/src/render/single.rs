//! The frame of one pane alone, for a direct terminal attach (`herdr agent attach`): the pane's
//! grid from the top-left corner of a `cols` × `rows` screen, clipped to it, with the program's
//! cursor; no sidebar, tab bar, borders or overlays. Diffed and encoded like any other frame.

use herdr_protocol::grid::PaneGrid;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::chrome::FrameLayout;
use super::compose::Frame;
use super::panes::{blit_row, place_cursor};

/// `grid` (nothing yet: a blank screen) on a screen of `cols` × `rows`.
pub fn single_pane(grid: Option<&PaneGrid>, cols: u16, rows: u16) -> Frame {
    let screen = Rect::new(0, 0, cols, rows);
    let mut buffer = Buffer::empty(screen);
    let cursor = grid.and_then(|grid| {
        for y in 0..rows.min(grid.rows) {
            blit_row(&mut buffer, screen, grid, y);
        }
        place_cursor(screen, grid).filter(|c| c.visible)
    });
    let layout = FrameLayout {
        screen,
        mobile: false,
        sidebar: None,
        tab_bar: None,
        pane_area: screen,
        pane_borders: false,
    };
    Frame { buffer, cursor, layout, panes: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::diff_frames;
    use herdr_protocol::grid::{CellAttrs, GridColor};

    fn text(frame: &Frame, y: u16) -> String {
        (0..frame.buffer.area.width).map(|x| frame.buffer[(x, y)].symbol().to_owned()).collect()
    }

    #[test]
    fn the_pane_fills_the_screen_from_the_corner_and_is_clipped_to_it() {
        let mut grid = PaneGrid::blank(6, 3);
        grid.put_str(0, 0, "hello!", GridColor::Default, GridColor::Default, CellAttrs::default());
        grid.put_str(0, 2, "last", GridColor::Default, GridColor::Default, CellAttrs::default());
        grid.cursor.x = 4;
        grid.cursor.y = 2;
        grid.cursor.visible = true;
        let frame = single_pane(Some(&grid), 4, 2);
        assert_eq!(text(&frame, 0), "hell");
        assert_eq!(text(&frame, 1), "    ");
        assert_eq!(frame.cursor, None, "the cursor is below the screen");
        let frame = single_pane(Some(&grid), 8, 3);
        assert_eq!(text(&frame, 0), "hello!  ");
        assert_eq!(text(&frame, 2), "last    ");
        assert_eq!(frame.cursor.map(|c| (c.x, c.y)), Some((4, 2)));
    }

    #[test]
    fn an_unchanged_pane_diffs_to_nothing_and_a_change_to_its_cells() {
        let mut grid = PaneGrid::blank(5, 2);
        grid.put_str(0, 0, "ab", GridColor::Default, GridColor::Default, CellAttrs::default());
        let first = single_pane(Some(&grid), 5, 2);
        assert!(diff_frames(Some(&first), &single_pane(Some(&grid), 5, 2)).is_none());
        grid.put_str(0, 1, "z", GridColor::Default, GridColor::Default, CellAttrs::default());
        let update = diff_frames(Some(&first), &single_pane(Some(&grid), 5, 2)).expect("a change");
        assert!(!update.clear);
        assert_eq!(update.cells.len(), 1);
        assert_eq!((update.cells[0].x, update.cells[0].y, update.cells[0].symbol.as_str()), (0, 1, "z"));
    }
}
