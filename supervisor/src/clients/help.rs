//! The keybinding help's contents (`prefix+?`): every binding in force, as the key a person
//! types (`ctrl+b v`) and what it does, in a stable order (prefix bindings, then direct ones).
//! Pure: built from the [`Bindings`] the client's keymap uses, so `[keys]` changes show.

use herdr_protocol::api::PaneDirection;

use crate::keymap::{Action, Bindings, InputEvent, Mode, Target};

/// Whether `event` closes the open help: any key (or paste); mouse movement and focus reports
/// do not.
pub(super) fn closes(event: &InputEvent) -> bool {
    matches!(event, InputEvent::Key(_) | InputEvent::Paste(_) | InputEvent::Unknown(_))
}

/// `(keys, description)` rows for the help overlay.
pub(super) fn entries(bindings: &Bindings) -> Vec<(String, String)> {
    let mut prefixed: Vec<(String, String, u8)> = bindings
        .prefixed
        .iter()
        .filter(|(_, target)| !matches!(target, Target::Action(Action::SwitchTab(n)) if *n > 1))
        .map(|(key, target)| {
            let key = match target {
                Target::Action(Action::SwitchTab(_)) => "1-9".to_owned(),
                _ => key.to_string(),
            };
            (format!("{} {key}", bindings.prefix), describe(target), 0)
        })
        .collect();
    prefixed.extend(bindings.direct.iter().map(|(key, target)| (key.to_string(), describe(target), 1)));
    prefixed.sort_by(|a, b| (a.2, &a.1, &a.0).cmp(&(b.2, &b.1, &b.0)));
    prefixed.into_iter().map(|(key, description, _)| (key, description)).collect()
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
fn describe(target: &Target) -> String {
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
        Action::Command(n) => return format!("custom command {}", n + 1),
        Action::ModeChanged(_) => "mode",
    };
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_bindings_are_listed_once_each() {
        let rows = entries(&Bindings::default());
        let has = |key: &str, what: &str| rows.iter().any(|(k, d)| k == key && d == what);
        assert!(has("ctrl+b v", "split side by side"), "{rows:?}");
        assert!(has("ctrl+b ?", "this help"), "{rows:?}");
        assert!(has("ctrl+b shift+r", "reload config"), "{rows:?}");
        assert!(has("ctrl+b 1-9", "switch to tab"), "{rows:?}");
        assert!(has("ctrl+b w", "navigate workspaces"), "{rows:?}");
        assert_eq!(rows.iter().filter(|(_, d)| d == "switch to tab").count(), 1);
    }

    #[test]
    fn configured_keys_show_in_the_help() {
        let overrides = [("new_tab".to_owned(), vec!["prefix+t".to_owned()])];
        let (bindings, problems) = Bindings::from_config(Some("ctrl+a"), &overrides, &[]);
        assert!(problems.is_empty(), "{problems:?}");
        let rows = entries(&bindings);
        assert!(rows.iter().any(|(k, d)| k == "ctrl+a t" && d == "new tab"), "{rows:?}");
        assert!(!rows.iter().any(|(k, _)| k == "ctrl+a c"), "{rows:?}");
    }
}
