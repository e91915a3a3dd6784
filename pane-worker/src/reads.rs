//! What a read returns, decided on plain numbers and strings: which rows a source covers, how
//! `lines` cuts text, what counts as a blank trailing line. Pure — `engine` supplies the row counts
//! and formats the chosen rows; this module never touches the terminal.
//!
//! Sources (public API §7): `visible` is the screen with trailing blank rows dropped (a shell at
//! its prompt reads as its prompt, not a page of blank rows); `recent` / `recent_unwrapped` are the
//! last N rendered rows ending at the last row with content (default 80); `detection` is the live
//! screen from its top to its last content row, never scrollback. `lines` on `visible` and
//! `detection` keeps the last N newline-delimited lines of the snapshot.

/// Rows a recent read covers when the request gives no `lines`.
pub const DEFAULT_RECENT_ROWS: u32 = 80;

/// Hard cap on `lines`; the supervisor clamps too, this keeps the worker safe on its own.
pub const MAX_LINES: u32 = 1000;

/// An inclusive range of rows in screen coordinates (scrollback row 0 is the oldest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRange {
    pub first: u32,
    pub last: u32,
}

/// The last `wanted` rows ending at `content_last` (inclusive), and whether older rows exist that
/// the window leaves out. `content_last` is `None` when the screen holds no content at all.
pub fn recent_window(content_last: Option<u32>, wanted: Option<u32>) -> Option<(RowRange, bool)> {
    let last = content_last?;
    let wanted = clamp_lines(wanted.unwrap_or(DEFAULT_RECENT_ROWS));
    let first = (last + 1).saturating_sub(wanted);
    Some((RowRange { first, last }, first > 0))
}

/// `lines` as this worker honours it: at least 1, at most [`MAX_LINES`].
pub fn clamp_lines(lines: u32) -> u32 {
    lines.clamp(1, MAX_LINES)
}

/// Keeps the last `lines` newline-delimited lines of `text` (line endings preserved) and says
/// whether any were dropped.
pub fn last_lines(text: &str, lines: u32) -> (String, bool) {
    let keep = clamp_lines(lines) as usize;
    let total = text.split_inclusive('\n').count();
    if total <= keep {
        return (text.to_string(), false);
    }
    let kept: String = text.split_inclusive('\n').skip(total - keep).collect();
    (kept, true)
}

/// Normalises formatter output for a read: line endings become `\n` (the styled formatter writes
/// `\r\n` so it can be replayed on a raw terminal) and trailing blank lines go. A line counts as
/// blank when only whitespace and escape sequences remain; if styled trailing lines are dropped,
/// an SGR reset is kept so the text never leaves a style open.
pub fn tidy_formatted(raw: &str, styled: bool) -> String {
    let text = raw.replace("\r\n", "\n");
    let mut lines: Vec<&str> = text.split('\n').collect();
    let mut dropped_styled = false;
    while let Some(last) = lines.last() {
        if !is_blank_line(last) {
            break;
        }
        dropped_styled |= styled && !last.is_empty();
        lines.pop();
    }
    let mut out = lines.join("\n");
    if dropped_styled {
        out.push_str("\x1b[0m");
    }
    out
}

/// Whether a line shows nothing: only whitespace once escape sequences are removed.
pub fn is_blank_line(line: &str) -> bool {
    strip_escapes(line).chars().all(char::is_whitespace)
}

/// Removes CSI and OSC escape sequences (what the styled formatter emits) from `s`.
pub fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // CSI: parameters and intermediates up to a final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ST (ESC \).
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_window_ends_at_content() {
        assert_eq!(recent_window(None, None), None);
        assert_eq!(recent_window(Some(10), None), Some((RowRange { first: 0, last: 10 }, false)));
        assert_eq!(recent_window(Some(200), None), Some((RowRange { first: 121, last: 200 }, true)));
        assert_eq!(recent_window(Some(200), Some(5)), Some((RowRange { first: 196, last: 200 }, true)));
        assert_eq!(recent_window(Some(4), Some(5)), Some((RowRange { first: 0, last: 4 }, false)));
        assert_eq!(
            recent_window(Some(5000), Some(50_000)),
            Some((RowRange { first: 4001, last: 5000 }, true))
        );
        assert_eq!(recent_window(Some(3), Some(0)), Some((RowRange { first: 3, last: 3 }, true)));
    }

    #[test]
    fn last_lines_keeps_endings_and_reports_truncation() {
        assert_eq!(last_lines("a\nb\nc", 5), ("a\nb\nc".into(), false));
        assert_eq!(last_lines("a\nb\nc", 3), ("a\nb\nc".into(), false));
        assert_eq!(last_lines("a\nb\nc", 2), ("b\nc".into(), true));
        assert_eq!(last_lines("a\nb\nc\n", 1), ("c\n".into(), true));
        assert_eq!(last_lines("", 1), ("".into(), false));
    }

    #[test]
    fn tidy_drops_trailing_blank_lines_only() {
        assert_eq!(tidy_formatted("a\r\n\r\nb\r\n  \r\n", false), "a\n\nb");
        assert_eq!(tidy_formatted("\n\n", false), "");
        assert_eq!(tidy_formatted("x\n\x1b[0m\x1b[41m  \x1b[0m", true), "x\x1b[0m");
        assert_eq!(tidy_formatted("\x1b[31mred\x1b[0m", true), "\x1b[31mred\x1b[0m");
    }

    #[test]
    fn escapes_are_stripped() {
        assert_eq!(strip_escapes("\x1b[1;38;5;1mred\x1b[0m"), "red");
        assert_eq!(strip_escapes("\x1b]8;;http://x\x1b\\link\x1b]8;;\x07"), "link");
        assert!(is_blank_line("\x1b[0m  \x1b[48;5;1m \x1b[0m"));
        assert!(!is_blank_line("\x1b[0m $"));
    }
}
