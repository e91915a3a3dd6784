//! The pane's terminal: the only module that touches libghostty-vt. It consumes PTY output,
//! collects what the terminal wants written back (DSR/DA replies), reports title and OSC 7 cwd
//! changes and rung bells, compresses its history when asked, renders each read source as text,
//! encodes keys for the program's keyboard mode, and reads changed screen rows back as wire cells
//! for a visible pane (`damage`).
//!
//! Not here: which rows a source covers and how `lines` cuts text (`reads`), the key grammar
//! (`keys`), any I/O. All libghostty-vt handles are `!Send`; an `Engine` lives on one thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::{cell::RefCell, rc::Rc};

use herdr_protocol::ipc::{GridDamage, ReadFormat, ReadOutput, ReadSource, ReadSpec};
use libghostty_vt::{
    Terminal, TerminalOptions,
    fmt::{Format, Formatter, FormatterOptions},
    key::{Action, Encoder, Event, Key, KittyKeyFlags, Mods},
    selection::Selection,
    terminal::{
        CompressionActivity, CompressionMode, CompressionResult, ConformanceLevel, DeviceAttributeFeature,
        DeviceAttributes, DeviceType, Mode, ModeKind, Point, PointCoordinate, PrimaryDeviceAttributes,
        SecondaryDeviceAttributes, SizeReportSize, TertiaryDeviceAttributes,
    },
};

mod archive;
mod copy;
mod damage;
mod dump;
mod history;
mod pointer;

pub use copy::CopyOutcome;
pub use dump::{DumpError, FinalDump};
pub use pointer::MouseEffect;

use crate::{
    cwd,
    keys::{KeyCombo, KeyName},
    reads::{self, RowRange},
};

/// Scrollback budget in bytes (ghostty limits history by memory, not lines; upstream herdr's
/// `advanced.scrollback_limit_bytes` default).
pub const SCROLLBACK_LIMIT_BYTES: usize = 10_000_000;

/// This worker's budget: [`SCROLLBACK_LIMIT_BYTES`] unless the command line set another
/// ([`set_scrollback_limit`]). One process is one pane, so the budget is the process's.
static SCROLLBACK_LIMIT: AtomicUsize = AtomicUsize::new(SCROLLBACK_LIMIT_BYTES);

/// Sets the budget of every terminal this process makes from now on (`--scrollback-limit-bytes`).
pub fn set_scrollback_limit(bytes: usize) {
    SCROLLBACK_LIMIT.store(bytes, Ordering::Relaxed);
}

fn scrollback_limit() -> usize {
    SCROLLBACK_LIMIT.load(Ordering::Relaxed)
}

/// A nominal cell size in pixels. Panes have no pixels; image protocols and pixel size reports
/// (XTWINOPS 14/16) still need sane numbers.
const CELL_WIDTH_PX: u32 = 8;
const CELL_HEIGHT_PX: u32 = 16;

/// Grapheme clustering (DEC 2027): upstream herdr patches ghostty to default it on and keep it on
/// across RIS; the stock library has it off, so we set it ourselves.
const GRAPHEME_CLUSTER: Mode = Mode::new(2027, ModeKind::Dec);

/// What DA1/DA2/DA3 queries are answered with: a VT220-class colour terminal, as ghostty reports.
const DEVICE_ATTRIBUTES: DeviceAttributes = DeviceAttributes {
    primary: PrimaryDeviceAttributes::new(ConformanceLevel::LEVEL_2, &[DeviceAttributeFeature::ANSI_COLOR]),
    secondary: SecondaryDeviceAttributes {
        device_type: DeviceType::VT220,
        firmware_version: 10,
        rom_cartridge: 0,
    },
    tertiary: TertiaryDeviceAttributes { unit_id: 0 },
};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("terminal: {0}")]
    Vt(#[from] libghostty_vt::Error),
    #[error("terminal size {cols}x{rows} is not usable")]
    BadSize { cols: u16, rows: u16 },
    #[error(
        "the archived history could not be put back: the terminal formatter wrote its {0} somewhere unexpected"
    )]
    Rehydrate(&'static str),
}

/// A change the program announced through an escape sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineEvent {
    /// OSC 0/2 title; `None` when it was cleared.
    Title(Option<String>),
    /// Working directory reported by OSC 7 (or OSC 9;9 / 1337), as a decoded local path.
    Cwd(String),
    /// The program rang the bell at least once (BELs of one batch of output count once).
    Bell,
}

/// State the terminal's callbacks write into during `vt_write`.
#[derive(Debug, Default)]
struct Effects {
    replies: RefCell<Vec<u8>>,
    title_changed: RefCell<bool>,
    pwd_changed: RefCell<bool>,
    bell_rung: RefCell<bool>,
}

pub struct Engine {
    term: Terminal<'static, 'static>,
    encoder: Encoder<'static>,
    event: Event<'static>,
    effects: Rc<Effects>,
    last_title: Option<String>,
    last_pwd: Option<String>,
    /// The previous chunk's last bytes, for a RIS or scrollback erase split across chunks.
    carry: history::Carry,
    revision: u64,
    /// Present while the pane is visible: the render state that tracks changed rows.
    screen: Option<damage::ScreenReader>,
    mouse_encoder: pointer::MouseEncoder,
    mouse_event: pointer::MouseEvent,
    /// Copy mode / mouse selection (empty when neither is on).
    copy: copy::CopySession,
    /// The terminal's compression activity when the last history compression pass finished
    /// (`None`: never ran); see [`Engine::compression_due`].
    compressed: Option<CompressionActivity>,
    /// History that left the terminal (`history`).
    archive: archive::Archive,
    /// The history budget in bytes (`scrollback_limit_bytes`).
    limit: usize,
    /// When output last moved history into the archive (`history`).
    last_spill: Option<std::time::Instant>,
    /// A spill erased a large history, whose pages the terminal still holds (`history`).
    pages_retained: bool,
    /// The last output ended between sequences (`history::ends_clean`).
    ended_clean: bool,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("revision", &self.revision).finish_non_exhaustive()
    }
}

impl Engine {
    pub fn new(cols: u16, rows: u16) -> Result<Self, EngineError> {
        Self::with_scrollback_limit(cols, rows, scrollback_limit())
    }

    /// As [`Engine::new`] with another history budget (tests reach the limit with it).
    pub(crate) fn with_scrollback_limit(cols: u16, rows: u16, bytes: usize) -> Result<Self, EngineError> {
        if cols == 0 || rows == 0 {
            return Err(EngineError::BadSize { cols, rows });
        }
        let mut term = Terminal::new(TerminalOptions { cols, rows, max_scrollback: bytes })?;
        let effects = Rc::new(Effects::default());
        let replies = Rc::clone(&effects);
        let titles = Rc::clone(&effects);
        let pwds = Rc::clone(&effects);
        let bells = Rc::clone(&effects);
        term.on_pty_write(move |_, data| replies.replies.borrow_mut().extend_from_slice(data))?
            .on_title_changed(move |_| *titles.title_changed.borrow_mut() = true)?
            .on_pwd_changed(move |_| *pwds.pwd_changed.borrow_mut() = true)?
            .on_bell(move |_| *bells.bell_rung.borrow_mut() = true)?
            .on_device_attributes(|_| Some(DEVICE_ATTRIBUTES))?
            .on_size(|term| {
                Some(SizeReportSize {
                    rows: term.rows().ok()?,
                    columns: term.cols().ok()?,
                    cell_width: CELL_WIDTH_PX,
                    cell_height: CELL_HEIGHT_PX,
                })
            })?;
        term.set_mode(GRAPHEME_CLUSTER, true)?;
        Ok(Self {
            term,
            encoder: Encoder::new()?,
            event: Event::new()?,
            effects,
            last_title: None,
            last_pwd: None,
            carry: history::Carry::default(),
            revision: 0,
            screen: None,
            mouse_encoder: pointer::MouseEncoder::new()?,
            mouse_event: pointer::MouseEvent::new()?,
            copy: copy::CopySession::default(),
            compressed: None,
            archive: archive::Archive::default(),
            limit: bytes,
            last_spill: None,
            pages_retained: false,
            ended_clean: true,
        })
    }

    /// Consumes one chunk of PTY output.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.feed_with(bytes, true);
    }

    /// [`Engine::feed`]; with `spill` false the history stays in the terminal for now.
    fn feed_with(&mut self, bytes: &[u8], spill: bool) {
        if bytes.is_empty() {
            return;
        }
        let resets = history::scan(&mut self.carry, bytes);
        self.ended_clean = history::ends_clean(self.ended_clean, bytes);
        self.term.vt_write(bytes);
        self.revision += 1;
        if resets.terminal || resets.scrollback {
            self.forget_history();
        }
        if resets.terminal {
            // RIS restored ghostty's default (2027 off); put ours back. Failure only loses
            // grapheme clustering, never output, so it is not worth failing the feed.
            if let Err(err) = self.term.set_mode(GRAPHEME_CLUSTER, true) {
                log::warn!("could not re-enable grapheme clustering after RIS: {err}");
            }
        }
        if spill {
            self.spill_if_due();
        }
    }

    /// Shows `bytes` (a saved screen) before any program runs; drops its replies and reports: nobody asked.
    pub fn replay(&mut self, bytes: &[u8]) {
        self.feed(bytes);
        let _ = (self.take_replies(), self.effects.title_changed.take(), self.effects.pwd_changed.take());
        self.effects.bell_rung.take();
    }

    /// Bytes the terminal wants written to the program (query replies), oldest first.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut *self.effects.replies.borrow_mut())
    }

    /// Title and cwd changes and whether the bell rang since the last call; repeats of the same
    /// title or cwd are not reported.
    pub fn take_events(&mut self) -> Vec<EngineEvent> {
        let mut events = Vec::new();
        if std::mem::take(&mut *self.effects.title_changed.borrow_mut()) {
            let title = self.term.title().ok().filter(|t| !t.is_empty()).map(str::to_string);
            if title != self.last_title {
                self.last_title.clone_from(&title);
                events.push(EngineEvent::Title(title));
            }
        }
        if std::mem::take(&mut *self.effects.pwd_changed.borrow_mut()) {
            let pwd = self.term.pwd().ok().and_then(cwd::path_from_report);
            if let Some(pwd) = pwd
                && Some(&pwd) != self.last_pwd.as_ref()
            {
                self.last_pwd = Some(pwd.clone());
                events.push(EngineEvent::Cwd(pwd));
            }
        }
        if std::mem::take(&mut *self.effects.bell_rung.borrow_mut()) {
            events.push(EngineEvent::Bell);
        }
        events
    }

    /// The title and OSC 7 cwd last reported by [`Engine::take_events`], for a new supervisor.
    pub fn reported(&self) -> (Option<&str>, Option<&str>) {
        (self.last_title.as_deref(), self.last_pwd.as_deref())
    }

    /// Chunks of output consumed so far.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn size(&self) -> Result<(u16, u16), EngineError> {
        Ok((self.term.cols()?, self.term.rows()?))
    }

    pub fn resize(&mut self, cols: u16, rows: u16) -> Result<(), EngineError> {
        if cols == 0 || rows == 0 {
            return Err(EngineError::BadSize { cols, rows });
        }
        if cols != self.term.cols()? {
            // The terminal reflows the rows it holds; archived ones come back first so that
            // they reflow too (the next pause archives them again, at the new width).
            if let Err(err) = self.rehydrate() {
                log::warn!("archived history keeps its width: {err}");
            }
        }
        self.term.resize(cols, rows, CELL_WIDTH_PX, CELL_HEIGHT_PX)?;
        Ok(())
    }

    /// Screen changes since the last call, for a visible pane: every row when `full` (or on the
    /// first call after [`Engine::stop_damage`]), else the rows that changed, and the cursor and
    /// modes and the copy overlay. `None` when nothing changed.
    pub fn damage(&mut self, full: bool) -> Result<Option<GridDamage>, EngineError> {
        let scroll = self.scroll_position()?;
        let copy = self.copy_view()?;
        let reader = match &mut self.screen {
            Some(reader) => reader,
            None => self.screen.insert(damage::ScreenReader::new()?),
        };
        reader.damage(&self.term, full, scroll, copy)
    }

    /// Whether history changed since the last finished compression pass (output since then), or
    /// archived blocks wait to be packed. Reading history restores the pages it touches without
    /// changing that: the next output makes the pass due again and packs them back.
    pub fn compression_due(&self) -> Result<bool, EngineError> {
        Ok(self.archive.packing_due() || self.compressed != Some(self.term.compression_activity()?))
    }

    /// One bounded step (under a millisecond) of the pass that runs once output pauses: the
    /// history collected in the terminal moves to the archive, the archive's closed blocks are
    /// packed one by one, then libghostty-vt compresses whatever history pages it still holds
    /// (rehydrated rows, while copy mode looks at them): pages are packed in place and restored
    /// transparently when read, so every reader sees the same rows. `true` while the pass has
    /// more to do.
    pub fn compress_step(&mut self) -> Result<bool, EngineError> {
        if self.pack_step() {
            return Ok(true);
        }
        match self.term.compress(CompressionMode::Incremental)? {
            CompressionResult::Pending => Ok(true),
            CompressionResult::Complete | CompressionResult::Unsupported => {
                self.compressed = Some(self.term.compression_activity()?);
                Ok(false)
            }
        }
    }

    /// The pane is hidden: drop the render state (its copy of the screen) until it shows again.
    pub fn stop_damage(&mut self) {
        self.screen = None;
    }

    /// Whether the program asked for bracketed paste (DEC 2004).
    pub fn bracketed_paste(&self) -> Result<bool, EngineError> {
        Ok(self.term.mode(Mode::BRACKETED_PASTE)?)
    }

    /// Renders one read source.
    pub fn read(&self, spec: &ReadSpec) -> Result<ReadOutput, EngineError> {
        let revision = self.revision;
        let (text, truncated) = match spec.source {
            ReadSource::Visible => self.read_screen(spec.format, spec.lines)?,
            ReadSource::Detection => self.read_screen(ReadFormat::Text, spec.lines)?,
            ReadSource::Recent => self.read_recent(spec.format, spec.lines, false)?,
            ReadSource::RecentUnwrapped => self.read_recent(spec.format, spec.lines, true)?,
        };
        Ok(ReadOutput { text, truncated, revision })
    }

    /// The live screen (screen coordinates, so a scrolled-back viewport does not matter) from its
    /// top to its last row with content; `lines` keeps the last N lines of that.
    fn read_screen(&self, format: ReadFormat, lines: Option<u32>) -> Result<(String, bool), EngineError> {
        let top = self.active_top()?;
        let rows = u32::from(self.term.rows()?);
        let text = self.format_rows(RowRange { first: top, last: top + rows - 1 }, format, false)?;
        Ok(match lines {
            Some(n) => reads::last_lines(&text, n),
            None => (text, false),
        })
    }

    fn read_recent(
        &self,
        format: ReadFormat,
        lines: Option<u32>,
        unwrap: bool,
    ) -> Result<(String, bool), EngineError> {
        let Some((range, truncated)) = reads::recent_window(self.content_last_row()?, lines) else {
            return Ok((String::new(), false));
        };
        Ok((self.format_history_rows(range, format, unwrap)?, truncated))
    }

    /// Screen-coordinate row of the active area's first row.
    fn active_top(&self) -> Result<u32, EngineError> {
        let total = self.term.total_rows()?;
        let rows = usize::from(self.term.rows()?);
        Ok(u32::try_from(total.saturating_sub(rows)).unwrap_or(u32::MAX))
    }

    /// The last row (screen coordinates over the archive and the terminal) that shows anything:
    /// the live screen's last non-blank row, or the newest history row when the screen is blank
    /// (e.g. right after a clear).
    fn content_last_row(&self) -> Result<Option<u32>, EngineError> {
        let archived = self.archived_rows();
        let top = self.active_top()?;
        let rows = u32::from(self.term.rows()?);
        let screen =
            self.format_rows(RowRange { first: top, last: top + rows - 1 }, ReadFormat::Text, false)?;
        if screen.is_empty() {
            return Ok((archived + top).checked_sub(1));
        }
        // Plain, wrap-preserving output is one line per row, with trailing blank rows dropped.
        let shown = u32::try_from(screen.split('\n').count()).unwrap_or(rows);
        Ok(Some(archived + top + shown.min(rows) - 1))
    }

    /// Formats an inclusive row range of the active screen, trailing blank lines removed.
    fn format_rows(&self, range: RowRange, format: ReadFormat, unwrap: bool) -> Result<String, EngineError> {
        let cols = self.term.cols()?;
        let start = PointCoordinate { x: 0, y: range.first };
        let end = PointCoordinate { x: cols - 1, y: range.last };
        self.format_points(start, end, format, unwrap)
    }

    /// Formats the cells from `start` to `end` (screen coordinates, inclusive, reading order),
    /// trailing blank lines removed.
    fn format_points(
        &self,
        start: PointCoordinate,
        end: PointCoordinate,
        format: ReadFormat,
        unwrap: bool,
    ) -> Result<String, EngineError> {
        let start = self.term.grid_ref(Point::Screen(start))?;
        let end = self.term.grid_ref(Point::Screen(end))?;
        let selection = Selection::new(start, end, false);
        let emit = match format {
            ReadFormat::Text => Format::Plain,
            ReadFormat::Ansi => Format::Vt,
        };
        let options = FormatterOptions::new()
            .with_format(emit)
            .with_unwrap(unwrap)
            .with_trim(true)
            .with_selection(&selection);
        let bytes = Formatter::new(&self.term, options)?.format_alloc(None)?;
        Ok(reads::tidy_formatted(&String::from_utf8_lossy(&bytes), format == ReadFormat::Ansi))
    }

    /// Encodes key presses for the program's current keyboard mode (DECCKM, keypad mode,
    /// modifyOtherKeys, kitty keyboard flags), concatenated in order.
    pub fn encode_keys(&mut self, keys: &[KeyCombo]) -> Result<Vec<u8>, EngineError> {
        self.encoder.set_options_from_terminal(&self.term);
        let mut out = Vec::new();
        for combo in keys {
            out.extend_from_slice(&self.encode_press(combo)?);
        }
        Ok(out)
    }

    /// One press of `combo` with the encoder's current options.
    fn encode_press(&mut self, combo: &KeyCombo) -> Result<Vec<u8>, EngineError> {
        describe_press(&mut self.event, combo);
        // `encode_to_vec` in libghostty-vt 0.2.2 under-reserves when the Vec already holds
        // bytes, so each press is encoded into its own buffer.
        let mut buf = [0u8; 64];
        match self.encoder.encode(&self.event, &mut buf) {
            Ok(n) => Ok(buf[..n].to_vec()),
            Err(libghostty_vt::Error::OutOfSpace { required }) => {
                let mut big = vec![0u8; required];
                let n = self.encoder.encode(&self.event, &mut big)?;
                big.truncate(n);
                Ok(big)
            }
            Err(err) => Err(err.into()),
        }
    }

    /// What a key the user typed must reach the program as: `Some` with the encoding for the
    /// program's keyboard mode when kitty keyboard flags or modifyOtherKeys make it differ from
    /// a legacy terminal's, `None` when the bytes the user's terminal sent are already right.
    pub fn reencode_typed_key(&mut self, combo: &KeyCombo) -> Result<Option<Vec<u8>>, EngineError> {
        self.encoder.set_options_from_terminal(&self.term);
        let moded = self.encode_press(combo)?;
        // Same cursor-key and keypad modes, minus the two extended keyboard protocols: what a
        // terminal without them sends for this key.
        self.encoder.set_kitty_flags(KittyKeyFlags::empty()).set_modify_other_keys_state_2(false);
        let legacy = self.encode_press(combo)?;
        Ok((moded != legacy).then_some(moded))
    }
}

/// Fills `event` with a press of `combo` as a US-layout keyboard would produce it: the physical
/// key, the text it types, and which modifiers that text already consumed (shift for `A` or `:`).
fn describe_press(event: &mut Event<'static>, combo: &KeyCombo) {
    let mut mods = Mods::empty();
    mods.set(Mods::CTRL, combo.mods.ctrl);
    mods.set(Mods::SHIFT, combo.mods.shift);
    mods.set(Mods::ALT, combo.mods.alt);
    mods.set(Mods::SUPER, combo.mods.super_key);
    let (key, text, unshifted, consumed) = match combo.key {
        KeyName::Char(c) => {
            // Shift held over a letter types the capital, as a keyboard would (`ctrl+shift+a`).
            let c = if combo.mods.shift && c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c };
            let (key, unshifted, needs_shift) = us_layout(c).unwrap_or((Key::Unidentified, c, false));
            if needs_shift {
                mods |= Mods::SHIFT;
            }
            let consumed = if needs_shift { Mods::SHIFT } else { Mods::empty() };
            (key, Some(c.to_string()), Some(unshifted), consumed)
        }
        named => (named_key(named), None, None, Mods::empty()),
    };
    event
        .set_action(Action::Press)
        .set_key(key)
        .set_mods(mods)
        .set_consumed_mods(consumed)
        .set_composing(false)
        .set_utf8(text)
        .set_unshifted_codepoint(unshifted.unwrap_or('\0'));
}

fn named_key(name: KeyName) -> Key {
    match name {
        KeyName::Enter => Key::Enter,
        KeyName::Escape => Key::Escape,
        KeyName::Tab => Key::Tab,
        KeyName::Backspace => Key::Backspace,
        KeyName::Left => Key::ArrowLeft,
        KeyName::Right => Key::ArrowRight,
        KeyName::Up => Key::ArrowUp,
        KeyName::Down => Key::ArrowDown,
        KeyName::Function(n) => Key::try_from(Key::F1 as u32 + u32::from(n) - 1).unwrap_or(Key::Unidentified),
        KeyName::Char(_) => Key::Unidentified,
    }
}

/// The physical key (US layout) that types `c`, its unshifted character, and whether shift is
/// needed. `None` for characters no US key types directly.
fn us_layout(c: char) -> Option<(Key, char, bool)> {
    if c.is_ascii_alphabetic() {
        let lower = c.to_ascii_lowercase();
        let key = Key::try_from(Key::A as u32 + u32::from(lower as u8 - b'a')).ok()?;
        return Some((key, lower, c.is_ascii_uppercase()));
    }
    if c.is_ascii_digit() {
        let key = Key::try_from(Key::Digit0 as u32 + u32::from(c as u8 - b'0')).ok()?;
        return Some((key, c, false));
    }
    const UNSHIFTED: &[(char, Key)] = &[
        (' ', Key::Space),
        ('-', Key::Minus),
        ('=', Key::Equal),
        ('[', Key::BracketLeft),
        (']', Key::BracketRight),
        ('\\', Key::Backslash),
        (';', Key::Semicolon),
        ('\'', Key::Quote),
        (',', Key::Comma),
        ('.', Key::Period),
        ('/', Key::Slash),
        ('`', Key::Backquote),
    ];
    const SHIFTED: &[(char, char)] = &[
        ('!', '1'),
        ('@', '2'),
        ('#', '3'),
        ('$', '4'),
        ('%', '5'),
        ('^', '6'),
        ('&', '7'),
        ('*', '8'),
        ('(', '9'),
        (')', '0'),
        ('_', '-'),
        ('+', '='),
        ('{', '['),
        ('}', ']'),
        ('|', '\\'),
        (':', ';'),
        ('"', '\''),
        ('<', ','),
        ('>', '.'),
        ('?', '/'),
        ('~', '`'),
    ];
    if let Some((_, key)) = UNSHIFTED.iter().find(|(ch, _)| *ch == c) {
        return Some((*key, c, false));
    }
    let (_, base) = SHIFTED.iter().find(|(ch, _)| *ch == c)?;
    let (key, _, _) = us_layout(*base)?;
    Some((key, *base, true))
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
