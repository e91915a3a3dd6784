//! Overlays drawn over a composed frame: a toast (a small bordered note in a corner) and the
//! keybinding help (a centred bordered list). Both draw into an existing buffer, clipped to it,
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
/// columns as wide as fit, and how to close it.
pub fn draw_help(buf: &mut Buffer, area: Rect, entries: &[(String, String)], colors: &ThemeColors) {
    let key_width = entries.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let entry_width = entries.iter().map(|(_, d)| d.width()).max().unwrap_or(0) + key_width + 2;
    let inner_width = usize::from(area.width.saturating_sub(6));
    if inner_width < 10 || area.height < 6 || entry_width == 0 {
        return;
    }
    let columns = (inner_width / (entry_width + 3)).clamp(1, 3);
    let rows_needed = entries.len().div_ceil(columns);
    let max_rows = usize::from(area.height.saturating_sub(6));
    let rows = rows_needed.min(max_rows);
    let content_width = (columns * (entry_width + 3)).min(inner_width);
    let width = u16::try_from(content_width + 4).unwrap_or(area.width);
    let height = u16::try_from(rows + 4).unwrap_or(area.height);
    let rect =
        Rect::new(area.x + (area.width - width) / 2, area.y + (area.height - height) / 2, width, height);
    draw_box(buf, rect, colors);
    let bg = Style::new().bg(colors.surface0);
    let heading = Line::from(vec![
        Span::styled(" Keybindings ", bg.fg(colors.accent).add_modifier(Modifier::BOLD)),
        Span::styled(" any key closes", bg.fg(colors.overlay1)),
    ]);
    put_line(buf, rect.x + 1, rect.y + 1, width - 2, &heading);
    let column_width = u16::try_from(entry_width + 3).unwrap_or(u16::MAX);
    for (i, (key, description)) in entries.iter().enumerate().take(rows * columns) {
        let (column, row) = (i / rows, i % rows);
        let x = rect.x + 2 + column_width * u16::try_from(column).unwrap_or(0);
        let y = rect.y + 2 + u16::try_from(row).unwrap_or(0);
        let line = Line::from(vec![
            Span::styled(format!("{key:>key_width$}"), bg.fg(colors.yellow).add_modifier(Modifier::BOLD)),
            Span::styled(format!("  {description}"), bg.fg(colors.text)),
        ]);
        put_line(buf, x, y, column_width.min(rect.right().saturating_sub(x + 1)), &line);
    }
    if rows < rows_needed {
        let more = Line::styled(format!("… {} more", entries.len() - rows * columns), bg.fg(colors.overlay1));
        put_line(buf, rect.x + 2, rect.bottom() - 1, width - 4, &more);
    }
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
    fn overlays_never_draw_outside_a_tiny_frame() {
        let area = Rect::new(0, 0, 4, 2);
        let mut buf = Buffer::empty(area);
        let toast = ToastView { title: "a long title".into(), body: None };
        draw_toast(&mut buf, area, &toast, "bottom-right", &Theme::default().colors);
        draw_help(&mut buf, area, &[("k".into(), "d".into())], &Theme::default().colors);
        assert_eq!(text(&buf), ["    ", "    "]);
    }
}
