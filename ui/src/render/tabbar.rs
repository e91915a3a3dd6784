//! The tab bar: the focused workspace's tabs, numbered, with bell and zoom markers and agent
//! status.

use herdr_protocol::api::AgentStatus;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};

use super::compose::{fill, put_line};
use super::status::status_glyph;
use super::theme::ThemeColors;
use super::view::{RenderOptions, TabView};

pub(crate) fn draw(
    buf: &mut Buffer,
    area: Rect,
    tabs: &[TabView],
    options: &RenderOptions,
    colors: &ThemeColors,
) {
    fill(buf, area, Style::new().bg(colors.surface_dim).fg(colors.subtext0));
    let mut x = area.x;
    for (index, tab) in tabs.iter().enumerate() {
        if x >= area.right() {
            break;
        }
        let line = tab_line(index + 1, tab, options, colors);
        let (end, _) = put_line(buf, x, area.y, area.right() - x, &line);
        x = end;
    }
}

/// The index of the tab drawn at column `x` of the tab bar `area` (as [`draw`] lays them out).
pub(crate) fn tab_at(
    area: Rect,
    tabs: &[TabView],
    options: &RenderOptions,
    colors: &ThemeColors,
    x: u16,
) -> Option<usize> {
    let mut left = usize::from(area.x);
    for (index, tab) in tabs.iter().enumerate() {
        let right = left + tab_line(index + 1, tab, options, colors).width();
        if (left..right).contains(&usize::from(x)) && x < area.right() {
            return Some(index);
        }
        left = right;
    }
    None
}

/// ` 2 build ! Z ● `: number, label, bell marker (tmux's `!` window flag: a pane rang unseen),
/// zoom marker, status indicator when an agent is known.
fn tab_line(number: usize, tab: &TabView, options: &RenderOptions, colors: &ThemeColors) -> Line<'static> {
    let base = if tab.focused {
        Style::new().bg(colors.surface0).fg(colors.accent).add_modifier(Modifier::BOLD)
    } else {
        Style::new().bg(colors.surface_dim).fg(colors.subtext0)
    };
    let mut spans = vec![Span::styled(format!(" {number} {}", tab.label), base)];
    if tab.bell {
        spans.push(Span::styled(" !", base.fg(colors.peach).add_modifier(Modifier::BOLD)));
    }
    if tab.zoomed {
        spans.push(Span::styled(" Z", base.fg(colors.peach)));
    }
    if tab.status != AgentStatus::Unknown {
        let (glyph, color) = status_glyph(tab.status, options.status_style, colors);
        spans.push(Span::styled(format!(" {glyph}"), base.fg(color)));
    }
    spans.push(Span::styled(" ", base));
    Line::from(spans)
}
