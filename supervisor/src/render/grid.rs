//! A pane's visible screen as the supervisor mirrors it from worker damage: cells with true
//! colour and attributes, and where the program wants the cursor. Not a terminal emulator: the
//! worker parses VT output; this is only the result.

use ratatui_core::style::{Color, Modifier};
use serde::{Deserialize, Serialize};

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

impl GridColor {
    pub(crate) fn to_ratatui(self) -> Color {
        match self {
            GridColor::Default => Color::Reset,
            GridColor::Indexed(i) => Color::Indexed(i),
            GridColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
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

    pub(crate) fn to_modifier(self) -> Modifier {
        const MAP: [(u16, Modifier); 8] = [
            (CellAttrs::BOLD, Modifier::BOLD),
            (CellAttrs::DIM, Modifier::DIM),
            (CellAttrs::ITALIC, Modifier::ITALIC),
            (CellAttrs::UNDERLINE, Modifier::UNDERLINED),
            (CellAttrs::BLINK, Modifier::SLOW_BLINK),
            (CellAttrs::INVERSE, Modifier::REVERSED),
            (CellAttrs::INVISIBLE, Modifier::HIDDEN),
            (CellAttrs::STRIKETHROUGH, Modifier::CROSSED_OUT),
        ];
        MAP.iter().filter(|(flag, _)| self.has(*flag)).fold(Modifier::empty(), |m, (_, f)| m | *f)
    }
}

/// One cell of a pane grid. `text` is one grapheme; a wide grapheme occupies its cell and the
/// next one, whose `text` is empty (the spacer). A blank cell is `" "`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridCell {
    pub text: String,
    pub fg: GridColor,
    pub bg: GridColor,
    pub attrs: CellAttrs,
}

impl Default for GridCell {
    fn default() -> Self {
        GridCell {
            text: " ".into(),
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
            let width = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0) as u16;
            if width == 0 || col + width > self.cols || y >= self.rows {
                continue;
            }
            let index = usize::from(y) * usize::from(self.cols) + usize::from(col);
            self.cells[index] = GridCell { text: ch.to_string(), fg, bg, attrs };
            if width == 2 {
                self.cells[index + 1] = GridCell { text: String::new(), fg, bg, attrs };
            }
            col += width;
        }
    }
}
