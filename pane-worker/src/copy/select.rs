//! Selection shapes: the word under a double-click, and a span's end widened over a wide
//! character's spacer.

use super::{
    CopyDocument, Pos,
    motion::{self, Class},
};

/// The vi word (letters, digits and `_`, or a run of other punctuation) under `at`, or the run
/// of blanks when `at` is blank; within the row, over soft wraps. Inclusive, reading order.
pub fn word_at(doc: &impl CopyDocument, at: Pos) -> (Pos, Pos) {
    let at = motion::snap_left(doc, at);
    let class = |p: Pos| motion::class(doc.row(p.row).cell(p.col), false);
    let want = class(at);
    let same = |step: Option<(Pos, bool)>| match step {
        Some((p, false)) if class(p) == want => Some(p),
        _ => None,
    };
    let mut start = at;
    while let Some(p) = same(motion::prev(doc, start)) {
        start = p;
    }
    let mut end = at;
    while let Some(p) = same(motion::next(doc, end)) {
        end = p;
    }
    if want == Class::Blank {
        // A blank run reaching the row's end is the row's trailing space: keep it in this row.
        start = start.max(Pos::new(at.row, 0));
        end = end.min(Pos::new(at.row, doc.cols().saturating_sub(1)));
    }
    (start, cover_wide(doc, end))
}

/// `end`, moved onto the spacer half when it is a wide character's left half.
pub(super) fn cover_wide(doc: &impl CopyDocument, end: Pos) -> Pos {
    let row = doc.row(end.row);
    let mut col = end.col;
    while col + 1 < doc.cols() && row.cell(col + 1).is_empty() {
        col += 1;
    }
    Pos::new(end.row, col)
}
