//! Copy mode's vi motions over an in-memory document.

use herdr_protocol::ipc::{CopyMotion, CopyRequest};

use super::tests::{MemDoc, entered};
use super::*;

/// Applies `motions` from `start` and returns where the cursor ended up.
fn after(doc: &MemDoc, start: Pos, motions: &[CopyMotion]) -> Pos {
    let mut state = entered(doc, start);
    for m in motions {
        apply(&mut state, &CopyRequest::Motion(*m), doc);
    }
    state.expect("still in copy mode").cursor
}

fn go(doc: &MemDoc, start: Pos, m: CopyMotion) -> Pos {
    after(doc, start, &[m])
}

#[test]
fn h_and_l_stay_in_the_row_and_step_over_wide_characters() {
    let doc = MemDoc::new(6, 2, &["a界b", "xyz"]);
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::Right), Pos::new(0, 1));
    assert_eq!(go(&doc, Pos::new(0, 1), CopyMotion::Right), Pos::new(0, 3), "over the spacer");
    assert_eq!(go(&doc, Pos::new(0, 3), CopyMotion::Left), Pos::new(0, 1), "onto the character");
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::Left), Pos::new(0, 0));
    assert_eq!(go(&doc, Pos::new(0, 5), CopyMotion::Right), Pos::new(0, 5), "the row's last cell");
}

#[test]
fn j_and_k_keep_the_desired_column() {
    let doc = MemDoc::new(10, 4, &["long line", "ab", "界界界界界", "another"]);
    let start = Pos::new(0, 7);
    assert_eq!(after(&doc, start, &[CopyMotion::Down]), Pos::new(1, 7));
    assert_eq!(after(&doc, start, &[CopyMotion::Down, CopyMotion::Down]), Pos::new(2, 6), "snaps onto 界");
    let back = [CopyMotion::Down, CopyMotion::Down, CopyMotion::Down];
    assert_eq!(after(&doc, start, &back), Pos::new(3, 7), "the column is remembered");
    assert_eq!(go(&doc, Pos::new(0, 3), CopyMotion::Up), Pos::new(0, 3), "the top row");
    assert_eq!(go(&doc, Pos::new(3, 3), CopyMotion::Down), Pos::new(3, 3), "the last row");
    let eol = [CopyMotion::LineEnd, CopyMotion::Down, CopyMotion::Down, CopyMotion::Down];
    assert_eq!(after(&doc, start, &eol), Pos::new(3, 6), "after $, j keeps to line ends");
}

#[test]
fn small_words_forward_back_and_end() {
    let doc = MemDoc::new(20, 3, &["foo.bar  baz_1 ,,x", "", "  next"]);
    let w = |from| go(&doc, from, CopyMotion::WordForward);
    assert_eq!(w(Pos::new(0, 0)), Pos::new(0, 3));
    assert_eq!(w(Pos::new(0, 3)), Pos::new(0, 4));
    assert_eq!(w(Pos::new(0, 4)), Pos::new(0, 9));
    assert_eq!(w(Pos::new(0, 9)), Pos::new(0, 15));
    assert_eq!(w(Pos::new(0, 15)), Pos::new(0, 17));
    assert_eq!(w(Pos::new(0, 17)), Pos::new(1, 0), "an empty line is a stop");
    assert_eq!(w(Pos::new(1, 0)), Pos::new(2, 2));
    assert_eq!(w(Pos::new(2, 2)), Pos::new(2, 5), "no word after the last: stays on the last cell");

    let e = |from| go(&doc, from, CopyMotion::WordEnd);
    assert_eq!(e(Pos::new(0, 0)), Pos::new(0, 2));
    assert_eq!(e(Pos::new(0, 2)), Pos::new(0, 3));
    assert_eq!(e(Pos::new(0, 4)), Pos::new(0, 6));
    assert_eq!(e(Pos::new(0, 6)), Pos::new(0, 13));
    assert_eq!(e(Pos::new(0, 17)), Pos::new(2, 5), "across rows");

    let b = |from| go(&doc, from, CopyMotion::WordBackward);
    assert_eq!(b(Pos::new(0, 11)), Pos::new(0, 9));
    assert_eq!(b(Pos::new(0, 9)), Pos::new(0, 4));
    assert_eq!(b(Pos::new(0, 4)), Pos::new(0, 3));
    assert_eq!(b(Pos::new(2, 2)), Pos::new(0, 17), "across rows");
    assert_eq!(b(Pos::new(0, 0)), Pos::new(0, 0));
}

#[test]
fn big_words_are_whitespace_separated() {
    let doc = MemDoc::new(20, 2, &["foo.bar  baz,1 x", "y.z"]);
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::BigWordForward), Pos::new(0, 9));
    assert_eq!(go(&doc, Pos::new(0, 15), CopyMotion::BigWordForward), Pos::new(1, 0));
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::BigWordEnd), Pos::new(0, 6));
    assert_eq!(go(&doc, Pos::new(0, 9), CopyMotion::BigWordEnd), Pos::new(0, 13));
    assert_eq!(go(&doc, Pos::new(0, 12), CopyMotion::BigWordBackward), Pos::new(0, 9));
    assert_eq!(go(&doc, Pos::new(1, 2), CopyMotion::BigWordBackward), Pos::new(1, 0));
}

#[test]
fn words_with_wide_characters_and_soft_wraps() {
    let doc = MemDoc::new(6, 2, &["界字 ab", "cd ef"]).wrap(0);
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::WordForward), Pos::new(0, 5));
    assert_eq!(go(&doc, Pos::new(0, 5), CopyMotion::WordEnd), Pos::new(1, 1), "ab|cd is one word");
    assert_eq!(go(&doc, Pos::new(1, 1), CopyMotion::WordBackward), Pos::new(0, 5));
    assert_eq!(go(&doc, Pos::new(0, 5), CopyMotion::WordBackward), Pos::new(0, 0));
}

#[test]
fn line_start_first_non_blank_and_end() {
    let doc = MemDoc::new(16, 2, &["   indented 界", ""]);
    assert_eq!(go(&doc, Pos::new(0, 6), CopyMotion::LineStart), Pos::new(0, 0));
    assert_eq!(go(&doc, Pos::new(0, 6), CopyMotion::FirstNonBlank), Pos::new(0, 3));
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::LineEnd), Pos::new(0, 12), "the wide character's cell");
    assert_eq!(go(&doc, Pos::new(1, 4), CopyMotion::LineEnd), Pos::new(1, 0), "a blank row");
}

#[test]
fn paragraphs_jump_to_blank_rows() {
    let doc = MemDoc::new(8, 4, &["a", "b", "", "", "c", "d", "", "e"]);
    assert_eq!(go(&doc, Pos::new(0, 0), CopyMotion::ParagraphForward), Pos::new(2, 0));
    assert_eq!(go(&doc, Pos::new(2, 0), CopyMotion::ParagraphForward), Pos::new(6, 0));
    assert_eq!(
        go(&doc, Pos::new(6, 0), CopyMotion::ParagraphForward),
        Pos::new(7, 0),
        "the end of the last row"
    );
    assert_eq!(go(&doc, Pos::new(7, 0), CopyMotion::ParagraphBackward), Pos::new(6, 0));
    assert_eq!(go(&doc, Pos::new(5, 0), CopyMotion::ParagraphBackward), Pos::new(3, 0));
    assert_eq!(go(&doc, Pos::new(3, 0), CopyMotion::ParagraphBackward), Pos::new(0, 0), "the first row");
}

#[test]
fn pages_move_the_cursor_and_the_view_together() {
    let lines: Vec<String> = (0..40).map(|i| format!("{i}")).collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let doc = MemDoc::new(10, 10, &refs);
    assert_eq!(doc.top, 30);
    let mut state = entered(&doc, Pos::new(35, 1));
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::PageUp), &doc);
    assert_eq!((state.as_ref().map(|s| s.cursor), out.view_top), (Some(Pos::new(25, 1)), Some(20)));
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::HalfPageDown), &MemDoc { top: 20, ..doc });
    assert_eq!((state.as_ref().map(|s| s.cursor), out.view_top), (Some(Pos::new(30, 1)), Some(25)));
    let doc = MemDoc::new(10, 10, &refs);
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::PageDown), &doc);
    assert_eq!(state.as_ref().map(|s| s.cursor), Some(Pos::new(39, 1)));
    assert_eq!(out.view_top, None, "the view cannot go past the live screen");
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::HalfPageUp), &doc);
    assert_eq!((state.as_ref().map(|s| s.cursor), out.view_top), (Some(Pos::new(34, 1)), Some(25)));
}

#[test]
fn top_bottom_and_viewport_rows() {
    let lines: Vec<String> = (0..30).map(|i| format!(" {i}")).collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut doc = MemDoc::new(10, 10, &refs);
    doc.top = 5;
    let mut state = entered(&doc, Pos::new(9, 0));
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::Top), &doc);
    assert_eq!((state.as_ref().map(|s| s.cursor), out.view_top), (Some(Pos::new(0, 1)), Some(0)));
    let out = apply(&mut state, &CopyRequest::Motion(CopyMotion::Bottom), &doc);
    assert_eq!((state.as_ref().map(|s| s.cursor), out.view_top), (Some(Pos::new(29, 1)), Some(20)));
    assert_eq!(go(&doc, Pos::new(9, 0), CopyMotion::ViewportTop), Pos::new(5, 1));
    assert_eq!(go(&doc, Pos::new(9, 0), CopyMotion::ViewportMiddle), Pos::new(9, 1));
    assert_eq!(go(&doc, Pos::new(9, 0), CopyMotion::ViewportBottom), Pos::new(14, 1));
}
