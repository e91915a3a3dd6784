//! Screen cells on the wire: a pane's mirrored grid ([`PaneGrid`], what workers will send as
//! damage) and one client paint ([`FrameUpdate`], what the supervisor's frame differ produces and
//! a client applies). Plain serde data, shared by the supervisor (which composes and diffs) and
//! the terminal client (which only decodes and writes), so neither depends on the other.
//!
//! Not here: composition, diffing and anything ratatui (the supervisor's `render` module), and
//! terminal I/O (the client). [`FrameUpdate::to_ansi`] is pure byte encoding.

mod ansi;
#[cfg(test)]
mod tests;
mod text;

pub use text::CellText;

use serde::{Deserialize, Serialize};
use unicode_width::UnicodeWidthChar;

/// A colour as a terminal program set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum GridColor {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// One of the 256 palette colours.
    Indexed(u8),
    /// True colour.
    Rgb(u8, u8, u8),
}

/// SGR attributes of a cell, as bit flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CellAttrs(pub u16);

impl CellAttrs {
    pub const BOLD: u16 = 1;
    pub const DIM: u16 = 1 << 1;
    pub const ITALIC: u16 = 1 << 2;
    pub const UNDERLINE: u16 = 1 << 3;
    pub const BLINK: u16 = 1 << 4;
    pub const INVERSE: u16 = 1 << 5;
    pub const INVISIBLE: u16 = 1 << 6;
    pub const STRIKETHROUGH: u16 = 1 << 7;

    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
}

/// One cell of a pane grid. `text` is one grapheme; a wide grapheme occupies its cell and the
/// next one, whose `text` is empty (the spacer). A blank cell is `" "`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridCell {
    pub text: CellText,
    pub fg: GridColor,
    pub bg: GridColor,
    pub attrs: CellAttrs,
}

impl Default for GridCell {
    fn default() -> Self {
        GridCell {
            text: CellText::BLANK,
            fg: GridColor::Default,
            bg: GridColor::Default,
            attrs: CellAttrs::default(),
        }
    }
}

/// Cursor shapes a program can ask for with DECSCUSR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum CursorShape {
    #[default]
    Block,
    Underline,
    Bar,
}

/// Where a program wants its cursor, in its own grid (or, after composing, on the screen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CursorPlacement {
    pub x: u16,
    pub y: u16,
    pub visible: bool,
    pub shape: CursorShape,
    pub blinking: bool,
}

/// A pane's visible screen: `rows` rows of `cols` cells, row-major.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneGrid {
    pub cols: u16,
    pub rows: u16,
    pub cells: Vec<GridCell>,
    pub cursor: CursorPlacement,
}

impl PaneGrid {
    /// A blank grid with the cursor visible at the top left.
    pub fn blank(cols: u16, rows: u16) -> Self {
        PaneGrid {
            cols,
            rows,
            cells: vec![GridCell::default(); usize::from(cols) * usize::from(rows)],
            cursor: CursorPlacement { visible: true, ..CursorPlacement::default() },
        }
    }

    /// The cell at `(x, y)`, if inside the grid (a short `cells` vector reads as blank).
    pub fn cell(&self, x: u16, y: u16) -> Option<&GridCell> {
        if x >= self.cols || y >= self.rows {
            return None;
        }
        self.cells.get(usize::from(y) * usize::from(self.cols) + usize::from(x))
    }

    /// Writes plain text into row `y` from column `x` with the given colours, one grapheme per
    /// char (wide chars take two cells). Used to build grids from text, e.g. in tests.
    pub fn put_str(&mut self, x: u16, y: u16, text: &str, fg: GridColor, bg: GridColor, attrs: CellAttrs) {
        let mut col = x;
        for ch in text.chars() {
            let width = ch.width().unwrap_or(0) as u16;
            if width == 0 || col + width > self.cols || y >= self.rows {
                continue;
            }
            let index = usize::from(y) * usize::from(self.cols) + usize::from(col);
            if index + usize::from(width) > self.cells.len() {
                // A short `cells` vector: nothing to write into.
                continue;
            }
            self.cells[index] = GridCell { text: ch.into(), fg, bg, attrs };
            if width == 2 {
                self.cells[index + 1] = GridCell { text: CellText::EMPTY, fg, bg, attrs };
            }
            col += width;
        }
    }
}

/// A colour on the wire: the 16 ANSI colours are palette indices 0–15.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WireColor {
    Reset,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// One changed cell. `attrs` are ratatui `Modifier` bits (bold 1, dim 2, italic 4, underlined
/// 8, slow blink 16, rapid blink 32, reversed 64, hidden 128, crossed out 256). A wide symbol
/// covers the next column too; that column gets no update of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellUpdate {
    pub x: u16,
    pub y: u16,
    pub symbol: CellText,
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
