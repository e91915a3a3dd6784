//! The popup terminal drawn over a composed frame: a rounded accent border with the popup's
//! title in its top edge, and the popup pane's mirrored grid inside, centred over the pane area
//! at the size [`crate::popup::geometry`] gives. The cells it covers are cleared first, so
//! nothing of the layout beneath shows through an empty popup.
//!
//! Not here: the popup's pane and what its keys and clicks do (the supervisor's `popups`).

use herdr_protocol::grid::{CursorPlacement, PaneGrid};
use ratatui_core::buffer::{Buffer, Cell};
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::Line;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::compose::put_line;
use super::panes::{blit_row, place_cursor};
use super::theme::ThemeColors;
use crate::popup::{Geometry, PopupSize, geometry};

/// What an open popup shows besides its grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PopupView {
    /// Shown in the top border (a command's description, or what it runs).
    pub title: String,
    pub width: Option<PopupSize>,
    pub height: Option<PopupSize>,
}

/// Draws the popup `view` with `grid` (none yet: an empty box) over `area` of `buf`; returns
/// where it went (`None`: `area` is too small for a popup, nothing drawn) and the program's
/// cursor on the screen.
pub fn draw_popup(
    buf: &mut Buffer,
    area: Rect,
    view: &PopupView,
    grid: Option<&PaneGrid>,
    colors: &ThemeColors,
) -> Option<(Geometry, Option<CursorPlacement>)> {
    let area = area.intersection(buf.area);
    let place = geometry(view.width, view.height, area)?;
    let Geometry { outer, inner } = place;
    for y in outer.top()..outer.bottom() {
        for x in outer.left()..outer.right() {
            buf[(x, y)] = Cell::EMPTY;
        }
    }
    draw_border(buf, outer, &view.title, colors);
    let Some(grid) = grid else { return Some((place, None)) };
    for y in 0..inner.height {
        blit_row(buf, inner, grid, y);
    }
    Some((place, place_cursor(inner, grid)))
}

fn draw_border(buf: &mut Buffer, outer: Rect, title: &str, colors: &ThemeColors) {
    let style = Style::new().fg(colors.accent);
    let (left, right, top, bottom) = (outer.left(), outer.right() - 1, outer.top(), outer.bottom() - 1);
    for x in left + 1..right {
        buf[(x, top)].set_symbol("─").set_style(style);
        buf[(x, bottom)].set_symbol("─").set_style(style);
    }
    for y in top + 1..bottom {
        buf[(left, y)].set_symbol("│").set_style(style);
        buf[(right, y)].set_symbol("│").set_style(style);
    }
    for (x, y, corner) in [(left, top, "╭"), (right, top, "╮"), (left, bottom, "╰"), (right, bottom, "╯")]
    {
        buf[(x, y)].set_symbol(corner).set_style(style);
    }
    // The title, padded by a space each side, leaves a rule cell and a corner each side; a long
    // one is cut to fit.
    let room = usize::from(outer.width.saturating_sub(6));
    if title.is_empty() || room == 0 {
        return;
    }
    let mut cut = String::new();
    for ch in title.chars() {
        if cut.width() + ch.width().unwrap_or(0) > room {
            break;
        }
        cut.push(ch);
    }
    let text = format!(" {cut} ");
    let width = u16::try_from(text.width()).unwrap_or(0);
    put_line(buf, left + 2, top, width, &Line::styled(text, style.add_modifier(Modifier::BOLD)));
}

#[cfg(test)]
#[path = "tests_popup.rs"]
mod tests;
