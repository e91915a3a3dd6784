//! Copy mode on the real terminal: the terminal as a `copy::CopyDocument` (rows read cell by
//! cell in screen coordinates), the copy cursor and selection anchor pinned to their text with
//! tracked grid references, the viewport following the cursor, and copied text through the same
//! formatter as reads.
//!
//! Keeping positions on their text: libghostty moves a tracked reference with its cell as
//! output scrolls the screen, reflows it or prunes history. When the history limit prunes the
//! row a reference was on, the reference loses its value (`has_value` false); the position is
//! then clamped to the oldest row that is left (same column), the nearest text that still
//! exists, and the next request pins it there again. A switch to the alternate screen while copy
//! mode is on leaves the references on the primary screen; positions are clamped to the rows the
//! active screen has.
//!
//! Not here: what a request means (`copy`), when the overlay is sent (`pane`).

use std::{
    cell::{OnceCell, RefCell},
    collections::HashMap,
    rc::Rc,
};

use herdr_protocol::ipc::{CopyRequest, CopyView, ReadFormat, TextAnswer, TextQuery};
use libghostty_vt::{
    Terminal,
    fmt::{Format, Formatter, FormatterOptions},
    screen::{CellWide, TrackedGridRef},
    selection::Selection,
    terminal::{Point, PointCoordinate, PointSpace, ScrollViewport},
};

use super::{Engine, EngineError};
use crate::copy::{self, CopyDocument, CopyState, DocRow, Pos};

/// Copy mode's state plus the references that keep its positions on their text.
#[derive(Default)]
pub(super) struct CopySession {
    state: Option<CopyState>,
    cursor_ref: Option<TrackedGridRef>,
    anchor_ref: Option<TrackedGridRef>,
}

impl CopySession {
    /// The terminal was replaced by one with `added` more rows above the old ones: positions move
    /// down with their rows, and the references (to the old terminal) go; pin them again.
    pub(super) fn reattach(&mut self, added: u32) {
        self.cursor_ref = None;
        self.anchor_ref = None;
        if let Some(state) = self.state.as_mut() {
            state.cursor.row = state.cursor.row.saturating_add(added);
            if let Some(anchor) = state.anchor.as_mut() {
                anchor.row = anchor.row.saturating_add(added);
            }
        }
    }
}

/// Whether `req` can move copy mode or the view past the rows the terminal itself holds, so
/// the archived history must be back in it first. A mouse selection starts on the shown rows,
/// and leaving, clearing or copying what is selected needs nothing more.
fn reaches_history(req: &CopyRequest) -> bool {
    !matches!(
        req,
        CopyRequest::Leave
            | CopyRequest::ClearSelection
            | CopyRequest::ToggleSelection
            | CopyRequest::Yank
            | CopyRequest::SelectStart { .. }
            | CopyRequest::SelectWord { .. }
            | CopyRequest::SelectFinish
            | CopyRequest::SelectClear
    ) && !matches!(req, CopyRequest::SelectExtend { row, .. } if *row >= 0)
}

/// What a copy request did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CopyOutcome {
    /// The copied text (yank, end of a mouse selection); never empty.
    pub text: Option<String>,
    /// The viewport moved, so the screen shows other rows.
    pub scrolled: bool,
}

impl Engine {
    /// Applies one copy-mode or mouse-selection request.
    pub fn copy(&mut self, req: &CopyRequest) -> Result<CopyOutcome, EngineError> {
        if reaches_history(req) {
            self.rehydrate()?;
        }
        self.sync_copy_positions()?;
        let was_on = self.copy.state.is_some();
        let before = self.scroll_position()?;
        let applied = {
            let doc = TermDoc::new(&self.term)?;
            copy::apply(&mut self.copy.state, req, &doc)
        };
        let text = match applied.copy {
            Some((start, end)) => Some(self.format_span(start, end)?).filter(|t| !t.is_empty()),
            None => None,
        };
        if applied.to_bottom {
            self.term.scroll_viewport(ScrollViewport::Bottom);
        } else if let Some(top) = applied.view_top {
            self.term.scroll_viewport(ScrollViewport::Row(top as usize));
        }
        self.pin_copy_positions()?;
        if was_on && self.copy.state.is_none() {
            // Out of copy mode at the live screen: the history can leave the terminal again.
            self.spill();
        }
        Ok(CopyOutcome { text, scrolled: self.scroll_position()? != before })
    }

    /// The overlay for the viewport as it is now; `None` when neither copy mode nor a mouse
    /// selection is on.
    pub fn copy_view(&mut self) -> Result<Option<CopyView>, EngineError> {
        if self.copy.state.is_none() {
            return Ok(None);
        }
        self.sync_copy_positions()?;
        let doc = TermDoc::new(&self.term)?;
        Ok(self.copy.state.as_ref().map(|state| copy::view(state, &doc)))
    }

    /// Answers a question about the text from a caller's own points (copy mode and the viewport
    /// stay as they are); `None` when a point is outside the text.
    pub fn text_query(&mut self, query: &TextQuery) -> Result<Option<TextAnswer>, EngineError> {
        self.rehydrate()?;
        let doc = TermDoc::new(&self.term)?;
        let at =
            |(row, col): (u32, u16)| Some(Pos::new(row, col)).filter(|p| copy::query::contains(&doc, *p));
        let revision = self.revision();
        let answer = match query {
            TextQuery::Motion { cursor, motion } => {
                let Some(from) = at(*cursor) else { return Ok(None) };
                let to = copy::query::motion_from(&doc, from, *motion);
                TextAnswer::Moved { cursor: (to.row, to.col), revision }
            }
            TextQuery::Selection { anchor, cursor } => {
                let (Some(anchor), Some(cursor)) = (at(*anchor), at(*cursor)) else { return Ok(None) };
                let (start, end) = copy::query::span(&doc, anchor, cursor);
                TextAnswer::Selected(self.format_span(start, end)?)
            }
            TextQuery::Search { query, backward, cursor } => {
                let Some(from) = at(*cursor) else { return Ok(None) };
                let found = copy::query::search(&doc, from, query, *backward);
                let point = |p: Pos| (p.row, p.col);
                TextAnswer::Found {
                    matches: found.matches.into_iter().map(|(a, b)| (point(a), point(b))).collect(),
                    total: found.total,
                    current: found.current,
                    revision,
                }
            }
        };
        Ok(Some(answer))
    }

    /// A mouse selection is shown outside copy mode (typing clears it).
    pub fn mouse_selection_shown(&self) -> bool {
        self.copy.state.as_ref().is_some_and(|s| !s.active)
    }

    /// Whether copy mode or a mouse selection is on (their positions are the terminal's rows).
    pub(super) fn copy_on(&self) -> bool {
        self.copy.state.is_some()
    }

    /// Reads the tracked references back into the state's screen coordinates.
    pub(super) fn sync_copy_positions(&mut self) -> Result<(), EngineError> {
        let Some(state) = self.copy.state.as_mut() else { return Ok(()) };
        let last_row = u32::try_from(self.term.total_rows()?.saturating_sub(1)).unwrap_or(u32::MAX);
        let cols = self.term.cols()?;
        let resolve = |tracked: &Option<TrackedGridRef>, old: Pos| -> Result<Pos, EngineError> {
            let point = match tracked {
                Some(t) => t.point(PointSpace::Screen)?,
                None => return Ok(old),
            };
            // No value: the row was pruned from the top of history (see the module doc).
            let (row, col) = point.map_or((0, old.col), |p| (p.y, p.x));
            Ok(Pos::new(row.min(last_row), col.min(cols.saturating_sub(1))))
        };
        state.cursor = resolve(&self.copy.cursor_ref, state.cursor)?;
        if let Some(anchor) = state.anchor {
            state.anchor = Some(resolve(&self.copy.anchor_ref, anchor)?);
        }
        Ok(())
    }

    /// Points the tracked references at the state's positions (dropping them when unused, since
    /// each one costs the terminal bookkeeping on every change).
    pub(super) fn pin_copy_positions(&mut self) -> Result<(), EngineError> {
        let Some(state) = self.copy.state.as_ref() else {
            self.copy.cursor_ref = None;
            self.copy.anchor_ref = None;
            return Ok(());
        };
        let (cursor, anchor) = (state.cursor, state.anchor);
        pin(&mut self.term, &mut self.copy.cursor_ref, Some(cursor))?;
        pin(&mut self.term, &mut self.copy.anchor_ref, anchor)
    }

    /// The plain text of an inclusive span of cells: soft-wrapped rows joined, trailing blanks
    /// trimmed per line, trailing blank lines dropped.
    fn format_span(&self, start: Pos, end: Pos) -> Result<String, EngineError> {
        let start = PointCoordinate { x: start.col, y: start.row };
        let end = PointCoordinate { x: end.col, y: end.row };
        self.format_points(start, end, ReadFormat::Text, true)
    }
}

fn pin(
    term: &mut Terminal<'static, 'static>,
    slot: &mut Option<TrackedGridRef>,
    at: Option<Pos>,
) -> Result<(), EngineError> {
    let Some(at) = at else {
        *slot = None;
        return Ok(());
    };
    let point = Point::Screen(PointCoordinate { x: at.col, y: at.row });
    match slot {
        Some(tracked) => {
            tracked.set(term, point)?;
        }
        None => *slot = Some(term.track_grid_ref(point)?),
    }
    Ok(())
}

/// The terminal's active screen as copy mode's document. Rows are read on demand and kept for
/// the one request this lives for (the terminal does not change meanwhile).
struct TermDoc<'t> {
    term: &'t Terminal<'static, 'static>,
    rows: u32,
    cols: u16,
    top: u32,
    height: u32,
    cursor: Option<Pos>,
    cache: RefCell<HashMap<u32, Rc<DocRow>>>,
    /// Every row's plain text from one formatter pass, made on the first search hint asked for
    /// (reading cells one by one costs far more); `None` inside when it cannot be trusted.
    lines: OnceCell<Option<Vec<String>>>,
}

impl<'t> TermDoc<'t> {
    fn new(term: &'t Terminal<'static, 'static>) -> Result<Self, EngineError> {
        let rows = u32::try_from(term.total_rows()?).unwrap_or(u32::MAX).max(1);
        let height = u32::from(term.rows()?);
        let top = u32::try_from(term.scrollbar()?.offset).unwrap_or(u32::MAX);
        let active_top = rows.saturating_sub(height);
        let cursor_row = active_top + u32::from(term.cursor_y()?);
        let cursor = (cursor_row >= top && cursor_row < top + height)
            .then(|| Pos::new(cursor_row, term.cursor_x().unwrap_or(0)));
        Ok(Self {
            term,
            rows,
            cols: term.cols()?.max(1),
            top,
            height,
            cursor,
            cache: RefCell::default(),
            lines: OnceCell::new(),
        })
    }

    fn read_row(&self, row: u32) -> Result<DocRow, EngineError> {
        let mut cells = Vec::with_capacity(usize::from(self.cols));
        let mut wrapped = false;
        let mut buf = ['\0'; 16];
        for x in 0..self.cols {
            let at = self.term.grid_ref(Point::Screen(PointCoordinate { x, y: row }))?;
            let cell = at.cell()?;
            if x == 0 {
                wrapped = at.row()?.is_wrapped()?;
            }
            let text = match cell.wide()? {
                CellWide::SpacerTail => String::new(),
                CellWide::SpacerHead => " ".to_owned(),
                CellWide::Narrow | CellWide::Wide if !cell.has_text()? => " ".to_owned(),
                CellWide::Narrow | CellWide::Wide => match at.graphemes(&mut buf) {
                    Ok(n) => buf[..n].iter().collect(),
                    Err(libghostty_vt::Error::OutOfSpace { required }) => {
                        let mut big = vec!['\0'; required];
                        let n = at.graphemes(&mut big)?;
                        big[..n].iter().collect()
                    }
                    Err(err) => return Err(err.into()),
                },
            };
            cells.push(text);
        }
        Ok(DocRow { cells, wrapped })
    }
}

impl CopyDocument for TermDoc<'_> {
    fn row_count(&self) -> u32 {
        self.rows
    }

    fn cols(&self) -> u16 {
        self.cols
    }

    fn row(&self, row: u32) -> Rc<DocRow> {
        if let Some(hit) = self.cache.borrow().get(&row) {
            return Rc::clone(hit);
        }
        let read = if row < self.rows { self.read_row(row) } else { Ok(DocRow::default()) };
        let read = Rc::new(read.unwrap_or_else(|err| {
            // A row the terminal cannot hand back reads as blank: motions and search skip it
            // rather than fail the whole request.
            log::warn!("copy mode could not read row {row}: {err}");
            DocRow::default()
        }));
        self.cache.borrow_mut().insert(row, Rc::clone(&read));
        read
    }

    fn viewport_top(&self) -> u32 {
        self.top
    }

    fn viewport_height(&self) -> u32 {
        self.height
    }

    fn program_cursor(&self) -> Option<Pos> {
        self.cursor
    }

    fn row_text_hint(&self, row: u32) -> Option<&str> {
        let lines = self.lines.get_or_init(|| {
            screen_lines(self.term, self.rows, self.cols)
                .inspect_err(|err| log::warn!("copy mode could not format the screen: {err}"))
                .ok()
                .filter(|lines| lines.len() <= self.rows as usize)
        });
        let lines = lines.as_ref()?;
        // Rows past the formatted text are trailing blank rows the formatter left out.
        Some(lines.get(row as usize).map_or("", String::as_str))
    }
}

/// The whole screen as plain text, one line per row (soft wraps kept as row breaks).
fn screen_lines(term: &Terminal<'static, 'static>, rows: u32, cols: u16) -> Result<Vec<String>, EngineError> {
    let start = term.grid_ref(Point::Screen(PointCoordinate { x: 0, y: 0 }))?;
    let end = term.grid_ref(Point::Screen(PointCoordinate { x: cols - 1, y: rows - 1 }))?;
    let selection = Selection::new(start, end, false);
    let options = FormatterOptions::new()
        .with_format(Format::Plain)
        .with_unwrap(false)
        .with_trim(true)
        .with_selection(&selection);
    let bytes = Formatter::new(term, options)?.format_alloc(None)?;
    let text = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
    Ok(text.split('\n').map(str::to_owned).collect())
}

#[cfg(test)]
#[path = "copy_tests.rs"]
mod tests;
