//! Recognising `ctrl+b` then `q` in raw terminal input while no server is connected, so the
//! user can leave a client that is still reconnecting. (While connected the supervisor reads
//! the keys and owns the prefix; this only stands in for it while there is none.)
//!
//! Input arrives in chunks as read, so the chord and any escape sequence may be split across
//! them. Focus and mouse reports between the two keys do not break the chord (the terminal sends
//! them on its own); any other key, escape-encoded ones included, does.

/// `ctrl+b` as a terminal sends it without an extended keyboard protocol.
const CTRL_B: u8 = 0x02;
const ESC: u8 = 0x1b;

#[derive(Debug, Default)]
pub(crate) struct DetachChord {
    /// The last key was `ctrl+b`.
    armed: bool,
    seq: Seq,
}

/// Where the reader is inside an escape sequence.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Seq {
    #[default]
    Ground,
    /// After ESC.
    Esc,
    /// Inside `ESC [`: `mouse` once `<` opened an SGR mouse report, `params` once any parameter
    /// or intermediate byte came.
    Csi { mouse: bool, params: bool },
}

impl DetachChord {
    /// Feeds one chunk of input; `true` once `ctrl+b q` is complete.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> bool {
        for &byte in bytes {
            match self.seq {
                Seq::Ground => match byte {
                    ESC => self.seq = Seq::Esc,
                    b'q' if self.armed => {
                        *self = DetachChord::default();
                        return true;
                    }
                    _ => self.armed = byte == CTRL_B,
                },
                Seq::Esc if byte == b'[' => self.seq = Seq::Csi { mouse: false, params: false },
                Seq::Esc => {
                    // `ESC x` is alt+x (or SS3 for `ESC O`): a key either way.
                    self.armed = false;
                    self.seq = Seq::Ground;
                }
                Seq::Csi { mouse, params } if (0x20..=0x3f).contains(&byte) => {
                    self.seq = Seq::Csi { mouse: mouse || (!params && byte == b'<'), params: true };
                }
                Seq::Csi { mouse, params } => {
                    // Focus in/out is `CSI I` / `CSI O`; everything else that is not a mouse
                    // report (arrows, function keys, paste brackets) is the user typing.
                    let report = mouse || (!params && matches!(byte, b'I' | b'O'));
                    if !report {
                        self.armed = false;
                    }
                    self.seq = Seq::Ground;
                }
            }
        }
        false
    }

    /// Forgets a half-typed chord: its first key went to a server.
    pub(crate) fn reset(&mut self) {
        *self = DetachChord::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detaches(chunks: &[&[u8]]) -> bool {
        let mut chord = DetachChord::default();
        chunks.iter().any(|chunk| chord.feed(chunk))
    }

    #[test]
    fn ctrl_b_q_detaches_in_one_chunk_or_split() {
        assert!(detaches(&[b"\x02q"]));
        assert!(detaches(&[b"\x02", b"q"]));
        assert!(detaches(&[b"abc\x02", b"qdef"]));
        assert!(detaches(&[b"\x02\x02q"]));
    }

    #[test]
    fn q_alone_or_after_another_key_does_not() {
        assert!(!detaches(&[b"q"]));
        assert!(!detaches(&[b"\x02", b"x", b"q"]));
        assert!(!detaches(&[b"\x02Q"]));
        assert!(!detaches(&[b"q\x02"]));
    }

    #[test]
    fn focus_and_mouse_reports_in_between_are_skipped_even_when_split() {
        assert!(detaches(&[b"\x02\x1b[Iq"]));
        assert!(detaches(&[b"\x02\x1b", b"[", b"O", b"q"]));
        assert!(detaches(&[b"\x02\x1b[<35;10;", b"4M", b"q"]));
        assert!(detaches(&[b"\x02\x1b[<0;1;1m\x1b[Iq"]));
    }

    #[test]
    fn escape_encoded_keys_in_between_break_the_chord() {
        assert!(!detaches(&[b"\x02\x1b[A", b"q"]), "up arrow");
        assert!(!detaches(&[b"\x02\x1bOA", b"q"]), "up arrow in application mode");
        assert!(!detaches(&[b"\x02\x1bq"]), "alt+q");
        assert!(!detaches(&[b"\x02\x1b[1;5I", b"q"]), "a CSI I with parameters is a key");
        assert!(!detaches(&[b"\x02\x1b[200~q\x1b[201~"]), "pasted text");
    }

    #[test]
    fn a_q_inside_an_escape_sequence_is_not_the_second_key() {
        assert!(!detaches(&[b"\x02\x1b[", b"q"]), "q is that CSI's final byte, a key");
    }

    #[test]
    fn reset_forgets_the_first_key() {
        let mut chord = DetachChord::default();
        assert!(!chord.feed(b"\x02"));
        chord.reset();
        assert!(!chord.feed(b"q"));
    }
}
