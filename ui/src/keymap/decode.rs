//! Decoder from the raw bytes a client's terminal sends to input events: legacy keys (C0
//! controls, ESC-prefixed alt, SS3 and CSI cursor/function keys, xterm modifiers), CSI u (kitty
//! keyboard protocol) and modifyOtherKeys (`CSI 27;m;k ~`), SGR mouse (`CSI < b;x;y M/m`),
//! bracketed paste and focus in/out. Every key keeps its original bytes, so terminal mode can
//! pass it through unchanged.
//!
//! Stateful only across reads: an incomplete sequence waits for more bytes. A lone ESC is
//! ambiguous until the next read; the I/O shell calls [`InputDecoder::flush`] after a short
//! quiet period to turn it into the Esc key.

use super::key::{KeyCode, KeyEvent, Modifiers};

/// A key press and the bytes it arrived as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInput {
    pub key: KeyEvent,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseButton {
    Left,
    Middle,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    Press(MouseButton),
    Release(MouseButton),
    Drag(MouseButton),
    Move,
    ScrollUp,
    ScrollDown,
    ScrollLeft,
    ScrollRight,
}

/// A mouse report; `x`/`y` are zero-based cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MouseEvent {
    pub kind: MouseKind,
    pub x: u16,
    pub y: u16,
    pub mods: Modifiers,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputEvent {
    Key(KeyInput),
    Mouse(MouseEvent),
    /// Bracketed paste contents (without the markers).
    Paste(Vec<u8>),
    FocusIn,
    FocusOut,
    /// A well-formed sequence this decoder does not interpret, kept for pass-through.
    Unknown(Vec<u8>),
}

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// Turns client bytes into [`InputEvent`]s, buffering incomplete sequences between reads.
#[derive(Debug, Default)]
pub struct InputDecoder {
    pending: Vec<u8>,
    paste: Option<Vec<u8>>,
}

/// What one attempt to decode at the front of the buffer found.
enum Step {
    Event(InputEvent, usize),
    /// Bytes consumed without an event (a key release, paste start).
    Skip(usize),
    Incomplete,
}

impl InputDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes `bytes` (appended to whatever was pending).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<InputEvent> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut at = 0;
        loop {
            if let Some(paste) = self.paste.as_mut() {
                let rest = &self.pending[at..];
                match find(rest, PASTE_END) {
                    Some(end) => {
                        paste.extend_from_slice(&rest[..end]);
                        at += end + PASTE_END.len();
                        events.push(InputEvent::Paste(self.paste.take().unwrap_or_default()));
                        continue;
                    }
                    None => {
                        // Keep a possible partial end marker pending; the rest is paste text.
                        let keep = partial_suffix(rest, PASTE_END);
                        paste.extend_from_slice(&rest[..rest.len() - keep]);
                        at = self.pending.len() - keep;
                        break;
                    }
                }
            }
            if at >= self.pending.len() {
                break;
            }
            let rest = &self.pending[at..];
            if rest.starts_with(PASTE_START) {
                self.paste = Some(Vec::new());
                at += PASTE_START.len();
                continue;
            }
            match decode_one(rest) {
                Step::Event(event, used) => {
                    events.push(event);
                    at += used;
                }
                Step::Skip(used) => at += used,
                Step::Incomplete => break,
            }
        }
        self.pending.drain(..at);
        events
    }

    /// Ends an ambiguous wait: a pending lone ESC (or ESC-prefixed fragment) becomes keys.
    /// Called by the I/O shell when no byte followed within its escape timeout.
    pub fn flush(&mut self) -> Vec<InputEvent> {
        if self.paste.is_some() || self.pending.is_empty() {
            return Vec::new();
        }
        let pending = std::mem::take(&mut self.pending);
        let mut events =
            vec![InputEvent::Key(KeyInput { key: KeyEvent::plain(KeyCode::Esc), bytes: vec![0x1b] })];
        events.extend(self.feed(&pending[1..]));
        events
    }

    /// Whether bytes are waiting for more input (the shell should arm its escape timeout).
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty() && self.paste.is_none()
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Length of the longest suffix of `bytes` that is a proper prefix of `marker`.
fn partial_suffix(bytes: &[u8], marker: &[u8]) -> usize {
    (1..marker.len())
        .rev()
        .find(|&n| bytes.len() >= n && bytes[bytes.len() - n..] == marker[..n])
        .unwrap_or(0)
}

fn key(code: KeyCode, mods: Modifiers, bytes: &[u8]) -> InputEvent {
    InputEvent::Key(KeyInput { key: KeyEvent::new(code, mods), bytes: bytes.to_vec() })
}

fn decode_one(bytes: &[u8]) -> Step {
    match bytes[0] {
        0x1b => decode_escape(bytes),
        _ => decode_plain(bytes, Modifiers::NONE, 0),
    }
}

/// A byte or UTF-8 character not starting an escape sequence, after `offset` prefix bytes
/// (an ESC meaning alt).
fn decode_plain(bytes: &[u8], mods: Modifiers, offset: usize) -> Step {
    let b = bytes[offset];
    let used = offset + 1;
    let raw = &bytes[..used];
    let event = match b {
        b'\r' => key(KeyCode::Enter, mods, raw),
        b'\t' => key(KeyCode::Tab, mods, raw),
        0x7f => key(KeyCode::Backspace, mods, raw),
        0x00 => key(KeyCode::Char(' '), mods.union(Modifiers::CTRL), raw),
        0x01..=0x1a => key(KeyCode::Char((b - 1 + b'a') as char), mods.union(Modifiers::CTRL), raw),
        0x1c..=0x1f => {
            key(KeyCode::Char(['\\', ']', '^', '_'][usize::from(b - 0x1c)]), mods.union(Modifiers::CTRL), raw)
        }
        _ => {
            let len = utf8_len(b);
            if bytes.len() < offset + len {
                return Step::Incomplete;
            }
            let raw = &bytes[..offset + len];
            return match std::str::from_utf8(&bytes[offset..offset + len]).ok().and_then(|s| s.chars().next())
            {
                Some(c) => Step::Event(key(KeyCode::Char(c), mods, raw), offset + len),
                None => Step::Event(InputEvent::Unknown(raw.to_vec()), offset + 1),
            };
        }
    };
    Step::Event(event, used)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

fn decode_escape(bytes: &[u8]) -> Step {
    let Some(&second) = bytes.get(1) else { return Step::Incomplete };
    match second {
        b'[' => decode_csi(bytes),
        b'O' => {
            let Some(&third) = bytes.get(2) else { return Step::Incomplete };
            let code = match third {
                b'A' => KeyCode::Up,
                b'B' => KeyCode::Down,
                b'C' => KeyCode::Right,
                b'D' => KeyCode::Left,
                b'H' => KeyCode::Home,
                b'F' => KeyCode::End,
                b'P'..=b'S' => KeyCode::F(third - b'P' + 1),
                _ => return Step::Event(InputEvent::Unknown(bytes[..3].to_vec()), 3),
            };
            Step::Event(key(code, Modifiers::NONE, &bytes[..3]), 3)
        }
        0x1b => Step::Event(key(KeyCode::Esc, Modifiers::ALT, &bytes[..2]), 2),
        _ => decode_plain(bytes, Modifiers::ALT, 1),
    }
}

/// `ESC [` params… final. Parameters are `;`-separated numbers with optional `:` sub-fields.
fn decode_csi(bytes: &[u8]) -> Step {
    let Some(end) = bytes.iter().skip(2).position(|b| (0x40..=0x7e).contains(b)).map(|p| p + 2) else {
        // A CSI that never finishes within a sane length is garbage, not a pending sequence.
        return if bytes.len() > 64 {
            Step::Event(InputEvent::Unknown(bytes.to_vec()), bytes.len())
        } else {
            Step::Incomplete
        };
    };
    let raw = &bytes[..=end];
    let used = end + 1;
    let final_byte = bytes[end];
    let body = &bytes[2..end];
    if body.first() == Some(&b'<') {
        return mouse(&body[1..], final_byte, raw);
    }
    let params: Vec<Vec<u32>> = std::str::from_utf8(body)
        .unwrap_or("")
        .split(';')
        .map(|p| p.split(':').map(|n| n.parse().unwrap_or(0)).collect())
        .collect();
    let num = |i: usize| params.get(i).and_then(|p| p.first()).copied().unwrap_or(0);
    let mods = Modifiers::from_param(num(1));
    let arrow = |code| Step::Event(key(code, mods, raw), used);
    match final_byte {
        b'A' => arrow(KeyCode::Up),
        b'B' => arrow(KeyCode::Down),
        b'C' => arrow(KeyCode::Right),
        b'D' => arrow(KeyCode::Left),
        b'H' => arrow(KeyCode::Home),
        b'F' => arrow(KeyCode::End),
        b'P'..=b'S' if !body.is_empty() => arrow(KeyCode::F(final_byte - b'P' + 1)),
        b'Z' => Step::Event(key(KeyCode::Tab, Modifiers::SHIFT, raw), used),
        b'I' if body.is_empty() => Step::Event(InputEvent::FocusIn, used),
        b'O' if body.is_empty() => Step::Event(InputEvent::FocusOut, used),
        b'u' => kitty_key(&params, raw, used),
        b'~' if num(0) == 27 => {
            // modifyOtherKeys: CSI 27 ; modifiers ; codepoint ~
            let mods = Modifiers::from_param(num(1));
            match char::from_u32(num(2)).map(codepoint_key) {
                Some(code) => Step::Event(key(code, mods, raw), used),
                None => Step::Event(InputEvent::Unknown(raw.to_vec()), used),
            }
        }
        b'~' => {
            let code = match num(0) {
                1 | 7 => KeyCode::Home,
                2 => KeyCode::Insert,
                3 => KeyCode::Delete,
                4 | 8 => KeyCode::End,
                5 => KeyCode::PageUp,
                6 => KeyCode::PageDown,
                n @ 11..=15 => KeyCode::F((n - 10) as u8),
                n @ 17..=21 => KeyCode::F((n - 11) as u8),
                n @ 23..=24 => KeyCode::F((n - 12) as u8),
                _ => return Step::Event(InputEvent::Unknown(raw.to_vec()), used),
            };
            Step::Event(key(code, mods, raw), used)
        }
        _ => Step::Event(InputEvent::Unknown(raw.to_vec()), used),
    }
}

/// Control codepoints of CSI u / modifyOtherKeys as keys.
fn codepoint_key(c: char) -> KeyCode {
    match c {
        '\r' => KeyCode::Enter,
        '\t' => KeyCode::Tab,
        '\x1b' => KeyCode::Esc,
        '\x7f' | '\x08' => KeyCode::Backspace,
        c => KeyCode::Char(c),
    }
}

/// `CSI code[:shifted[:base]] ; mods[:event] [; text] u`. Releases (event 3) are dropped.
fn kitty_key(params: &[Vec<u32>], raw: &[u8], used: usize) -> Step {
    let code = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
    let mods_field = params.get(1);
    let mods = Modifiers::from_param(mods_field.and_then(|p| p.first()).copied().unwrap_or(1));
    if mods_field.and_then(|p| p.get(1)) == Some(&3) {
        return Step::Skip(used);
    }
    let keycode = match code {
        57399..=57408 => Some(KeyCode::Char(char::from(b'0' + (code - 57399) as u8))),
        57414 => Some(KeyCode::Enter),
        c => char::from_u32(c).filter(|c| !('\u{e000}'..='\u{f8ff}').contains(c)).map(codepoint_key),
    };
    match keycode {
        Some(code) => Step::Event(key(code, mods, raw), used),
        None => Step::Event(InputEvent::Unknown(raw.to_vec()), used),
    }
}

/// SGR mouse: `CSI < b ; x ; y M` (press/drag/motion) or `m` (release); x/y are one-based.
fn mouse(body: &[u8], final_byte: u8, raw: &[u8]) -> Step {
    let used = raw.len();
    let nums: Vec<u32> =
        std::str::from_utf8(body).unwrap_or("").split(';').filter_map(|n| n.parse().ok()).collect();
    let (&[b, x, y], b'M' | b'm') = (nums.as_slice(), final_byte) else {
        return Step::Event(InputEvent::Unknown(raw.to_vec()), used);
    };
    let mut mods = Modifiers::NONE;
    for (bit, m) in [(4, Modifiers::SHIFT), (8, Modifiers::ALT), (16, Modifiers::CTRL)] {
        if b & bit != 0 {
            mods = mods.union(m);
        }
    }
    let button = match b & 3 {
        0 => Some(MouseButton::Left),
        1 => Some(MouseButton::Middle),
        2 => Some(MouseButton::Right),
        _ => None,
    };
    let kind = if b & 64 != 0 {
        match b & 3 {
            0 => MouseKind::ScrollUp,
            1 => MouseKind::ScrollDown,
            2 => MouseKind::ScrollLeft,
            _ => MouseKind::ScrollRight,
        }
    } else if b & 32 != 0 {
        button.map_or(MouseKind::Move, MouseKind::Drag)
    } else {
        match (button, final_byte) {
            (Some(button), b'M') => MouseKind::Press(button),
            (Some(button), _) => MouseKind::Release(button),
            // Button 3 ("none") without motion: a legacy release.
            (None, _) => MouseKind::Release(MouseButton::Left),
        }
    };
    let cell = |v: u32| u16::try_from(v.saturating_sub(1)).unwrap_or(u16::MAX);
    Step::Event(
        InputEvent::Mouse(MouseEvent { kind, x: cell(x), y: cell(y), mods, bytes: raw.to_vec() }),
        used,
    )
}
