//! Overlays drawn over a composed frame: a toast (a small bordered note in a corner) and the
//! keybinding help (a centred bordered list in columns, with section headings). Both draw into an existing buffer, clipped to it,
//! so they compose with any layout; neither changes the frame's geometry.

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::compose::{fill, put_line};
use super::theme::ThemeColors;

/// A toast's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToastView {
    pub title: String,
    pub body: Option<String>,
}

/// Draws `toast` in the corner of `area` named by `position` (`bottom-right`, `top-center`, ...;
/// anything unknown is bottom-right), one cell in from the edges.
pub fn draw_toast(buf: &mut Buffer, area: Rect, toast: &ToastView, position: &str, colors: &ThemeColors) {
    let text_width = toast.title.width().max(toast.body.as_deref().map_or(0, UnicodeWidthStr::width));
    let width = u16::try_from(text_width + 4).unwrap_or(u16::MAX).min(area.width.saturating_sub(2));
    let height = if toast.body.is_some() { 4 } else { 3 };
    if width < 5 || area.height < height + 2 {
        return;
    }
    let (vertical, horizontal) = position.split_once('-').unwrap_or(("bottom", "right"));
    let x = match horizontal {
        "left" => area.x + 1,
        "center" => area.x + (area.width - width) / 2,
        _ => area.right() - width - 1,
    };
    let y = if vertical == "top" { area.y + 1 } else { area.bottom() - height - 1 };
    let rect = Rect::new(x, y, width, height);
    draw_box(buf, rect, colors);
    let title = Line::styled(
        toast.title.clone(),
        Style::new().fg(colors.text).bg(colors.surface0).add_modifier(Modifier::BOLD),
    );
    put_line(buf, x + 2, y + 1, width - 4, &title);
    if let Some(body) = &toast.body {
        let body = Line::styled(body.clone(), Style::new().fg(colors.subtext0).bg(colors.surface0));
        put_line(buf, x + 2, y + 2, width - 4, &body);
    }
}

/// Draws the keybinding help centred in `area`: a title, then `entries` (key, what it does) in
/// as few rows as fit, each column as wide as its own entries, and how to close it. An entry
/// with an empty key is a section heading. What does not fit is counted on the last row.
pub fn draw_help(buf: &mut Buffer, area: Rect, entries: &[(String, String)], colors: &ThemeColors) {
    let inner_width = usize::from(area.width.saturating_sub(6));
    if inner_width < 10 || area.height < 6 || entries.is_empty() {
        return;
    }
    let max_rows = usize::from(area.height.saturating_sub(6)).max(1);
    let (rows, columns) = help_columns(entries, inner_width, max_rows);
    let content_width = columns.iter().map(HelpColumn::width).sum::<usize>() + 3 * (columns.len() - 1);
    let content_width = content_width.min(inner_width).max(" Keybindings  any key closes".len());
    let shown_rows = rows.min(max_rows);
    let width = u16::try_from(content_width + 4).unwrap_or(area.width).min(area.width);
    let height = u16::try_from(shown_rows + 4).unwrap_or(area.height).min(area.height);
    let rect =
        Rect::new(area.x + (area.width - width) / 2, area.y + (area.height - height) / 2, width, height);
    draw_box(buf, rect, colors);
    let bg = Style::new().bg(colors.surface0);
    let heading = Line::from(vec![
        Span::styled(" Keybindings ", bg.fg(colors.accent).add_modifier(Modifier::BOLD)),
        Span::styled(" any key closes", bg.fg(colors.overlay1)),
    ]);
    put_line(buf, rect.x + 1, rect.y + 1, width - 2, &heading);
    let mut x = rect.x + 2;
    for (c, column) in columns.iter().enumerate() {
        let room = rect.right().saturating_sub(x + 1);
        for (row, (key, description)) in entries.iter().skip(c * rows).take(shown_rows).enumerate() {
            let y = rect.y + 2 + u16::try_from(row).unwrap_or(0);
            let line = if key.is_empty() {
                Line::styled(description.clone(), bg.fg(colors.accent).add_modifier(Modifier::BOLD))
            } else {
                let key_width = column.key;
                Line::from(vec![
                    Span::styled(
                        format!("{key:>key_width$}"),
                        bg.fg(colors.yellow).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(format!("  {description}"), bg.fg(colors.text)),
                ])
            };
            put_line(buf, x, y, room, &line);
        }
        x = x.saturating_add(u16::try_from(column.width() + 3).unwrap_or(u16::MAX));
    }
    if rows > shown_rows {
        let hidden = entries.len().saturating_sub(shown_rows * columns.len());
        let more = Line::styled(format!("… {hidden} more"), bg.fg(colors.overlay1));
        put_line(buf, rect.x + 2, rect.bottom() - 1, width - 4, &more);
    }
}

/// One column of the help: its widest key and widest entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HelpColumn {
    key: usize,
    entry: usize,
}

impl HelpColumn {
    fn width(&self) -> usize {
        self.entry
    }
}

/// Rows per column and the columns: the fewest columns whose rows fit in `max_rows`, as long as
/// they fit in `width`; when nothing fits both, the most columns that fit in `width`.
fn help_columns(entries: &[(String, String)], width: usize, max_rows: usize) -> (usize, Vec<HelpColumn>) {
    let layout = |count: usize| {
        let rows = entries.len().div_ceil(count);
        let columns: Vec<HelpColumn> = entries
            .chunks(rows)
            .map(|chunk| {
                let key = chunk.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
                let entry = chunk
                    .iter()
                    .map(|(k, d)| if k.is_empty() { d.width() } else { key + 2 + d.width() })
                    .max()
                    .unwrap_or(0);
                HelpColumn { key, entry }
            })
            .collect();
        (rows, columns)
    };
    let total = |columns: &[HelpColumn]| {
        columns.iter().map(HelpColumn::width).sum::<usize>() + 3 * columns.len().saturating_sub(1)
    };
    let mut chosen = layout(1);
    for count in 2..=entries.len() {
        if chosen.0 <= max_rows {
            break;
        }
        let next = layout(count);
        if total(&next.1) > width {
            break;
        }
        chosen = next;
    }
    chosen
}

/// A filled box with a rounded border.
pub(super) fn draw_box(buf: &mut Buffer, rect: Rect, colors: &ThemeColors) {
    let style = Style::new().bg(colors.surface0).fg(colors.text);
    fill(buf, rect, style);
    let border = Style::new().bg(colors.surface0).fg(colors.accent);
    let (right, bottom) = (rect.right() - 1, rect.bottom() - 1);
    for x in rect.left()..=right {
        let (top, low) = match x {
            _ if x == rect.left() => ("╭", "╰"),
            _ if x == right => ("╮", "╯"),
            _ => ("─", "─"),
        };
        set(buf, x, rect.top(), top, border);
        set(buf, x, bottom, low, border);
    }
    for y in rect.top() + 1..bottom {
        set(buf, rect.left(), y, "│", border);
        set(buf, right, y, "│", border);
    }
}

fn set(buf: &mut Buffer, x: u16, y: u16, symbol: &str, style: Style) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_symbol(symbol).set_style(style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Theme;

    fn text(buf: &Buffer) -> Vec<String> {
        let area = buf.area;
        (0..area.height).map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect()).collect()
    }

    #[test]
    fn a_toast_sits_in_its_corner() {
        let area = Rect::new(0, 0, 30, 8);
        let mut buf = Buffer::empty(area);
        let toast = ToastView { title: "claude finished".into(), body: Some("api · 1".into()) };
        draw_toast(&mut buf, area, &toast, "bottom-right", &Theme::default().colors);
        let rows = text(&buf);
        assert_eq!(rows[3], "          ╭─────────────────╮ ");
        assert_eq!(rows[4], "          │ claude finished │ ");
        assert_eq!(rows[5], "          │ api · 1         │ ");
        assert_eq!(rows[6], "          ╰─────────────────╯ ");
        let area = Rect::new(0, 0, 30, 8);
        let mut buf = Buffer::empty(area);
        let toast = ToastView { title: "hi".into(), body: None };
        draw_toast(&mut buf, area, &toast, "top-left", &Theme::default().colors);
        assert_eq!(text(&buf)[1], " ╭────╮                       ");
        assert_eq!(text(&buf)[2], " │ hi │                       ");
    }

    #[test]
    fn help_lists_entries_and_says_how_to_close() {
        let area = Rect::new(0, 0, 80, 20);
        let mut buf = Buffer::empty(area);
        let entries = vec![("prefix+c".to_owned(), "new tab".to_owned()), ("prefix+?".into(), "help".into())];
        draw_help(&mut buf, area, &entries, &Theme::default().colors);
        let all = text(&buf).join("\n");
        assert!(all.contains("Keybindings"), "{all}");
        assert!(all.contains("any key closes"), "{all}");
        assert!(all.contains("prefix+c  new tab"), "{all}");
        assert!(all.contains("prefix+?  help"), "{all}");
    }

    #[test]
    fn help_columns_are_as_wide_as_their_entries_and_headings_stand_alone() {
        let area = Rect::new(0, 0, 60, 9);
        let mut buf = Buffer::empty(area);
        let entries: Vec<(String, String)> = [
            ("ctrl+b c", "new tab"),
            ("ctrl+b x", "close pane"),
            ("", "copy mode"),
            ("q", "leave"),
            ("/ ?", "search"),
        ]
        .iter()
        .map(|(k, d)| ((*k).to_owned(), (*d).to_owned()))
        .collect();
        let colors = Theme::default().colors;
        draw_help(&mut buf, area, &entries, &colors);
        let rows = text(&buf);
        // Three rows fit: two columns, the second only as wide as its short keys.
        assert_eq!(rows[3], "           │ ctrl+b c  new tab        q  leave  │           ");
        assert_eq!(rows[4], "           │ ctrl+b x  close pane   / ?  search │           ");
        assert_eq!(rows[5], "           │ copy mode                          │           ");
        assert_eq!(buf[(13, 5)].fg, colors.accent, "a heading is drawn as one");
        assert!(!rows.join("\n").contains("more"));
        // One row of room: as many columns as fit the width, the rest counted.
        let area = Rect::new(0, 0, 40, 7);
        let mut buf = Buffer::empty(area);
        draw_help(&mut buf, area, &entries, &colors);
        assert!(text(&buf).join("\n").contains("… "), "{:#?}", text(&buf));
    }

    #[test]
    fn overlays_never_draw_outside_a_tiny_frame() {
        let area = Rect::new(0, 0, 4, 2);
        let mut buf = Buffer::empty(area);
        let toast = ToastView { title: "a long title".into(), body: None };
        draw_toast(&mut buf, area, &toast, "bottom-right", &Theme::default().colors);
        draw_help(&mut buf, area, &[("k".into(), "d".into())], &Theme::default().colors);
        assert_eq!(text(&buf), ["    ", "    "]);
    }
}
