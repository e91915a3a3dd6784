//! [`CellText`]: the grapheme of one screen cell, kept inline.
//!
//! A pane's grid and a paint carry one grapheme per cell, and nearly every grapheme is a single
//! character of at most four bytes. As a `String` each cell was a heap allocation of its own: a
//! 120 × 40 pane mirrored on attach cost 4,800 allocations, and so did every full paint a client
//! decoded. Inline up to [`INLINE`] bytes, with the rare longer cluster (a family emoji, a flag
//! with modifiers) on the heap. On the wire it is a plain string, exactly as the `String` it
//! replaced, so the encoding of every message is unchanged.

use std::fmt;
use std::ops::Deref;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bytes kept inline: with the length byte and the tag, a `CellText` is as large as a `String`.
const INLINE: usize = 22;

/// One cell's grapheme (`""` for the spacer after a wide one, `" "` for a blank cell).
#[derive(Clone)]
pub struct CellText(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl CellText {
    /// A blank cell's text, `" "`.
    pub const BLANK: CellText = CellText::inline_byte(b' ');
    /// The spacer's text after a wide grapheme, `""`.
    pub const EMPTY: CellText = CellText(Repr::Inline { len: 0, bytes: [0; INLINE] });

    const fn inline_byte(byte: u8) -> CellText {
        let mut bytes = [0; INLINE];
        bytes[0] = byte;
        CellText(Repr::Inline { len: 1, bytes })
    }

    pub fn new(text: &str) -> CellText {
        if text.len() > INLINE {
            return CellText(Repr::Heap(text.into()));
        }
        let mut bytes = [0; INLINE];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        CellText(Repr::Inline { len: text.len() as u8, bytes })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // Only `new` fills `bytes`, always with the whole of a `&str` of `len` bytes.
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Repr::Heap(text) => text,
        }
    }

    /// Whether the text lives on the heap (longer than the 22 bytes kept inline).
    pub fn is_heap(&self) -> bool {
        matches!(self.0, Repr::Heap(_))
    }
}

impl Default for CellText {
    /// The blank cell's `" "`.
    fn default() -> Self {
        CellText::BLANK
    }
}

impl Deref for CellText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for CellText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for CellText {
    fn from(text: &str) -> Self {
        CellText::new(text)
    }
}

impl From<String> for CellText {
    fn from(text: String) -> Self {
        CellText::new(&text)
    }
}

impl From<char> for CellText {
    fn from(ch: char) -> Self {
        CellText::new(ch.encode_utf8(&mut [0; 4]))
    }
}

impl PartialEq for CellText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for CellText {}

impl std::hash::Hash for CellText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for CellText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CellText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for CellText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for CellText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CellText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CellText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;

        impl Visitor<'_> for Text {
            type Value = CellText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cell's text")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<CellText, E> {
                Ok(CellText::new(text))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<CellText, E> {
                Ok(CellText::new(&text))
            }
        }

        deserializer.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::{FrameDecoder, encode_frame};

    #[test]
    fn is_as_large_as_the_string_it_replaced() {
        assert_eq!(size_of::<CellText>(), size_of::<String>());
    }

    #[test]
    fn short_text_is_inline_and_long_text_is_kept_whole() {
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
        for text in ["", " ", "a", "é", "中", "🦀", "e\u{301}", family] {
            let cell = CellText::new(text);
            assert_eq!(cell.as_str(), text);
            assert_eq!(cell.is_heap(), text.len() > INLINE, "{text:?}");
        }
        assert_eq!(CellText::default(), " ");
        assert_eq!(CellText::EMPTY, "");
        assert_eq!(CellText::from('x'), CellText::from("x".to_owned()));
    }

    #[test]
    fn encodes_on_the_wire_exactly_as_a_string() {
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
        for text in ["", " ", "中", family] {
            let as_cell = encode_frame(&CellText::new(text)).expect("encode");
            assert_eq!(as_cell, encode_frame(&text.to_owned()).expect("encode"), "{text:?}");
            let mut decoder = FrameDecoder::new();
            decoder.push(&as_cell);
            let back: CellText = decoder.next_frame().expect("decode").expect("a whole frame");
            assert_eq!(back, text);
        }
    }
}
