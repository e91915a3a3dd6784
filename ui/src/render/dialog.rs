//! Dialogs drawn over a composed frame, both in the same centred box ([`dialog_rect`]): a rename
//! dialog (a title, a one-line text field and a hint, plus where the terminal cursor goes, inside
//! the field; a text longer than the field scrolls so the cursor stays visible) and a confirm
//! question (the question, a detail line and the y/n hint; no cursor).
//!
//! Not here: editing the text or answering (the client's dialog models), what either one does.

use herdr_protocol::grid::{CursorPlacement, CursorShape};
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::compose::{fill, put_line};
use super::overlay::draw_box;
use super::theme::ThemeColors;

/// The widest a dialog gets, border included.
const MAX_WIDTH: u16 = 52;

/// What a rename dialog shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogView {
    /// `rename workspace`, `rename tab`, ...
    pub title: String,
    pub text: String,
    /// The cursor, in characters from the start of `text`.
    pub cursor: usize,
}

/// Where the dialog sits on `screen`: centred, at most 52 columns wide, five rows high.
pub fn dialog_rect(screen: Rect) -> Rect {
    let width = screen.width.saturating_sub(4).min(MAX_WIDTH);
    let height = 5.min(screen.height);
    Rect::new(screen.x + (screen.width - width) / 2, screen.y + (screen.height - height) / 2, width, height)
}

/// Draws `dialog` centred on `screen` and returns where the text cursor is (`None` when the
/// screen is too small to show the dialog).
pub fn draw_dialog(
    buf: &mut Buffer,
    screen: Rect,
    dialog: &DialogView,
    colors: &ThemeColors,
) -> Option<CursorPlacement> {
    let rect = dialog_rect(screen);
    if rect.width < 12 || rect.height < 5 {
        return None;
    }
    draw_box(buf, rect, colors);
    let bg = Style::new().bg(colors.surface0);
    let inner = rect.width - 4;
    let title = Line::styled(dialog.title.clone(), bg.fg(colors.accent).add_modifier(Modifier::BOLD));
    put_line(buf, rect.x + 2, rect.y + 1, inner, &title);
    let field = Rect::new(rect.x + 2, rect.y + 2, inner, 1);
    let field_style = Style::new().bg(colors.surface1).fg(colors.text);
    fill(buf, field, field_style);
    let (visible, cursor_column) = visible_text(&dialog.text, dialog.cursor, field.width);
    put_line(buf, field.x, field.y, field.width, &Line::styled(visible, field_style));
    let hint = Line::from(vec![
        Span::styled("enter", bg.fg(colors.yellow)),
        Span::styled(" apply  ", bg.fg(colors.overlay1)),
        Span::styled("esc", bg.fg(colors.yellow)),
        Span::styled(" cancel", bg.fg(colors.overlay1)),
    ]);
    put_line(buf, rect.x + 2, rect.y + 3, inner, &hint);
    Some(CursorPlacement {
        x: field.x + cursor_column,
        y: field.y,
        visible: true,
        shape: CursorShape::Bar,
        blinking: true,
    })
}

/// Draws a confirm question centred on `screen` (nothing when the screen is too small): the
/// question in the accent colour, `detail` under it, then the keys that answer.
pub fn draw_confirm(buf: &mut Buffer, screen: Rect, question: &str, detail: &str, colors: &ThemeColors) {
    let rect = dialog_rect(screen);
    if rect.width < 12 || rect.height < 5 {
        return;
    }
    draw_box(buf, rect, colors);
    let bg = Style::new().bg(colors.surface0);
    let inner = rect.width - 4;
    let title = Line::styled(question.to_owned(), bg.fg(colors.accent).add_modifier(Modifier::BOLD));
    put_line(buf, rect.x + 2, rect.y + 1, inner, &title);
    put_line(buf, rect.x + 2, rect.y + 2, inner, &Line::styled(detail.to_owned(), bg.fg(colors.subtext0)));
    let hint = Line::from(vec![
        Span::styled("y", bg.fg(colors.yellow)),
        Span::styled("/", bg.fg(colors.overlay1)),
        Span::styled("enter", bg.fg(colors.yellow)),
        Span::styled(" close  ", bg.fg(colors.overlay1)),
        Span::styled("n", bg.fg(colors.yellow)),
        Span::styled("/", bg.fg(colors.overlay1)),
        Span::styled("esc", bg.fg(colors.yellow)),
        Span::styled(" cancel", bg.fg(colors.overlay1)),
    ]);
    put_line(buf, rect.x + 2, rect.y + 3, inner, &hint);
}

/// The part of `text` a field `width` columns wide shows so that the cursor (at char `cursor`)
/// is on it, and the cursor's column in it. The cursor may sit after the last character, so the
/// field keeps one column free for it.
fn visible_text(text: &str, cursor: usize, width: u16) -> (String, u16) {
    let chars: Vec<(char, usize)> = text.chars().map(|c| (c, c.width().unwrap_or(0))).collect();
    let cursor = cursor.min(chars.len());
    let room = usize::from(width.saturating_sub(1));
    // Drop characters from the front until the cursor fits.
    let mut start = 0;
    let column = |start: usize| chars[start..cursor].iter().map(|(_, w)| w).sum::<usize>();
    while start < cursor && column(start) > room {
        start += 1;
    }
    let mut shown = String::new();
    let mut used = 0;
    for (c, w) in &chars[start..] {
        if used + w > usize::from(width) {
            break;
        }
        shown.push(*c);
        used += w;
    }
    (shown, u16::try_from(column(start)).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Theme;
    use crate::render::tests::text_of;

    #[test]
    fn a_dialog_is_centred_with_its_title_field_and_hint() {
        let screen = Rect::new(0, 0, 40, 9);
        let mut buf = Buffer::empty(screen);
        let dialog = DialogView { title: "rename tab".into(), text: "build".into(), cursor: 5 };
        let colors = Theme::default().colors;
        let cursor = draw_dialog(&mut buf, screen, &dialog, &colors).expect("room for the dialog");
        let expected = [
            "                                        ",
            "                                        ",
            "  ╭──────────────────────────────────╮  ",
            "  │ rename tab                       │  ",
            "  │ build                            │  ",
            "  │ enter apply  esc cancel          │  ",
            "  ╰──────────────────────────────────╯  ",
            "                                        ",
            "                                        ",
        ];
        assert_eq!(text_of(&buf), expected.join("\n") + "\n");
        assert_eq!((cursor.x, cursor.y), (9, 4), "after the text");
        assert_eq!(buf[(20, 4)].bg, colors.surface1, "the field has its own background");
    }

    #[test]
    fn a_confirm_question_is_centred_with_its_detail_and_answers() {
        let screen = Rect::new(0, 0, 40, 9);
        let mut buf = Buffer::empty(screen);
        let colors = Theme::default().colors;
        draw_confirm(&mut buf, screen, "close pane \"editor\"?", "w1:p2 · claude runs here", &colors);
        let expected = [
            "                                        ",
            "                                        ",
            "  ╭──────────────────────────────────╮  ",
            "  │ close pane \"editor\"?             │  ",
            "  │ w1:p2 · claude runs here         │  ",
            "  │ y/enter close  n/esc cancel      │  ",
            "  ╰──────────────────────────────────╯  ",
            "                                        ",
            "                                        ",
        ];
        assert_eq!(text_of(&buf), expected.join("\n") + "\n");
        assert_eq!(buf[(4, 3)].fg, colors.accent, "the question stands out");
        assert_eq!(buf[(4, 4)].fg, colors.subtext0);
        let small = Rect::new(0, 0, 10, 3);
        let mut tiny = Buffer::empty(small);
        draw_confirm(&mut tiny, small, "close tab 1?", "1 pane", &colors);
        assert_eq!(text_of(&tiny), "          \n          \n          \n", "no room, nothing drawn");
    }

    #[test]
    fn a_long_text_scrolls_to_keep_the_cursor_in_the_field() {
        assert_eq!(visible_text("abcdef", 6, 4), ("def".to_owned(), 3));
        assert_eq!(visible_text("abcdef", 0, 4), ("abcd".to_owned(), 0));
        assert_eq!(visible_text("abcdef", 3, 4), ("abcd".to_owned(), 3));
        assert_eq!(visible_text("abcdef", 5, 4), ("cdef".to_owned(), 3));
        // Wide characters count two columns.
        assert_eq!(visible_text("日本語", 3, 5), ("本語".to_owned(), 4));
        assert_eq!(visible_text("", 0, 4), (String::new(), 0));
    }

    #[test]
    fn a_dialog_needs_room() {
        let screen = Rect::new(0, 0, 10, 3);
        let mut buf = Buffer::empty(screen);
        let dialog = DialogView { title: "rename pane".into(), text: String::new(), cursor: 0 };
        assert_eq!(draw_dialog(&mut buf, screen, &dialog, &Theme::default().colors), None);
        assert_eq!(text_of(&buf), "          \n          \n          \n");
    }
}
