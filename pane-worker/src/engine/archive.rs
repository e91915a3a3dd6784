//! The pane's older history, kept out of libghostty-vt's pages: rows as the terminal's own VT
//! formatter wrote them (each row starts with an SGR reset, so a row stands alone), collected
//! into blocks of about [`BLOCK_BYTES`] and deflated once output pauses. libghostty-vt stores
//! some 10 bytes per cell whatever the content; a 100-column styled row here is about 300 bytes
//! raw and 60 packed.
//!
//! A row is its bytes (no CR or LF inside) followed by one terminator: LF for a row that ends a
//! line, CR for a row the line wraps past (soft wrap), so unwrapped reads and replays join it
//! with the next. Row 0 is the oldest row kept.
//!
//! Pure: rows in, rows out. Not here: which rows leave the terminal and when (`history`).

use std::collections::VecDeque;

/// A block is closed once its raw rows reach this size.
pub(super) const BLOCK_BYTES: usize = 32 * 1024;

/// miniz level 6: about 5× on styled terminal rows at some 50 MB/s, under a millisecond a block
/// (level 3 packs 10 % larger at twice the speed).
const PACK_LEVEL: u8 = 6;

const ROW_END: u8 = b'\n';
const ROW_WRAPPED: u8 = b'\r';

/// One row read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ArchivedRow {
    /// The row's VT bytes.
    pub bytes: Vec<u8>,
    /// The line continues on the next row.
    pub wrapped: bool,
}

#[derive(Debug)]
enum Data {
    Raw(Vec<u8>),
    Packed { bytes: Box<[u8]>, raw_len: usize },
}

#[derive(Debug)]
struct Block {
    data: Data,
    rows: usize,
}

impl Block {
    /// The block's raw rows (inflated when packed).
    fn raw(&self) -> std::borrow::Cow<'_, [u8]> {
        match &self.data {
            Data::Raw(raw) => std::borrow::Cow::Borrowed(raw),
            Data::Packed { bytes, raw_len } => {
                // Packed by `pack_step` from valid input, so this only fails on corrupted
                // memory; the block then reads as no rows rather than taking the pane down.
                match miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, *raw_len) {
                    Ok(raw) => std::borrow::Cow::Owned(raw),
                    Err(err) => {
                        log::error!(
                            "an archived history block does not inflate ({err:?}); its rows are lost"
                        );
                        std::borrow::Cow::Owned(Vec::new())
                    }
                }
            }
        }
    }

    fn stored(&self) -> usize {
        match &self.data {
            Data::Raw(raw) => raw.capacity(),
            Data::Packed { bytes, .. } => bytes.len(),
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Archive {
    /// Closed blocks, oldest first.
    blocks: VecDeque<Block>,
    /// The newest rows, raw, until they fill a block.
    tail: Vec<u8>,
    tail_rows: usize,
    /// Rows in `blocks` and `tail` together.
    held: usize,
    /// The oldest rows of that, dropped by [`Archive::keep_newest`] but still in the first block
    /// (or the tail while there is no block).
    hidden: usize,
}

impl Archive {
    /// Rows kept (what reads and replays see).
    pub(super) fn rows(&self) -> usize {
        self.held - self.hidden
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rows() == 0
    }

    /// Appends the newest row. `bytes` must not contain CR or LF (the VT formatter never writes
    /// them inside a row); any that do are dropped rather than splitting the row.
    pub(super) fn push(&mut self, bytes: &[u8], wrapped: bool) {
        if memchr::memchr2(ROW_END, ROW_WRAPPED, bytes).is_some() {
            self.tail.extend(bytes.iter().copied().filter(|&b| b != ROW_END && b != ROW_WRAPPED));
        } else {
            self.tail.extend_from_slice(bytes);
        }
        self.tail.push(if wrapped { ROW_WRAPPED } else { ROW_END });
        self.tail_rows += 1;
        self.held += 1;
        if self.tail.len() >= BLOCK_BYTES {
            self.close_tail();
        }
    }

    /// Drops the oldest rows until at most `max` are kept.
    pub(super) fn keep_newest(&mut self, max: usize) {
        if self.rows() <= max {
            return;
        }
        self.hidden = self.held - max;
        while let Some(first) = self.blocks.front()
            && first.rows <= self.hidden
        {
            self.hidden -= first.rows;
            self.held -= first.rows;
            self.blocks.pop_front();
        }
        if self.blocks.is_empty() && self.hidden >= self.tail_rows {
            self.clear();
        }
    }

    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    /// Rows `first..end` (clamped to what is kept), oldest first.
    pub(super) fn rows_in(&self, first: usize, end: usize) -> Vec<ArchivedRow> {
        let end = end.min(self.rows());
        let mut out = Vec::with_capacity(end.saturating_sub(first));
        if first >= end {
            return out;
        }
        // Positions counted over everything held, hidden rows included.
        let (first, end) = (first + self.hidden, end + self.hidden);
        let mut at = 0;
        let parts = self.blocks.iter().map(|b| (b.rows, Some(b))).chain([(self.tail_rows, None)]);
        for (rows, block) in parts {
            if at + rows > first && at < end {
                let raw = block.map_or(std::borrow::Cow::Borrowed(self.tail.as_slice()), Block::raw);
                let skip = first.saturating_sub(at);
                let take = end.min(at + rows) - (at + skip);
                out.extend(split_rows(&raw).skip(skip).take(take));
            }
            at += rows;
            if at >= end {
                break;
            }
        }
        out
    }

    /// Every kept row as output that, written to a terminal of any width, lays the rows out
    /// again: a line ends in CRLF, a wrapped row runs on into the next (so a terminal of another
    /// width wraps the line where it needs to).
    pub(super) fn replay(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for row in self.rows_in(0, self.rows()) {
            out.extend_from_slice(&row.bytes);
            if !row.wrapped {
                out.extend_from_slice(b"\r\n");
            }
        }
        out
    }

    /// Whether a closed block is still raw.
    pub(super) fn packing_due(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b.data, Data::Raw(_)))
    }

    /// Packs the newest raw closed block (the one reads are least likely to want next); `true`
    /// while raw ones remain. The open tail stays raw: recent reads come from it.
    pub(super) fn pack_step(&mut self) -> bool {
        let Some(block) = self.blocks.iter_mut().rev().find(|b| matches!(b.data, Data::Raw(_))) else {
            return false;
        };
        if let Data::Raw(raw) = &block.data {
            let bytes = miniz_oxide::deflate::compress_to_vec(raw, PACK_LEVEL).into_boxed_slice();
            block.data = Data::Packed { bytes, raw_len: raw.len() };
        }
        self.packing_due()
    }

    /// Bytes this history occupies (block payloads and the open tail's buffer).
    pub(super) fn stored_bytes(&self) -> usize {
        self.blocks.iter().map(Block::stored).sum::<usize>() + self.tail.capacity()
    }

    fn close_tail(&mut self) {
        let raw = std::mem::replace(&mut self.tail, Vec::with_capacity(BLOCK_BYTES + BLOCK_BYTES / 8));
        self.blocks.push_back(Block { data: Data::Raw(raw), rows: self.tail_rows });
        self.tail_rows = 0;
    }
}

/// The rows of a block's raw bytes.
fn split_rows(raw: &[u8]) -> impl Iterator<Item = ArchivedRow> + '_ {
    raw.split_inclusive(|&b| b == ROW_END || b == ROW_WRAPPED).map(|row| {
        let (last, bytes) = row.split_last().map_or((ROW_END, row), |(last, rest)| (*last, rest));
        ArchivedRow { bytes: bytes.to_vec(), wrapped: last == ROW_WRAPPED }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[ArchivedRow]) -> Vec<String> {
        rows.iter()
            .map(|r| format!("{}{}", String::from_utf8_lossy(&r.bytes), if r.wrapped { "+" } else { "" }))
            .collect()
    }

    fn filled(n: usize) -> Archive {
        let mut a = Archive::default();
        for i in 0..n {
            a.push(
                format!("\x1b[0m\x1b[38;5;{}mrow {i:06} {}", i % 256, "x".repeat(i % 90)).as_bytes(),
                i % 7 == 3,
            );
        }
        a
    }

    #[test]
    fn rows_come_back_in_order_with_their_wrap_across_blocks() {
        let a = filled(3000);
        assert!(a.blocks.len() > 3, "3000 rows span several blocks");
        assert_eq!(a.rows(), 3000);
        let all = a.rows_in(0, 3000);
        assert_eq!(all.len(), 3000);
        for (i, row) in all.iter().enumerate() {
            assert!(String::from_utf8_lossy(&row.bytes).contains(&format!("row {i:06} ")), "row {i}");
            assert_eq!(row.wrapped, i % 7 == 3, "row {i}");
        }
        assert_eq!(a.rows_in(2998, 5000).len(), 2, "clamped to what is kept");
        assert!(a.rows_in(10, 10).is_empty());
    }

    #[test]
    fn packing_shrinks_blocks_and_reads_the_same_rows() {
        let mut a = filled(3000);
        let before = a.rows_in(0, 3000);
        let raw = a.stored_bytes();
        assert!(a.packing_due());
        while a.pack_step() {}
        assert!(!a.packing_due());
        assert!(a.stored_bytes() * 3 < raw, "packed {} of raw {raw}", a.stored_bytes());
        assert_eq!(a.rows_in(0, 3000), before);
        assert_eq!(a.rows_in(1234, 1240), before[1234..1240].to_vec());
    }

    #[test]
    fn keeping_the_newest_drops_the_oldest_rows_only() {
        let mut a = filled(3000);
        while a.pack_step() {}
        a.keep_newest(2500);
        assert_eq!(a.rows(), 2500);
        let rows = a.rows_in(0, 2500);
        assert!(String::from_utf8_lossy(&rows[0].bytes).contains("row 000500 "));
        assert!(String::from_utf8_lossy(&rows[2499].bytes).contains("row 002999 "));
        a.keep_newest(10);
        assert_eq!(texts(&a.rows_in(0, 1)).len(), 1);
        assert!(String::from_utf8_lossy(&a.rows_in(0, 1)[0].bytes).contains("row 002990 "));
        assert!(a.blocks.len() <= 1, "whole blocks of dropped rows are freed");
        a.keep_newest(0);
        assert!(a.is_empty());
        a.push(b"again", false);
        assert_eq!(texts(&a.rows_in(0, 1)), vec!["again"]);
    }

    #[test]
    fn replay_ends_lines_and_runs_wrapped_rows_on() {
        let mut a = Archive::default();
        a.push(b"one", false);
        a.push(b"long-", true);
        a.push(b"line", false);
        a.push(b"", false);
        assert_eq!(a.replay(), b"one\r\nlong-line\r\n\r\n");
        assert_eq!(texts(&a.rows_in(0, 4)), vec!["one", "long-+", "line", ""]);
    }

    #[test]
    fn a_terminator_inside_a_row_cannot_split_it() {
        let mut a = Archive::default();
        a.push(b"a\r\nb", false);
        assert_eq!(a.rows(), 1);
        assert_eq!(texts(&a.rows_in(0, 1)), vec!["ab"]);
    }
}
