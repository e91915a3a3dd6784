//! What a key means to herdr once the keymap has interpreted it: the commands the runtime
//! carries out (through the session model or the client), and the binding names config uses.

use herdr_protocol::api::PaneDirection;

/// A command produced by a binding. Mode changes (prefix, navigate, resize) are handled by the
/// keymap itself and reported as [`Action::ModeChanged`] so the UI can show the mode bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Help,
    Settings,
    NewWorkspace,
    NewWorktree,
    OpenWorktree,
    RemoveWorktree,
    RenameWorkspace,
    CloseWorkspace,
    PreviousWorkspace,
    NextWorkspace,
    Goto,
    Detach,
    ReloadConfig,
    OpenNotificationTarget,
    NewTab,
    RenameTab,
    PreviousTab,
    NextTab,
    /// `1`–`9`: the tab with that number.
    SwitchTab(u8),
    CloseTab,
    RenamePane,
    EditScrollback,
    CopyMode,
    FocusPane(PaneDirection),
    SwapPane(PaneDirection),
    CyclePane {
        forward: bool,
    },
    LastPane,
    /// Side by side (`prefix+v`).
    SplitVertical,
    /// Stacked (`prefix+minus`).
    SplitHorizontal,
    ClosePane,
    Zoom,
    ToggleSidebar,
    /// Resize the focused pane toward a direction (resize mode, or a direct binding).
    Resize(PaneDirection),
    PreviousAgent,
    NextAgent,
    /// Navigate mode: move the workspace selection.
    SelectWorkspace {
        forward: bool,
    },
    /// Navigate mode: `1`–`9` jump to that workspace.
    JumpWorkspace(u8),
    /// Navigate mode: Enter switches to the selected workspace.
    SwitchToSelectedWorkspace,
    /// A `[[keys.command]]` entry, by index in config order.
    Command(usize),
    /// The keymap entered or left a mode.
    ModeChanged(super::Mode),
}

impl Action {
    /// The action's name under `[keys]` (`settings`, `new_worktree`, ...), if it is bindable.
    pub fn config_name(&self) -> Option<&'static str> {
        BINDABLE.iter().find(|(_, action, _)| action == self).map(|(name, _, _)| *name)
    }
}

/// Configurable bindings: `(config name under [keys], action, default bindings)`. `switch_tab`
/// (`prefix+1..9`) and the navigate/resize mode keys are fixed.
pub(crate) const BINDABLE: &[(&str, Action, &[&str])] = &[
    ("help", Action::Help, &["prefix+?"]),
    ("settings", Action::Settings, &["prefix+s"]),
    ("new_workspace", Action::NewWorkspace, &["prefix+shift+n"]),
    ("new_worktree", Action::NewWorktree, &["prefix+shift+g"]),
    ("open_worktree", Action::OpenWorktree, &[]),
    ("remove_worktree", Action::RemoveWorktree, &[]),
    ("rename_workspace", Action::RenameWorkspace, &["prefix+shift+w"]),
    ("close_workspace", Action::CloseWorkspace, &["prefix+shift+d"]),
    ("previous_workspace", Action::PreviousWorkspace, &[]),
    ("next_workspace", Action::NextWorkspace, &[]),
    ("goto", Action::Goto, &["prefix+g"]),
    ("detach", Action::Detach, &["prefix+q"]),
    ("reload_config", Action::ReloadConfig, &["prefix+shift+r"]),
    ("open_notification_target", Action::OpenNotificationTarget, &["prefix+o"]),
    ("new_tab", Action::NewTab, &["prefix+c"]),
    ("rename_tab", Action::RenameTab, &["prefix+shift+t"]),
    ("previous_tab", Action::PreviousTab, &["prefix+p"]),
    ("next_tab", Action::NextTab, &["prefix+n"]),
    ("close_tab", Action::CloseTab, &["prefix+shift+x"]),
    ("rename_pane", Action::RenamePane, &["prefix+shift+p"]),
    ("edit_scrollback", Action::EditScrollback, &["prefix+e"]),
    ("copy_mode", Action::CopyMode, &["prefix+["]),
    ("focus_pane_left", Action::FocusPane(PaneDirection::Left), &["prefix+h"]),
    ("focus_pane_down", Action::FocusPane(PaneDirection::Down), &["prefix+j"]),
    ("focus_pane_up", Action::FocusPane(PaneDirection::Up), &["prefix+k"]),
    ("focus_pane_right", Action::FocusPane(PaneDirection::Right), &["prefix+l"]),
    ("swap_pane_left", Action::SwapPane(PaneDirection::Left), &["prefix+shift+h"]),
    ("swap_pane_down", Action::SwapPane(PaneDirection::Down), &["prefix+shift+j"]),
    ("swap_pane_up", Action::SwapPane(PaneDirection::Up), &["prefix+shift+k"]),
    ("swap_pane_right", Action::SwapPane(PaneDirection::Right), &["prefix+shift+l"]),
    ("cycle_pane_next", Action::CyclePane { forward: true }, &["prefix+tab"]),
    ("cycle_pane_previous", Action::CyclePane { forward: false }, &["prefix+shift+tab"]),
    ("last_pane", Action::LastPane, &[]),
    ("split_vertical", Action::SplitVertical, &["prefix+v"]),
    ("split_horizontal", Action::SplitHorizontal, &["prefix+minus"]),
    ("close_pane", Action::ClosePane, &["prefix+x"]),
    ("zoom", Action::Zoom, &["prefix+z"]),
    ("toggle_sidebar", Action::ToggleSidebar, &["prefix+b"]),
    ("resize_pane_left", Action::Resize(PaneDirection::Left), &[]),
    ("resize_pane_down", Action::Resize(PaneDirection::Down), &[]),
    ("resize_pane_up", Action::Resize(PaneDirection::Up), &[]),
    ("resize_pane_right", Action::Resize(PaneDirection::Right), &[]),
    ("previous_agent", Action::PreviousAgent, &[]),
    ("next_agent", Action::NextAgent, &[]),
];

/// Binding names that switch modes rather than produce an action.
pub(crate) const MODE_BINDINGS: &[(&str, super::Mode, &str)] = &[
    ("workspace_picker", super::Mode::Navigate, "prefix+w"),
    ("resize_mode", super::Mode::Resize, "prefix+r"),
];
