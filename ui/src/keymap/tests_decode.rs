//! Input decoder cases: bytes a terminal sends → events.

use super::*;

fn keys(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    InputDecoder::new()
        .feed(bytes)
        .into_iter()
        .map(|e| match e {
            InputEvent::Key(k) => (k.key.to_string(), k.bytes),
            other => panic!("expected a key, got {other:?}"),
        })
        .collect()
}

fn one_key(bytes: &[u8]) -> String {
    let decoded = keys(bytes);
    assert_eq!(decoded.len(), 1, "{bytes:?} -> {decoded:?}");
    assert_eq!(decoded[0].1, bytes, "bytes kept for pass-through");
    decoded[0].0.clone()
}

#[test]
fn legacy_keys() {
    let table: &[(&[u8], &str)] = &[
        (b"a", "a"),
        (b"N", "shift+n"),
        (b"?", "?"),
        (b"\x02", "ctrl+b"),
        (b"\x08", "ctrl+h"),
        (b"\x00", "ctrl+space"),
        (b"\x1c", "ctrl+\\"),
        (b"\r", "enter"),
        (b"\t", "tab"),
        (b"\x7f", "backspace"),
        (b"\x1bx", "alt+x"),
        (b"\x1b\x02", "ctrl+alt+b"),
        (b"\x1b\x1b", "alt+esc"),
        ("é".as_bytes(), "é"),
        ("中".as_bytes(), "中"),
        (b"\x1b[A", "up"),
        (b"\x1bOB", "down"),
        (b"\x1b[1;5C", "ctrl+right"),
        (b"\x1b[1;3D", "alt+left"),
        (b"\x1b[H", "home"),
        (b"\x1b[4~", "end"),
        (b"\x1b[3~", "delete"),
        (b"\x1b[5;2~", "shift+pageup"),
        (b"\x1b[6~", "pagedown"),
        (b"\x1bOP", "f1"),
        (b"\x1b[15~", "f5"),
        (b"\x1b[24~", "f12"),
        (b"\x1b[1;2Q", "shift+f2"),
        (b"\x1b[Z", "shift+tab"),
    ];
    for (bytes, expected) in table {
        assert_eq!(one_key(bytes), *expected, "{bytes:?}");
    }
}

#[test]
fn kitty_and_modify_other_keys() {
    let table: &[(&[u8], &str)] = &[
        (b"\x1b[98;5u", "ctrl+b"),
        (b"\x1b[110;2u", "shift+n"),
        (b"\x1b[13u", "enter"),
        (b"\x1b[13;2u", "shift+enter"),
        (b"\x1b[27u", "esc"),
        (b"\x1b[9;2u", "shift+tab"),
        (b"\x1b[127;5u", "ctrl+backspace"),
        (b"\x1b[97:65;2u", "shift+a"),
        (b"\x1b[97;5:1u", "ctrl+a"),
        (b"\x1b[27;5;98~", "ctrl+b"),
        (b"\x1b[27;2;13~", "shift+enter"),
        (b"\x1b[57400u", "1"),
    ];
    for (bytes, expected) in table {
        assert_eq!(one_key(bytes), *expected, "{bytes:?}");
    }
    // Key releases (event type 3) produce nothing.
    assert!(InputDecoder::new().feed(b"\x1b[98;5:3u").is_empty());
}

#[test]
fn sgr_mouse() {
    let mut d = InputDecoder::new();
    let events = d.feed(
        b"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<32;11;5M\x1b[<64;1;1M\x1b[<65;1;1M\x1b[<18;3;4M\x1b[<35;7;8M",
    );
    let kinds: Vec<(MouseKind, u16, u16, Modifiers)> = events
        .into_iter()
        .map(|e| match e {
            InputEvent::Mouse(m) => (m.kind, m.x, m.y, m.mods),
            other => panic!("expected mouse, got {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (MouseKind::Press(MouseButton::Left), 9, 4, Modifiers::NONE),
            (MouseKind::Release(MouseButton::Left), 9, 4, Modifiers::NONE),
            (MouseKind::Drag(MouseButton::Left), 10, 4, Modifiers::NONE),
            (MouseKind::ScrollUp, 0, 0, Modifiers::NONE),
            (MouseKind::ScrollDown, 0, 0, Modifiers::NONE),
            (MouseKind::Press(MouseButton::Right), 2, 3, Modifiers::CTRL),
            (MouseKind::Move, 6, 7, Modifiers::NONE),
        ]
    );
}

#[test]
fn paste_focus_and_sequences_split_across_reads() {
    let mut d = InputDecoder::new();
    assert_eq!(d.feed(b"\x1b[I"), vec![InputEvent::FocusIn]);
    assert_eq!(d.feed(b"\x1b[O"), vec![InputEvent::FocusOut]);
    // A paste containing escape bytes and a split end marker.
    assert!(d.feed(b"\x1b[200~line\x1b[A").is_empty());
    assert!(d.feed(b"\r\nmore\x1b[20").is_empty());
    assert_eq!(
        d.feed(b"1~x"),
        vec![
            InputEvent::Paste(b"line\x1b[A\r\nmore".to_vec()),
            InputEvent::Key(KeyInput { key: parse_key("x").expect("x"), bytes: b"x".to_vec() }),
        ]
    );
    // A CSI split in two reads, and a UTF-8 character split in two reads.
    assert!(d.feed(b"\x1b[1;").is_empty());
    assert_eq!(keys_of(d.feed(b"5A")), vec!["ctrl+up"]);
    let snowman = "☃".as_bytes();
    assert!(d.feed(&snowman[..1]).is_empty());
    assert_eq!(keys_of(d.feed(&snowman[1..])), vec!["☃"]);
}

fn keys_of(events: Vec<InputEvent>) -> Vec<String> {
    events
        .into_iter()
        .map(|e| match e {
            InputEvent::Key(k) => k.key.to_string(),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn lone_escape_waits_for_flush() {
    let mut d = InputDecoder::new();
    assert!(d.feed(b"\x1b").is_empty());
    assert!(d.has_pending());
    assert_eq!(keys_of(d.flush()), vec!["esc"]);
    assert!(!d.has_pending());
    // ESC then more bytes in the next read is alt+key.
    assert!(d.feed(b"\x1b").is_empty());
    assert_eq!(keys_of(d.feed(b"b")), vec!["alt+b"]);
    // Unknown but well-formed sequences are kept whole.
    assert_eq!(d.feed(b"\x1b[?1;2c"), vec![InputEvent::Unknown(b"\x1b[?1;2c".to_vec())]);
}

#[test]
fn decoded_keys_drive_the_keymap() {
    let mut d = InputDecoder::new();
    let mut km = Keymap::new(Bindings::default());
    let mut outcomes = Vec::new();
    for event in d.feed(b"ls\x02v\x02\x02") {
        if let InputEvent::Key(k) = event {
            outcomes.extend(km.handle_key(&k));
        }
    }
    assert_eq!(
        outcomes,
        vec![
            Outcome::Forward(KeyInput { key: KeyEvent::plain(KeyCode::Char('l')), bytes: b"l".to_vec() }),
            Outcome::Forward(KeyInput { key: KeyEvent::plain(KeyCode::Char('s')), bytes: b"s".to_vec() }),
            Outcome::Action(Action::ModeChanged(Mode::Prefix)),
            Outcome::Action(Action::SplitVertical),
            Outcome::Action(Action::ModeChanged(Mode::Terminal)),
            Outcome::Action(Action::ModeChanged(Mode::Prefix)),
            Outcome::Forward(KeyInput { key: KeyEvent::ctrl('b'), bytes: vec![0x02] }),
            Outcome::Action(Action::ModeChanged(Mode::Terminal)),
        ]
    );
}
