//! Links on a pane's screen for `pane.link.activate` (and URL clicks): the URL under a cell of
//! one row of text. Recognised: `http://`, `https://`, `file://`, `ftp://`, `ssh://`, `git://`
//! and `mailto:` up to the first space, quote or angle bracket, without trailing sentence
//! punctuation, and without a closing bracket that has no opening one inside the URL
//! (`(see https://x.org/a)` → `https://x.org/a`, `https://en.wikipedia.org/wiki/A_(b)` stays whole).
//! Columns are terminal cells: a wide character before the URL takes two.

use unicode_width::UnicodeWidthChar;

const SCHEMES: [&str; 7] = ["https://", "http://", "file://", "ftp://", "ssh://", "git://", "mailto:"];

/// The URL covering cell `col` of `row`, if one does.
pub fn url_at(row: &str, col: u16) -> Option<String> {
    // (byte offset, first cell) of every character.
    let mut cells = Vec::new();
    let mut at = 0usize;
    for (offset, c) in row.char_indices() {
        cells.push((offset, at));
        at += c.width().unwrap_or(0);
    }
    let col = usize::from(col);
    let mut search = 0;
    while search < row.len() {
        let (start, scheme) = SCHEMES
            .iter()
            .filter_map(|s| row[search..].find(s).map(|i| (search + i, *s)))
            .min_by_key(|(i, _)| *i)?;
        let end = url_end(row, start, scheme.len());
        let first_cell = cell_of(&cells, start, at);
        let last_cell = cell_of(&cells, end, at);
        if end > start + scheme.len() && (first_cell..last_cell).contains(&col) {
            return Some(row[start..end].to_owned());
        }
        search = end.max(start + scheme.len());
    }
    None
}

/// The first cell of the character at byte `offset`; `width` (the row's) past its end.
fn cell_of(cells: &[(usize, usize)], offset: usize, width: usize) -> usize {
    cells.iter().find(|(o, _)| *o >= offset).map_or(width, |(_, cell)| *cell)
}

/// Where the URL starting at `start` ends (exclusive byte offset).
fn url_end(row: &str, start: usize, scheme: usize) -> usize {
    let body = &row[start..];
    let mut end = body.find(|c: char| c.is_whitespace() || "<>\"'`".contains(c)).unwrap_or(body.len());
    loop {
        let url = &body[..end];
        let Some(last) = url.chars().last() else { break };
        let unbalanced =
            |open: char, close: char| last == close && url.matches(close).count() > url.matches(open).count();
        if end > scheme
            && (".,;:!?".contains(last)
                || unbalanced('(', ')')
                || unbalanced('[', ']')
                || unbalanced('{', '}'))
        {
            end -= last.len_utf8();
        } else {
            break;
        }
    }
    start + end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_under_the_cell_without_its_sentence_punctuation() {
        let row = "see https://example.org/a?b=1. then";
        assert_eq!(url_at(row, 4).as_deref(), Some("https://example.org/a?b=1"));
        assert_eq!(url_at(row, 28).as_deref(), Some("https://example.org/a?b=1"));
        assert_eq!(url_at(row, 29), None, "the full stop is not the link");
        assert_eq!(url_at(row, 2), None);
    }

    #[test]
    fn brackets_close_the_url_only_when_it_did_not_open_them() {
        assert_eq!(url_at("(see https://x.org/a)", 6).as_deref(), Some("https://x.org/a"));
        let wiki = "https://en.wikipedia.org/wiki/A_(b)";
        assert_eq!(url_at(wiki, 0).as_deref(), Some(wiki));
    }

    #[test]
    fn wide_characters_before_a_url_take_two_cells_and_the_second_url_is_found() {
        let row = "日本 http://a.example b mailto:me@x.org";
        assert_eq!(url_at(row, 5).as_deref(), Some("http://a.example"));
        assert_eq!(url_at(row, 4), None, "cell 4 is the space after two wide characters");
        assert_eq!(url_at(row, 26).as_deref(), Some("mailto:me@x.org"));
        assert_eq!(url_at("https://", 1), None, "a scheme alone is no link");
    }
}
