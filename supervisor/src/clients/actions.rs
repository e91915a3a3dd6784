//! What a keymap [`Action`] does for an attached client: a session method with its params,
//! worked out from the session snapshot (pure), or something the client connection handles
//! itself (detach, the sidebar toggle, the help overlay, a config reload, and the [`UiStep`]s:
//! rename dialogs, navigate mode's workspace selection, opening the last alert's pane).

use herdr_protocol::api::{PaneDirection, SessionSnapshot};
use serde_json::{Value, json};

use super::dialog::RenameTarget;
use crate::keymap::Action;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Step {
    /// Run this session method.
    Call(&'static str, Value),
    Detach,
    /// Collapse or expand this client's sidebar.
    ToggleSidebar,
    /// Open the keybinding help over this client's frame.
    Help,
    /// Re-read `config.toml` and apply it.
    ReloadConfig,
    /// Something this client's own UI state takes part in.
    Ui(UiStep),
    /// The action needs something not built yet.
    NotBuilt,
    /// Nothing to do (no pane to act on, already at the only tab).
    Nothing,
}

/// Steps that involve this client's modals or selection.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum UiStep {
    /// Open the rename dialog for this target, prefilled with its current name.
    Rename(RenameTarget, String),
    /// Navigate mode: move the workspace selection down (`forward`) or up, wrapping.
    MoveSelection { forward: bool },
    /// Navigate mode's Enter: focus the selected workspace.
    SwitchToSelection,
    /// `prefix+o`: focus the pane of the most recent alert whose pane is still open.
    OpenNotificationTarget,
}

/// The step for `action` given the session as it is now.
pub(super) fn plan(action: &Action, snapshot: &SessionSnapshot) -> Step {
    if let Some(step) = plan_without_focus(action, snapshot) {
        return step;
    }
    let (Some(workspace), Some(tab), Some(pane)) =
        (&snapshot.focused_workspace_id, &snapshot.focused_tab_id, &snapshot.focused_pane_id)
    else {
        return Step::Nothing;
    };
    match action {
        Action::NewTab => Step::Call("tab.create", json!({ "workspace_id": workspace, "focus": true })),
        Action::NextTab => tab_step(snapshot, workspace, tab, |i, n| (i + 1) % n),
        Action::PreviousTab => tab_step(snapshot, workspace, tab, |i, n| (i + n - 1) % n),
        Action::SwitchTab(number) => {
            tab_step(snapshot, workspace, tab, |_, _| usize::from(*number).wrapping_sub(1))
        }
        Action::CloseTab => Step::Call("tab.close", json!({ "tab_id": tab })),
        Action::RenameWorkspace => {
            let label = snapshot.workspaces.iter().find(|w| &w.workspace_id == workspace).map(|w| &w.label);
            rename(RenameTarget::Workspace(workspace.clone()), label)
        }
        Action::RenameTab => {
            let label = snapshot.tabs.iter().find(|t| &t.tab_id == tab).map(|t| &t.label);
            rename(RenameTarget::Tab(tab.clone()), label)
        }
        Action::RenamePane => {
            let label = snapshot.panes.iter().find(|p| &p.pane_id == pane).and_then(|p| p.label.as_ref());
            rename(RenameTarget::Pane(pane.clone()), label)
        }
        Action::SplitVertical => split(pane, "right"),
        Action::SplitHorizontal => split(pane, "down"),
        Action::FocusPane(direction) => {
            Step::Call("pane.focus_direction", json!({ "pane_id": pane, "direction": wire(*direction) }))
        }
        Action::SwapPane(direction) => {
            Step::Call("pane.swap", json!({ "pane_id": pane, "direction": wire(*direction) }))
        }
        Action::Resize(direction) => {
            Step::Call("pane.resize", json!({ "pane_id": pane, "direction": wire(*direction) }))
        }
        Action::Zoom => Step::Call("pane.zoom", json!({ "pane_id": pane })),
        Action::ClosePane => Step::Call("pane.close", json!({ "pane_id": pane })),
        Action::CyclePane { forward } => cycle_pane(snapshot, tab, pane, *forward),
        _ => Step::NotBuilt,
    }
}

/// Actions that do not need a focused pane.
fn plan_without_focus(action: &Action, snapshot: &SessionSnapshot) -> Option<Step> {
    Some(match action {
        Action::Detach => Step::Detach,
        Action::ToggleSidebar => Step::ToggleSidebar,
        Action::Help => Step::Help,
        Action::ReloadConfig => Step::ReloadConfig,
        Action::NewWorkspace => Step::Call("workspace.create", json!({ "focus": true })),
        Action::NextWorkspace => workspace_step(snapshot, true),
        Action::PreviousWorkspace => workspace_step(snapshot, false),
        Action::SelectWorkspace { forward } => Step::Ui(UiStep::MoveSelection { forward: *forward }),
        Action::OpenNotificationTarget => Step::Ui(UiStep::OpenNotificationTarget),
        Action::JumpWorkspace(number) => {
            match snapshot.workspaces.get(usize::from(*number).wrapping_sub(1)) {
                Some(w) if Some(&w.workspace_id) != snapshot.focused_workspace_id.as_ref() => {
                    Step::Call("workspace.focus", json!({ "workspace_id": w.workspace_id }))
                }
                _ => Step::Nothing,
            }
        }
        Action::SwitchToSelectedWorkspace => Step::Ui(UiStep::SwitchToSelection),
        _ => return None,
    })
}

fn rename(target: RenameTarget, current: Option<&String>) -> Step {
    Step::Ui(UiStep::Rename(target, current.cloned().unwrap_or_default()))
}

/// Where navigate mode's selection goes from `selected` among `count` workspaces: one down
/// (`forward`) or up, wrapping; `None` when there are no workspaces.
pub(super) fn move_selection(selected: Option<usize>, count: usize, forward: bool) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let current = selected.unwrap_or(0).min(count - 1);
    Some(if forward { (current + 1) % count } else { (current + count - 1) % count })
}

/// The step that switches to workspace `index` (nothing when it is the focused one or gone).
pub(super) fn focus_workspace(snapshot: &SessionSnapshot, index: usize) -> Step {
    match snapshot.workspaces.get(index) {
        Some(w) if !w.focused => Step::Call("workspace.focus", json!({ "workspace_id": w.workspace_id })),
        _ => Step::Nothing,
    }
}

fn wire(direction: PaneDirection) -> Value {
    serde_json::to_value(direction).unwrap_or(Value::Null)
}

fn split(pane: &str, direction: &str) -> Step {
    Step::Call("pane.split", json!({ "target_pane_id": pane, "direction": direction, "focus": true }))
}

/// Focuses the tab of the focused workspace at `pick(current index, tab count)`.
fn tab_step(
    snapshot: &SessionSnapshot,
    workspace: &str,
    tab: &str,
    pick: impl Fn(usize, usize) -> usize,
) -> Step {
    let tabs: Vec<&str> =
        snapshot.tabs.iter().filter(|t| t.workspace_id == workspace).map(|t| t.tab_id.as_str()).collect();
    let Some(current) = tabs.iter().position(|t| *t == tab) else { return Step::Nothing };
    match tabs.get(pick(current, tabs.len())) {
        Some(target) if *target != tab => Step::Call("tab.focus", json!({ "tab_id": target })),
        _ => Step::Nothing,
    }
}

fn workspace_step(snapshot: &SessionSnapshot, forward: bool) -> Step {
    let ids: Vec<&str> = snapshot.workspaces.iter().map(|w| w.workspace_id.as_str()).collect();
    let Some(current) = ids.iter().position(|w| Some(*w) == snapshot.focused_workspace_id.as_deref()) else {
        return Step::Nothing;
    };
    let n = ids.len();
    let next = if forward { (current + 1) % n } else { (current + n - 1) % n };
    if next == current {
        return Step::Nothing;
    }
    Step::Call("workspace.focus", json!({ "workspace_id": ids[next] }))
}

/// The next (or previous) pane of the focused tab in layout order.
fn cycle_pane(snapshot: &SessionSnapshot, tab: &str, pane: &str, forward: bool) -> Step {
    let Some(layout) = snapshot.layouts.iter().find(|l| l.tab_id == tab) else { return Step::Nothing };
    let ids: Vec<&str> = layout.panes.iter().map(|p| p.pane_id.as_str()).collect();
    let Some(current) = ids.iter().position(|p| *p == pane) else { return Step::Nothing };
    let n = ids.len();
    let next = if forward { (current + 1) % n } else { (current + n - 1) % n };
    if next == current {
        return Step::Nothing;
    }
    Step::Call("pane.focus", json!({ "pane_id": ids[next] }))
}
