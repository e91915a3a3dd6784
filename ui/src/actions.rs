//! What a keymap [`Action`] does for an attached client: a session method with its params,
//! worked out from the session snapshot and the `[ui]` prompt settings ([`Prompts`]) (pure), or
//! something the client connection handles itself (detach, the sidebar toggle, the help
//! overlay, a config reload, and the [`UiStep`]s: rename and confirm-close dialogs, naming a new
//! tab or workspace, navigate mode's workspace selection, the last pane, the last alert's pane,
//! custom commands, the scrollback editor and the goto picker).
//! Context menus build their items' steps here too, so a menu's Close asks as `prefix+x` does.

use herdr_protocol::api::{Request, SessionSnapshot, SplitDirection};

use super::calls;

use super::confirm::{CloseConfirm, CloseTarget};
use super::dialog::RenameTarget;
use crate::config::UiConfig;
use crate::keymap::Action;

/// The `[ui]` settings that make an action ask first or prompt after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompts {
    /// `ui.confirm_close`: closing a pane, tab or workspace asks first.
    pub confirm_close: bool,
    /// `ui.prompt_new_tab_name`: a new tab opens its rename dialog.
    pub name_new_tab: bool,
    /// `ui.prompt_new_workspace_name`: a new workspace opens its rename dialog.
    pub name_new_workspace: bool,
}

impl Prompts {
    /// No confirmation, no naming.
    #[cfg(any(test, feature = "test-support"))]
    pub const NONE: Prompts =
        Prompts { confirm_close: false, name_new_tab: false, name_new_workspace: false };

    pub fn from_config(ui: &UiConfig) -> Prompts {
        Prompts {
            confirm_close: ui.confirm_close,
            name_new_tab: ui.prompt_new_tab_name,
            name_new_workspace: ui.prompt_new_workspace_name,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Run this session request.
    Call(Request),
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
pub enum UiStep {
    /// Open the rename dialog for this target, prefilled with its current name.
    Rename(RenameTarget, String),
    /// Ask before closing (`ui.confirm_close`).
    Confirm(CloseConfirm),
    /// Run this creating method (`tab.create`, `workspace.create`), then open the rename dialog
    /// for what it created (`ui.prompt_new_tab_name`, `ui.prompt_new_workspace_name`).
    CreateAndName(Request),
    /// Focus the pane this client had focused before the current one, skipping closed panes.
    LastPane,
    /// Navigate mode: move the workspace selection down (`forward`) or up, wrapping.
    MoveSelection { forward: bool },
    /// Navigate mode's Enter: focus the selected workspace.
    SwitchToSelection,
    /// `prefix+o`: focus the pane of the most recent alert whose pane is still open.
    OpenNotificationTarget,
    /// Run `[[keys.command]]` entry n (config order).
    Command(usize),
    /// `prefix+e`: the focused pane's scrollback in an editor pane.
    EditScrollback,
    /// `prefix+g`: open the goto picker.
    Goto,
    /// `open_worktree`: a menu of the checkouts of this workspace's repository, to open one.
    OpenWorktree(String),
    /// A pane menu's "Plugin actions…": a menu of the enabled plugins' actions, each run with
    /// this pane as the focus of its context.
    PluginActions(String),
}

/// [`step_for`] with every prompt off (closing at once, no naming), which is what the clients
/// module's tests of the other actions state (the supervisor's, with the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
pub fn plan(action: &Action, snapshot: &SessionSnapshot) -> Step {
    step_for(action, snapshot, Prompts::NONE)
}

/// The step for `action` given the session as it is now and the prompt settings.
pub fn step_for(action: &Action, snapshot: &SessionSnapshot, prompts: Prompts) -> Step {
    if let Some(step) = plan_without_focus(action, snapshot, prompts) {
        return step;
    }
    let (Some(workspace), Some(tab), Some(pane)) =
        (&snapshot.focused_workspace_id, &snapshot.focused_tab_id, &snapshot.focused_pane_id)
    else {
        return Step::Nothing;
    };
    match action {
        Action::NewTab => new_tab(workspace, prompts),
        Action::NextTab => tab_step(snapshot, workspace, tab, |i, n| (i + 1) % n),
        Action::PreviousTab => tab_step(snapshot, workspace, tab, |i, n| (i + n - 1) % n),
        Action::SwitchTab(number) => {
            tab_step(snapshot, workspace, tab, |_, _| usize::from(*number).wrapping_sub(1))
        }
        Action::CloseTab => close(CloseTarget::Tab(tab.clone()), snapshot, prompts),
        Action::CloseWorkspace => close(CloseTarget::Workspace(workspace.clone()), snapshot, prompts),
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
        Action::SplitVertical => Step::Call(calls::split(pane, SplitDirection::Right, None)),
        Action::SplitHorizontal => Step::Call(calls::split(pane, SplitDirection::Down, None)),
        Action::FocusPane(direction) => Step::Call(calls::focus_direction(pane, *direction)),
        Action::SwapPane(direction) => Step::Call(calls::swap_direction(pane, *direction)),
        Action::Resize(direction) => Step::Call(calls::resize(pane, *direction)),
        Action::Zoom => Step::Call(calls::zoom(pane, None)),
        Action::ClosePane => close(CloseTarget::Pane(pane.clone()), snapshot, prompts),
        Action::CyclePane { forward } => cycle_pane(snapshot, tab, pane, *forward),
        Action::NewWorktree => new_worktree(workspace),
        Action::OpenWorktree => Step::Ui(UiStep::OpenWorktree(workspace.clone())),
        Action::RemoveWorktree => remove_worktree(snapshot, workspace),
        _ => Step::NotBuilt,
    }
}

/// Actions that do not need a focused pane.
fn plan_without_focus(action: &Action, snapshot: &SessionSnapshot, prompts: Prompts) -> Option<Step> {
    Some(match action {
        Action::Detach => Step::Detach,
        Action::ToggleSidebar => Step::ToggleSidebar,
        Action::Help => Step::Help,
        Action::ReloadConfig => Step::ReloadConfig,
        Action::NewWorkspace if prompts.name_new_workspace => {
            Step::Ui(UiStep::CreateAndName(calls::new_workspace()))
        }
        Action::NewWorkspace => Step::Call(calls::new_workspace()),
        Action::LastPane => Step::Ui(UiStep::LastPane),
        Action::NextAgent => agent_step(snapshot, true),
        Action::PreviousAgent => agent_step(snapshot, false),
        Action::NextWorkspace => workspace_step(snapshot, true),
        Action::PreviousWorkspace => workspace_step(snapshot, false),
        Action::SelectWorkspace { forward } => Step::Ui(UiStep::MoveSelection { forward: *forward }),
        Action::OpenNotificationTarget => Step::Ui(UiStep::OpenNotificationTarget),
        Action::JumpWorkspace(number) => {
            match snapshot.workspaces.get(usize::from(*number).wrapping_sub(1)) {
                Some(w) if Some(&w.workspace_id) != snapshot.focused_workspace_id.as_ref() => {
                    Step::Call(calls::focus_workspace(&w.workspace_id))
                }
                _ => Step::Nothing,
            }
        }
        Action::SwitchToSelectedWorkspace => Step::Ui(UiStep::SwitchToSelection),
        Action::Command(index) => Step::Ui(UiStep::Command(*index)),
        Action::EditScrollback => Step::Ui(UiStep::EditScrollback),
        Action::Goto => Step::Ui(UiStep::Goto),
        _ => return None,
    })
}

/// `new_worktree`: the dialog asking for the branch of a new worktree of `workspace`'s
/// repository (the API says so when it is not in one).
pub fn new_worktree(workspace: &str) -> Step {
    Step::Ui(UiStep::Rename(RenameTarget::NewWorktree(workspace.to_owned()), String::new()))
}

/// `remove_worktree`: always asked first (it deletes a checkout from disk) when `workspace` is
/// open on a linked worktree; otherwise the request goes as is, so the API's refusal (a main
/// checkout, no repository) reaches the user.
pub fn remove_worktree(snapshot: &SessionSnapshot, workspace: &str) -> Step {
    let linked = snapshot
        .workspaces
        .iter()
        .find(|w| w.workspace_id == workspace)
        .and_then(|w| w.worktree.as_ref())
        .is_some_and(|wt| wt.is_linked_worktree);
    let target = CloseTarget::Worktree(workspace.to_owned());
    if linked {
        Step::Ui(UiStep::Confirm(CloseConfirm::new(target, snapshot)))
    } else {
        Step::Call(target.call())
    }
}

/// Closing `target`: asked first when `prompts.confirm_close`, else at once.
pub fn close(target: CloseTarget, snapshot: &SessionSnapshot, prompts: Prompts) -> Step {
    if prompts.confirm_close {
        return Step::Ui(UiStep::Confirm(CloseConfirm::new(target, snapshot)));
    }
    Step::Call(target.call())
}

/// A new focused tab in `workspace`, named right away when `prompts.name_new_tab`.
pub fn new_tab(workspace: &str, prompts: Prompts) -> Step {
    let request = calls::new_tab(workspace);
    if prompts.name_new_tab { Step::Ui(UiStep::CreateAndName(request)) } else { Step::Call(request) }
}

/// The next (or previous) pane with a detected agent, in the sidebar's agents-panel order (the
/// snapshot's), wrapping; from a pane without one, the first (or last) agent.
fn agent_step(snapshot: &SessionSnapshot, forward: bool) -> Step {
    let panes: Vec<&str> = snapshot.agents.iter().map(|a| a.pane_id.as_str()).collect();
    let n = panes.len();
    if n == 0 {
        return Step::Nothing;
    }
    let current = snapshot.focused_pane_id.as_deref().and_then(|f| panes.iter().position(|p| *p == f));
    let next = match current {
        Some(i) if forward => (i + 1) % n,
        Some(i) => (i + n - 1) % n,
        None if forward => 0,
        None => n - 1,
    };
    if Some(next) == current {
        return Step::Nothing;
    }
    Step::Call(calls::focus_pane(panes[next]))
}

fn rename(target: RenameTarget, current: Option<&String>) -> Step {
    Step::Ui(UiStep::Rename(target, current.cloned().unwrap_or_default()))
}

/// Where navigate mode's selection goes from `selected` among `count` workspaces: one down
/// (`forward`) or up, wrapping; `None` when there are no workspaces.
pub fn move_selection(selected: Option<usize>, count: usize, forward: bool) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let current = selected.unwrap_or(0).min(count - 1);
    Some(if forward { (current + 1) % count } else { (current + count - 1) % count })
}

/// The step that switches to workspace `index` (nothing when it is the focused one or gone).
pub fn focus_workspace(snapshot: &SessionSnapshot, index: usize) -> Step {
    match snapshot.workspaces.get(index) {
        Some(w) if !w.focused => Step::Call(calls::focus_workspace(&w.workspace_id)),
        _ => Step::Nothing,
    }
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
        Some(target) if *target != tab => Step::Call(calls::focus_tab(target)),
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
    Step::Call(calls::focus_workspace(ids[next]))
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
    Step::Call(calls::focus_pane(ids[next]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::calls::wire;

    use super::*;
    use crate::tests_fixtures::session;

    const ASKING: Prompts = Prompts { confirm_close: true, name_new_tab: true, name_new_workspace: true };

    #[test]
    fn the_worktree_keys_ask_for_a_branch_list_checkouts_and_remove_only_after_asking() {
        let snapshot = session("worktrees_and_metadata");
        assert_eq!(snapshot.focused_workspace_id.as_deref(), Some("w1"));
        assert_eq!(
            step_for(&Action::NewWorktree, &snapshot, Prompts::NONE),
            Step::Ui(UiStep::Rename(RenameTarget::NewWorktree("w1".into()), String::new()))
        );
        assert_eq!(
            step_for(&Action::OpenWorktree, &snapshot, Prompts::NONE),
            Step::Ui(UiStep::OpenWorktree("w1".into()))
        );
        // w1 is the main checkout: the request goes as is and the API's refusal is shown.
        assert_eq!(
            step_for(&Action::RemoveWorktree, &snapshot, Prompts::NONE),
            Step::Call(wire("worktree.remove", json!({"workspace_id": "w1"})))
        );
        // A linked checkout is deleted from disk: asked first even with every prompt off.
        let target = CloseTarget::Worktree("w3".into());
        assert_eq!(
            remove_worktree(&snapshot, "w3"),
            Step::Ui(UiStep::Confirm(CloseConfirm::new(target, &snapshot)))
        );
    }

    #[test]
    fn closing_asks_first_when_confirm_close_is_on() {
        let snapshot = session("one_workspace");
        let pane = snapshot.focused_pane_id.clone().expect("a pane");
        let tab = snapshot.focused_tab_id.clone().expect("a tab");
        let workspace = snapshot.focused_workspace_id.clone().expect("a workspace");
        let cases = [
            (Action::ClosePane, CloseTarget::Pane(pane.clone())),
            (Action::CloseTab, CloseTarget::Tab(tab.clone())),
            (Action::CloseWorkspace, CloseTarget::Workspace(workspace.clone())),
        ];
        for (action, target) in cases {
            let asked = step_for(&action, &snapshot, ASKING);
            assert_eq!(asked, Step::Ui(UiStep::Confirm(CloseConfirm::new(target.clone(), &snapshot))));
            assert_eq!(step_for(&action, &snapshot, Prompts::NONE), Step::Call(target.call()), "{action:?}");
        }
        assert_eq!(
            step_for(&Action::CloseWorkspace, &snapshot, Prompts::NONE),
            Step::Call(wire("workspace.close", json!({ "workspace_id": workspace })))
        );
    }

    #[test]
    fn new_tabs_and_workspaces_are_named_when_their_prompt_is_on() {
        let snapshot = session("one_workspace");
        let workspace = snapshot.focused_workspace_id.clone().expect("a workspace");
        let tab_params = json!({ "workspace_id": workspace, "focus": true });
        assert_eq!(
            step_for(&Action::NewTab, &snapshot, ASKING),
            Step::Ui(UiStep::CreateAndName(wire("tab.create", tab_params.clone())))
        );
        assert_eq!(
            step_for(&Action::NewTab, &snapshot, Prompts::NONE),
            Step::Call(wire("tab.create", tab_params))
        );
        let workspace_params = json!({ "focus": true });
        assert_eq!(
            step_for(&Action::NewWorkspace, &snapshot, ASKING),
            Step::Ui(UiStep::CreateAndName(wire("workspace.create", workspace_params.clone())))
        );
        let only_tabs = Prompts { name_new_workspace: false, ..ASKING };
        assert_eq!(
            step_for(&Action::NewWorkspace, &snapshot, only_tabs),
            Step::Call(wire("workspace.create", workspace_params))
        );
        assert_eq!(step_for(&Action::LastPane, &snapshot, ASKING), Step::Ui(UiStep::LastPane));
    }

    #[test]
    fn agent_cycling_follows_the_agents_panel_and_wraps() {
        let three = session("three_panes");
        assert_eq!(three.panes.len(), 3);
        assert_eq!(step_for(&Action::NextAgent, &three, ASKING), Step::Nothing, "no agents");
        // Agents in the second pane of the first workspace and in the other workspace's pane.
        let snapshot = session("two_agents");
        let agents: Vec<String> = snapshot.agents.iter().map(|a| a.pane_id.clone()).collect();
        assert_eq!(agents.len(), 2);
        let focus = |pane: &str| Step::Call(wire("pane.focus", json!({ "pane_id": pane })));
        // From a pane without an agent: next is the first agent, previous the last.
        assert_eq!(step_for(&Action::NextAgent, &snapshot, ASKING), focus(&agents[0]));
        assert_eq!(step_for(&Action::PreviousAgent, &snapshot, ASKING), focus(&agents[1]));
        let snapshot = session("two_agents_last_focused");
        assert_eq!(snapshot.focused_pane_id.as_ref(), Some(&agents[1]));
        assert_eq!(step_for(&Action::NextAgent, &snapshot, ASKING), focus(&agents[0]), "wraps");
        assert_eq!(step_for(&Action::PreviousAgent, &snapshot, ASKING), focus(&agents[0]));
        // A lone agent that has the focus goes nowhere.
        let lone = session("one_agent_focused");
        assert_eq!(lone.agents.iter().map(|a| &a.pane_id).collect::<Vec<_>>(), [&agents[1]]);
        assert_eq!(step_for(&Action::NextAgent, &lone, ASKING), Step::Nothing);
    }
}
