//! Where the pane's history lives. libghostty-vt keeps history rows in its pages at about 10
//! bytes a cell whatever they hold; the worker moves them into its own packed archive
//! (`archive`) as they leave the screen, so the terminal keeps little more than its screen:
//!
//! - **Spill**: once the terminal holds [`SPILL_ROWS`] history rows (at most once per
//!   [`FLOOD_GAP`]) and whenever output pauses, its history is formatted row by row into the
//!   archive and erased from the terminal (`CSI 3 J`). Not while copy mode or a mouse selection
//!   is on, the viewport is scrolled back or the alternate screen is active: those look at the
//!   terminal's own rows.
//! - **Rows**: screen coordinates cover both, the archive's rows first: row 0 is the oldest row
//!   kept. Reads of old rows come straight from the archive (`recent` reads never need more
//!   than the last 1,000 rows).
//! - **Rehydrate**: before copy mode, a search or a scroll into history, the archive's rows and
//!   a [dump](super::dump) of the terminal are replayed into a fresh terminal that takes the
//!   place of the old one, so copy mode, search and the scrolled viewport see every row on the
//!   real terminal; the next spill moves them out again.
//! - **Budget**: `scrollback_limit_bytes` keeps as many rows as libghostty-vt's pages would
//!   hold in that budget ([`CELL_BYTES`] a cell), the reach upstream herdr has with the same
//!   setting, at a fraction of the memory.
//! - **Clears**: a program erasing the scrollback (`CSI 3 J`) or resetting the terminal (RIS)
//!   empties the archive too.
//!
//! Not here: how the archive stores rows (`archive`), when output pauses (`pane::compress`).

use std::time::{Duration, Instant};

use libghostty_vt::{
    fmt::{Format, Formatter, FormatterOptions},
    screen::Screen,
    selection::Selection,
    terminal::{Mode, Point, PointCoordinate},
};

use super::{Engine, EngineError};
use crate::reads::{self, RowRange};
use herdr_protocol::ipc::ReadFormat;

/// History rows the terminal collects before they move into the archive.
pub(super) const SPILL_ROWS: usize = 100;

/// The least time between two spills made by output. During a flood the rows stay in the
/// terminal (which drops the oldest at its own budget) between spills: formatting a row costs
/// about what parsing it did, and all but the last budget's worth would be dropped anyway. A
/// spill every 250 ms cost a 100 MB flood 5 % of its speed; once a second, 2 %.
const FLOOD_GAP: Duration = Duration::from_secs(1);

/// Rows a spill must move for the next pause to rebuild the terminal: libghostty-vt keeps the
/// pages a large history used after it is erased (some 300 KiB after 10,000 rows), and a
/// terminal rebuilt from its dump holds only its screen.
const REBUILD_ROWS: usize = 1000;

/// What a history cell costs in libghostty-vt's pages, rounded up (measured: 9.3 bytes plain,
/// 10.5 styled), so the archive never keeps more rows than a terminal with the same byte budget
/// holds when they are put back.
pub(super) const CELL_BYTES: usize = 11;

/// Rows `limit` bytes keep at `cols` columns.
pub(super) fn rows_for(limit: usize, cols: u16) -> usize {
    limit / (usize::from(cols.max(1)) * CELL_BYTES)
}

/// The control sequences in a chunk of output that change what history exists.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Resets {
    /// RIS (`ESC c`): the terminal reset itself.
    pub terminal: bool,
    /// `CSI 3 J` or `CSI ? 3 J`: the scrollback was erased.
    pub scrollback: bool,
}

/// The last bytes of one chunk, kept so a sequence split across reads is still seen.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Carry {
    bytes: [u8; 4],
    len: usize,
}

impl Carry {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Finds [`Resets`] in `bytes`, the chunk after the one `carry` ended, and sets `carry` to this
/// chunk's end. One pass over the chunk's ESC bytes.
pub(super) fn scan(carry: &mut Carry, bytes: &[u8]) -> Resets {
    let mut seen = Resets::default();
    if let Some(at) = memchr::memrchr(0x1b, carry.as_slice()) {
        // Only a sequence this chunk completes: one the carry holds whole was seen with it.
        let head = &carry.as_slice()[at + 1..];
        let completes = |pattern: &[u8]| {
            head.len() < pattern.len()
                && pattern.starts_with(head)
                && bytes.starts_with(&pattern[head.len()..])
        };
        seen.terminal |= completes(RIS);
        seen.scrollback |= completes(ED3) || completes(DECSED3);
    }
    for at in memchr::memchr_iter(0x1b, bytes) {
        note(&bytes[at + 1..], &mut seen);
    }
    // The stream's last bytes: this chunk's, after whatever of the old carry a short chunk
    // leaves room for.
    let size = carry.bytes.len();
    let mut next = [0u8; 4];
    let from_chunk = bytes.len().min(size);
    let from_carry = carry.len.min(size - from_chunk);
    next[..from_carry].copy_from_slice(&carry.as_slice()[carry.len - from_carry..]);
    next[from_carry..from_carry + from_chunk].copy_from_slice(&bytes[bytes.len() - from_chunk..]);
    *carry = Carry { bytes: next, len: from_carry + from_chunk };
    seen
}

/// What follows ESC in each sequence [`scan`] looks for.
const RIS: &[u8] = b"c";
const ED3: &[u8] = b"[3J";
const DECSED3: &[u8] = b"[?3J";

/// What the bytes after one ESC start.
fn note(after: &[u8], seen: &mut Resets) {
    seen.terminal |= after.starts_with(RIS);
    seen.scrollback |= after.starts_with(ED3) || after.starts_with(DECSED3);
}

impl Engine {
    /// Rows held in the archive, ahead of the terminal's own. They are the primary screen's: on
    /// the alternate screen (which has no history) they are not part of what is read.
    pub(super) fn archived_rows(&self) -> u32 {
        if self.term.active_screen().is_ok_and(|screen| screen == Screen::Alternate) {
            return 0;
        }
        u32::try_from(self.archive.rows()).unwrap_or(u32::MAX)
    }

    /// After a feed: moves history into the archive once [`SPILL_ROWS`] collected, unless the
    /// output is a flood ([`FLOOD_GAP`]; the pass after it pauses moves the rows then).
    pub(super) fn spill_if_due(&mut self) {
        match self.term.scrollback_rows() {
            Ok(rows) if rows >= SPILL_ROWS => {
                let now = Instant::now();
                if self.last_spill.is_none_or(|at| now.duration_since(at) >= FLOOD_GAP) && self.spill() {
                    self.last_spill = Some(now);
                }
            }
            Ok(_) => {}
            Err(err) => log::warn!("history rows unknown, nothing archived: {err}"),
        }
    }

    /// Moves every history row of the terminal into the archive, if nothing is looking at them
    /// (see the module docs); `true` when it did. A failure leaves the rows where they are.
    pub(super) fn spill(&mut self) -> bool {
        self.try_spill().unwrap_or_else(|err| {
            log::warn!("history stays in the terminal: {err}");
            false
        })
    }

    fn try_spill(&mut self) -> Result<bool, EngineError> {
        let rows = self.term.scrollback_rows()?;
        if rows == 0 || !self.ended_clean || self.copy_on() || self.term.active_screen()? != Screen::Primary {
            return Ok(false);
        }
        let bar = self.term.scrollbar()?;
        if bar.offset.saturating_add(bar.len) < bar.total {
            return Ok(false);
        }
        let cols = self.term.cols()?;
        let keep = rows_for(self.limit, cols);
        // Rows the budget would drop at once are not worth formatting.
        let first = rows.saturating_sub(keep);
        let to_u32 = |row: usize| u32::try_from(row).unwrap_or(u32::MAX);
        let (top, last) = (to_u32(first), to_u32(rows - 1));
        let formatted = {
            let start = self.term.grid_ref(Point::History(PointCoordinate { x: 0, y: top }))?;
            let end = self.term.grid_ref(Point::History(PointCoordinate { x: cols - 1, y: last }))?;
            let selection = Selection::new(start, end, false);
            let options = FormatterOptions::new()
                .with_format(Format::Vt)
                .with_unwrap(false)
                .with_trim(false)
                .with_selection(&selection);
            Formatter::new(&self.term, options)?.format_alloc(None)?
        };
        let formatted_rows = memchr::memmem::find_iter(&formatted, b"\r\n").count() + 1;
        if formatted_rows != rows - first {
            // The formatter wrote some other layout: keep the rows in the terminal.
            log::warn!("history formatted as {formatted_rows} rows, not {}: not archived", rows - first);
            return Ok(false);
        }
        for (y, row) in split_crlf(&formatted).enumerate() {
            let point = PointCoordinate { x: 0, y: to_u32(first + y) };
            let wrapped = self.term.grid_ref(Point::History(point))?.row()?.is_wrapped()?;
            self.archive.push(row, wrapped);
        }
        drop(formatted);
        self.term.vt_write(b"\x1b[3J");
        self.archive.keep_newest(keep);
        self.pages_retained |= rows >= REBUILD_ROWS;
        Ok(true)
    }

    /// Replaces the terminal by one rebuilt from its dump, once a large history left it (see
    /// [`REBUILD_ROWS`]), when nothing the dump cannot carry is in play: output that stopped
    /// inside a sequence, a pending wrap, origin mode, copy mode, the alternate screen.
    fn rebuild_if_due(&mut self) -> Result<(), EngineError> {
        if !self.pages_retained
            || !self.ended_clean
            || self.copy_on()
            || self.term.scrollback_rows()? > 0
            || self.term.active_screen()? != Screen::Primary
            || self.term.is_cursor_pending_wrap()?
            || self.term.mode(Mode::ORIGIN)?
        {
            return Ok(());
        }
        self.pages_retained = false;
        let archive = std::mem::take(&mut self.archive);
        let dumped = self.dump_final();
        self.archive = archive;
        let dumped = dumped.map_err(from_dump)?;
        self.replace_terminal(&dumped).map(|_| ())
    }

    /// Swaps in a terminal fed `dumped` (a [`Engine::dump_final`] of this one) and says how many
    /// more rows it has. If the new one cannot be made, this one gets back the cursor the final
    /// dump's reading changed, and stays.
    fn replace_terminal(&mut self, dumped: &super::FinalDump) -> Result<usize, EngineError> {
        let (cols, rows) = self.size()?;
        let before = self.term.total_rows()?;
        let fresh = match Engine::restore_with(cols, rows, &dumped.bytes, self.revision, self.limit, false) {
            Ok(fresh) => fresh,
            Err(err) => {
                self.term.vt_write(dumped.cursor_state());
                return Err(err);
            }
        };
        let added = fresh.term.total_rows()?.saturating_sub(before);
        self.term = fresh.term;
        self.effects = fresh.effects;
        self.screen = None;
        self.compressed = None;
        Ok(added)
    }

    /// Puts the archive's rows back into the terminal (see the module docs), so that what reads
    /// the terminal itself sees every row. Copy positions move with their rows.
    pub(super) fn rehydrate(&mut self) -> Result<(), EngineError> {
        // On the alternate screen nothing looks at the primary's history. Output that stopped
        // inside a sequence would print its rest as text on a new terminal: copy mode then
        // sees the terminal's own rows until the program's next output ends cleanly.
        if self.archive.is_empty() || self.term.active_screen()? != Screen::Primary {
            return Ok(());
        }
        if !self.ended_clean {
            log::warn!(
                "output stopped inside a sequence: the archived history stays out of copy mode for now"
            );
            return Ok(());
        }
        // The dump starts with the archive's rows; positions are read before it changes the
        // cursor, and moved by the rows that come back.
        self.sync_copy_positions()?;
        let dumped = self.dump_final().map_err(from_dump)?;
        let added = self.replace_terminal(&dumped)?;
        self.archive.clear();
        self.copy.reattach(u32::try_from(added).unwrap_or(u32::MAX));
        self.pin_copy_positions()
    }

    /// Formats rows `range` of the whole history (archive first), as reads do.
    pub(super) fn format_history_rows(
        &self,
        range: RowRange,
        format: ReadFormat,
        unwrap: bool,
    ) -> Result<String, EngineError> {
        let archived = self.archived_rows();
        if range.first >= archived {
            let live = RowRange { first: range.first - archived, last: range.last - archived };
            return self.format_rows(live, format, unwrap);
        }
        let mut out = String::new();
        let end = range.last.min(archived - 1) as usize + 1;
        for row in self.archive.rows_in(range.first as usize, end) {
            let text = String::from_utf8_lossy(&row.bytes);
            match format {
                ReadFormat::Ansi => out.push_str(&text),
                ReadFormat::Text => out.push_str(&reads::strip_escapes(&text)),
            }
            if !(unwrap && row.wrapped) {
                if format == ReadFormat::Text {
                    // The terminal's plain reads end a line at its last non-blank cell.
                    out.truncate(out.trim_end_matches(' ').len());
                }
                out.push('\n');
            }
        }
        if range.last < archived {
            return Ok(reads::tidy_formatted(&out, format == ReadFormat::Ansi));
        }
        let live = self.format_rows(RowRange { first: 0, last: range.last - archived }, format, unwrap)?;
        out.push_str(&live);
        Ok(reads::tidy_formatted(&out, format == ReadFormat::Ansi))
    }

    /// The program erased the scrollback or reset the terminal: so does the archive.
    pub(super) fn forget_history(&mut self) {
        self.archive.clear();
    }

    /// The archive's part of the pass that runs once output pauses: the history the terminal
    /// collected moves out, then one closed block is packed. `true` when a block was packed
    /// (more may wait).
    pub(super) fn pack_step(&mut self) -> bool {
        self.spill();
        if let Err(err) = self.rebuild_if_due() {
            log::warn!("the terminal keeps its old pages: {err}");
        }
        if !self.archive.packing_due() {
            return false;
        }
        self.archive.pack_step();
        true
    }

    /// Bytes the archive occupies.
    pub fn archived_bytes(&self) -> usize {
        self.archive.stored_bytes()
    }
}

fn from_dump(err: super::DumpError) -> EngineError {
    match err {
        super::DumpError::Engine(err) => err,
        super::DumpError::Layout(what) => EngineError::Rehydrate(what),
    }
}

/// Whether output ends between sequences, given whether it did before this chunk (`was`): not
/// inside an escape sequence (CSI, OSC, DCS/APC strings, short escapes) or a UTF-8 character.
/// Only then may the worker write its own sequences into the terminal (a spill's `CSI 3 J`) or
/// replace it with one rebuilt from a dump: either would cut the program's sequence in two and
/// its rest would print as text. The chunk's last ESC decides; a chunk without one ends clean
/// if the output before it did, or if it has a BEL (what ends most strings); else it stays
/// unknown, which counts as not clean.
pub(super) fn ends_clean(was: bool, bytes: &[u8]) -> bool {
    let Some(&last) = bytes.last() else { return was };
    if last >= 0x80 {
        let start =
            bytes.iter().rev().take(4).position(|&b| b & 0xc0 != 0x80).map(|back| bytes.len() - 1 - back);
        let Some(start) = start else { return false };
        let lead = bytes[start];
        let want = match lead {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        if bytes.len() - start < want {
            return false;
        }
    }
    let Some(esc) = memchr::memrchr(0x1b, bytes) else {
        return was || memchr::memchr(0x07, bytes).is_some();
    };
    let rest = &bytes[esc + 1..];
    match rest.first() {
        None => false,
        Some(b'[') => rest[1..].iter().any(|b| (0x40..=0x7e).contains(b)),
        Some(b']' | b'P' | b'_' | b'^' | b'X') => {
            memchr::memchr(0x07, rest).is_some() || rest.ends_with(b"\x1b\\")
        }
        // `ESC (`, `ESC #` and the like take one more byte.
        Some(0x20..=0x2f) => rest.len() >= 2,
        Some(_) => true,
    }
}

/// The rows of wrap-preserving formatter output: CRLF between rows, none after the last.
fn split_crlf(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(bytes);
    std::iter::from_fn(move || {
        let current = rest?;
        match memchr::memmem::find(current, b"\r\n") {
            Some(at) => {
                rest = Some(&current[at + 2..]);
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod engine_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(chunks: &[&[u8]]) -> Resets {
        let mut carry = Carry::default();
        let mut all = Resets::default();
        for chunk in chunks {
            let seen = scan(&mut carry, chunk);
            all.terminal |= seen.terminal;
            all.scrollback |= seen.scrollback;
        }
        all
    }

    #[test]
    fn resets_are_seen_even_split_across_reads() {
        let erase = Resets { terminal: false, scrollback: true };
        let reset = Resets { terminal: true, scrollback: false };
        assert_eq!(scanned(&[b"abc\x1b[3Jdef"]), erase);
        assert_eq!(scanned(&[b"\x1b[H\x1b[2J\x1b[?3J"]), erase);
        assert_eq!(scanned(&[b"xx\x1b[", b"3Jmore"]), erase);
        assert_eq!(scanned(&[b"\x1b", b"[3J"]), erase);
        assert_eq!(scanned(&[b"\x1b[?", b"3", b"J"]), erase, "three reads, the carry has the start");
        assert_eq!(scanned(&[b"text\x1b", b"cmore"]), reset);
        assert_eq!(scanned(&[b"\x1bc"]), reset);
        assert_eq!(scanned(&[b"\x1b[2J\x1b[3;1H"]), Resets::default());
        assert_eq!(scanned(&[b"\x1b[3", b"1m"]), Resets::default());
        assert_eq!(scanned(&[b"a\x1b", b"", b"c"]), reset, "an empty read keeps nothing of its own");
        assert_eq!(scanned(&[b"x\x1bc", b"\x1b[?2027l"]), reset, "a RIS is seen once");
        let mut carry = Carry::default();
        scan(&mut carry, b"x\x1bc");
        assert_eq!(scan(&mut carry, b"\x1b[?2027l"), Resets::default(), "the next chunk has none");
    }

    #[test]
    fn a_chunk_ends_clean_only_between_sequences() {
        let clean = |bytes: &[u8]| ends_clean(true, bytes);
        assert!(clean(b"plain text\r\n$ "));
        assert!(clean(b"\x1b[1;31mred\x1b[0m"));
        assert!(clean(b"\x1b]2;title\x07"));
        assert!(clean(b"\x1b]2;title\x1b\\"));
        assert!(clean("caf\u{e9}".as_bytes()));
        assert!(clean(b"\x1b(B"));
        assert!(clean(b""));
        assert!(!clean(b"text\x1b"));
        assert!(!clean(b"text\x1b[1;3"));
        assert!(!clean(b"\x1b]8;;http://exa"));
        assert!(!clean(b"\x1b("));
        assert!(!clean(&"caf\u{e9}".as_bytes()[..4]));
        assert!(!clean(&"\u{1f600}".as_bytes()[..3]));
        // After a chunk that ended inside something: only an ESC or a BEL tells.
        assert!(!ends_clean(false, b"1mtext"));
        assert!(!ends_clean(false, b""));
        assert!(ends_clean(false, b"...base64\x07"));
        assert!(ends_clean(false, b"1mtext\x1b[0m"));
    }

    #[test]
    fn crlf_rows_split_like_the_formatter_writes_them() {
        let rows: Vec<&[u8]> = split_crlf(b"a\r\n\r\nb").collect();
        assert_eq!(rows, vec![&b"a"[..], b"", b"b"]);
        assert_eq!(split_crlf(b"").count(), 1, "one blank row");
    }

    #[test]
    fn the_budget_keeps_what_the_pages_would() {
        assert_eq!(rows_for(10_000_000, 100), 9_090);
        assert_eq!(rows_for(10_000_000, 200), 4_545);
        assert_eq!(rows_for(1, 20), 0);
    }
}
