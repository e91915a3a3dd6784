//! The frame differ: what changed between the frame a client last received and the new one,
//! as serializable cell updates ([`FrameUpdate`], for local clients) or as ANSI bytes (for
//! remote clients, [`encode_ansi`]). An unchanged frame yields nothing at all.
//!
//! These wire types are plain serde data with no supervisor state; when the client protocol
//! lands they belong in `protocol` so the client can decode them.

use ratatui_core::buffer::Buffer;
use ratatui_core::style::Color;
use serde::{Deserialize, Serialize};

use super::compose::Frame;
use super::grid::CursorPlacement;

/// A colour on the wire: the 16 ANSI colours are palette indices 0–15.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WireColor {
    Reset,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

impl From<Color> for WireColor {
    fn from(color: Color) -> Self {
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
}

/// One changed cell. `attrs` are ratatui `Modifier` bits (bold 1, dim 2, italic 4, underlined
/// 8, slow blink 16, rapid blink 32, reversed 64, hidden 128, crossed out 256). A wide symbol
/// covers the next column too; that column gets no update of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellUpdate {
    pub x: u16,
    pub y: u16,
    pub symbol: String,
    pub fg: WireColor,
    pub bg: WireColor,
    pub attrs: u16,
}

/// One paint: apply atomically (the ANSI form is wrapped in synchronized output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameUpdate {
    pub cols: u16,
    pub rows: u16,
    /// Clear the screen before applying `cells` (first frame or a size change).
    pub clear: bool,
    pub cells: Vec<CellUpdate>,
    /// Where the cursor ends up; `None` leaves it hidden.
    pub cursor: Option<CursorPlacement>,
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
    let cells: Vec<CellUpdate> = base
        .diff_iter(&next.buffer)
        .map(|(x, y, cell)| CellUpdate {
            x,
            y,
            symbol: cell.symbol().to_string(),
            fg: cell.fg.into(),
            bg: cell.bg.into(),
            attrs: cell.modifier.bits(),
        })
        .collect();
    let cursor_same = prev.is_some_and(|p| p.cursor == next.cursor);
    if same_size && cells.is_empty() && cursor_same {
        return None;
    }
    Some(FrameUpdate { cols: area.width, rows: area.height, clear: !same_size, cells, cursor: next.cursor })
}

/// The ANSI bytes that repaint `prev` into `next` (empty when nothing changed).
pub fn encode_ansi(prev: Option<&Frame>, next: &Frame) -> Vec<u8> {
    diff_frames(prev, next).map(|update| update.to_ansi()).unwrap_or_default()
}
