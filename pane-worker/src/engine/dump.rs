//! A faithful dump of the terminal, for handing a pane to a new worker binary: VT bytes that,
//! fed into a fresh terminal of the same size, rebuild the whole scrollback and screen, the
//! cursor, the modes and the title. With the alternate screen active, both screens: the primary's
//! history must survive a vim or less running over it.
//!
//! Everything is written by libghostty-vt's own `Formatter` in VT format with its extras; this
//! module only puts the pieces in an order a fresh terminal replays correctly:
//!
//! 1. the primary screen's content (unwrapped, so soft wraps wrap again), padded with blank rows
//!    so history and screen split at the same row, then its per-screen state (pen, charsets,
//!    protection, kitty keyboard flags, hyperlink);
//! 2. with the alternate screen active: the mode that entered it (`?1049h` also saves the primary
//!    cursor just placed, as the program's own switch did), then the alternate screen the same way;
//! 3. the terminal-wide state after all content, so no mode (autowrap off, insert mode, origin)
//!    changes how the content is replayed: palette, modes, scrolling region, tabstops, OSC 7
//!    working directory, keyboard modes;
//! 4. the title (OSC 2), the cursor's shape (DECSCUSR), and last the active screen's cursor
//!    position, since a scrolling region or a tabstop report moves the cursor. A pending wrap
//!    there (the program printed into the last column; its next character starts the next row)
//!    is made again the only way a terminal offers: the cell under the cursor is printed once
//!    more, then the pen put back. A final dump ([`Engine::dump_final`]) then adds the cursor
//!    the program saved (DECSC).
//!
//! The formatter only reads the active screen, so the primary is reached by switching the
//! terminal with the legacy `?47l`, which neither clears nor saves anything, and back with `?47h`.
//!
//! The archived history (`history`) comes first, as the primary screen's oldest rows.
//!
//! Not kept: cell hyperlinks (the VT formatter writes none), the saved cursor's pending wrap,
//! the cursor position under origin mode (left where the scrolling region puts it), images.

use libghostty_vt::{
    fmt::{Format, Formatter, FormatterOptions},
    screen::{CellWide, Screen},
    selection::Selection,
    terminal::{Mode, Point, PointCoordinate},
};

use super::{Engine, EngineError};

/// The modes that switch to the alternate screen, the one to re-enter with first.
const ALT_SCREEN_MODES: [Mode; 3] = [Mode::ALT_SCREEN_SAVE, Mode::ALT_SCREEN, Mode::ALT_SCREEN_LEGACY];

#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("the terminal formatter wrote its {0} somewhere unexpected")]
    Layout(&'static str),
}

impl From<libghostty_vt::Error> for DumpError {
    fn from(err: libghostty_vt::Error) -> Self {
        Self::Engine(EngineError::Vt(err))
    }
}

/// A dump made by [`Engine::dump_final`].
#[derive(Debug)]
pub struct FinalDump {
    pub bytes: Vec<u8>,
    /// Where the saved cursor's part starts.
    cursor_at: usize,
}

impl FinalDump {
    /// The part that saves the program's saved cursor again and puts the cursor and pen back:
    /// fed to the dumped terminal, it undoes what reading the saved cursor changed.
    pub fn cursor_state(&self) -> &[u8] {
        &self.bytes[self.cursor_at..]
    }
}

/// Which extras one formatting pass adds around the content.
#[derive(Debug, Clone, Copy)]
enum Extras {
    /// None: the content alone.
    Content,
    /// Per-screen state, written after the content.
    Screen,
    /// Palette and modes, written before the content.
    TerminalBefore,
    /// Scrolling region, tabstops, working directory, keyboard modes, written after it.
    TerminalAfter,
    /// The pen and the character sets alone (what a saved cursor holds besides its place).
    Pen,
}

impl Engine {
    /// The dump described in the module docs. Leaves the terminal as it was.
    pub fn dump(&mut self) -> Result<Vec<u8>, DumpError> {
        let alt_mode = self.alt_screen_mode()?;
        // The archived history first: it is the primary screen's oldest rows.
        let mut out = self.archive.replay();
        match alt_mode {
            None => self.dump_screen(&mut out)?,
            Some(mode) => {
                let legacy = self.term.mode(Mode::ALT_SCREEN_LEGACY)?;
                self.term.vt_write(b"\x1b[?47l");
                let primary = self.dump_screen(&mut out);
                self.term.vt_write(b"\x1b[?47h");
                // `?47h` set the legacy flag; put back what the program had.
                self.term.set_mode(Mode::ALT_SCREEN_LEGACY, legacy)?;
                primary?;
                out.extend_from_slice(format!("\x1b[?{}h\x1b[H", mode.value()).as_bytes());
                self.dump_screen(&mut out)?;
            }
        }
        let before = self.format(Extras::TerminalBefore)?;
        let content = self.format(Extras::Content)?;
        let before = before.strip_suffix(content.as_slice()).ok_or(DumpError::Layout("palette and modes"))?;
        out.extend(without_alt_screen_modes(before));
        let after = self.format(Extras::TerminalAfter)?;
        out.extend_from_slice(
            after.strip_prefix(content.as_slice()).ok_or(DumpError::Layout("terminal state"))?,
        );
        if let Some(title) = self.term.title().ok().filter(|t| !t.is_empty()) {
            let printable: String = title.chars().filter(|c| !c.is_control()).collect();
            out.extend_from_slice(format!("\x1b]2;{printable}\x1b\\").as_bytes());
        }
        if let Some(shape) = super::damage::cursor_shape_sequence(&self.term)? {
            out.extend_from_slice(&shape);
        }
        if !self.term.mode(Mode::ORIGIN)? {
            out.extend(self.cursor_placement()?);
        }
        Ok(out)
    }

    /// The bytes that put the active screen's cursor back where it is, its pending wrap with it.
    fn cursor_placement(&self) -> Result<Vec<u8>, DumpError> {
        let (x, y) = (self.term.cursor_x()?, self.term.cursor_y()?);
        let at = |x: u16| format!("\x1b[{};{}H", u32::from(y) + 1, u32::from(x) + 1).into_bytes();
        if !self.term.is_cursor_pending_wrap()? {
            return Ok(at(x));
        }
        let cell = |x: u16| self.term.grid_ref(Point::Active(PointCoordinate { x, y: u32::from(y) }));
        // A wide character ends the row with its tail: it is printed from its head.
        let head = if x > 0 && cell(x)?.cell()?.wide()? == CellWide::SpacerTail { x - 1 } else { x };
        let (start, end) = (cell(head)?, cell(x)?);
        let selection = Selection::new(start, end, false);
        let options =
            FormatterOptions::new().with_format(Format::Vt).with_trim(false).with_selection(&selection);
        let printed = Formatter::new(&self.term, options)?.format_alloc(None)?.to_vec();
        let mut out = at(head);
        // Plain pen and ASCII sets, so the cell is printed as it is (a `q` stays a `q` under
        // line drawing); then the program's own pen and sets again.
        out.extend_from_slice(b"\x1b[0m\x1b(B\x0f");
        out.extend(printed);
        out.extend(self.pen()?);
        Ok(out)
    }

    /// [`Engine::dump`] for a terminal about to be replaced by the dump's (a hand-over, a
    /// rehydration), which also carries the cursor the program saved (DECSC): the terminal only
    /// tells it by restoring it (DECRC), so this leaves the cursor changed; the dump's
    /// [`FinalDump::cursor_state`] gives it back. Not kept when either cursor is under origin
    /// mode.
    pub fn dump_final(&mut self) -> Result<FinalDump, DumpError> {
        let mut bytes = self.dump()?;
        let cursor_at = bytes.len();
        if self.term.mode(Mode::ORIGIN)? {
            return Ok(FinalDump { bytes, cursor_at });
        }
        let here = self.cursor_placement()?;
        let pen = self.pen()?;
        self.term.vt_write(b"\x1b8");
        // The terminal has changed: from here nothing fails the dump, it only loses the saved
        // cursor (and the caller puts back what the restore changed).
        let saved =
            match (self.term.mode(Mode::ORIGIN), self.term.cursor_x(), self.term.cursor_y(), self.pen()) {
                (Ok(false), Ok(x), Ok(y), Ok(saved_pen)) => Some((x, y, saved_pen)),
                _ => None,
            };
        let at = |(x, y): (u16, u16)| format!("\x1b[{};{}H", u32::from(y) + 1, u32::from(x) + 1);
        if let Some((x, y, saved_pen)) = saved {
            bytes.extend_from_slice(at((x, y)).as_bytes());
            bytes.extend_from_slice(&saved_pen);
            bytes.extend_from_slice(b"\x1b7");
        }
        bytes.extend_from_slice(&pen);
        bytes.extend(here);
        Ok(FinalDump { bytes, cursor_at })
    }

    /// The bytes that set the active screen's pen and character sets.
    fn pen(&self) -> Result<Vec<u8>, DumpError> {
        let content = self.format(Extras::Content)?;
        let with_pen = self.format(Extras::Pen)?;
        Ok(with_pen.strip_prefix(content.as_slice()).ok_or(DumpError::Layout("pen"))?.to_vec())
    }

    /// Builds the engine a dump came from: a fresh terminal of `cols` x `rows` fed `dump`, its
    /// title and working directory known (for the next supervisor) but not reported as changes,
    /// `revision` carried on.
    pub fn restore(cols: u16, rows: u16, dump: &[u8], revision: u64) -> Result<Self, EngineError> {
        Self::restore_with(cols, rows, dump, revision, super::scrollback_limit(), true)
    }

    /// [`Engine::restore`] with history budget `limit`; with `spill` false the history stays in
    /// the terminal (a rehydration, which wants it there).
    pub(super) fn restore_with(
        cols: u16,
        rows: u16,
        dump: &[u8],
        revision: u64,
        limit: usize,
        spill: bool,
    ) -> Result<Self, EngineError> {
        let mut engine = Self::with_scrollback_limit(cols, rows, limit)?;
        engine.feed_with(dump, spill);
        // Nobody asked: whatever the terminal would answer is dropped, no bell rang.
        let _ = engine.take_replies();
        let _ = engine.take_events();
        engine.revision = revision;
        Ok(engine)
    }

    /// The mode through which the alternate screen is active, `None` on the primary screen.
    fn alt_screen_mode(&self) -> Result<Option<Mode>, EngineError> {
        if self.term.active_screen()? != Screen::Alternate {
            return Ok(None);
        }
        for mode in ALT_SCREEN_MODES {
            if self.term.mode(mode)? {
                return Ok(Some(mode));
            }
        }
        Ok(Some(Mode::ALT_SCREEN_LEGACY))
    }

    /// The active screen: content, padding to its row count, then its own state.
    fn dump_screen(&self, out: &mut Vec<u8>) -> Result<(), DumpError> {
        let content = self.format(Extras::Content)?;
        let with_state = self.format(Extras::Screen)?;
        let state = with_state.strip_prefix(content.as_slice()).ok_or(DumpError::Layout("screen state"))?;
        out.extend_from_slice(&content);
        // A fresh terminal's cursor starts on the first row, so "no content" still uses one.
        let written = self.content_rows()?.max(1);
        let total = self.term.total_rows()?;
        for _ in written..total {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(state);
        Ok(())
    }

    /// How many rows the content pass writes: one per row up to the last the formatter keeps,
    /// counted in the wrap-preserving output, which ends every row but the last with CRLF.
    fn content_rows(&self) -> Result<usize, EngineError> {
        let options = FormatterOptions::new().with_format(Format::Vt).with_unwrap(false).with_trim(false);
        let rows = Formatter::new(&self.term, options)?.format_alloc(None)?;
        if rows.is_empty() {
            return Ok(0);
        }
        Ok(rows.windows(2).filter(|w| w == b"\r\n").count() + 1)
    }

    fn format(&self, extras: Extras) -> Result<Vec<u8>, EngineError> {
        let base = FormatterOptions::new().with_format(Format::Vt).with_unwrap(true).with_trim(false);
        let options = match extras {
            Extras::Content => base,
            Extras::Screen => base
                .with_style(true)
                .with_hyperlink(true)
                .with_protection(true)
                .with_kitty_keyboard(true)
                .with_charsets(true),
            Extras::TerminalBefore => base.with_palette(true).with_modes(true),
            Extras::TerminalAfter => {
                base.with_scrolling_region(true).with_tabstops(true).with_pwd(true).with_keyboard(true)
            }
            Extras::Pen => base.with_style(true).with_charsets(true),
        };
        Ok(Formatter::new(&self.term, options)?.format_alloc(None)?.to_vec())
    }
}

/// `before` (palette and `CSI ? n h` / `CSI n h` mode sets) without the alternate screen modes,
/// which the dump has already entered: entering again would clear the alternate screen.
fn without_alt_screen_modes(before: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(before.len());
    let mut rest = before;
    while !rest.is_empty() {
        let next =
            rest[1..].windows(2).position(|w| w == b"\x1b[" || w == b"\x1b]").map_or(rest.len(), |i| i + 1);
        let (sequence, tail) = rest.split_at(next);
        let is_alt =
            ALT_SCREEN_MODES.iter().any(|mode| sequence == format!("\x1b[?{}h", mode.value()).as_bytes());
        if !is_alt {
            out.extend_from_slice(sequence);
        }
        rest = tail;
    }
    out
}

#[cfg(test)]
#[path = "dump_tests.rs"]
mod tests;
