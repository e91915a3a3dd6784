//! Reading a visible pane's screen back as wire cells: ghostty's render state tracks which rows
//! changed since the last read, so a spinner costs one row, not a walk of the whole viewport.
//!
//! Not here: when to read (the pane's event loop coalesces to one read per frame interval) and
//! whether anyone looks (visibility is the supervisor's call).

use herdr_protocol::grid::{CellAttrs, CellText, CursorPlacement, CursorShape, GridCell, GridColor};
use herdr_protocol::ipc::{CopyView, GridDamage, PaneModes, ScrollPosition};
use libghostty_vt::{
    Terminal,
    render::{CellIteration, CellIterator, CursorVisualStyle, Dirty, RenderState, RowIterator},
    screen::{CellContentTag, CellWide},
    style::{StyleColor, Underline},
    terminal::Mode,
};

use super::EngineError;

/// The render state and its iterators, kept while the pane is visible (dropped when hidden, so
/// a hidden pane holds no second copy of its screen).
pub(super) struct ScreenReader {
    state: RenderState<'static>,
    rows: RowIterator<'static>,
    cells: CellIterator<'static>,
    /// What the last damage said about the cursor and modes, to send a change of only those.
    last_cursor: Option<CursorPlacement>,
    last_modes: PaneModes,
    last_scroll: ScrollPosition,
    last_copy: Option<CopyView>,
}

impl ScreenReader {
    pub(super) fn new() -> Result<Self, EngineError> {
        Ok(Self {
            state: RenderState::new()?,
            rows: RowIterator::new()?,
            cells: CellIterator::new()?,
            last_cursor: None,
            last_modes: PaneModes::default(),
            last_scroll: ScrollPosition::default(),
            last_copy: None,
        })
    }

    /// What changed since the last call (every row when `full`, or when the terminal says its
    /// whole screen changed); `None` when nothing did. A change of the copy overlay alone is a
    /// change: the compositor must redraw it even when no row changed.
    pub(super) fn damage(
        &mut self,
        term: &Terminal<'static, 'static>,
        full: bool,
        scroll: ScrollPosition,
        copy: Option<CopyView>,
    ) -> Result<Option<GridDamage>, EngineError> {
        let modes = read_modes(term)?;
        let Self { state, rows: row_iter, cells: cell_iter, .. } = self;
        let snapshot = state.update(term)?;
        let full = full || snapshot.dirty()? == Dirty::Full;
        let (cols, rows) = (snapshot.cols()?, snapshot.rows()?);
        let cursor = read_cursor(&snapshot)?;
        let mut lines = Vec::new();
        let mut text = String::new();
        let mut y: u16 = 0;
        let mut iteration = row_iter.update(&snapshot)?;
        while let Some(row) = iteration.next() {
            if full || row.dirty()? {
                let mut line = Vec::with_capacity(usize::from(cols));
                let mut cells = cell_iter.update(row)?;
                while let Some(cell) = cells.next() {
                    line.push(read_cell(cell, &mut text)?);
                }
                // Trailing blank cells are implied: a spinner row costs its text, not its width.
                let blank = GridCell::default();
                let used = line.iter().rposition(|c| *c != blank).map_or(0, |i| i + 1);
                line.truncate(used);
                lines.push((y, line));
                row.set_dirty(false)?;
            }
            y = y.saturating_add(1);
        }
        snapshot.set_dirty(Dirty::Clean)?;
        let unchanged = lines.is_empty()
            && self.last_cursor == Some(cursor)
            && self.last_modes == modes
            && self.last_scroll == scroll
            && self.last_copy == copy;
        if unchanged && !full {
            return Ok(None);
        }
        self.last_cursor = Some(cursor);
        self.last_modes = modes;
        self.last_scroll = scroll;
        self.last_copy.clone_from(&copy);
        Ok(Some(GridDamage { cols, rows, full, lines, cursor, modes, scroll, copy }))
    }
}

fn read_modes(term: &Terminal<'static, 'static>) -> Result<PaneModes, EngineError> {
    let on = |mode| term.mode(mode);
    Ok(PaneModes {
        mouse_reporting: on(Mode::X10_MOUSE)?
            || on(Mode::NORMAL_MOUSE)?
            || on(Mode::BUTTON_MOUSE)?
            || on(Mode::ANY_MOUSE)?,
        mouse_sgr: on(Mode::SGR_MOUSE)?,
        bracketed_paste: on(Mode::BRACKETED_PASTE)?,
        focus_events: on(Mode::FOCUS_EVENT)?,
        alt_screen: on(Mode::ALT_SCREEN)? || on(Mode::ALT_SCREEN_SAVE)? || on(Mode::ALT_SCREEN_LEGACY)?,
    })
}

/// The DECSCUSR that gives a fresh terminal `term`'s cursor shape, `None` for the default (a
/// blinking block), for the dump.
pub(super) fn cursor_shape_sequence(
    term: &Terminal<'static, 'static>,
) -> Result<Option<Vec<u8>>, EngineError> {
    let mut state = RenderState::new()?;
    let snapshot = state.update(term)?;
    let blinking = snapshot.cursor_blinking()?;
    let code = match (snapshot.cursor_visual_style()?, blinking) {
        (CursorVisualStyle::Bar, true) => 5,
        (CursorVisualStyle::Bar, false) => 6,
        (CursorVisualStyle::Underline, true) => 3,
        (CursorVisualStyle::Underline, false) => 4,
        (_, true) => return Ok(None),
        (_, false) => 2,
    };
    Ok(Some(format!("\x1b[{code} q").into_bytes()))
}

fn read_cursor(snapshot: &libghostty_vt::render::Snapshot<'_, '_>) -> Result<CursorPlacement, EngineError> {
    let at = snapshot.cursor_viewport()?;
    let shape = match snapshot.cursor_visual_style()? {
        CursorVisualStyle::Bar => CursorShape::Bar,
        CursorVisualStyle::Underline => CursorShape::Underline,
        _ => CursorShape::Block,
    };
    Ok(CursorPlacement {
        x: at.map_or(0, |c| c.x),
        y: at.map_or(0, |c| c.y),
        visible: at.is_some() && snapshot.cursor_visible()?,
        shape,
        blinking: snapshot.cursor_blinking()?,
    })
}

/// One cell as the compositor wants it. `text` is a scratch buffer reused across cells.
fn read_cell(cell: &CellIteration<'_, '_>, text: &mut String) -> Result<GridCell, EngineError> {
    let raw = cell.raw_cell()?;
    let symbol = match raw.wide()? {
        // The right half of a wide grapheme: the compositor skips it.
        CellWide::SpacerTail => CellText::EMPTY,
        // Padding where a wide grapheme did not fit at the end of a wrapped row.
        CellWide::SpacerHead => CellText::BLANK,
        CellWide::Narrow | CellWide::Wide => {
            text.clear();
            if raw.has_text()? {
                cell.graphemes_utf8(text)?;
            }
            if text.is_empty() { CellText::BLANK } else { CellText::new(text) }
        }
    };
    let mut out = GridCell { text: symbol, ..GridCell::default() };
    match raw.content_tag()? {
        // A cell erased with a background colour carries it in the cell, not in a style.
        CellContentTag::BgColorPalette => out.bg = GridColor::Indexed(raw.bg_color_palette()?.0),
        CellContentTag::BgColorRgb => {
            let c = raw.bg_color_rgb()?;
            out.bg = GridColor::Rgb(c.r, c.g, c.b);
        }
        CellContentTag::Codepoint | CellContentTag::CodepointGrapheme => {}
    }
    if cell.has_styling()? {
        let style = cell.style()?;
        out.fg = wire_color(style.fg_color);
        if style.bg_color != StyleColor::None {
            out.bg = wire_color(style.bg_color);
        }
        let flags = [
            (style.bold, CellAttrs::BOLD),
            (style.faint, CellAttrs::DIM),
            (style.italic, CellAttrs::ITALIC),
            (style.underline != Underline::None, CellAttrs::UNDERLINE),
            (style.blink, CellAttrs::BLINK),
            (style.inverse, CellAttrs::INVERSE),
            (style.invisible, CellAttrs::INVISIBLE),
            (style.strikethrough, CellAttrs::STRIKETHROUGH),
        ];
        out.attrs = CellAttrs(flags.iter().filter(|(on, _)| *on).fold(0, |acc, (_, bit)| acc | bit));
    }
    Ok(out)
}

/// Palette colours stay indices, so the client's terminal shows them in its own palette (as a
/// program running directly in it would); true colour stays true colour.
fn wire_color(color: StyleColor) -> GridColor {
    match color {
        StyleColor::None => GridColor::Default,
        StyleColor::Palette(index) => GridColor::Indexed(index.0),
        StyleColor::Rgb(c) => GridColor::Rgb(c.r, c.g, c.b),
    }
}
