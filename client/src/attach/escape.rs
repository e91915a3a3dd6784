//! The direct attach's own keys, picked out of the raw input before it goes to the pane:
//! `ctrl+b q` detaches, `ctrl+b ctrl+b` sends one literal `ctrl+b`, and `ctrl+b` before any
//! other byte sends both (the pane's program sees the prefix it did not consume). A `ctrl+b`
//! ending a read waits for the next read. Byte-level, as the attach forwards raw bytes.

/// `ctrl+b` as a terminal sends it.
const PREFIX: u8 = 0x02;

/// What one read of input amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Filtered {
    /// Bytes for the pane (possibly none).
    Forward(Vec<u8>),
    /// `ctrl+b q`: leave, after sending these bytes typed before it.
    Detach(Vec<u8>),
}

#[derive(Debug, Default)]
pub(crate) struct Escape {
    /// The last byte read was a `ctrl+b` not yet sent.
    pending: bool,
}

impl Escape {
    pub(crate) fn filter(&mut self, bytes: &[u8]) -> Filtered {
        let mut out = Vec::with_capacity(bytes.len());
        for &byte in bytes {
            if std::mem::take(&mut self.pending) {
                match byte {
                    b'q' => return Filtered::Detach(out),
                    PREFIX => out.push(PREFIX),
                    other => out.extend_from_slice(&[PREFIX, other]),
                }
            } else if byte == PREFIX {
                self.pending = true;
            } else {
                out.push(byte);
            }
        }
        Filtered::Forward(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&[u8]]) -> (Vec<u8>, bool) {
        let mut escape = Escape::default();
        let mut sent = Vec::new();
        for chunk in chunks {
            match escape.filter(chunk) {
                Filtered::Forward(bytes) => sent.extend(bytes),
                Filtered::Detach(bytes) => {
                    sent.extend(bytes);
                    return (sent, true);
                }
            }
        }
        (sent, false)
    }

    #[test]
    fn ctrl_b_q_detaches_after_sending_what_came_before_even_when_split() {
        assert_eq!(run(&[b"ls\x02q"]), (b"ls".to_vec(), true));
        assert_eq!(run(&[b"ls\x02", b"qmore"]), (b"ls".to_vec(), true));
    }

    #[test]
    fn ctrl_b_twice_is_one_literal_prefix_and_before_anything_else_both_go() {
        assert_eq!(run(&[b"\x02\x02"]), (vec![PREFIX], false));
        assert_eq!(run(&[b"\x02", b"\x02q"]), (b"\x02q".to_vec(), false));
        assert_eq!(run(&[b"\x02x"]), (b"\x02x".to_vec(), false));
        assert_eq!(run(&[b"plain text\r"]), (b"plain text\r".to_vec(), false));
    }

    #[test]
    fn a_trailing_prefix_is_held_for_the_next_read() {
        let mut escape = Escape::default();
        assert_eq!(escape.filter(b"a\x02"), Filtered::Forward(b"a".to_vec()));
        assert_eq!(escape.filter(b"b"), Filtered::Forward(b"\x02b".to_vec()));
    }
}
