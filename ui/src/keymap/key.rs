//! Keys: the parsed form of a key press and the config grammar for naming one (`ctrl+b`,
//! `shift+tab`, `minus`, `?`, `f5`). Canonical form: a letter typed with shift is the lowercase
//! letter plus [`Modifiers::SHIFT`], so legacy `N` and kitty's `n`+shift compare equal; other
//! shifted symbols stay as typed (`?`), as terminals report them.

use std::fmt;

/// Modifier bits, as in the kitty keyboard protocol (minus one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Modifiers(pub u8);

impl Modifiers {
    pub const NONE: Modifiers = Modifiers(0);
    pub const SHIFT: Modifiers = Modifiers(1);
    pub const ALT: Modifiers = Modifiers(2);
    pub const CTRL: Modifiers = Modifiers(4);
    pub const SUPER: Modifiers = Modifiers(8);

    pub fn contains(self, other: Modifiers) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn union(self, other: Modifiers) -> Modifiers {
        Modifiers(self.0 | other.0)
    }

    /// From an xterm/kitty modifier parameter (`1 + bits`); hyper/meta/lock bits are dropped.
    pub fn from_param(param: u32) -> Modifiers {
        Modifiers((param.saturating_sub(1) & 0x0f) as u8)
    }
}

/// A key, independent of modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Enter,
    Tab,
    Backspace,
    Esc,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    F(u8),
}

/// A key press with modifiers, in canonical form (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyEvent {
    pub code: KeyCode,
    pub mods: Modifiers,
}

impl KeyEvent {
    /// Builds the canonical event for `code` with `mods`.
    pub fn new(code: KeyCode, mods: Modifiers) -> KeyEvent {
        match code {
            KeyCode::Char(c) if c.is_ascii_uppercase() => {
                KeyEvent { code: KeyCode::Char(c.to_ascii_lowercase()), mods: mods.union(Modifiers::SHIFT) }
            }
            _ => KeyEvent { code, mods },
        }
    }

    pub fn plain(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, Modifiers::NONE)
    }

    pub fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), Modifiers::CTRL)
    }
}

/// A key name that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    #[error("empty key")]
    Empty,
    #[error("unknown modifier `{0}` (expected ctrl, alt, shift or super)")]
    UnknownModifier(String),
    #[error("unknown key `{0}`")]
    UnknownKey(String),
}

/// Parses one key (`ctrl+b`, `shift+tab`, `alt+enter`, `minus`, `?`, `f12`, `space`). The last
/// `+`-separated part is the key; `+` itself is written `plus`. Case-insensitive except for a
/// single printable character, where an uppercase letter means shift.
pub fn parse_key(text: &str) -> Result<KeyEvent, KeyParseError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(KeyParseError::Empty);
    }
    let parts: Vec<&str> = text.split('+').collect();
    let (key, modifiers) = parts.split_last().ok_or(KeyParseError::Empty)?;
    let mut mods = Modifiers::NONE;
    for m in modifiers {
        mods = mods.union(match m.trim().to_ascii_lowercase().as_str() {
            "ctrl" | "control" => Modifiers::CTRL,
            "alt" | "meta" | "option" => Modifiers::ALT,
            "shift" => Modifiers::SHIFT,
            "super" | "cmd" | "command" | "win" => Modifiers::SUPER,
            other => return Err(KeyParseError::UnknownModifier(other.to_string())),
        });
    }
    let key = key.trim();
    let mut chars = key.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(KeyEvent::new(KeyCode::Char(c), mods));
    }
    let lower = key.to_ascii_lowercase();
    let code = match lower.as_str() {
        "" => return Err(KeyParseError::Empty),
        "enter" | "return" | "cr" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "backtab" => return Ok(KeyEvent::new(KeyCode::Tab, mods.union(Modifiers::SHIFT))),
        "backspace" | "bs" => KeyCode::Backspace,
        "esc" | "escape" => KeyCode::Esc,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "pgup" | "page_up" => KeyCode::PageUp,
        "pagedown" | "pgdn" | "page_down" => KeyCode::PageDown,
        "insert" | "ins" => KeyCode::Insert,
        "delete" | "del" => KeyCode::Delete,
        "space" => KeyCode::Char(' '),
        "minus" | "dash" | "hyphen" => KeyCode::Char('-'),
        "plus" => KeyCode::Char('+'),
        "equal" | "equals" => KeyCode::Char('='),
        "comma" => KeyCode::Char(','),
        "period" | "dot" => KeyCode::Char('.'),
        "slash" => KeyCode::Char('/'),
        "backslash" => KeyCode::Char('\\'),
        "semicolon" => KeyCode::Char(';'),
        "quote" | "apostrophe" => KeyCode::Char('\''),
        "backquote" | "backtick" | "grave" => KeyCode::Char('`'),
        "leftbracket" | "lbracket" => KeyCode::Char('['),
        "rightbracket" | "rbracket" => KeyCode::Char(']'),
        "question" => KeyCode::Char('?'),
        f if f.starts_with('f') && f[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n)) => {
            KeyCode::F(f[1..].parse().unwrap_or(1))
        }
        _ => return Err(KeyParseError::UnknownKey(key.to_string())),
    };
    Ok(KeyEvent::new(code, mods))
}

impl fmt::Display for KeyEvent {
    /// The config spelling, so parse(display(k)) == k.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (flag, name) in [
            (Modifiers::CTRL, "ctrl+"),
            (Modifiers::ALT, "alt+"),
            (Modifiers::SHIFT, "shift+"),
            (Modifiers::SUPER, "super+"),
        ] {
            if self.mods.contains(flag) {
                f.write_str(name)?;
            }
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char('-') => f.write_str("minus"),
            KeyCode::Char('+') => f.write_str("plus"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => f.write_str(match other {
                KeyCode::Enter => "enter",
                KeyCode::Tab => "tab",
                KeyCode::Backspace => "backspace",
                KeyCode::Esc => "esc",
                KeyCode::Up => "up",
                KeyCode::Down => "down",
                KeyCode::Left => "left",
                KeyCode::Right => "right",
                KeyCode::Home => "home",
                KeyCode::End => "end",
                KeyCode::PageUp => "pageup",
                KeyCode::PageDown => "pagedown",
                KeyCode::Insert => "insert",
                KeyCode::Delete => "delete",
                KeyCode::Char(_) | KeyCode::F(_) => "",
            }),
        }
    }
}

/// A binding as config writes it: `prefix+c` (after the prefix) or a direct key (`ctrl+v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    Prefixed(KeyEvent),
    Direct(KeyEvent),
}

/// Parses `prefix+KEY` or `KEY`.
pub fn parse_binding(text: &str) -> Result<Binding, KeyParseError> {
    let trimmed = text.trim();
    match trimmed.get(..7) {
        Some(head) if head.eq_ignore_ascii_case("prefix+") => {
            Ok(Binding::Prefixed(parse_key(&trimmed[7..])?))
        }
        _ => Ok(Binding::Direct(parse_key(trimmed)?)),
    }
}
