//! The frame differ: what changed between the frame a client last received and the new one,
//! as serializable cell updates ([`FrameUpdate`], for local clients) or as ANSI bytes (for
//! remote clients, [`encode_ansi`]). An unchanged frame yields nothing at all.
//!
//! The update types are wire data ([`herdr_protocol::grid`]), so the client can decode them.

use herdr_protocol::grid::{CellUpdate, FrameUpdate, WireColor};
use ratatui_core::buffer::{Buffer, Cell};
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
    let same_size = prev.is_some_and(|p| p.buffer.area == area);
    let blank;
    let base: &Buffer = match prev {
        Some(p) if same_size => &p.buffer,
        _ => {
            // After clearing, the screen equals an empty buffer: only non-blank cells are sent.
            blank = Buffer::empty(area);
            &blank
        }
    };
    let cells: Vec<CellUpdate> =
        base.diff_iter(&next.buffer).map(|(x, y, cell)| cell_update(x, y, cell)).collect();
    let cursor_same = prev.is_some_and(|p| p.cursor == next.cursor);
    if same_size && cells.is_empty() && cursor_same {
        return None;
    }
    Some(FrameUpdate { cols: area.width, rows: area.height, clear: !same_size, cells, cursor: next.cursor })
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
