//! Copy mode's literal search: smart case (case-insensitive unless the query has an uppercase
//! letter), row by row (a match may continue over a soft wrap), wrapping around the document
//! once.

use herdr_protocol::ipc::CopySearch;

use super::{CopyDocument, CopyState, Pos};

/// Searches for `query` from the cursor (`backward` xor `reverse` decides the way) and records
/// the search (its own direction, so `n` repeats it) and whether it found anything. An empty
/// query does nothing.
pub(super) fn run(s: &mut CopyState, doc: &impl CopyDocument, query: &str, backward: bool, reverse: bool) {
    if query.is_empty() {
        return;
    }
    let found = find(doc, s.cursor, query, backward != reverse);
    if let Some(at) = found {
        s.cursor = at;
        s.desired_col = at.col;
    }
    s.search = Some(CopySearch { query: query.to_owned(), backward, found: found.is_some() });
}

/// The first match after `from` going forward (toward newer rows) or before it going backward,
/// wrapping around once; a match at `from` itself is found only after wrapping all the way.
pub fn find(doc: &impl CopyDocument, from: Pos, query: &str, backward: bool) -> Option<Pos> {
    let fold = !query.chars().any(char::is_uppercase);
    let needle: Vec<char> = query.chars().map(|c| fold_char(c, fold)).collect();
    let rows = doc.row_count();
    // What the rows a match starts in (and may run on into, over soft wraps) must show, blanks
    // aside: hints may render blanks otherwise.
    let visible: String = needle.iter().filter(|c| !c.is_whitespace()).collect();
    let spill = u32::try_from(needle.len() / usize::from(doc.cols().max(1)) + 1).unwrap_or(u32::MAX);
    let may_match = |row: u32| {
        if visible.is_empty() {
            return true;
        }
        let mut shown = String::new();
        for r in row..row.saturating_add(spill).saturating_add(1).min(rows) {
            let Some(hint) = doc.row_text_hint(r) else { return true };
            shown.extend(hint.chars().filter(|c| !c.is_whitespace()).map(|c| fold_char(c, fold)));
        }
        shown.contains(&visible)
    };
    if rows == 0 {
        return None;
    }
    // The cursor's row is visited twice: first for the part past the cursor, last (after
    // wrapping) for the part before it and the cursor itself.
    for step in 0..=rows {
        let row = if backward { (from.row + rows - step % rows) % rows } else { (from.row + step) % rows };
        if !may_match(row) {
            continue;
        }
        let matches = row_matches(doc, row, &needle, fold);
        let hit = match (step, backward) {
            (0, false) => matches.into_iter().find(|&c| c > from.col),
            (0, true) => matches.into_iter().rev().find(|&c| c < from.col),
            (s, false) if s == rows => matches.into_iter().find(|&c| c <= from.col),
            (s, true) if s == rows => matches.into_iter().rev().find(|&c| c >= from.col),
            (_, false) => matches.into_iter().next(),
            (_, true) => matches.into_iter().next_back(),
        };
        if let Some(col) = hit {
            return Some(Pos::new(row, col));
        }
    }
    None
}

/// Every match of `query` (smart case) in the document, in reading order.
pub fn all(doc: &impl CopyDocument, query: &str) -> Vec<Pos> {
    let fold = !query.chars().any(char::is_uppercase);
    let needle: Vec<char> = query.chars().map(|c| fold_char(c, fold)).collect();
    (0..doc.row_count())
        .flat_map(|row| row_matches(doc, row, &needle, fold).into_iter().map(move |col| Pos::new(row, col)))
        .collect()
}

/// Columns where `needle` starts in `row`, left to right. A match may run on into the rows this
/// one soft-wraps into (one long line on screen), but it must start in this row.
fn row_matches(doc: &impl CopyDocument, row: u32, needle: &[char], fold: bool) -> Vec<u16> {
    let cells = doc.row(row);
    let mut hay: Vec<(char, u16)> = Vec::with_capacity(cells.cells.len());
    for (col, cell) in cells.cells.iter().enumerate() {
        let col = u16::try_from(col).unwrap_or(u16::MAX);
        hay.extend(cell.chars().map(|c| (fold_char(c, fold), col)));
    }
    let own = hay.len();
    let (mut next, mut wrapped) = (row, cells.wrapped);
    while wrapped && hay.len() + 1 < own + needle.len() && next + 1 < doc.row_count() {
        next += 1;
        let more = doc.row(next);
        hay.extend(more.cells.iter().flat_map(|cell| cell.chars()).map(|c| (fold_char(c, fold), u16::MAX)));
        wrapped = more.wrapped;
    }
    if needle.is_empty() || hay.len() < needle.len() {
        return Vec::new();
    }
    let mut out: Vec<u16> = hay
        .windows(needle.len())
        .take(own)
        .filter(|w| w.iter().zip(needle).all(|((h, _), n)| h == n))
        .map(|w| w[0].1)
        .collect();
    // Two matches can start in one cell (combining marks); keep one per cell.
    out.dedup();
    out
}

/// One character per character, so columns stay put (`İ` lowercases to two characters).
fn fold_char(c: char, fold: bool) -> char {
    if fold { c.to_lowercase().next().unwrap_or(c) } else { c }
}
