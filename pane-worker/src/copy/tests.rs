//! Copy mode over an in-memory document: requests, selection, search and the overlay view.

use std::rc::Rc;

use herdr_protocol::ipc::{CopyMotion, CopyRequest, CopySearch};

use super::*;

/// Rows of plain text; characters of three or more UTF-8 bytes are wide (CJK, emoji).
pub(super) struct MemDoc {
    pub rows: Vec<Rc<DocRow>>,
    pub cols: u16,
    pub top: u32,
    pub height: u32,
    pub cursor: Option<Pos>,
}

impl MemDoc {
    pub fn new(cols: u16, height: u32, lines: &[&str]) -> Self {
        let rows: Vec<Rc<DocRow>> =
            lines.iter().map(|l| Rc::new(DocRow::from_text(l, cols, |c| c.len_utf8() >= 3))).collect();
        let top = u32::try_from(rows.len()).expect("small").saturating_sub(height);
        Self { rows, cols, top, height, cursor: None }
    }

    /// Marks `row` as soft-wrapping into the next one.
    pub fn wrap(mut self, row: usize) -> Self {
        Rc::make_mut(&mut self.rows[row]).wrapped = true;
        self
    }
}

impl CopyDocument for MemDoc {
    fn row_count(&self) -> u32 {
        u32::try_from(self.rows.len()).expect("small")
    }
    fn cols(&self) -> u16 {
        self.cols
    }
    fn row(&self, row: u32) -> Rc<DocRow> {
        self.rows
            .get(row as usize)
            .cloned()
            .unwrap_or_else(|| Rc::new(DocRow::from_text("", self.cols, |_| false)))
    }
    fn viewport_top(&self) -> u32 {
        self.top
    }
    fn viewport_height(&self) -> u32 {
        self.height
    }
    fn program_cursor(&self) -> Option<Pos> {
        self.cursor
    }
}

pub(super) fn entered(doc: &MemDoc, at: Pos) -> Option<CopyState> {
    let mut state = None;
    let doc_at = MemDoc { rows: doc.rows.clone(), cursor: Some(at), ..*doc };
    apply(&mut state, &CopyRequest::Enter, &doc_at);
    state
}

fn cursor(state: &Option<CopyState>) -> Pos {
    state.as_ref().expect("copy mode on").cursor
}

#[test]
fn enter_starts_at_the_program_cursor_or_the_bottom_of_the_view() {
    let doc = MemDoc::new(10, 3, &["a", "b", "c", "d", "e"]);
    assert_eq!(cursor(&entered(&doc, Pos::new(3, 1))), Pos::new(3, 1));
    let mut state = None;
    let scrolled_back = MemDoc { top: 0, ..MemDoc::new(10, 3, &["a", "b", "c", "d", "e"]) };
    apply(&mut state, &CopyRequest::Enter, &scrolled_back);
    assert_eq!(cursor(&state), Pos::new(2, 0), "the view's last row when the cursor is not shown");
    assert!(state.as_ref().is_some_and(|s| s.active));
}

#[test]
fn leave_clears_and_goes_back_to_the_bottom() {
    let doc = MemDoc::new(10, 3, &["a", "b", "c"]);
    let mut state = entered(&doc, Pos::new(1, 0));
    let out = apply(&mut state, &CopyRequest::Leave, &doc);
    assert_eq!(state, None);
    assert!(out.to_bottom);
}

#[test]
fn yank_copies_the_selection_in_reading_order_or_the_cursor_row() {
    let doc = MemDoc::new(10, 3, &["one two", "three", "four"]);
    let mut state = entered(&doc, Pos::new(1, 3));
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    apply(&mut state, &CopyRequest::Motion(CopyMotion::Up), &doc);
    apply(&mut state, &CopyRequest::Motion(CopyMotion::LineStart), &doc);
    let out = apply(&mut state, &CopyRequest::Yank, &doc);
    assert_eq!(out.copy, Some((Pos::new(0, 0), Pos::new(1, 3))), "anchor after cursor: swapped");
    assert!(out.to_bottom);
    assert_eq!(state, None, "yank leaves copy mode");

    let mut state = entered(&doc, Pos::new(2, 2));
    let out = apply(&mut state, &CopyRequest::Yank, &doc);
    assert_eq!(out.copy, Some((Pos::new(2, 0), Pos::new(2, 9))), "no selection: the cursor's row");
}

#[test]
fn toggle_and_clear_selection() {
    let doc = MemDoc::new(10, 3, &["abc"]);
    let mut state = entered(&doc, Pos::new(0, 1));
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    assert_eq!(state.as_ref().and_then(|s| s.anchor), Some(Pos::new(0, 1)));
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    assert_eq!(state.as_ref().and_then(|s| s.anchor), None);
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    apply(&mut state, &CopyRequest::Search { query: "c".into(), backward: false }, &doc);
    apply(&mut state, &CopyRequest::ClearSelection, &doc);
    let s = state.as_ref().expect("still in copy mode");
    assert_eq!((s.anchor, s.search.clone(), s.active), (None, None, true));
}

#[test]
fn selection_end_covers_a_wide_character() {
    let doc = MemDoc::new(10, 2, &["ab界cd"]);
    let mut state = entered(&doc, Pos::new(0, 0));
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    for _ in 0..2 {
        apply(&mut state, &CopyRequest::Motion(CopyMotion::Right), &doc);
    }
    let s = state.as_ref().expect("on");
    assert_eq!(s.cursor, Pos::new(0, 2));
    assert_eq!(s.selection(&doc), Some((Pos::new(0, 0), Pos::new(0, 3))));
}

#[test]
fn mouse_drag_selects_and_finish_copies() {
    let mut doc = MemDoc::new(10, 3, &["zero", "one", "two", "three", "four"]);
    doc.top = 1;
    let mut state = None;
    apply(&mut state, &CopyRequest::SelectStart { col: 1, row: 0 }, &doc);
    let s = state.as_ref().expect("a mouse selection");
    assert!(!s.active);
    apply(&mut state, &CopyRequest::SelectExtend { col: 2, row: 1 }, &doc);
    let out = apply(&mut state, &CopyRequest::SelectFinish, &doc);
    assert_eq!(out.copy, Some((Pos::new(1, 1), Pos::new(2, 2))));
    assert!(state.is_some(), "the selection stays shown after the release");
    let view = view(state.as_ref().expect("shown"), &doc);
    assert_eq!(view.selection, Some(((1, 0), (2, 1))));
    assert_eq!((view.cursor, view.active), (None, false), "no cursor for a mouse selection");
    apply(&mut state, &CopyRequest::SelectClear, &doc);
    assert_eq!(state, None);
}

#[test]
fn a_click_without_a_drag_copies_nothing_and_drops_the_selection() {
    let doc = MemDoc::new(10, 3, &["one", "two"]);
    let mut state = None;
    apply(&mut state, &CopyRequest::SelectStart { col: 1, row: 0 }, &doc);
    let out = apply(&mut state, &CopyRequest::SelectFinish, &doc);
    assert_eq!((out.copy, state), (None, None));
}

#[test]
fn dragging_below_the_view_scrolls_it_a_row() {
    let mut doc = MemDoc::new(10, 2, &["a", "b", "c", "d"]);
    doc.top = 0;
    let mut state = None;
    apply(&mut state, &CopyRequest::SelectStart { col: 0, row: 0 }, &doc);
    let out = apply(&mut state, &CopyRequest::SelectExtend { col: 3, row: 2 }, &doc);
    assert_eq!(out.view_top, Some(1));
    assert_eq!(cursor(&state), Pos::new(2, 3));
}

#[test]
fn dragging_above_the_view_scrolls_it_back_a_row_until_the_oldest_row() {
    let mut doc = MemDoc::new(10, 2, &["a", "b", "c", "d"]);
    doc.top = 2;
    let mut state = None;
    apply(&mut state, &CopyRequest::SelectStart { col: 0, row: 1 }, &doc);
    let out = apply(&mut state, &CopyRequest::SelectExtend { col: 0, row: -1 }, &doc);
    assert_eq!(out.view_top, Some(1));
    assert_eq!(cursor(&state), Pos::new(1, 0));
    doc.top = 0;
    let out = apply(&mut state, &CopyRequest::SelectExtend { col: 0, row: -1 }, &doc);
    assert_eq!((out.view_top, cursor(&state)), (Some(0), Pos::new(0, 0)), "stops at the oldest row");
    let out = apply(&mut state, &CopyRequest::SelectFinish, &doc);
    assert_eq!(out.copy, Some((Pos::new(0, 0), Pos::new(3, 0))));
}

#[test]
fn double_click_selects_a_word_or_a_blank_run() {
    let doc = MemDoc::new(20, 2, &["foo_bar-baz  qux", "界字 x"]);
    assert_eq!(word_at(&doc, Pos::new(0, 2)), (Pos::new(0, 0), Pos::new(0, 6)));
    assert_eq!(word_at(&doc, Pos::new(0, 7)), (Pos::new(0, 7), Pos::new(0, 7)), "punctuation run");
    assert_eq!(word_at(&doc, Pos::new(0, 12)), (Pos::new(0, 11), Pos::new(0, 12)), "blanks");
    assert_eq!(word_at(&doc, Pos::new(0, 18)), (Pos::new(0, 16), Pos::new(0, 19)), "trailing blanks");
    // Clicking the right half of a wide character picks its word; the end covers the spacer.
    assert_eq!(word_at(&doc, Pos::new(1, 3)), (Pos::new(1, 0), Pos::new(1, 3)));
    let mut state = None;
    let doc_view = MemDoc { top: 0, ..MemDoc::new(20, 2, &["foo_bar-baz  qux", "界字 x"]) };
    apply(&mut state, &CopyRequest::SelectWord { col: 13, row: 0 }, &doc_view);
    let out = apply(&mut state, &CopyRequest::SelectFinish, &doc_view);
    assert_eq!(out.copy, Some((Pos::new(0, 13), Pos::new(0, 15))));
}

#[test]
fn a_word_continues_over_a_soft_wrap() {
    let doc = MemDoc::new(4, 2, &["ab c", "def "]).wrap(0);
    assert_eq!(word_at(&doc, Pos::new(1, 0)), (Pos::new(0, 3), Pos::new(1, 2)));
}

#[test]
fn view_clips_to_the_viewport_and_hides_a_cursor_out_of_view() {
    let mut doc = MemDoc::new(5, 2, &["a", "b", "c", "d", "e", "f"]);
    let mut state = entered(&doc, Pos::new(1, 2));
    apply(&mut state, &CopyRequest::ToggleSelection, &doc);
    let s = state.as_mut().expect("on");
    s.cursor = Pos::new(4, 1);
    doc.top = 2;
    let v = view(s, &doc);
    assert_eq!(v.selection, Some(((0, 0), (4, 1))), "starts above, ends below: the whole view");
    assert_eq!(v.cursor, None);
    assert!(v.active);
    doc.top = 4;
    assert_eq!(view(s, &doc).selection, Some(((0, 0), (1, 0))));
    assert_eq!(view(s, &doc).cursor, Some((1, 0)));
    doc.top = 0;
    assert_eq!(view(s, &doc).selection, Some(((2, 1), (4, 1))));
}

#[test]
fn search_backward_forward_again_and_wrapping() {
    let lines = ["alpha", "Beta x", "gamma beta", "delta", "BETA"];
    let doc = MemDoc::new(12, 5, &lines);
    let mut state = entered(&doc, Pos::new(3, 0));
    apply(&mut state, &CopyRequest::Search { query: "beta".into(), backward: true }, &doc);
    assert_eq!(cursor(&state), Pos::new(2, 6), "smart case: lowercase matches any case");
    apply(&mut state, &CopyRequest::SearchAgain { reverse: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(1, 0));
    apply(&mut state, &CopyRequest::SearchAgain { reverse: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(4, 0), "wraps to the newest rows");
    apply(&mut state, &CopyRequest::SearchAgain { reverse: true }, &doc);
    assert_eq!(cursor(&state), Pos::new(1, 0), "N goes the other way, wrapping to the oldest");
    let search = state.as_ref().and_then(|s| s.search.clone());
    assert_eq!(search, Some(CopySearch { query: "beta".into(), backward: true, found: true }));

    apply(&mut state, &CopyRequest::Search { query: "BETA".into(), backward: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(4, 0), "an uppercase letter makes it case-sensitive");
    apply(&mut state, &CopyRequest::SearchAgain { reverse: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(4, 0), "the only match, found again after wrapping");

    apply(&mut state, &CopyRequest::Search { query: "nowhere".into(), backward: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(4, 0), "no match leaves the cursor");
    assert_eq!(state.as_ref().and_then(|s| s.search.as_ref()).map(|s| s.found), Some(false));
}

#[test]
fn search_reports_cell_columns_past_wide_characters() {
    let doc = MemDoc::new(12, 2, &["界字 needle", "x"]);
    let mut state = entered(&doc, Pos::new(1, 0));
    apply(&mut state, &CopyRequest::Search { query: "need".into(), backward: true }, &doc);
    assert_eq!(cursor(&state), Pos::new(0, 5));
}

#[test]
fn search_moves_the_view_to_the_match() {
    let lines: Vec<String> = (0..50).map(|i| format!("line {i}")).collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let doc = MemDoc::new(10, 5, &refs);
    let mut state = entered(&doc, Pos::new(49, 0));
    let out = apply(&mut state, &CopyRequest::Search { query: "line 7".into(), backward: true }, &doc);
    assert_eq!(cursor(&state), Pos::new(7, 0));
    assert_eq!(out.view_top, Some(7), "the view moves just enough to show the match");
    let shown = MemDoc { top: 7, ..doc };
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::Down), &shown);
    assert_eq!(out.view_top, None, "a motion inside the view leaves it alone");
}

#[test]
fn keyboard_requests_are_ignored_without_copy_mode() {
    let doc = MemDoc::new(10, 3, &["one", "two"]);
    let mut state = None;
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::Up), &doc);
    assert_eq!((state.clone(), out), (None, Applied::default()));
    apply(&mut state, &CopyRequest::SelectStart { col: 0, row: 0 }, &doc);
    apply(&mut state, &CopyRequest::Motion(CopyMotion::Down), &doc);
    assert_eq!(cursor(&state), Pos::new(0, 0), "a mouse selection has no keyboard cursor");
}

#[test]
fn search_matches_across_a_soft_wrap_but_not_a_line_break() {
    let lines = ["x", "abcde", "fgh", "abcde", "fgh"];
    let doc = MemDoc::new(5, 5, &lines).wrap(1);
    let mut state = entered(&doc, Pos::new(0, 0));
    apply(&mut state, &CopyRequest::Search { query: "DEF".to_lowercase(), backward: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(1, 3));
    apply(&mut state, &CopyRequest::SearchAgain { reverse: false }, &doc);
    assert_eq!(cursor(&state), Pos::new(1, 3), "rows 3 and 4 are two lines: no second match");
}
