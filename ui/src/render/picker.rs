//! The goto picker drawn over a composed frame: a centred bordered box with a title, a filter
//! line (with the text cursor) and the matching entries under it, indented by depth, one of
//! them highlighted; the list scrolls so the highlighted entry stays shown. The geometry
//! ([`picker_rect`], [`picker_entry_at`]) is shared by drawing and the client's hit-testing.
//!
//! Not here: which entries there are, filtering or choosing (the client's goto model).

use herdr_protocol::grid::{CursorPlacement, CursorShape};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::compose::{fill, put_line};
use super::overlay::draw_box;
use super::theme::ThemeColors;

/// The widest the picker gets, border included.
const MAX_WIDTH: u16 = 72;
/// Rows of the box that are not entries: the border (2), the title and the filter line.
const CHROME_ROWS: u16 = 4;

/// One line of the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerEntry {
    /// 0 workspace, 1 tab, 2 pane.
    pub depth: u8,
    pub text: String,
    /// Dimmed after the text (agent and state).
    pub detail: String,
}

/// What an open picker shows: only the entries that match the filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerView {
    pub title: String,
    pub filter: String,
    pub entries: Vec<PickerEntry>,
    pub selected: Option<usize>,
}

/// Where the picker sits on `screen`: centred, at most 72 columns wide, tall enough for all
/// its entries up to the screen's height less two rows.
pub fn picker_rect(screen: Rect, entries: usize) -> Rect {
    let width = screen.width.saturating_sub(4).min(MAX_WIDTH);
    let wanted = u16::try_from(entries).unwrap_or(u16::MAX).max(1).saturating_add(CHROME_ROWS);
    let height = wanted.min(screen.height.saturating_sub(2)).max(CHROME_ROWS.min(screen.height));
    Rect::new(screen.x + (screen.width - width) / 2, screen.y + (screen.height - height) / 2, width, height)
}

/// The first entry shown when `selected` must be visible among `rows` entry rows.
fn first_shown(selected: Option<usize>, rows: usize) -> usize {
    selected.map_or(0, |s| (s + 1).saturating_sub(rows.max(1)))
}

/// The entry (index into `view.entries`) drawn at `(x, y)`, if any.
pub fn picker_entry_at(screen: Rect, view: &PickerView, (x, y): (u16, u16)) -> Option<usize> {
    let rect = picker_rect(screen, view.entries.len());
    let top = rect.y + 3;
    let rows = usize::from(rect.height.saturating_sub(CHROME_ROWS));
    let inside = x > rect.left() && x + 1 < rect.right() && y >= top && y + 1 < rect.bottom();
    let index = first_shown(view.selected, rows) + usize::from(y.checked_sub(top)?);
    (inside && index < view.entries.len()).then_some(index)
}

/// Draws `view` centred on `screen` and returns the text cursor (at the filter's end); `None`
/// when the screen is too small to show it.
pub fn draw_picker(
    buf: &mut Buffer,
    screen: Rect,
    view: &PickerView,
    colors: &ThemeColors,
) -> Option<CursorPlacement> {
    let rect = picker_rect(screen, view.entries.len());
    if rect.width < 12 || rect.height < CHROME_ROWS + 1 {
        return None;
    }
    draw_box(buf, rect, colors);
    let bg = Style::new().bg(colors.surface0);
    let inner = rect.width - 4;
    let title = Line::from(vec![
        Span::styled(view.title.clone(), bg.fg(colors.accent).add_modifier(Modifier::BOLD)),
        Span::styled("  type to filter · enter go · esc close", bg.fg(colors.overlay1)),
    ]);
    put_line(buf, rect.x + 2, rect.y + 1, inner, &title);
    let field = Rect::new(rect.x + 2, rect.y + 2, inner, 1);
    let field_style = Style::new().bg(colors.surface1).fg(colors.text);
    fill(buf, field, field_style);
    // A long filter shows its end, where the cursor is.
    let room = usize::from(inner.saturating_sub(3));
    let mut shown = view.filter.clone();
    while shown.width() > room {
        shown.remove(0);
    }
    put_line(buf, field.x, field.y, field.width, &Line::styled(format!("> {shown}"), field_style));
    let rows = usize::from(rect.height - CHROME_ROWS);
    let first = first_shown(view.selected, rows);
    if view.entries.is_empty() {
        let none = Line::styled("no matches", bg.fg(colors.overlay1));
        put_line(buf, rect.x + 2, rect.y + 3, inner, &none);
    }
    for (row, (index, entry)) in view.entries.iter().enumerate().skip(first).take(rows).enumerate() {
        let y = rect.y + 3 + u16::try_from(row).unwrap_or(u16::MAX);
        let style = if view.selected == Some(index) {
            Style::new().bg(colors.accent).fg(colors.panel_bg).add_modifier(Modifier::BOLD)
        } else {
            bg.fg(colors.text)
        };
        let line_rect = Rect::new(rect.x + 1, y, rect.width - 2, 1);
        fill(buf, line_rect, style);
        let indent = "  ".repeat(usize::from(entry.depth));
        let detail_style = if view.selected == Some(index) { style } else { bg.fg(colors.subtext0) };
        let mut spans = vec![Span::styled(format!("{indent}{}", entry.text), style)];
        if !entry.detail.is_empty() {
            spans.push(Span::styled(format!("  {}", entry.detail), detail_style));
        }
        put_line(buf, rect.x + 2, y, inner, &Line::from(spans));
    }
    let column = u16::try_from(shown.width() + 2).unwrap_or(0).min(inner.saturating_sub(1));
    Some(CursorPlacement {
        x: field.x + column,
        y: field.y,
        visible: true,
        shape: CursorShape::Bar,
        blinking: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Theme;
    use crate::render::tests::text_of;

    fn view(count: usize, selected: Option<usize>) -> PickerView {
        PickerView {
            title: "go to".into(),
            filter: "ap".into(),
            entries: (0..count)
                .map(|i| PickerEntry {
                    depth: (i % 3) as u8,
                    text: format!("entry {i}"),
                    detail: String::new(),
                })
                .collect(),
            selected,
        }
    }

    #[test]
    fn the_picker_shows_the_filter_and_entries_with_the_cursor_after_the_filter() {
        let screen = Rect::new(0, 0, 40, 12);
        let mut buf = Buffer::empty(screen);
        let mut v = view(3, Some(1));
        v.entries[2].detail = "claude working".into();
        let cursor = draw_picker(&mut buf, screen, &v, &Theme::default().colors).expect("room");
        let text = text_of(&buf);
        let expected = [
            "",
            "",
            "  ╭──────────────────────────────────╮",
            "  │ go to  type to filter · enter go │",
            "  │ > ap                             │",
            "  │ entry 0                          │",
            "  │   entry 1                        │",
            "  │     entry 2  claude working      │",
            "  ╰──────────────────────────────────╯",
        ];
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        assert_eq!(&lines[..expected.len()], expected, "\n{text}");
        assert_eq!((cursor.x, cursor.y), (8, 4));
    }

    #[test]
    fn the_list_scrolls_to_the_selection_and_clicks_hit_what_is_drawn() {
        let screen = Rect::new(0, 0, 40, 10);
        let v = view(20, Some(12));
        let rect = picker_rect(screen, 20);
        assert_eq!(rect.height, 8, "four entry rows");
        let mut buf = Buffer::empty(screen);
        draw_picker(&mut buf, screen, &v, &Theme::default().colors);
        let text = text_of(&buf);
        assert!(
            text.contains("entry 12") && text.contains("entry 9") && !text.contains("entry 8 "),
            "{text}"
        );
        let top = rect.y + 3;
        assert_eq!(picker_entry_at(screen, &v, (rect.x + 3, top)), Some(9));
        assert_eq!(picker_entry_at(screen, &v, (rect.x + 3, top + 3)), Some(12));
        assert_eq!(picker_entry_at(screen, &v, (rect.x + 3, top - 1)), None, "the filter line");
        assert_eq!(picker_entry_at(screen, &v, (rect.x, top)), None, "the border");
        let one = picker_rect(screen, 1);
        assert_eq!(picker_entry_at(screen, &view(1, Some(0)), (one.x + 3, one.y + 3)), Some(0));
        assert_eq!(picker_entry_at(screen, &view(1, Some(0)), (one.x + 3, one.y + 4)), None, "below");
    }
}
