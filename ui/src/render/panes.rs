//! The pane area: each visible pane's box (focused one highlighted, label in the top border) and
//! its mirrored grid blitted inside, wide characters included, with any copy-mode or mouse
//! selection over it ([`selection`]).

use herdr_protocol::api::PaneLayoutSnapshot;
use ratatui_core::buffer::{Buffer, Cell};
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::Line;
use unicode_width::UnicodeWidthStr;

use super::chrome::FrameLayout;
use super::compose::put_line;
use super::grid::{attrs_to_modifier, color_to_ratatui};
use super::selection;
use super::theme::ThemeColors;
use super::view::{PaneView, RenderOptions, ViewModel};
use herdr_protocol::grid::{CellAttrs, CursorPlacement, GridColor, PaneGrid};
use herdr_protocol::ipc::ScrollPosition;

/// Box-drawing sets: `[top-left, top-right, bottom-left, bottom-right, horizontal, vertical]`.
const THIN: [&str; 6] = ["┌", "┐", "└", "┘", "─", "│"];
const THICK: [&str; 6] = ["┏", "┓", "┗", "┛", "━", "┃"];

/// Draws every visible pane of `layout`; returns the focused program's cursor on the screen.
pub(crate) fn draw(
    buf: &mut Buffer,
    frame: &FrameLayout,
    layout: &PaneLayoutSnapshot,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    colors: &ThemeColors,
) -> Option<CursorPlacement> {
    let mut cursor = None;
    let empty = PaneView::default();
    for (pane_id, outer, content) in frame.visible_panes(layout) {
        let pane = view.panes.get(pane_id).unwrap_or(&empty);
        let focused = pane_id == layout.focused_pane_id;
        if frame.pane_borders {
            let label = pane
                .label
                .clone()
                .or_else(|| options.show_agent_labels_on_pane_borders.then(|| pane.agent.clone()).flatten());
            draw_box(buf, outer, label.as_deref(), focused, colors);
            draw_scrollbar(buf, outer, pane.scroll, colors);
        }
        if let Some(grid) = pane.grid {
            blit(buf, content, grid);
            if let Some(copy) = &pane.copy {
                selection::draw_selection(buf, content, grid, copy, colors);
            }
            if focused {
                cursor = match &pane.copy {
                    Some(copy) if copy.active => selection::copy_cursor(content, grid, copy),
                    _ => place_cursor(content, grid),
                };
            }
        }
    }
    cursor
}

fn draw_box(buf: &mut Buffer, outer: Rect, label: Option<&str>, focused: bool, colors: &ThemeColors) {
    if outer.width < 2 || outer.height < 2 {
        return;
    }
    let (set, style) = if focused {
        (THICK, Style::new().fg(colors.accent))
    } else {
        (THIN, Style::new().fg(colors.surface1))
    };
    let (left, right, top, bottom) = (outer.left(), outer.right() - 1, outer.top(), outer.bottom() - 1);
    for x in left + 1..right {
        buf[(x, top)].set_symbol(set[4]).set_style(style);
        buf[(x, bottom)].set_symbol(set[4]).set_style(style);
    }
    for y in top + 1..bottom {
        buf[(left, y)].set_symbol(set[5]).set_style(style);
        buf[(right, y)].set_symbol(set[5]).set_style(style);
    }
    buf[(left, top)].set_symbol(set[0]).set_style(style);
    buf[(right, top)].set_symbol(set[1]).set_style(style);
    buf[(left, bottom)].set_symbol(set[2]).set_style(style);
    buf[(right, bottom)].set_symbol(set[3]).set_style(style);
    if let Some(label) = label.filter(|l| !l.is_empty()) {
        let room = outer.width.saturating_sub(4);
        let text = format!(" {label} ");
        let label_style =
            if focused { style.add_modifier(Modifier::BOLD) } else { Style::new().fg(colors.subtext0) };
        if room >= 3 {
            put_line(buf, left + 1, top, room.min(text.width() as u16), &Line::styled(text, label_style));
        }
    }
}

/// While a pane is scrolled back, a thumb on its right border shows where the view is in its
/// history (the track is the border between the corners; the bottom is the live screen).
fn draw_scrollbar(buf: &mut Buffer, outer: Rect, scroll: ScrollPosition, colors: &ThemeColors) {
    let track = u32::from(outer.height.saturating_sub(2));
    let max = scroll.max_offset_from_bottom;
    if scroll.offset_from_bottom == 0 || max == 0 || track == 0 || outer.width < 2 {
        return;
    }
    let total = max.saturating_add(track);
    let thumb = (track * track / total).clamp(1, track);
    let offset = scroll.offset_from_bottom.min(max);
    // 0 at the top of the history, `track - thumb` at the live screen.
    let top = u64::from(max - offset) * u64::from(track - thumb) / u64::from(max);
    let x = outer.right() - 1;
    let style = Style::new().fg(colors.overlay1);
    for y in 0..thumb {
        let row = outer.y + 1 + u16::try_from(top).unwrap_or(0) + u16::try_from(y).unwrap_or(0);
        if row < outer.bottom() - 1 {
            buf[(x, row)].set_symbol("█").set_style(style);
        }
    }
}

/// Copies `grid` into `content`, clipped to both; a wide character that would straddle the right
/// edge becomes a blank so it never spills onto the border.
fn blit(buf: &mut Buffer, content: Rect, grid: &PaneGrid) {
    for y in 0..content.height.min(grid.rows) {
        blit_row(buf, content, grid, y);
    }
}

/// Row `y` of [`blit`] (also used on its own to repaint single rows in place, see `incremental`).
/// Writes only cells that differ from a blank frame, so `buf` must hold blanks there.
pub(super) fn blit_row(buf: &mut Buffer, content: Rect, grid: &PaneGrid, y: u16) {
    let cols = content.width.min(grid.cols);
    if y >= content.height.min(grid.rows) {
        return;
    }
    for x in 0..cols {
        let Some(cell) = grid.cell(x, y) else { continue };
        if cell.text.is_empty() {
            continue;
        }
        let target = &mut buf[(content.x + x, content.y + y)];
        // Most of a screen is default blanks over a blank frame: nothing to write (this
        // runs for every cell of every pane on every paint).
        let default_blank = cell.text == " "
            && cell.fg == GridColor::Default
            && cell.bg == GridColor::Default
            && cell.attrs == CellAttrs::default();
        if default_blank && *target == Cell::EMPTY {
            continue;
        }
        let style = Style::new()
            .fg(color_to_ratatui(cell.fg))
            .bg(color_to_ratatui(cell.bg))
            .add_modifier(attrs_to_modifier(cell.attrs));
        let (wide, clean) = match cell.text.as_bytes() {
            // Printable ASCII, the common case, without the Unicode tables.
            [b] if (0x20..0x7f).contains(b) => (false, true),
            _ => (cell.text.width() > 1, !cell.text.contains(char::is_control)),
        };
        if !clean || (wide && x + 1 >= cols) {
            target.set_symbol(" ").set_style(style);
        } else {
            target.set_symbol(&cell.text).set_style(style);
            if wide {
                buf[(content.x + x + 1, content.y + y)].reset();
            }
        }
    }
}

pub(super) fn place_cursor(content: Rect, grid: &PaneGrid) -> Option<CursorPlacement> {
    let c = grid.cursor;
    let inside = c.x < content.width.min(grid.cols) && c.y < content.height.min(grid.rows);
    inside.then_some(CursorPlacement { x: content.x + c.x, y: content.y + c.y, ..c })
}
