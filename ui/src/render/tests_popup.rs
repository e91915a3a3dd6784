//! Popup snapshots: the border, the title, the grid inside, and sizes clamped to the screen.

use std::collections::HashMap;

use herdr_protocol::grid::{GridCell, PaneGrid};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::*;
use crate::render::tests::{snapshot, text_of};
use crate::render::{ModeBadge, RenderOptions, Theme, ViewModel, compose};

/// A `cols` × `rows` grid showing `lines` from the top left, the cursor after the last one.
fn grid(cols: u16, rows: u16, lines: &[&str]) -> PaneGrid {
    let mut grid = PaneGrid::blank(cols, rows);
    for (y, line) in lines.iter().enumerate() {
        for (x, ch) in line.chars().enumerate() {
            let i = y * usize::from(cols) + x;
            if x < usize::from(cols) && i < grid.cells.len() {
                grid.cells[i] = GridCell { text: ch.into(), ..GridCell::default() };
            }
        }
    }
    grid.cursor.y = u16::try_from(lines.len().saturating_sub(1)).unwrap_or(0);
    grid.cursor.x = u16::try_from(lines.last().map_or(0, |l| l.chars().count())).unwrap_or(0);
    grid
}

fn view(title: &str, width: Option<PopupSize>, height: Option<PopupSize>) -> PopupView {
    PopupView { title: title.to_owned(), width, height }
}

/// Two panes side by side at 80 × 24, as a client shows them.
fn two_panes() -> (Buffer, Rect) {
    let session = crate::tests_fixtures::session("split_right_54x22");
    let grids = HashMap::new();
    let model = ViewModel::from_snapshot(&session, &grids, ModeBadge::Terminal);
    let frame = compose(&model, &RenderOptions::default(), &Theme::default(), 80, 24);
    (frame.buffer, frame.layout.pane_area)
}

#[test]
fn a_default_popup_is_half_the_pane_area_with_its_title_and_grid() {
    let (mut buf, area) = two_panes();
    let colors = Theme::default().colors;
    let popup = view("git ui", None, None);
    let geometry = geometry(None, None, area).expect("fits");
    let shown = grid(geometry.inner.width, geometry.inner.height, &["$ echo hi", "hi", "$ "]);
    let (placed, cursor) = draw_popup(&mut buf, area, &popup, Some(&shown), &colors).expect("drawn");
    assert_eq!(placed, geometry);
    assert_eq!(placed.outer.width, area.width / 2);
    assert_eq!(placed.outer.height, area.height / 2);
    let cursor = cursor.expect("the program's cursor");
    assert_eq!((cursor.x, cursor.y), (placed.inner.x + 2, placed.inner.y + 2), "after the prompt");
    snapshot("popup_default", &buf);
}

#[test]
fn a_popup_larger_than_the_screen_is_clamped_to_the_pane_area() {
    let (mut buf, area) = two_panes();
    let colors = Theme::default().colors;
    let popup = view("htop", Some(PopupSize::Cells(300)), Some(PopupSize::Percent(100)));
    let (placed, _) = draw_popup(&mut buf, area, &popup, None, &colors).expect("drawn");
    assert_eq!(placed.outer, area, "the whole pane area and no more");
    snapshot("popup_clamped", &buf);
}

#[test]
fn a_long_title_is_cut_inside_the_border_and_a_tiny_size_grows_to_the_minimum() {
    let mut buf = Buffer::empty(Rect::new(0, 0, 20, 8));
    let colors = Theme::default().colors;
    let long = view("a very long popup title indeed", Some(PopupSize::Cells(14)), Some(PopupSize::Cells(5)));
    draw_popup(&mut buf, Rect::new(0, 0, 20, 8), &long, None, &colors).expect("drawn");
    let text = text_of(&buf);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[1], "   ╭─ a very l ─╮   ", "{text}");
    assert_eq!(rows[5], "   ╰────────────╯   ", "{text}");
    let mut small = Buffer::empty(Rect::new(0, 0, 20, 8));
    let tiny = view("", Some(PopupSize::Cells(1)), Some(PopupSize::Cells(1)));
    let (placed, _) = draw_popup(&mut small, Rect::new(0, 0, 20, 8), &tiny, None, &colors).expect("drawn");
    assert_eq!((placed.outer.width, placed.outer.height), (6, 4));
    assert_eq!(text_of(&small).lines().nth(2), Some("       ╭────╮       "));
}

#[test]
fn a_screen_too_small_for_a_popup_is_left_alone() {
    let (mut buf, _) = two_panes();
    let before = buf.clone();
    let colors = Theme::default().colors;
    let drawn = draw_popup(&mut buf, Rect::new(0, 0, 5, 3), &view("x", None, None), None, &colors);
    assert_eq!(drawn, None);
    assert_eq!(buf, before);
}
