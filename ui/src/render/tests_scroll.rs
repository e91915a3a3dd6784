//! The scrollbar a scrolled-back pane shows on its right border.

use herdr_protocol::ipc::ScrollPosition;

use super::tests::one_pane;
use super::*;

/// The rows of the pane's right border (x = 119) that show the thumb.
fn thumb_rows(offset: u32, max: u32) -> Vec<u16> {
    let layout = one_pane(94, 39);
    let scroll = ScrollPosition { offset_from_bottom: offset, max_offset_from_bottom: max };
    let pane = PaneView { scroll, ..PaneView::default() };
    let view = ViewModel {
        tabs: vec![TabView { label: "1".into(), focused: true, ..TabView::default() }],
        layout: Some(&layout),
        panes: [("w1:p1".to_owned(), pane)].into_iter().collect(),
        ..ViewModel::default()
    };
    let frame = compose(&view, &RenderOptions::default(), &Theme::default(), 120, 40);
    (0..40).filter(|&y| frame.buffer[(119, y)].symbol() == "█").collect()
}

#[test]
fn the_thumb_shows_where_the_view_is_only_while_scrolled_back() {
    // The track is rows 2..=38 (37 rows); with 37 rows of history the thumb is half of it.
    assert_eq!(thumb_rows(0, 37), Vec::<u16>::new(), "no scrollbar at the live screen");
    assert_eq!(thumb_rows(37, 37), (2..20).collect::<Vec<u16>>(), "at the top of the history");
    assert_eq!(thumb_rows(1, 37), (20..38).collect::<Vec<u16>>(), "one row above the bottom");
    assert_eq!(thumb_rows(5, 0), Vec::<u16>::new(), "no history, nothing to show");
}
