//! The keybinding help's contents (`prefix+?`): every binding in force, as the key a person
//! types (`ctrl+b v`) and what it does (custom commands by their description), in a stable
//! order (prefix bindings, then direct ones), then the keys of navigate, resize and copy mode,
//! each section under a heading row (a row with an empty key). Pure: built from the [`Bindings`] the client's keymap uses, so `[keys]`
//! changes show; the mode keys are the fixed ones [`crate::keymap`] accepts (tests hold each
//! listed key to doing something there).

use herdr_protocol::api::PaneDirection;

use crate::config::CustomCommand;
use crate::keymap::{Action, Bindings, InputEvent, KeyEvent, Mode, Target};

/// A mode's fixed key: what the help shows, the key names it stands for (as `[keys]` spells
/// them) and what they do.
type ModeKey = (&'static str, &'static [&'static str], &'static str);

/// Navigate mode (`prefix+w`).
const NAVIGATE_KEYS: &[ModeKey] = &[
    ("up down", &["up", "down"], "select workspace"),
    ("enter", &["enter"], "switch to selected"),
    ("1-9", &["1", "2", "3", "4", "5", "6", "7", "8", "9"], "switch to workspace"),
    ("h j k l ← →", &["h", "j", "k", "l", "left", "right"], "focus pane"),
    ("tab shift+tab", &["tab", "shift+tab"], "cycle panes"),
    ("esc", &["esc"], "leave"),
];

/// Resize mode (`prefix+r`).
const RESIZE_KEYS: &[ModeKey] = &[
    ("h j k l arrows", &["h", "j", "k", "l", "left", "down", "up", "right"], "resize pane"),
    ("esc enter", &["esc", "enter"], "leave"),
];

/// Copy mode (`prefix+[`).
const COPY_KEYS: &[ModeKey] = &[
    ("h j k l arrows", &["h", "j", "k", "l", "left", "down", "up", "right"], "move"),
    ("w b e", &["w", "b", "e"], "word"),
    ("W B E", &["W", "B", "E"], "WORD (blank-separated)"),
    ("{ }", &["{", "}"], "paragraph"),
    ("0 ^ $", &["0", "^", "$", "home", "end"], "line start, text, end"),
    ("g G", &["g", "G"], "top, bottom"),
    ("H M L", &["H", "M", "L"], "screen top, middle, bottom"),
    ("pgup pgdn ctrl+f", &["pageup", "pagedown", "ctrl+f"], "page"),
    ("ctrl+u ctrl+d", &["ctrl+u", "ctrl+d"], "half page"),
    ("/ ?", &["/", "?"], "search forward, back"),
    ("n N", &["n", "N"], "next, previous match"),
    ("v space", &["v", "space"], "select"),
    ("y enter", &["y", "enter"], "copy and leave"),
    ("esc", &["esc"], "clear, then leave"),
    ("q", &["q"], "leave"),
];

/// Whether `event` closes the open help: any key (or paste); mouse movement and focus reports
/// do not.
pub fn closes(event: &InputEvent) -> bool {
    matches!(event, InputEvent::Key(_) | InputEvent::Paste(_) | InputEvent::Unknown(_))
}

/// `(keys, description)` rows for the help overlay; custom commands are described from
/// `commands` (the `[[keys.command]]` entries the bindings' `Command` indexes point into).
pub fn entries(bindings: &Bindings, commands: &[CustomCommand]) -> Vec<(String, String)> {
    let mut prefixed: Vec<(String, String, u8)> = bindings
        .prefixed
        .iter()
        .filter(|(_, target)| !matches!(target, Target::Action(Action::SwitchTab(n)) if *n > 1))
        .map(|(key, target)| {
            let key = match target {
                Target::Action(Action::SwitchTab(_)) => "1-9".to_owned(),
                _ => key.to_string(),
            };
            (format!("{} {key}", bindings.prefix), describe(target, commands), 0)
        })
        .collect();
    prefixed
        .extend(bindings.direct.iter().map(|(key, target)| (key.to_string(), describe(target, commands), 1)));
    prefixed.sort_by(|a, b| (a.2, &a.1, &a.0).cmp(&(b.2, &b.1, &b.0)));
    let mut rows: Vec<(String, String)> =
        prefixed.into_iter().map(|(key, description, _)| (key, description)).collect();
    section(&mut rows, "navigate mode", NAVIGATE_KEYS);
    section(&mut rows, "resize mode", RESIZE_KEYS);
    section(&mut rows, "copy mode", COPY_KEYS);
    // ctrl+b pages up in copy mode unless it is the prefix, which leaves copy mode instead.
    if bindings.prefix != KeyEvent::ctrl('b') {
        rows.push(("ctrl+b".into(), "page up".into()));
    }
    rows.push((bindings.prefix.to_string(), "leave".into()));
    rows
}

/// A heading row (empty key) and `keys`.
fn section(rows: &mut Vec<(String, String)>, heading: &str, keys: &[ModeKey]) {
    rows.push((String::new(), heading.to_owned()));
    rows.extend(keys.iter().map(|(shown, _, what)| ((*shown).to_owned(), (*what).to_owned())));
}

fn direction(d: PaneDirection) -> &'static str {
    match d {
        PaneDirection::Left => "left",
        PaneDirection::Right => "right",
        PaneDirection::Up => "up",
        PaneDirection::Down => "down",
    }
}

/// What a binding does, in a few words.
fn describe(target: &Target, commands: &[CustomCommand]) -> String {
    let action = match target {
        Target::Mode(Mode::Navigate) => return "navigate workspaces".into(),
        Target::Mode(Mode::Resize) => return "resize mode".into(),
        Target::Mode(mode) => return format!("{mode:?} mode").to_lowercase(),
        Target::Action(action) => action,
    };
    let text = match action {
        Action::Help => "this help",
        Action::Settings => "settings",
        Action::NewWorkspace => "new workspace",
        Action::NewWorktree => "new worktree",
        Action::OpenWorktree => "open worktree",
        Action::RemoveWorktree => "remove worktree",
        Action::RenameWorkspace => "rename workspace",
        Action::CloseWorkspace => "close workspace",
        Action::PreviousWorkspace => "previous workspace",
        Action::NextWorkspace => "next workspace",
        Action::Goto => "go to",
        Action::Detach => "detach",
        Action::ReloadConfig => "reload config",
        Action::OpenNotificationTarget => "open notification target",
        Action::NewTab => "new tab",
        Action::RenameTab => "rename tab",
        Action::PreviousTab => "previous tab",
        Action::NextTab => "next tab",
        Action::SwitchTab(_) => "switch to tab",
        Action::CloseTab => "close tab",
        Action::RenamePane => "rename pane",
        Action::EditScrollback => "edit scrollback",
        Action::CopyMode => "copy mode",
        Action::FocusPane(d) => return format!("focus pane {}", direction(*d)),
        Action::SwapPane(d) => return format!("swap pane {}", direction(*d)),
        Action::Resize(d) => return format!("resize pane {}", direction(*d)),
        Action::CyclePane { forward: true } => "next pane",
        Action::CyclePane { forward: false } => "previous pane",
        Action::LastPane => "last pane",
        Action::SplitVertical => "split side by side",
        Action::SplitHorizontal => "split stacked",
        Action::ClosePane => "close pane",
        Action::Zoom => "zoom pane",
        Action::ToggleSidebar => "toggle sidebar",
        Action::PreviousAgent => "previous agent",
        Action::NextAgent => "next agent",
        Action::SelectWorkspace { .. } | Action::JumpWorkspace(_) | Action::SwitchToSelectedWorkspace => {
            "select workspace"
        }
        Action::Command(n) => return describe_command(commands, *n),
        Action::ModeChanged(_) => "mode",
    };
    text.to_owned()
}

/// What the help shows for custom command `index`: its description (or the command), and
/// whether it opens in a popup or a pane.
fn describe_command(commands: &[CustomCommand], index: usize) -> String {
    let Some(command) = commands.get(index) else { return format!("custom command {}", index + 1) };
    let what = command.description.clone().unwrap_or_else(|| command.command.clone());
    match command.kind {
        "popup" => format!("{what} (popup)"),
        "pane" => format!("{what} (pane)"),
        _ => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_commands_by_description_and_says_how_they_open() {
        let (config, problems) = crate::config::parse(
            "[[keys.command]]\nkey = \"prefix+t\"\ntype = \"popup\"\ncommand = \"lazygit --all\"\n\
             description = \"git ui\"\n\n[[keys.command]]\nkey = \"prefix+y\"\ntype = \"shell\"\n\
             command = \"lazygit --all\"\n",
            "config.toml",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let commands = &config.keys.commands;
        assert_eq!(describe_command(commands, 0), "git ui (popup)");
        assert_eq!(describe_command(commands, 1), "lazygit --all");
        assert_eq!(describe_command(commands, 7), "custom command 8");
    }

    #[test]
    fn the_default_bindings_are_listed_once_each() {
        let rows = entries(&Bindings::default(), &[]);
        let has = |key: &str, what: &str| rows.iter().any(|(k, d)| k == key && d == what);
        assert!(has("ctrl+b v", "split side by side"), "{rows:?}");
        assert!(has("ctrl+b ?", "this help"), "{rows:?}");
        assert!(has("ctrl+b shift+r", "reload config"), "{rows:?}");
        assert!(has("ctrl+b 1-9", "switch to tab"), "{rows:?}");
        assert!(has("ctrl+b w", "navigate workspaces"), "{rows:?}");
        assert_eq!(rows.iter().filter(|(_, d)| d == "switch to tab").count(), 1);
    }

    use crate::keymap::{CopyKeys, CopyStep, KeyInput, Keymap, Outcome, parse_key};

    fn key(name: &str) -> KeyEvent {
        parse_key(name).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// A fresh keymap put into `mode` with the default prefix and `enter` (`w` or `r`).
    fn keymap_in(enter: &str) -> Keymap {
        let mut keymap = Keymap::new(Bindings::default());
        for name in ["ctrl+b", enter] {
            keymap.handle_key(&KeyInput { key: key(name), bytes: Vec::new() });
        }
        keymap
    }

    #[test]
    fn every_listed_mode_key_does_something_in_its_mode() {
        for (table, enter, mode) in [(NAVIGATE_KEYS, "w", Mode::Navigate), (RESIZE_KEYS, "r", Mode::Resize)] {
            assert_eq!(keymap_in(enter).mode(), mode);
            for (_, names, what) in table {
                for name in *names {
                    let outcomes =
                        keymap_in(enter).handle_key(&KeyInput { key: key(name), bytes: Vec::new() });
                    assert!(
                        !outcomes.is_empty() && outcomes != [Outcome::Ignored],
                        "{mode:?} {name} ({what}) does nothing: {outcomes:?}"
                    );
                }
            }
        }
        for (_, names, what) in COPY_KEYS {
            for name in *names {
                let step = CopyKeys::new().handle(key(name), KeyEvent::ctrl('b'), false);
                assert_ne!(step, CopyStep::Ignored, "copy mode {name} ({what})");
            }
        }
        let page_up = CopyKeys::new().handle(KeyEvent::ctrl('b'), KeyEvent::ctrl('a'), false);
        assert_ne!(page_up, CopyStep::Ignored, "ctrl+b pages when it is not the prefix");
    }

    #[test]
    fn the_mode_sections_follow_the_bindings_under_headings() {
        let rows = entries(&Bindings::default(), &[]);
        let heading = |name: &str| rows.iter().position(|(k, d)| k.is_empty() && d == name);
        let (navigate, resize, copy) =
            (heading("navigate mode"), heading("resize mode"), heading("copy mode"));
        assert!(navigate.is_some() && navigate < resize && resize < copy, "{rows:?}");
        let copy = copy.expect("a copy mode section");
        assert!(rows[copy..].iter().any(|(k, d)| k == "/ ?" && d == "search forward, back"));
        assert_eq!(rows.last(), Some(&("ctrl+b".to_owned(), "leave".to_owned())));
        assert!(!rows[copy..].iter().any(|(_, d)| d == "page up"), "ctrl+b is the prefix here");
        let (custom, _) = Bindings::from_config(Some("ctrl+a"), &[], &[]);
        let rows = entries(&custom, &[]);
        assert!(rows.iter().any(|(k, d)| k == "ctrl+b" && d == "page up"), "{rows:?}");
        assert_eq!(rows.last(), Some(&("ctrl+a".to_owned(), "leave".to_owned())));
    }

    #[test]
    fn the_default_help_fits_a_120_by_40_terminal_whole() {
        use ratatui_core::buffer::Buffer;
        use ratatui_core::layout::Rect;

        let area = Rect::new(0, 0, 120, 40);
        let mut buf = Buffer::empty(area);
        let rows = entries(&Bindings::default(), &[]);
        crate::render::draw_help(&mut buf, area, &rows, &crate::render::Theme::default().colors);
        let text: String =
            (0..40).map(|y| (0..120).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n").collect();
        for needle in
            ["copy mode", "search forward, back", "navigate mode", "resize mode", "split side by side"]
        {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
        assert!(!text.contains("more"), "everything is shown:\n{text}");
    }

    #[test]
    fn custom_commands_show_with_their_description() {
        let (config, problems) = crate::config::parse(
            "[[keys.command]]\nkey = \"prefix+t\"\ntype = \"popup\"\ncommand = \"lazygit\"\n\
             description = \"git ui\"\n[[keys.command]]\nkey = \"prefix+y\"\ntype = \"shell\"\n\
             command = \"touch done\"\n",
            "config.toml",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let rows = entries(config.bindings(), &config.keys.commands);
        assert!(rows.iter().any(|(k, d)| k == "ctrl+b t" && d == "git ui (popup)"), "{rows:?}");
        assert!(rows.iter().any(|(k, d)| k == "ctrl+b y" && d == "touch done"), "{rows:?}");
    }

    #[test]
    fn configured_keys_show_in_the_help() {
        let overrides = [("new_tab".to_owned(), vec!["prefix+t".to_owned()])];
        let (bindings, problems) = Bindings::from_config(Some("ctrl+a"), &overrides, &[]);
        assert!(problems.is_empty(), "{problems:?}");
        let rows = entries(&bindings, &[]);
        assert!(rows.iter().any(|(k, d)| k == "ctrl+a t" && d == "new tab"), "{rows:?}");
        assert!(!rows.iter().any(|(k, _)| k == "ctrl+a c"), "{rows:?}");
    }
}
