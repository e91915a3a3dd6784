//! The frame differ: what changed between the frame a client last received and the new one,
//! as serializable cell updates ([`FrameUpdate`], for local clients) or as ANSI bytes (for
//! remote clients, [`encode_ansi`]). An unchanged frame yields nothing at all.
//!
//! The update types are wire data ([`herdr_protocol::grid`]), so the client can decode them.

use herdr_protocol::grid::{CellUpdate, FrameUpdate, WireColor};
use ratatui_core::buffer::{Buffer, Cell, CellDiffOption, CellWidth};
use ratatui_core::style::Color;

use super::compose::Frame;

/// A ratatui colour on the wire: the 16 named ANSI colours become palette indices 0–15.
pub(crate) fn wire_color(color: Color) -> WireColor {
    let index = match color {
        Color::Reset => return WireColor::Reset,
        Color::Indexed(i) => i,
        Color::Rgb(r, g, b) => return WireColor::Rgb(r, g, b),
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    WireColor::Indexed(index)
}

/// The update that turns `prev` (what the client has; `None` for a fresh client) into `next`;
/// `None` when nothing visible changed.
pub fn diff_frames(prev: Option<&Frame>, next: &Frame) -> Option<FrameUpdate> {
    let area = next.buffer.area;
    let (cells, clear) = match prev {
        Some(p) if p.buffer.area == area => {
            let cells: Vec<CellUpdate> =
                p.buffer.diff_iter(&next.buffer).map(|(x, y, cell)| cell_update(x, y, cell)).collect();
            if cells.is_empty() && p.cursor == next.cursor {
                return None;
            }
            (cells, false)
        }
        // After clearing, the screen is blank: only the cells a blank screen lacks are sent.
        _ => {
            let mut cells = Vec::new();
            diff_from_blank(&next.buffer, |x, y, cell| cells.push(cell_update(x, y, cell)));
            (cells, true)
        }
    };
    Some(FrameUpdate { cols: area.width, rows: area.height, clear, cells, cursor: next.cursor })
}

/// Calls `emit` for each cell of `buffer` that `Buffer::empty(area).diff_iter(buffer)` yields,
/// in the same order, without making that blank buffer (most of a fresh client's diff cost).
/// These are ratatui-core's `BufferDiff` rules for a previous frame of single-width
/// `Cell::EMPTY` cells: skipped cells are passed over; a cell equal to the blank one is not
/// sent; a wide cell (or one of forced width) covers its trailing columns, except an emoji with
/// VS16, whose trailing columns are sent when they are not blank.
#[allow(deprecated)] // `Cell::skip`, still honoured by ratatui's own diff
fn diff_from_blank(buffer: &Buffer, mut emit: impl FnMut(u16, u16, &Cell)) {
    let cells = &buffer.content;
    let area = buffer.area;
    let width = usize::from(area.width.max(1));
    let skipped = |cell: &Cell| {
        matches!(cell.diff_option, CellDiffOption::Skip)
            || (cell.skip && matches!(cell.diff_option, CellDiffOption::None))
    };
    let mut emit_at = |i: usize| {
        let (x, y) = ((i % width) as u16 + area.x, (i / width) as u16 + area.y);
        emit(x, y, &cells[i]);
    };
    let mut i = 0;
    while i < cells.len() {
        let cell = &cells[i];
        let at = i;
        i += 1;
        if skipped(cell) {
            continue;
        }
        if let CellDiffOption::ForcedWidth(forced) = cell.diff_option {
            // Never equal to the blank cell, whose width is not forced.
            i = i.saturating_add(usize::from(forced.get() - 1));
            emit_at(at);
            continue;
        }
        if cell.diff_option == CellDiffOption::None && *cell == Cell::EMPTY {
            continue;
        }
        emit_at(at);
        let cell_width = usize::from(cell.cell_width());
        if cell_width > 1 && cell.symbol().contains('\u{FE0F}') {
            let mut end = (at + cell_width).min(cells.len());
            while i < end {
                let trailing = i;
                i += usize::from(cells[trailing].cell_width().max(1));
                end = end.max(i).min(cells.len());
                if !skipped(&cells[trailing]) && cells[trailing].symbol() != " " {
                    emit_at(trailing);
                }
            }
            i = end;
        } else if cell_width > 1 {
            i += cell_width - 1;
        }
    }
}

/// One changed cell on the wire.
pub(crate) fn cell_update(x: u16, y: u16, cell: &Cell) -> CellUpdate {
    CellUpdate {
        x,
        y,
        symbol: cell.symbol().into(),
        fg: wire_color(cell.fg),
        bg: wire_color(cell.bg),
        attrs: cell.modifier.bits(),
    }
}

/// The ANSI bytes that repaint `prev` into `next` (empty when nothing changed).
pub fn encode_ansi(prev: Option<&Frame>, next: &Frame) -> Vec<u8> {
    diff_frames(prev, next).map(|update| update.to_ansi()).unwrap_or_default()
}
