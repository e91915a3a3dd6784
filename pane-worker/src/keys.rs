//! The public key grammar (`ctrl+c`, `Enter`, `C-c`, `shift+tab`, `f5`, `minus`, `A`, ...) parsed
//! into key combos. Pure: no terminal, no encoding — `engine` turns a [`KeyCombo`] into bytes for
//! the program's current keyboard mode.
//!
//! Grammar (case-insensitive for names): `mod+…+key` with modifiers `ctrl|control`, `shift`,
//! `alt|option|meta`, `cmd|command|super`, `hyper`; keys `enter|return`, `esc|escape`, `tab`,
//! `backspace|bs`, `space`, `left|right|up|down`, `f1`..`f25`, named punctuation, or any single
//! character (an uppercase letter implies shift). `C-x` / `c-x` mean `ctrl+x` and `M-x` / `m-x`
//! mean `alt+x`; a lone `+` is `plus`.

use thiserror::Error;

/// A key that is not in the grammar. The message is the public `invalid_key` wording.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unsupported key {0}")]
pub struct UnsupportedKey(pub String);

/// Modifier keys held with a key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers {
    pub ctrl: bool,
    pub shift: bool,
    pub alt: bool,
    /// `cmd`, `command`, `super` and `hyper` (terminals have no separate hyper bit).
    pub super_key: bool,
}

/// The key itself, without modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyName {
    Enter,
    Escape,
    Tab,
    Backspace,
    Left,
    Right,
    Up,
    Down,
    /// Function key `F1`..=`F25`.
    Function(u8),
    /// A printable character, as typed (space included).
    Char(char),
}

/// One key press: a key plus the modifiers held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyCombo {
    pub key: KeyName,
    pub mods: Modifiers,
}

/// Highest function key the terminal's key encoder knows.
const MAX_FUNCTION_KEY: u8 = 25;

/// Parses every key first, so a bad key anywhere rejects the whole list before any byte is sent.
pub fn parse_keys<S: AsRef<str>>(keys: &[S]) -> Result<Vec<KeyCombo>, UnsupportedKey> {
    keys.iter().map(|k| parse_key(k.as_ref())).collect()
}

/// Parses one key of the public grammar.
pub fn parse_key(spec: &str) -> Result<KeyCombo, UnsupportedKey> {
    let unsupported = || UnsupportedKey(spec.to_string());
    if spec.is_empty() {
        return Err(unsupported());
    }
    if let Some(combo) = parse_emacs_form(spec) {
        return combo.ok_or_else(unsupported);
    }
    let (mod_part, key_part) = split_modifiers(spec);
    let mut mods = Modifiers::default();
    if let Some(mod_part) = mod_part {
        for name in mod_part.split('+') {
            apply_modifier(&mut mods, name).ok_or_else(unsupported)?;
        }
    }
    let key = parse_key_name(key_part).ok_or_else(unsupported)?;
    Ok(with_implied_shift(KeyCombo { key, mods }))
}

/// `C-c`, `c-c`, `M-x`, `C-M-x`: the short forms clients use. `None` when the spec is not in
/// this form; `Some(None)` when it is but the rest is not a key.
fn parse_emacs_form(spec: &str) -> Option<Option<KeyCombo>> {
    let mut mods = Modifiers::default();
    let mut rest = spec;
    loop {
        let mut chars = rest.chars();
        let (Some(prefix), Some('-')) = (chars.next(), chars.next()) else { break };
        let tail = chars.as_str();
        if tail.is_empty() {
            break;
        }
        match prefix {
            'C' | 'c' => mods.ctrl = true,
            'M' | 'm' => mods.alt = true,
            _ => break,
        }
        rest = tail;
    }
    if rest.len() == spec.len() {
        return None;
    }
    // The rest may itself be `shift+tab`-style; it must not carry the short form again.
    Some(parse_key(rest).ok().map(|inner| {
        let mods = Modifiers {
            ctrl: mods.ctrl || inner.mods.ctrl,
            shift: inner.mods.shift,
            alt: mods.alt || inner.mods.alt,
            super_key: inner.mods.super_key,
        };
        KeyCombo { key: inner.key, mods }
    }))
}

/// Splits `ctrl+shift+x` into (`ctrl+shift`, `x`); a trailing `++` means the key is `+`.
fn split_modifiers(spec: &str) -> (Option<&str>, &str) {
    if spec == "+" {
        return (None, spec);
    }
    if let Some(mods) = spec.strip_suffix("++") {
        return (Some(mods), "+");
    }
    match spec.rsplit_once('+') {
        Some((mods, key)) => (Some(mods), key),
        None => (None, spec),
    }
}

fn apply_modifier(mods: &mut Modifiers, name: &str) -> Option<()> {
    match name.to_ascii_lowercase().as_str() {
        "ctrl" | "control" => mods.ctrl = true,
        "shift" => mods.shift = true,
        "alt" | "option" | "meta" => mods.alt = true,
        "cmd" | "command" | "super" | "hyper" => mods.super_key = true,
        _ => return None,
    }
    Some(())
}

fn parse_key_name(name: &str) -> Option<KeyName> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(KeyName::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    let key = match lower.as_str() {
        "enter" | "return" => KeyName::Enter,
        "esc" | "escape" => KeyName::Escape,
        "tab" => KeyName::Tab,
        "backspace" | "bs" => KeyName::Backspace,
        "space" => KeyName::Char(' '),
        "left" => KeyName::Left,
        "right" => KeyName::Right,
        "up" => KeyName::Up,
        "down" => KeyName::Down,
        other => return named_punctuation(other).map(KeyName::Char).or_else(|| function_key(other)),
    };
    Some(key)
}

fn named_punctuation(name: &str) -> Option<char> {
    Some(match name {
        "minus" => '-',
        "comma" => ',',
        "period" => '.',
        "slash" => '/',
        "backslash" => '\\',
        "quote" => '\'',
        "double_quote" | "double-quote" => '"',
        "semicolon" => ';',
        "colon" => ':',
        "percent" => '%',
        "ampersand" => '&',
        "backtick" => '`',
        "plus" => '+',
        _ => return None,
    })
}

fn function_key(name: &str) -> Option<KeyName> {
    let digits = name.strip_prefix('f')?;
    // Canonical decimal only: `f05` and `f+5` are not keys.
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (1..=MAX_FUNCTION_KEY).contains(&n).then_some(KeyName::Function(n))
}

/// An uppercase letter is typed with shift held.
fn with_implied_shift(mut combo: KeyCombo) -> KeyCombo {
    if let KeyName::Char(c) = combo.key
        && c.is_uppercase()
    {
        combo.mods.shift = true;
    }
    combo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combo(key: KeyName, f: impl FnOnce(&mut Modifiers)) -> KeyCombo {
        let mut mods = Modifiers::default();
        f(&mut mods);
        KeyCombo { key, mods }
    }

    #[test]
    fn named_keys_are_case_insensitive() {
        for spec in ["enter", "Enter", "ENTER", "return"] {
            assert_eq!(parse_key(spec), Ok(combo(KeyName::Enter, |_| {})), "{spec}");
        }
        assert_eq!(parse_key("Esc"), Ok(combo(KeyName::Escape, |_| {})));
        assert_eq!(parse_key("bs"), Ok(combo(KeyName::Backspace, |_| {})));
        assert_eq!(parse_key("Up"), Ok(combo(KeyName::Up, |_| {})));
        assert_eq!(parse_key("space"), Ok(combo(KeyName::Char(' '), |_| {})));
    }

    #[test]
    fn modifiers_and_aliases() {
        let ctrl_c = combo(KeyName::Char('c'), |m| m.ctrl = true);
        for spec in ["ctrl+c", "Ctrl+c", "control+c", "C-c", "c-c"] {
            assert_eq!(parse_key(spec), Ok(ctrl_c), "{spec}");
        }
        assert_eq!(parse_key("shift+tab"), Ok(combo(KeyName::Tab, |m| m.shift = true)));
        assert_eq!(parse_key("M-x"), Ok(combo(KeyName::Char('x'), |m| m.alt = true)));
        assert_eq!(
            parse_key("C-M-x"),
            Ok(combo(KeyName::Char('x'), |m| {
                m.ctrl = true;
                m.alt = true;
            }))
        );
        assert_eq!(
            parse_key("cmd+option+left"),
            Ok(combo(KeyName::Left, |m| {
                m.super_key = true;
                m.alt = true;
            }))
        );
        assert_eq!(parse_key("hyper+a"), Ok(combo(KeyName::Char('a'), |m| m.super_key = true)));
    }

    #[test]
    fn uppercase_letter_implies_shift() {
        assert_eq!(parse_key("A"), Ok(combo(KeyName::Char('A'), |m| m.shift = true)));
        assert_eq!(
            parse_key("ctrl+C"),
            Ok(combo(KeyName::Char('C'), |m| {
                m.ctrl = true;
                m.shift = true;
            }))
        );
        assert_eq!(parse_key("a"), Ok(combo(KeyName::Char('a'), |_| {})));
    }

    #[test]
    fn plus_and_punctuation() {
        assert_eq!(parse_key("+"), Ok(combo(KeyName::Char('+'), |_| {})));
        assert_eq!(parse_key("plus"), Ok(combo(KeyName::Char('+'), |_| {})));
        assert_eq!(parse_key("ctrl++"), Ok(combo(KeyName::Char('+'), |m| m.ctrl = true)));
        assert_eq!(parse_key("double-quote"), Ok(combo(KeyName::Char('"'), |_| {})));
        assert_eq!(parse_key("Double_Quote"), Ok(combo(KeyName::Char('"'), |_| {})));
        assert_eq!(parse_key("ctrl+minus"), Ok(combo(KeyName::Char('-'), |m| m.ctrl = true)));
        assert_eq!(parse_key("-"), Ok(combo(KeyName::Char('-'), |_| {})));
        assert_eq!(parse_key("é"), Ok(combo(KeyName::Char('é'), |_| {})));
    }

    #[test]
    fn function_keys() {
        assert_eq!(parse_key("f5"), Ok(combo(KeyName::Function(5), |_| {})));
        assert_eq!(parse_key("F12"), Ok(combo(KeyName::Function(12), |_| {})));
        assert_eq!(parse_key("f25"), Ok(combo(KeyName::Function(25), |_| {})));
        for bad in ["f0", "f26", "f05", "f1x", "f-1"] {
            assert_eq!(parse_key(bad), Err(UnsupportedKey(bad.into())), "{bad}");
        }
    }

    #[test]
    fn unsupported_keys_are_named_in_the_error() {
        for bad in ["home", "pageup", "delete", "insert", "ctrl+", "foo+c", "", "ctrl+home", "C-", "prefix+c"]
        {
            let err = parse_key(bad).expect_err(bad);
            assert_eq!(err.to_string(), format!("unsupported key {bad}"));
        }
    }

    #[test]
    fn a_list_fails_as_a_whole() {
        assert_eq!(parse_keys(&["a", "bogus", "b"]), Err(UnsupportedKey("bogus".into())));
        assert_eq!(parse_keys(&["a", "Enter"]).map(|v| v.len()), Ok(2));
    }
}
