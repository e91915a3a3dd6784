//! The API's client-owned copy questions (`pane.copy_motion`, `pane.copy_search`,
//! `pane.selection.read`): the same motions, search and selection shapes as copy mode, asked
//! from a point the caller holds instead of the pane's own copy cursor, so copy mode's state
//! and the viewport are left alone.

use herdr_protocol::ipc::CopyMotion;

use super::{CopyDocument, CopyState, Pos, motion, search, select};

/// The most matches one search answer lists (`total` still counts them all).
pub const MATCH_LIMIT: usize = 1000;

/// Whether `at` is a cell of the document.
pub fn contains(doc: &impl CopyDocument, at: Pos) -> bool {
    at.row < doc.row_count() && at.col < doc.cols()
}

/// Where `m` takes a cursor at `from` (the viewport does not follow).
pub fn motion_from(doc: &impl CopyDocument, from: Pos, m: CopyMotion) -> Pos {
    let mut state = CopyState::at(motion::snap_left(doc, from), true);
    motion::apply(&mut state, m, doc);
    state.cursor
}

/// The span between two points in reading order, inclusive, covering a wide character at the end.
pub fn span(doc: &impl CopyDocument, a: Pos, b: Pos) -> (Pos, Pos) {
    let (start, end) = if a <= b { (a, b) } else { (b, a) };
    (start, select::cover_wide(doc, end))
}

/// A search's answer: every match (up to [`MATCH_LIMIT`]) as inclusive spans in reading order,
/// how many there are, and the index of the one the search moved to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Found {
    pub matches: Vec<(Pos, Pos)>,
    pub total: u64,
    pub current: Option<u64>,
}

/// Copy mode's search for `query` from `from` (smart case, wrapping once), plus all matches.
pub fn search(doc: &impl CopyDocument, from: Pos, query: &str, backward: bool) -> Found {
    if query.is_empty() {
        return Found::default();
    }
    let starts = search::all(doc, query);
    let target = search::find(doc, from, query, backward);
    let current = target.and_then(|t| starts.iter().position(|&s| s == t)).map(|i| i as u64);
    let total = starts.len() as u64;
    let matches = starts.into_iter().take(MATCH_LIMIT).map(|s| (s, match_end(doc, s, query))).collect();
    Found { matches, total, current }
}

/// The last cell of the match of `query` that starts at `start` (spacers of a wide last
/// character included).
fn match_end(doc: &impl CopyDocument, start: Pos, query: &str) -> Pos {
    let mut left = query.chars().count();
    let mut at = start;
    loop {
        left = left.saturating_sub(doc.row(at.row).cell(at.col).chars().count());
        if left == 0 {
            return select::cover_wide(doc, at);
        }
        match motion::next(doc, at) {
            Some((next, _)) => at = next,
            None => return at,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::copy::DocRow;

    struct Doc(Vec<Rc<DocRow>>);

    impl Doc {
        fn new(lines: &[&str]) -> Self {
            Doc(lines.iter().map(|l| Rc::new(DocRow::from_text(l, 12, |_| false))).collect())
        }
    }

    impl CopyDocument for Doc {
        fn row_count(&self) -> u32 {
            self.0.len() as u32
        }
        fn cols(&self) -> u16 {
            12
        }
        fn row(&self, row: u32) -> Rc<DocRow> {
            self.0.get(row as usize).cloned().unwrap_or_default()
        }
        fn viewport_top(&self) -> u32 {
            0
        }
        fn viewport_height(&self) -> u32 {
            self.0.len() as u32
        }
        fn program_cursor(&self) -> Option<Pos> {
            None
        }
    }

    #[test]
    fn motions_start_from_the_given_point() {
        let doc = Doc::new(&["  alpha beta", "", "gamma"]);
        assert_eq!(motion_from(&doc, Pos::new(0, 2), CopyMotion::WordForward), Pos::new(0, 8));
        assert_eq!(motion_from(&doc, Pos::new(0, 8), CopyMotion::LineStart), Pos::new(0, 0));
        assert_eq!(motion_from(&doc, Pos::new(0, 0), CopyMotion::FirstNonBlank), Pos::new(0, 2));
        assert_eq!(motion_from(&doc, Pos::new(0, 2), CopyMotion::LineEnd), Pos::new(0, 11));
        assert_eq!(motion_from(&doc, Pos::new(0, 3), CopyMotion::ParagraphForward), Pos::new(1, 0));
    }

    #[test]
    fn search_lists_every_match_and_points_at_the_next_one() {
        let doc = Doc::new(&["foo bar foo", "x Foo", "foo"]);
        let found = search(&doc, Pos::new(0, 0), "foo", false);
        let starts: Vec<Pos> = found.matches.iter().map(|m| m.0).collect();
        // Smart case: an all-lowercase query matches `Foo` too.
        assert_eq!(starts, [Pos::new(0, 0), Pos::new(0, 8), Pos::new(1, 2), Pos::new(2, 0)]);
        assert_eq!(found.matches[1], (Pos::new(0, 8), Pos::new(0, 10)));
        assert_eq!((found.total, found.current), (4, Some(1)));
        let back = search(&doc, Pos::new(0, 0), "foo", true);
        assert_eq!(back.current, Some(3), "backward wraps to the last match");
        let none = search(&doc, Pos::new(0, 0), "Bar", false);
        assert_eq!((none.total, none.current, none.matches.len()), (0, None, 0));
    }

    #[test]
    fn spans_are_in_reading_order_and_points_are_checked() {
        let doc = Doc::new(&["ab", "cd"]);
        assert_eq!(span(&doc, Pos::new(1, 1), Pos::new(0, 0)), (Pos::new(0, 0), Pos::new(1, 1)));
        assert!(contains(&doc, Pos::new(1, 11)));
        assert!(!contains(&doc, Pos::new(2, 0)) && !contains(&doc, Pos::new(0, 12)));
    }
}
