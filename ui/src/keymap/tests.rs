//! Key grammar, binding table and mode machine tables.

use herdr_protocol::api::PaneDirection;

use super::*;

fn input(key: &str) -> KeyInput {
    let key = parse_key(key).expect("test key parses");
    KeyInput { key, bytes: format!("<{key}>").into_bytes() }
}

fn keymap() -> Keymap {
    Keymap::new(Bindings::default())
}

#[test]
fn key_grammar() {
    let cases: &[(&str, KeyCode, Modifiers)] = &[
        ("ctrl+b", KeyCode::Char('b'), Modifiers::CTRL),
        ("Ctrl+B", KeyCode::Char('b'), Modifiers(Modifiers::CTRL.0 | Modifiers::SHIFT.0)),
        ("shift+n", KeyCode::Char('n'), Modifiers::SHIFT),
        ("N", KeyCode::Char('n'), Modifiers::SHIFT),
        ("minus", KeyCode::Char('-'), Modifiers::NONE),
        ("-", KeyCode::Char('-'), Modifiers::NONE),
        ("?", KeyCode::Char('?'), Modifiers::NONE),
        ("shift+tab", KeyCode::Tab, Modifiers::SHIFT),
        ("alt+enter", KeyCode::Enter, Modifiers::ALT),
        ("f12", KeyCode::F(12), Modifiers::NONE),
        ("space", KeyCode::Char(' '), Modifiers::NONE),
        ("ctrl+alt+left", KeyCode::Left, Modifiers(Modifiers::CTRL.0 | Modifiers::ALT.0)),
        ("[", KeyCode::Char('['), Modifiers::NONE),
    ];
    for (text, code, mods) in cases {
        assert_eq!(parse_key(text), Ok(KeyEvent { code: *code, mods: *mods }), "{text}");
    }
    assert_eq!(parse_key(""), Err(KeyParseError::Empty));
    assert_eq!(parse_key("hyper+x"), Err(KeyParseError::UnknownModifier("hyper".into())));
    assert_eq!(parse_key("ctrl+banana"), Err(KeyParseError::UnknownKey("banana".into())));
    assert_eq!(parse_key("f25"), Err(KeyParseError::UnknownKey("f25".into())));
    for text in ["ctrl+b", "shift+n", "minus", "shift+tab", "alt+f3", "space", "?", "ctrl+alt+delete"] {
        let key = parse_key(text).expect("parses");
        assert_eq!(parse_key(&key.to_string()), Ok(key), "{text} -> {key}");
    }
    assert_eq!(parse_binding("prefix+c"), Ok(Binding::Prefixed(KeyEvent::plain(KeyCode::Char('c')))));
    assert_eq!(parse_binding("ctrl+v"), Ok(Binding::Direct(KeyEvent::ctrl('v'))));
}

#[test]
fn prefix_bindings_match_upstream_defaults() {
    let table: &[(&str, Action)] = &[
        ("c", Action::NewTab),
        ("n", Action::NextTab),
        ("p", Action::PreviousTab),
        ("1", Action::SwitchTab(1)),
        ("9", Action::SwitchTab(9)),
        ("v", Action::SplitVertical),
        ("minus", Action::SplitHorizontal),
        ("h", Action::FocusPane(PaneDirection::Left)),
        ("j", Action::FocusPane(PaneDirection::Down)),
        ("k", Action::FocusPane(PaneDirection::Up)),
        ("l", Action::FocusPane(PaneDirection::Right)),
        ("shift+h", Action::SwapPane(PaneDirection::Left)),
        ("L", Action::SwapPane(PaneDirection::Right)),
        ("tab", Action::CyclePane { forward: true }),
        ("shift+tab", Action::CyclePane { forward: false }),
        ("z", Action::Zoom),
        ("x", Action::ClosePane),
        ("shift+x", Action::CloseTab),
        ("[", Action::CopyMode),
        ("b", Action::ToggleSidebar),
        ("?", Action::Help),
        ("q", Action::Detach),
        ("s", Action::Settings),
        ("g", Action::Goto),
        ("e", Action::EditScrollback),
        ("o", Action::OpenNotificationTarget),
        ("shift+n", Action::NewWorkspace),
        ("shift+g", Action::NewWorktree),
        ("shift+w", Action::RenameWorkspace),
        ("shift+d", Action::CloseWorkspace),
        ("shift+t", Action::RenameTab),
        ("shift+p", Action::RenamePane),
        ("shift+r", Action::ReloadConfig),
    ];
    for (key, action) in table {
        let mut km = keymap();
        assert_eq!(km.handle_key(&input("ctrl+b")), vec![Outcome::Action(Action::ModeChanged(Mode::Prefix))]);
        assert_eq!(
            km.handle_key(&input(key)),
            vec![Outcome::Action(action.clone()), Outcome::Action(Action::ModeChanged(Mode::Terminal))],
            "prefix+{key}"
        );
        assert_eq!(km.mode(), Mode::Terminal);
    }
}

#[test]
fn terminal_mode_passes_bytes_through_and_prefix_prefix_sends_one_literal_prefix() {
    let mut km = keymap();
    let a = KeyInput { key: parse_key("a").expect("a"), bytes: b"a".to_vec() };
    assert_eq!(km.handle_key(&a), vec![Outcome::Forward(a.clone())]);
    let ctrl_b = KeyInput { key: KeyEvent::ctrl('b'), bytes: vec![0x02] };
    km.handle_key(&ctrl_b);
    assert_eq!(km.mode(), Mode::Prefix);
    assert_eq!(
        km.handle_key(&ctrl_b),
        vec![Outcome::Forward(ctrl_b.clone()), Outcome::Action(Action::ModeChanged(Mode::Terminal))]
    );
    // Unbound keys and Esc after the prefix do nothing and return to terminal mode.
    for key in ["y", "esc"] {
        km.handle_key(&ctrl_b);
        assert_eq!(
            km.handle_key(&input(key)),
            vec![Outcome::Ignored, Outcome::Action(Action::ModeChanged(Mode::Terminal))]
        );
    }
}

#[test]
fn navigate_mode_table() {
    let mut km = keymap();
    km.handle_key(&input("ctrl+b"));
    assert_eq!(
        km.handle_key(&input("w")),
        vec![Outcome::Ignored, Outcome::Action(Action::ModeChanged(Mode::Navigate))]
    );
    let table: &[(&str, Outcome)] = &[
        ("up", Outcome::Action(Action::SelectWorkspace { forward: false })),
        ("down", Outcome::Action(Action::SelectWorkspace { forward: true })),
        ("h", Outcome::Action(Action::FocusPane(PaneDirection::Left))),
        ("left", Outcome::Action(Action::FocusPane(PaneDirection::Left))),
        ("right", Outcome::Action(Action::FocusPane(PaneDirection::Right))),
        ("k", Outcome::Action(Action::FocusPane(PaneDirection::Up))),
        ("tab", Outcome::Action(Action::CyclePane { forward: true })),
        ("shift+tab", Outcome::Action(Action::CyclePane { forward: false })),
        ("q", Outcome::Ignored),
    ];
    for (key, outcome) in table {
        assert_eq!(km.handle_key(&input(key)), vec![outcome.clone()], "navigate {key}");
        assert_eq!(km.mode(), Mode::Navigate);
    }
    assert_eq!(
        km.handle_key(&input("enter")),
        vec![
            Outcome::Action(Action::SwitchToSelectedWorkspace),
            Outcome::Action(Action::ModeChanged(Mode::Terminal))
        ]
    );
    // A digit jumps to that workspace and leaves navigate mode too.
    km.handle_key(&input("ctrl+b"));
    km.handle_key(&input("w"));
    assert_eq!(
        km.handle_key(&input("3")),
        vec![Outcome::Action(Action::JumpWorkspace(3)), Outcome::Action(Action::ModeChanged(Mode::Terminal))]
    );
    for leave in ["esc", "ctrl+b"] {
        km.handle_key(&input("ctrl+b"));
        km.handle_key(&input("w"));
        assert_eq!(km.handle_key(&input(leave)), vec![Outcome::Action(Action::ModeChanged(Mode::Terminal))]);
    }
}

#[test]
fn resize_mode_table() {
    let mut km = keymap();
    km.handle_key(&input("ctrl+b"));
    km.handle_key(&input("r"));
    assert_eq!(km.mode(), Mode::Resize);
    for (key, dir) in [
        ("h", PaneDirection::Left),
        ("j", PaneDirection::Down),
        ("up", PaneDirection::Up),
        ("right", PaneDirection::Right),
    ] {
        assert_eq!(km.handle_key(&input(key)), vec![Outcome::Action(Action::Resize(dir))], "{key}");
    }
    assert_eq!(km.handle_key(&input("x")), vec![Outcome::Ignored]);
    for leave in ["esc", "enter", "ctrl+b"] {
        km.set_bindings(Bindings::default());
        km.handle_key(&input("ctrl+b"));
        km.handle_key(&input("r"));
        assert_eq!(
            km.handle_key(&input(leave)),
            vec![Outcome::Action(Action::ModeChanged(Mode::Terminal))],
            "{leave}"
        );
    }
}

#[test]
fn config_overrides_unbinds_and_reports_problems() {
    let overrides = vec![
        ("new_tab".to_string(), vec!["prefix+t".to_string(), "alt+t".to_string()]),
        ("zoom".to_string(), vec![]),
        ("close_pane".to_string(), vec!["prefix+ctrl+banana".to_string()]),
        ("no_such_binding".to_string(), vec!["prefix+u".to_string()]),
        ("next_workspace".to_string(), vec!["j".to_string()]),
    ];
    let commands = vec!["prefix+shift+c".to_string()];
    let (bindings, problems) = Bindings::from_config(Some("ctrl+a"), &overrides, &commands);
    assert_eq!(bindings.prefix, KeyEvent::ctrl('a'));
    let prefixed = |k: &str| bindings.prefixed.get(&parse_key(k).expect("key")).cloned();
    assert_eq!(prefixed("t"), Some(Target::Action(Action::NewTab)));
    assert_eq!(prefixed("c"), None, "default replaced");
    assert_eq!(prefixed("z"), None, "empty list unbinds");
    assert_eq!(prefixed("x"), Some(Target::Action(Action::ClosePane)), "bad entry keeps the default");
    assert_eq!(prefixed("shift+c"), Some(Target::Action(Action::Command(0))));
    assert_eq!(bindings.direct.get(&parse_key("alt+t").expect("key")), Some(&Target::Action(Action::NewTab)));
    let names: Vec<&str> = problems.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["close_pane", "no_such_binding", "j"], "{problems:?}");
    let (_, problems) = Bindings::from_config(Some("ctrl+"), &[], &[]);
    assert_eq!(problems.len(), 1);

    // Direct bindings fire in terminal mode instead of reaching the pane.
    let mut km = Keymap::new(bindings);
    assert_eq!(km.handle_key(&input("alt+t")), vec![Outcome::Action(Action::NewTab)]);
    assert_eq!(km.handle_key(&input("ctrl+b")), vec![Outcome::Forward(input("ctrl+b"))]);
}

#[test]
fn defaults_have_no_problems() {
    let (_, problems) = Bindings::from_config(None, &[], &[]);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn bindable_actions_know_their_config_names() {
    assert_eq!(Action::Settings.config_name(), Some("settings"));
    assert_eq!(Action::FocusPane(PaneDirection::Left).config_name(), Some("focus_pane_left"));
    assert_eq!(Action::SwitchTab(3).config_name(), None, "prefix+1..9 is fixed, not a [keys] name");
}
