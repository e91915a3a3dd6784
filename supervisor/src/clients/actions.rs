//! What a keymap [`Action`] does for an attached client: a session method with its params,
//! worked out from the session snapshot (pure), or something the client connection handles
//! itself (detach, the sidebar toggle, the help overlay, a config reload).

use herdr_protocol::api::{PaneDirection, SessionSnapshot};
use serde_json::{Value, json};

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
    /// The action needs something not built yet (dialogs, copy mode, navigate selection).
    NotBuilt,
    /// Nothing to do (no pane to act on, already at the only tab).
    Nothing,
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
        // Navigate mode switches live: moving the selection focuses that workspace, so Enter
        // has nothing left to do (a separate selection cursor needs the navigate overlay).
        Action::SelectWorkspace { forward } => workspace_step(snapshot, *forward),
        Action::JumpWorkspace(number) => {
            match snapshot.workspaces.get(usize::from(*number).wrapping_sub(1)) {
                Some(w) if Some(&w.workspace_id) != snapshot.focused_workspace_id.as_ref() => {
                    Step::Call("workspace.focus", json!({ "workspace_id": w.workspace_id }))
                }
                _ => Step::Nothing,
            }
        }
        Action::SwitchToSelectedWorkspace => Step::Nothing,
        _ => return None,
    })
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
