//! The mobile layout (narrow terminals): a header with the focused workspace and what needs
//! attention, a tab switcher row, then the focused pane alone (drawn by the pane module).

use herdr_protocol::api::AgentStatus;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::compose::{fill, put_line};
use super::status::status_glyph;
use super::tabbar;
use super::theme::ThemeColors;
use super::view::{RenderOptions, ViewModel};

pub(crate) fn draw_header(
    buf: &mut Buffer,
    screen: Rect,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    colors: &ThemeColors,
) {
    if screen.height == 0 {
        return;
    }
    let header = Rect::new(screen.x, screen.y, screen.width, 1);
    fill(buf, header, Style::new().bg(colors.sidebar_bg).fg(colors.text));
    let focused = view.workspaces.iter().find(|w| w.focused);
    let position = view.workspaces.iter().position(|w| w.focused).map_or(0, |i| i + 1);
    let blocked = view.agents.iter().filter(|a| a.status == AgentStatus::Blocked).count();
    let right = if blocked > 0 { format!("{blocked} blocked ") } else { String::new() };
    let right_width = right.width() as u16;
    if let Some(w) = focused {
        let (glyph, color) = status_glyph(w.status, options.status_style, colors);
        let line = Line::from(vec![
            Span::styled(format!(" {glyph} "), Style::new().fg(color)),
            Span::styled(w.label.clone(), Style::new().fg(colors.text).add_modifier(Modifier::BOLD)),
            Span::styled(format!(" {position}/{}", view.workspaces.len()), Style::new().fg(colors.overlay1)),
        ]);
        put_line(buf, header.x, header.y, header.width.saturating_sub(right_width), &line);
    }
    if right_width > 0 && right_width < header.width {
        let x = header.right() - right_width;
        put_line(buf, x, header.y, right_width, &Line::styled(right, Style::new().fg(colors.red)));
    }
    if screen.height >= 2 {
        let switcher = Rect::new(screen.x, screen.y + 1, screen.width, 1);
        tabbar::draw(buf, switcher, &view.tabs, options, colors);
    }
}
