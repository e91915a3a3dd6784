//! Copy mode and mouse selection as a pure state machine over a document of terminal rows: the
//! copy cursor, vi motions, literal search, the selection anchor, and what a request asks the
//! terminal to do (copy a span of cells, move the viewport).
//!
//! Coordinates are *screen* coordinates: row 0 is the oldest history row, columns are cells (a
//! wide character occupies its cell and the spacer cell after it, whose text is empty). The
//! engine keeps these positions on their text while output arrives (`engine::copy`); this module
//! never touches the terminal and owns no I/O.
//!
//! Not here: formatting the copied text (the engine's formatter does that, so it matches reads),
//! the key bindings (the supervisor turns keys into `CopyRequest`s), drawing the overlay.

mod motion;
pub mod query;
mod search;
mod select;

use std::rc::Rc;

use herdr_protocol::ipc::{CopyRequest, CopySearch, CopyView};

pub use select::word_at;

/// A cell in screen coordinates (row 0: the oldest history row). Ordered in reading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub row: u32,
    pub col: u16,
}

impl Pos {
    pub const fn new(row: u32, col: u16) -> Self {
        Self { row, col }
    }
}

/// One row of the document: the text of each cell (`""` for the right half of a wide character,
/// `" "` for a blank cell) and whether it soft-wraps into the next row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocRow {
    pub cells: Vec<String>,
    pub wrapped: bool,
}

impl DocRow {
    /// A row from plain text, one cell per character, wide characters followed by a spacer,
    /// padded with blanks to `cols` (for tests and the in-memory document).
    pub fn from_text(text: &str, cols: u16, wide: impl Fn(char) -> bool) -> Self {
        let mut cells = Vec::with_capacity(usize::from(cols));
        for c in text.chars() {
            cells.push(c.to_string());
            if wide(c) {
                cells.push(String::new());
            }
        }
        cells.resize(usize::from(cols).max(cells.len()), " ".to_owned());
        Self { cells, wrapped: false }
    }

    pub(crate) fn cell(&self, col: u16) -> &str {
        self.cells.get(usize::from(col)).map_or(" ", String::as_str)
    }

    /// Shows nothing: every cell blank (spacers only follow wide characters, so none here).
    pub(crate) fn is_blank(&self) -> bool {
        self.cells.iter().all(|c| c.chars().all(char::is_whitespace))
    }
}

/// What copy mode reads: the terminal's rows and where its viewport is.
pub trait CopyDocument {
    /// Rows in the document (history plus the live screen); at least 1.
    fn row_count(&self) -> u32;
    /// Cells per row; at least 1.
    fn cols(&self) -> u16;
    /// One row; rows past the end read as blank.
    fn row(&self, row: u32) -> Rc<DocRow>;
    /// The document row shown at the top of the viewport.
    fn viewport_top(&self) -> u32;
    /// Rows the viewport shows (the terminal's height).
    fn viewport_height(&self) -> u32;
    /// Where copy mode starts: the program's cursor if the viewport shows it.
    fn program_cursor(&self) -> Option<Pos>;
    /// The row's text when it is cheaper to get than its cells (blanks may differ, the rest in
    /// order): search skips rows whose text cannot hold the query. `None`: no shortcut.
    fn row_text_hint(&self, _row: u32) -> Option<&str> {
        None
    }
}

/// Copy mode's cursor, the selection and the last search. `active` false is a mouse selection
/// alone (no cursor drawn, motions ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyState {
    pub active: bool,
    pub cursor: Pos,
    /// The column `j`/`k` aim for (`u16::MAX`: the end of the line, after `$`).
    pub desired_col: u16,
    pub anchor: Option<Pos>,
    pub search: Option<CopySearch>,
    /// The mouse moved (or a word was picked) since the last press, so the selection is not an
    /// empty click.
    pub dragged: bool,
}

impl CopyState {
    fn at(cursor: Pos, active: bool) -> Self {
        Self { active, cursor, desired_col: cursor.col, anchor: None, search: None, dragged: false }
    }

    /// The selected span in reading order, inclusive; the end widened over a wide character's
    /// spacer so the whole character is covered.
    pub fn selection(&self, doc: &impl CopyDocument) -> Option<(Pos, Pos)> {
        let anchor = self.anchor?;
        let (start, end) = if anchor <= self.cursor { (anchor, self.cursor) } else { (self.cursor, anchor) };
        Some((start, select::cover_wide(doc, end)))
    }
}

/// What the terminal must do after a request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// Copy the text of this span (inclusive, reading order).
    pub copy: Option<(Pos, Pos)>,
    /// Put this row at the top of the viewport.
    pub view_top: Option<u32>,
    /// Copy mode ended: the viewport goes back to the live screen.
    pub to_bottom: bool,
}

/// Applies one request to `state` (None: neither copy mode nor a mouse selection).
pub fn apply(state: &mut Option<CopyState>, req: &CopyRequest, doc: &impl CopyDocument) -> Applied {
    let mut out = Applied::default();
    match req {
        CopyRequest::Enter => {
            let start = doc.program_cursor().unwrap_or_else(|| {
                let last_shown = doc.viewport_top() + doc.viewport_height().saturating_sub(1);
                Pos::new(last_shown.min(doc.row_count().saturating_sub(1)), 0)
            });
            match state {
                // Entering over a mouse selection keeps it, with the cursor at its end.
                Some(s) if !s.active => s.active = true,
                Some(_) => {}
                None => *state = Some(CopyState::at(start, true)),
            }
        }
        CopyRequest::Leave => {
            out.to_bottom = state.as_ref().is_some_and(|s| s.active);
            *state = None;
        }
        CopyRequest::Yank => {
            if let Some(s) = state.take() {
                out.copy = Some(s.selection(doc).unwrap_or_else(|| {
                    (Pos::new(s.cursor.row, 0), Pos::new(s.cursor.row, doc.cols().saturating_sub(1)))
                }));
                out.to_bottom = s.active;
            }
        }
        CopyRequest::SelectStart { col, row } => {
            let at = viewport_pos(doc, *col, *row);
            let s = state.get_or_insert_with(|| CopyState::at(at, false));
            move_cursor(s, at);
            s.anchor = Some(at);
            s.dragged = false;
        }
        CopyRequest::SelectExtend { col, row } => {
            if let Some(s) = state.as_mut().filter(|s| s.anchor.is_some()) {
                let height = doc.viewport_height();
                let col = (*col).min(doc.cols() - 1);
                let at = match u32::try_from(*row) {
                    // Dragging above the view scrolls it back a row and selects to its top row.
                    Err(_) => {
                        let top = doc.viewport_top().saturating_sub(1);
                        out.view_top = Some(top);
                        motion::snap_left(doc, Pos::new(top, col))
                    }
                    // Dragging below the view scrolls it by a row and selects to its bottom row.
                    Ok(row) if row >= height => {
                        let top = clamp_top(doc, doc.viewport_top() + 1);
                        out.view_top = Some(top);
                        Pos::new((top + height - 1).min(doc.row_count() - 1), col)
                    }
                    Ok(row) => viewport_pos(doc, col, u16::try_from(row).unwrap_or(u16::MAX)),
                };
                move_cursor(s, at);
                s.dragged = true;
            }
        }
        CopyRequest::SelectWord { col, row } => {
            let at = viewport_pos(doc, *col, *row);
            let (start, end) = word_at(doc, at);
            let s = state.get_or_insert_with(|| CopyState::at(at, false));
            s.anchor = Some(start);
            move_cursor(s, end);
            s.dragged = true;
        }
        CopyRequest::SelectFinish => finish_selection(state, doc, &mut out),
        CopyRequest::SelectClear => match state {
            Some(s) if s.active => s.anchor = None,
            _ => *state = None,
        },
        CopyRequest::Motion(_)
        | CopyRequest::ToggleSelection
        | CopyRequest::ClearSelection
        | CopyRequest::Search { .. }
        | CopyRequest::SearchAgain { .. } => {
            // Keyboard requests only mean something in copy mode.
            if let Some(s) = state.as_mut().filter(|s| s.active) {
                out.view_top = keyboard(s, req, doc);
            }
        }
    }
    out
}

/// `SelectFinish`: a drag (or a picked word) copies; a click without a drag drops the empty
/// selection (and a mouse-only state altogether).
fn finish_selection(state: &mut Option<CopyState>, doc: &impl CopyDocument, out: &mut Applied) {
    let Some(s) = state.as_mut() else { return };
    if s.anchor.is_none() {
        return;
    }
    if s.dragged {
        out.copy = s.selection(doc);
    } else if s.active {
        s.anchor = None;
    } else {
        *state = None;
    }
}

/// The keyboard requests of copy mode; returns the viewport top the view must move to, if any.
fn keyboard(s: &mut CopyState, req: &CopyRequest, doc: &impl CopyDocument) -> Option<u32> {
    let mut top = doc.viewport_top();
    match req {
        CopyRequest::Motion(m) => {
            let moved = motion::apply(s, *m, doc);
            if let Some(delta) = moved.scroll {
                top = clamp_top(doc, top.saturating_add_signed(delta));
            }
        }
        CopyRequest::ToggleSelection => {
            s.anchor = if s.anchor.is_some() { None } else { Some(s.cursor) };
        }
        CopyRequest::ClearSelection => {
            s.anchor = None;
            s.search = None;
        }
        CopyRequest::Search { query, backward } => search::run(s, doc, query, *backward, false),
        CopyRequest::SearchAgain { reverse } => {
            if let Some(last) = s.search.clone() {
                search::run(s, doc, &last.query, last.backward, *reverse);
            }
        }
        _ => {}
    }
    let top = follow(doc, top, s.cursor.row);
    (top != doc.viewport_top()).then_some(top)
}

/// The smallest move of a viewport starting at `top` that shows `row`.
fn follow(doc: &impl CopyDocument, top: u32, row: u32) -> u32 {
    let height = doc.viewport_height().max(1);
    let top = if row < top {
        row
    } else if row >= top + height {
        row + 1 - height
    } else {
        top
    };
    clamp_top(doc, top)
}

/// The viewport cannot start past the live screen's top.
fn clamp_top(doc: &impl CopyDocument, top: u32) -> u32 {
    top.min(doc.row_count().saturating_sub(doc.viewport_height()))
}

fn viewport_pos(doc: &impl CopyDocument, col: u16, row: u16) -> Pos {
    let row = (doc.viewport_top() + u32::from(row)).min(doc.row_count().saturating_sub(1));
    motion::snap_left(doc, Pos::new(row, col.min(doc.cols().saturating_sub(1))))
}

fn move_cursor(s: &mut CopyState, to: Pos) {
    s.cursor = to;
    s.desired_col = to.col;
}

/// The overlay for the document's viewport as it is now, in viewport coordinates (`(col, row)`).
pub fn view(state: &CopyState, doc: &impl CopyDocument) -> CopyView {
    let (top, height, cols) = (doc.viewport_top(), doc.viewport_height(), doc.cols());
    let shown = |row: u32| row >= top && row < top + height;
    let to_view = |p: Pos| (p.col, u16::try_from(p.row - top).unwrap_or(u16::MAX));
    let cursor = (state.active && shown(state.cursor.row)).then(|| to_view(state.cursor));
    let selection = state.selection(doc).and_then(|(start, end)| {
        if end.row < top || start.row >= top + height {
            return None;
        }
        let first = if start.row < top { (0, 0) } else { to_view(start) };
        let last = if end.row >= top + height {
            (cols.saturating_sub(1), u16::try_from(height - 1).unwrap_or(u16::MAX))
        } else {
            to_view(end)
        };
        Some((first, last))
    });
    CopyView { cursor, active: state.active, selection, search: state.search.clone() }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_motion;
