//! Where a dotted config key (`ui.toast.delay_seconds`, `keys.command[0].type`) sits in the
//! file's text: walks the spanned TOML tree and returns the key's 1-based line and column.
//! The config model names keys, not positions; this puts the two together for `config check`.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// 1-based line and column (in characters) of byte offset `at` in `text`.
pub fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// One step of a key path: a table key, optionally followed by array indexes (`command[0]`).
fn steps(key: &str) -> Vec<(&str, Vec<usize>)> {
    key.split('.')
        .map(|segment| {
            let mut parts = segment.split('[');
            let name = parts.next().unwrap_or_default();
            let indexes = parts.filter_map(|p| p.trim_end_matches(']').parse().ok()).collect();
            (name, indexes)
        })
        .collect()
}

/// The position of `key` in `text`: the deepest part of the path that exists (a missing key's
/// table, say). `None` when the text is not TOML or the path is empty.
pub fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    if key.is_empty() {
        return None;
    }
    let root = DeTable::parse(text).ok()?;
    let mut table: &DeTable<'_> = root.get_ref();
    let mut found: Option<usize> = None;
    for (name, indexes) in steps(key) {
        let Some((spanned_key, value)) = table.iter().find(|(k, _)| k.get_ref() == name) else { break };
        found = Some(spanned_key.span().start);
        let mut value: &Spanned<DeValue<'_>> = value;
        for index in indexes {
            match value.get_ref() {
                DeValue::Array(items) if index < items.len() => {
                    value = &items[index];
                    found = Some(value.span().start);
                }
                _ => break,
            }
        }
        match value.get_ref() {
            DeValue::Table(inner) => table = inner,
            _ => break,
        }
    }
    found.map(|at| line_column(text, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        assert_eq!(line_column("abc", 0), (1, 1));
        assert_eq!(line_column("a\nbc", 3), (2, 2));
        assert_eq!(line_column("é = 1\nx", 7), (2, 1));
    }

    #[test]
    fn keys_in_sub_tables_and_arrays_of_tables_are_found() {
        let text = "[ui.toast]\ndelay_seconds = 9000\n\n[[keys.command]]\nkey = \"t\"\n\n[[keys.command]]\n  type = \"x\"\n";
        assert_eq!(key_position(text, "ui.toast.delay_seconds"), Some((2, 1)));
        assert_eq!(key_position(text, "keys.command[1].type"), Some((8, 3)));
        // A key that is not in the file: the nearest table that is.
        assert_eq!(key_position(text, "ui.toast.herdr"), Some((1, 5)));
        assert_eq!(key_position(text, ""), None);
    }
}
