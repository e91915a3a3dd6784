//! ANSI encoding of a [`FrameUpdate`]: one synchronized-output paint (`CSI ? 2026 h` … `l`)
//! with the cursor hidden while cells are written, then placed and shaped as the focused
//! program asked. Cursor moves are skipped when the next cell follows the last one written.

use std::io::Write;

use unicode_width::UnicodeWidthStr;

use super::{CellUpdate, CursorPlacement, CursorShape, FrameUpdate, WireColor};

const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
const SYNC_END: &[u8] = b"\x1b[?2026l";
const HIDE_CURSOR: &[u8] = b"\x1b[?25l";
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// SGR parameter for each `Modifier` bit, in bit order.
const ATTR_SGR: [u8; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

impl FrameUpdate {
    /// The bytes a terminal needs to apply this update.
    pub fn to_ansi(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.cells.len() * 8);
        out.extend_from_slice(SYNC_BEGIN);
        out.extend_from_slice(HIDE_CURSOR);
        if self.clear {
            out.extend_from_slice(b"\x1b[0m\x1b[H\x1b[2J");
        }
        let mut pen: Option<(u16, u16)> = None;
        let mut style: Option<(WireColor, WireColor, u16)> = None;
        for cell in &self.cells {
            if pen != Some((cell.x, cell.y)) {
                move_to(&mut out, cell.x, cell.y);
            }
            let wanted = (cell.fg, cell.bg, cell.attrs);
            if style != Some(wanted) {
                write_sgr(&mut out, cell);
                style = Some(wanted);
            }
            out.extend_from_slice(cell.symbol.as_bytes());
            let width = cell.symbol.width().max(1) as u16;
            pen = Some((cell.x.saturating_add(width), cell.y));
        }
        if style.is_some() {
            out.extend_from_slice(b"\x1b[0m");
        }
        if let Some(cursor) = self.cursor {
            place_cursor(&mut out, cursor);
        }
        out.extend_from_slice(SYNC_END);
        out
    }
}

fn move_to(out: &mut Vec<u8>, x: u16, y: u16) {
    // Writing to a Vec cannot fail.
    let _ = write!(out, "\x1b[{};{}H", u32::from(y) + 1, u32::from(x) + 1);
}

/// Resets, then sets every attribute and both colours: one sequence per style change keeps the
/// encoder stateless about which attributes were on before.
fn write_sgr(out: &mut Vec<u8>, cell: &CellUpdate) {
    out.extend_from_slice(b"\x1b[0");
    for (bit, code) in ATTR_SGR.iter().enumerate() {
        if cell.attrs & (1 << bit) != 0 {
            let _ = write!(out, ";{code}");
        }
    }
    write_color(out, cell.fg, 30, 90, 38);
    write_color(out, cell.bg, 40, 100, 48);
    out.push(b'm');
}

fn write_color(out: &mut Vec<u8>, color: WireColor, base: u8, bright: u8, extended: u8) {
    let _ = match color {
        WireColor::Reset => Ok(()),
        WireColor::Indexed(i) if i < 8 => write!(out, ";{}", base + i),
        WireColor::Indexed(i) if i < 16 => write!(out, ";{}", bright + i - 8),
        WireColor::Indexed(i) => write!(out, ";{extended};5;{i}"),
        WireColor::Rgb(r, g, b) => write!(out, ";{extended};2;{r};{g};{b}"),
    };
}

fn place_cursor(out: &mut Vec<u8>, cursor: CursorPlacement) {
    move_to(out, cursor.x, cursor.y);
    let shape = match (cursor.shape, cursor.blinking) {
        (CursorShape::Block, true) => 1,
        (CursorShape::Block, false) => 2,
        (CursorShape::Underline, true) => 3,
        (CursorShape::Underline, false) => 4,
        (CursorShape::Bar, true) => 5,
        (CursorShape::Bar, false) => 6,
    };
    let _ = write!(out, "\x1b[{shape} q");
    if cursor.visible {
        out.extend_from_slice(SHOW_CURSOR);
    }
}
