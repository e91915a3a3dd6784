//! Copy mode's vi motions over the document: cells walked in reading order (spacer halves of wide
//! characters skipped), a row end that does not soft-wrap counting as a line break.

use herdr_protocol::ipc::CopyMotion;

use super::{CopyDocument, CopyState, Pos};

/// What a motion did beyond moving the cursor.
#[derive(Debug, Default)]
pub(super) struct Moved {
    /// Page motions scroll the view by this many rows as well (up is negative).
    pub scroll: Option<i32>,
}

/// How vi groups cells into words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Blank,
    /// Letters, digits and `_` (or, for big words, anything not blank).
    Word,
    /// A run of other punctuation.
    Punct,
}

pub(super) fn class(cell: &str, big: bool) -> Class {
    match cell.chars().next() {
        None => Class::Blank,
        Some(c) if c.is_whitespace() => Class::Blank,
        Some(_) if big => Class::Word,
        Some(c) if c.is_alphanumeric() || c == '_' => Class::Word,
        Some(_) => Class::Punct,
    }
}

pub(super) fn apply(s: &mut CopyState, motion: CopyMotion, doc: &impl CopyDocument) -> Moved {
    let last_row = doc.row_count().saturating_sub(1);
    let height = doc.viewport_height().max(1);
    let cur = s.cursor;
    let mut moved = Moved::default();
    let mut keep_desired = false;
    let to = match motion {
        CopyMotion::Left => snap_left(doc, Pos::new(cur.row, cur.col.saturating_sub(1))),
        CopyMotion::Right => right_of(doc, cur).unwrap_or(cur),
        CopyMotion::Up | CopyMotion::Down => {
            keep_desired = true;
            let row = if motion == CopyMotion::Up {
                cur.row.saturating_sub(1)
            } else {
                (cur.row + 1).min(last_row)
            };
            at_desired(doc, row, s.desired_col)
        }
        CopyMotion::WordForward => word_forward(doc, cur, false),
        CopyMotion::BigWordForward => word_forward(doc, cur, true),
        CopyMotion::WordEnd => word_end(doc, cur, false),
        CopyMotion::BigWordEnd => word_end(doc, cur, true),
        CopyMotion::WordBackward => word_backward(doc, cur, false),
        CopyMotion::BigWordBackward => word_backward(doc, cur, true),
        CopyMotion::LineStart => Pos::new(cur.row, 0),
        CopyMotion::FirstNonBlank => Pos::new(cur.row, first_non_blank(doc, cur.row)),
        CopyMotion::LineEnd => {
            s.desired_col = u16::MAX;
            keep_desired = true;
            Pos::new(cur.row, line_end(doc, cur.row))
        }
        CopyMotion::ParagraphBackward => paragraph_backward(doc, cur.row),
        CopyMotion::ParagraphForward => paragraph_forward(doc, cur.row, last_row),
        CopyMotion::PageUp | CopyMotion::PageDown | CopyMotion::HalfPageUp | CopyMotion::HalfPageDown => {
            let rows = match motion {
                CopyMotion::PageUp | CopyMotion::PageDown => height,
                _ => (height / 2).max(1),
            };
            let up = matches!(motion, CopyMotion::PageUp | CopyMotion::HalfPageUp);
            let row = if up { cur.row.saturating_sub(rows) } else { (cur.row + rows).min(last_row) };
            let delta = i32::try_from(rows).unwrap_or(i32::MAX);
            moved.scroll = Some(if up { -delta } else { delta });
            keep_desired = true;
            at_desired(doc, row, s.desired_col)
        }
        CopyMotion::Top => Pos::new(0, first_non_blank(doc, 0)),
        CopyMotion::Bottom => Pos::new(last_row, first_non_blank(doc, last_row)),
        CopyMotion::ViewportTop | CopyMotion::ViewportMiddle | CopyMotion::ViewportBottom => {
            let top = doc.viewport_top();
            let offset = match motion {
                CopyMotion::ViewportTop => 0,
                CopyMotion::ViewportMiddle => (height - 1) / 2,
                _ => height - 1,
            };
            let row = (top + offset).min(last_row);
            Pos::new(row, first_non_blank(doc, row))
        }
    };
    s.cursor = to;
    if !keep_desired {
        s.desired_col = to.col;
    }
    moved
}

/// The cell at `pos`, or the wide character whose right half `pos` is.
pub(super) fn snap_left(doc: &impl CopyDocument, pos: Pos) -> Pos {
    let row = doc.row(pos.row);
    let mut col = pos.col.min(doc.cols().saturating_sub(1));
    while col > 0 && row.cell(col).is_empty() {
        col -= 1;
    }
    Pos::new(pos.row, col)
}

/// The next cell to the right in the same row (over a wide character's spacer).
fn right_of(doc: &impl CopyDocument, pos: Pos) -> Option<Pos> {
    let row = doc.row(pos.row);
    let cols = doc.cols();
    let mut col = pos.col + 1;
    while col < cols && row.cell(col).is_empty() {
        col += 1;
    }
    (col < cols).then_some(Pos::new(pos.row, col))
}

/// `row` at the column `j`/`k` aim for (`u16::MAX`: the line's end).
fn at_desired(doc: &impl CopyDocument, row: u32, desired: u16) -> Pos {
    if desired == u16::MAX {
        return Pos::new(row, line_end(doc, row));
    }
    snap_left(doc, Pos::new(row, desired))
}

pub(super) fn first_non_blank(doc: &impl CopyDocument, row: u32) -> u16 {
    let cells = doc.row(row);
    (0..doc.cols()).find(|&c| class(cells.cell(c), false) != Class::Blank).unwrap_or(0)
}

pub(super) fn line_end(doc: &impl CopyDocument, row: u32) -> u16 {
    let cells = doc.row(row);
    (0..doc.cols()).rev().find(|&c| class(cells.cell(c), false) != Class::Blank).unwrap_or(0)
}

/// The next cell in reading order and whether getting there crossed a line break (the end of
/// a row that does not soft-wrap). None at the end of the document.
pub(super) fn next(doc: &impl CopyDocument, pos: Pos) -> Option<(Pos, bool)> {
    if let Some(p) = right_of(doc, pos) {
        return Some((p, false));
    }
    if pos.row + 1 >= doc.row_count() {
        return None;
    }
    Some((Pos::new(pos.row + 1, 0), !doc.row(pos.row).wrapped))
}

/// The previous cell in reading order and whether getting there crossed a line break.
pub(super) fn prev(doc: &impl CopyDocument, pos: Pos) -> Option<(Pos, bool)> {
    if pos.col > 0 {
        return Some((snap_left(doc, Pos::new(pos.row, pos.col - 1)), false));
    }
    let row = pos.row.checked_sub(1)?;
    let end = snap_left(doc, Pos::new(row, doc.cols().saturating_sub(1)));
    Some((end, !doc.row(row).wrapped))
}

fn class_at(doc: &impl CopyDocument, pos: Pos, big: bool) -> Class {
    class(doc.row(pos.row).cell(pos.col), big)
}

/// Entering a row that shows nothing across a line break: vi stops on an empty line.
fn empty_line_stop(doc: &impl CopyDocument, pos: Pos, crossed: bool) -> bool {
    crossed && pos.col == 0 && doc.row(pos.row).is_blank()
}

/// `w` / `W`: the start of the next word (or the next empty line).
fn word_forward(doc: &impl CopyDocument, from: Pos, big: bool) -> Pos {
    let start_class = class_at(doc, from, big);
    let mut pos = from;
    let mut crossed = false;
    // Past the last word, vi stops on the last character rather than trailing blanks.
    let mut last_text = from;
    if start_class != Class::Blank {
        loop {
            let Some((p, broke)) = next(doc, pos) else { return pos };
            last_text = pos;
            pos = p;
            if broke || class_at(doc, pos, big) != start_class {
                crossed = broke;
                break;
            }
        }
    }
    loop {
        if class_at(doc, pos, big) != Class::Blank || empty_line_stop(doc, pos, crossed) {
            return pos;
        }
        let Some((p, broke)) = next(doc, pos) else { return last_text };
        pos = p;
        crossed = broke;
    }
}

/// `e` / `E`: the end of this word, or of the next one when already at an end.
fn word_end(doc: &impl CopyDocument, from: Pos, big: bool) -> Pos {
    let Some((mut pos, _)) = next(doc, from) else { return from };
    while class_at(doc, pos, big) == Class::Blank {
        let Some((p, _)) = next(doc, pos) else { return pos };
        pos = p;
    }
    let word = class_at(doc, pos, big);
    loop {
        match next(doc, pos) {
            Some((p, false)) if class_at(doc, p, big) == word => pos = p,
            _ => return pos,
        }
    }
}

/// `b` / `B`: the start of this word, or of the previous one when already at a start.
fn word_backward(doc: &impl CopyDocument, from: Pos, big: bool) -> Pos {
    let Some((mut pos, _)) = prev(doc, from) else { return from };
    while class_at(doc, pos, big) == Class::Blank {
        let Some((p, _)) = prev(doc, pos) else { return pos };
        pos = p;
    }
    let word = class_at(doc, pos, big);
    loop {
        match prev(doc, pos) {
            Some((p, false)) if class_at(doc, p, big) == word => pos = p,
            _ => return pos,
        }
    }
}

/// Whether `row` shows nothing, from its text hint when the document has one (paragraph jumps
/// may cross thousands of rows; reading their cells one by one is slow on a real terminal).
fn row_blank(doc: &impl CopyDocument, row: u32) -> bool {
    match doc.row_text_hint(row) {
        Some(hint) => hint.chars().all(char::is_whitespace),
        None => doc.row(row).is_blank(),
    }
}

/// `{`: the nearest blank row above, once some text was passed (vi counts the cursor's own
/// row); the first row when there is none.
fn paragraph_backward(doc: &impl CopyDocument, from: u32) -> Pos {
    let mut row = from;
    let mut seen_text = !row_blank(doc, row);
    while row > 0 {
        row -= 1;
        let blank = row_blank(doc, row);
        if blank && seen_text {
            break;
        }
        seen_text |= !blank;
    }
    Pos::new(row, 0)
}

/// `}`: the nearest blank row below, once some text was passed; the end of the last row when
/// there is none.
fn paragraph_forward(doc: &impl CopyDocument, from: u32, last: u32) -> Pos {
    let mut row = from;
    let mut seen_text = !row_blank(doc, row);
    while row < last {
        row += 1;
        let blank = row_blank(doc, row);
        if blank && seen_text {
            return Pos::new(row, 0);
        }
        seen_text |= !blank;
    }
    Pos::new(row, line_end(doc, row))
}
