//! A decoded key in the public key grammar the pane worker parses (`ctrl+shift+a`, `escape`,
//! `f5`, `shift+tab`, `minus`), so a typed key can travel as `WorkerRequest::TypeKey` and be
//! re-encoded for a program that asked for a keyboard mode (kitty flags, modifyOtherKeys).
//!
//! Not here: parsing that grammar or encoding keys (the worker's `keys` and engine modules).
//! Keys the grammar has no name for (Home, End, PageUp, PageDown, Insert, Delete) give `None`:
//! the runtime sends their bytes unchanged.

use super::key::{KeyCode, KeyEvent, Modifiers};

/// `key` in the public grammar, or `None` when the grammar cannot name it.
pub fn grammar_name(key: &KeyEvent) -> Option<String> {
    let name = match key.code {
        KeyCode::Enter => "enter".to_owned(),
        KeyCode::Tab => "tab".to_owned(),
        KeyCode::Backspace => "backspace".to_owned(),
        KeyCode::Esc => "escape".to_owned(),
        KeyCode::Up => "up".to_owned(),
        KeyCode::Down => "down".to_owned(),
        KeyCode::Left => "left".to_owned(),
        KeyCode::Right => "right".to_owned(),
        KeyCode::F(n @ 1..=24) => format!("f{n}"),
        // Spelled out where the bare character would read as grammar syntax (`+` separates
        // modifiers, `c-x` is the short ctrl form) or be trimmed away (space).
        KeyCode::Char(' ') => "space".to_owned(),
        KeyCode::Char('+') => "plus".to_owned(),
        KeyCode::Char('-') => "minus".to_owned(),
        KeyCode::Char(c) if !c.is_control() => c.to_string(),
        KeyCode::Char(_)
        | KeyCode::F(_)
        | KeyCode::Home
        | KeyCode::End
        | KeyCode::PageUp
        | KeyCode::PageDown
        | KeyCode::Insert
        | KeyCode::Delete => return None,
    };
    let mut out = String::new();
    for (flag, prefix) in [
        (Modifiers::CTRL, "ctrl+"),
        (Modifiers::ALT, "alt+"),
        (Modifiers::SHIFT, "shift+"),
        (Modifiers::SUPER, "super+"),
    ] {
        if key.mods.contains(flag) {
            out.push_str(prefix);
        }
    }
    out.push_str(&name);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::{InputDecoder, InputEvent};

    /// The grammar name of the one key `bytes` decode to.
    fn name_of(bytes: &[u8]) -> Option<String> {
        let mut decoder = InputDecoder::new();
        let mut events = decoder.feed(bytes);
        events.extend(decoder.flush());
        match events.as_slice() {
            [InputEvent::Key(input)] => grammar_name(&input.key),
            other => panic!("{bytes:?} decoded to {other:?}"),
        }
    }

    #[test]
    fn typed_keys_are_named_in_the_public_grammar() {
        let table: &[(&[u8], Option<&str>)] = &[
            (b"a", Some("a")),
            (b"A", Some("shift+a")),
            (b"\x01", Some("ctrl+a")),
            (b"\x1b[97;6u", Some("ctrl+shift+a")),
            (b"\x1b[27;6;65~", Some("ctrl+shift+a")),
            (b"\x1ba", Some("alt+a")),
            (b"\x1b", Some("escape")),
            (b"\x1b\x1b", Some("alt+escape")),
            (b"\r", Some("enter")),
            (b"\t", Some("tab")),
            (b"\x1b[Z", Some("shift+tab")),
            (b"\x7f", Some("backspace")),
            (b"\x1b[A", Some("up")),
            (b"\x1b[1;5D", Some("ctrl+left")),
            (b"\x1bOP", Some("f1")),
            (b"\x1b[15~", Some("f5")),
            (b"\x1b[24;2~", Some("shift+f12")),
            (b" ", Some("space")),
            (b"\x00", Some("ctrl+space")),
            (b"-", Some("minus")),
            (b"+", Some("plus")),
            (b"?", Some("?")),
            (b"\x1f", Some("ctrl+_")),
            ("é".as_bytes(), Some("é")),
            (b"\x1b[97;9u", Some("super+a")),
            (b"\x1b[H", None),
            (b"\x1b[4~", None),
            (b"\x1b[5~", None),
            (b"\x1b[6~", None),
            (b"\x1b[2~", None),
            (b"\x1b[3;5~", None),
        ];
        for (bytes, want) in table {
            assert_eq!(name_of(bytes).as_deref(), *want, "{bytes:?}");
        }
    }

    #[test]
    fn every_name_parses_back_to_the_same_key() {
        for key in ["ctrl+shift+a", "alt+escape", "shift+tab", "f5", "space", "minus", "plus", "?"] {
            let parsed = crate::keymap::parse_key(key).expect("the config grammar reads it too");
            assert_eq!(grammar_name(&parsed).as_deref(), Some(key));
        }
    }
}
