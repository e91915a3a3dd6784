//! Context menus' model (pure): the items a right-click on a workspace row, a tab or a pane
//! offers (a pane's ends with "Plugin actions…", the enabled plugins' actions as a menu), worked out from the session snapshot and the `[ui]` prompts (a Close asks first when
//! `confirm_close` is on, New tab names its tab when `prompt_new_tab_name` is); the highlighted
//! item, moved by the mouse or Up/Down/j/k; and what a key or click does (run an item's step,
//! close, nothing).
//!
//! Not here: drawing and item geometry ([`crate::render::draw_menu`], [`menu_rect`]), carrying
//! out a step (the connection does: a session call, a rename or confirm dialog).

use herdr_protocol::api::requests::{PluginActionInvokeParams, PluginInvocationContext, PluginRequest};
use herdr_protocol::api::{PluginActionInfo, Request, SessionSnapshot, SplitDirection, WorktreeInfo};
use ratatui_core::layout::Rect;

use super::actions::{self, Prompts, Step, UiStep};
use super::calls;
use super::confirm::CloseTarget;
use super::dialog::RenameTarget;
use crate::keymap::{KeyCode, KeyEvent, Modifiers};
use crate::render::{MenuView, menu_item_at, menu_rect};

#[derive(Debug, Clone, PartialEq)]
pub struct MenuItem {
    pub label: String,
    /// What choosing the item does: the same steps keymap actions plan.
    pub command: Step,
}

/// What a key or a click did to an open menu.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "made per key press or click and consumed at once; a box would only add an allocation"
)]
pub enum MenuInput {
    /// The menu stays open (the highlight may have moved).
    Stay,
    /// Close the menu and carry this out.
    Run(Step),
    /// Close the menu.
    Close,
}

/// An open context menu.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMenu {
    items: Vec<MenuItem>,
    /// Where it was opened (the clicked cell).
    at: (u16, u16),
    selected: Option<usize>,
}

impl ContextMenu {
    /// A menu of `items` opened at `at`; `None` when there is nothing to offer.
    pub fn new(items: Vec<MenuItem>, at: (u16, u16)) -> Option<ContextMenu> {
        (!items.is_empty()).then_some(ContextMenu { items, at, selected: None })
    }

    /// The menu for workspace `index` of the snapshot.
    pub fn workspace(
        snapshot: &SessionSnapshot,
        index: usize,
        at: (u16, u16),
        prompts: Prompts,
    ) -> Option<ContextMenu> {
        let w = snapshot.workspaces.get(index)?;
        let id = &w.workspace_id;
        let close = actions::close(CloseTarget::Workspace(id.clone()), snapshot, prompts);
        let mut items = vec![
            rename("Rename", RenameTarget::Workspace(id.clone()), w.label.clone()),
            item("Close", close),
        ];
        if let Some(worktree) = &w.worktree {
            items.push(item("New worktree", actions::new_worktree(id)));
            items.push(item("Open worktree…", Step::Ui(UiStep::OpenWorktree(id.clone()))));
            if worktree.is_linked_worktree {
                items.push(item("Delete worktree checkout…", actions::remove_worktree(snapshot, id)));
            }
        }
        ContextMenu::new(items, at)
    }

    /// The checkouts of a repository (`worktree.list`'s), each opening its workspace (the one
    /// it is open in, else a new one); the bare entry, which has no files, is left out.
    pub fn worktrees(worktrees: &[WorktreeInfo], at: (u16, u16)) -> Option<ContextMenu> {
        let items = worktrees
            .iter()
            .filter(|wt| !wt.is_bare)
            .map(|wt| {
                let name = wt.branch.clone().unwrap_or_else(|| {
                    let dir = wt.path.rsplit('/').find(|part| !part.is_empty()).unwrap_or(&wt.path);
                    format!("{dir} (detached)")
                });
                let open = if wt.open_workspace_id.is_some() { " ●" } else { "" };
                call(format!("{name}{open}"), calls::open_worktree(&wt.path))
            })
            .collect();
        ContextMenu::new(items, at)
    }

    /// The menu for tab `index` of the focused workspace (as the tab bar numbers them).
    pub fn tab(
        snapshot: &SessionSnapshot,
        index: usize,
        at: (u16, u16),
        prompts: Prompts,
    ) -> Option<ContextMenu> {
        let focused = snapshot.focused_workspace_id.as_ref()?;
        let t = snapshot.tabs.iter().filter(|t| &t.workspace_id == focused).nth(index)?;
        let id = &t.tab_id;
        ContextMenu::new(
            vec![
                item("New tab", actions::new_tab(focused, prompts)),
                rename("Rename", RenameTarget::Tab(id.clone()), t.label.clone()),
                item("Close", actions::close(CloseTarget::Tab(id.clone()), snapshot, prompts)),
            ],
            at,
        )
    }

    /// The menu for a pane of the focused tab. Swapping is offered only for a pane other than
    /// the focused one; zooming reads "Unzoom" while the pane's tab is zoomed.
    pub fn pane(
        snapshot: &SessionSnapshot,
        pane_id: &str,
        at: (u16, u16),
        prompts: Prompts,
    ) -> Option<ContextMenu> {
        let pane = snapshot.panes.iter().find(|p| p.pane_id == pane_id)?;
        let current = pane.label.clone().unwrap_or_default();
        let zoomed =
            snapshot.layouts.iter().any(|l| l.zoomed && l.panes.iter().any(|p| p.pane_id == pane_id));
        let mut items = vec![
            rename("Rename pane", RenameTarget::Pane(pane_id.to_owned()), current),
            call("Clear pane name", calls::rename_pane(pane_id, None)),
        ];
        if let Some(focused) = snapshot.focused_pane_id.as_deref().filter(|f| *f != pane_id) {
            items.push(call("Swap with focused pane", calls::swap_panes(focused, pane_id)));
        }
        items.extend([
            call("Split right", calls::split(pane_id, SplitDirection::Right, None)),
            call("Split down", calls::split(pane_id, SplitDirection::Down, None)),
            call(if zoomed { "Unzoom" } else { "Zoom" }, calls::zoom(pane_id, None)),
            item("Close pane", actions::close(CloseTarget::Pane(pane_id.to_owned()), snapshot, prompts)),
            item("Plugin actions…", Step::Ui(UiStep::PluginActions(pane_id.to_owned()))),
        ]);
        ContextMenu::new(items, at)
    }

    /// The plugin actions menu: one item per action (its title), each invoking it with
    /// `context`; `None` when there are none.
    pub fn plugin_actions(
        actions: &[PluginActionInfo],
        context: &PluginInvocationContext,
        at: (u16, u16),
    ) -> Option<ContextMenu> {
        let items = actions
            .iter()
            .map(|a| {
                let params = PluginActionInvokeParams {
                    action_id: a.action_id.clone(),
                    plugin_id: Some(a.plugin_id.clone()),
                    context: Some(context.clone()),
                };
                call(a.title.clone(), Request::Plugin(PluginRequest::ActionInvoke(Box::new(params))))
            })
            .collect();
        ContextMenu::new(items, at)
    }

    /// One key while the menu is open.
    pub fn key(&mut self, key: KeyEvent) -> MenuInput {
        if key.mods != Modifiers::NONE {
            return MenuInput::Stay;
        }
        let n = self.items.len();
        match key.code {
            KeyCode::Esc => MenuInput::Close,
            KeyCode::Enter => match self.selected.and_then(|i| self.items.get(i)) {
                Some(item) => MenuInput::Run(item.command.clone()),
                None => MenuInput::Stay,
            },
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = Some(self.selected.map_or(0, |i| (i + 1) % n));
                MenuInput::Stay
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = Some(self.selected.map_or(n - 1, |i| (i + n - 1) % n));
                MenuInput::Stay
            }
            _ => MenuInput::Stay,
        }
    }

    /// The mouse moved to `at`: the item under it is highlighted (one off the items keeps the
    /// highlight where it was). True when the highlight changed.
    pub fn hover(&mut self, screen: Rect, at: (u16, u16)) -> bool {
        let Some(index) = menu_item_at(self.rect(screen), self.items.len(), at) else { return false };
        self.selected.replace(index) != Some(index)
    }

    /// A left click at `at`: on an item runs it, on the menu's border does nothing, anywhere
    /// else closes the menu.
    pub fn click(&self, screen: Rect, at: (u16, u16)) -> MenuInput {
        let rect = self.rect(screen);
        match menu_item_at(rect, self.items.len(), at) {
            Some(index) => MenuInput::Run(self.items[index].command.clone()),
            None if rect.contains(at.into()) => MenuInput::Stay,
            None => MenuInput::Close,
        }
    }

    fn labels(&self) -> Vec<String> {
        self.items.iter().map(|i| i.label.clone()).collect()
    }

    fn rect(&self, screen: Rect) -> Rect {
        menu_rect(screen, self.at, &self.labels())
    }

    /// What the compositor draws.
    pub fn view(&self) -> MenuView {
        MenuView { items: self.labels(), selected: self.selected, at: self.at }
    }
}

fn item(label: impl Into<String>, command: Step) -> MenuItem {
    MenuItem { label: label.into(), command }
}

fn call(label: impl Into<String>, request: Request) -> MenuItem {
    item(label, Step::Call(request))
}

fn rename(label: impl Into<String>, target: RenameTarget, current: String) -> MenuItem {
    item(label, Step::Ui(UiStep::Rename(target, current)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::calls::wire;
    use crate::confirm::CloseConfirm;
    use crate::tests_fixtures::session;

    /// Workspace `w1` "api" with tabs `main` and `logs`; the first tab split in two.
    fn snapshot() -> SessionSnapshot {
        session("api_logs_split")
    }

    fn labels(menu: &ContextMenu) -> Vec<&str> {
        menu.items.iter().map(|i| i.label.as_str()).collect()
    }

    fn plain(code: KeyCode) -> KeyEvent {
        KeyEvent::plain(code)
    }

    /// Closing at once, no naming.
    const QUIET: Prompts = Prompts::NONE;
    /// The defaults: closing asks, a new tab is named.
    const ASKING: Prompts = Prompts { confirm_close: true, name_new_tab: true, name_new_workspace: false };

    fn rename_step(target: RenameTarget, current: &str) -> Step {
        Step::Ui(UiStep::Rename(target, current.into()))
    }

    #[test]
    fn a_worktree_workspace_menu_offers_new_open_and_on_a_linked_checkout_delete() {
        let snapshot = session("worktrees_and_metadata");
        let main = ContextMenu::workspace(&snapshot, 0, (1, 2), ASKING).expect("a menu");
        assert_eq!(labels(&main), ["Rename", "Close", "New worktree", "Open worktree…"]);
        assert_eq!(main.items[2].command, rename_step(RenameTarget::NewWorktree("w1".into()), ""));
        assert_eq!(main.items[3].command, Step::Ui(UiStep::OpenWorktree("w1".into())));
        let linked = ContextMenu::workspace(&snapshot, 1, (1, 2), ASKING).expect("a menu");
        assert_eq!(labels(&linked)[4], "Delete worktree checkout…");
        let Step::Ui(UiStep::Confirm(confirm)) = &linked.items[4].command else {
            panic!("deleting a checkout asks first: {:?}", linked.items[4].command)
        };
        assert_eq!(confirm.target(), &CloseTarget::Worktree("w3".into()));
        let crate::render::ModalView::Confirm { question, detail } = confirm.view() else {
            panic!("a question")
        };
        assert_eq!(question, "remove the worktree of \"fix-login\"?");
        assert_eq!(detail, "deletes /wt/api/fix-login; the branch stays");
        assert_eq!(confirm.target().call(), wire("worktree.remove", json!({"workspace_id": "w3"})));
        let docs = ContextMenu::workspace(&snapshot, 3, (1, 2), ASKING).expect("a menu");
        assert_eq!(labels(&docs), ["Rename", "Close"], "no repository, no worktree items");
    }

    #[test]
    fn the_worktree_menu_opens_each_checkout_and_marks_the_open_ones() {
        let checkout = |path: &str, branch: Option<&str>, open: bool| WorktreeInfo {
            path: path.into(),
            branch: branch.map(str::to_owned),
            is_bare: false,
            is_detached: branch.is_none(),
            is_prunable: false,
            is_linked_worktree: path != "/src/api",
            open_workspace_id: open.then(|| "w1".to_owned()),
            label: "api".into(),
        };
        let bare = WorktreeInfo { is_bare: true, ..checkout("/src/api.git", None, false) };
        let list = [
            bare,
            checkout("/src/api", Some("main"), true),
            checkout("/wt/api/spike", None, false),
            checkout("/wt/api/fix", Some("fix"), false),
        ];
        let menu = ContextMenu::worktrees(&list, (10, 5)).expect("a menu");
        assert_eq!(labels(&menu), ["main ●", "spike (detached)", "fix"]);
        assert_eq!(
            menu.items[2].command,
            Step::Call(wire("worktree.open", json!({"path": "/wt/api/fix", "focus": true})))
        );
        assert!(
            ContextMenu::worktrees(&list[..1], (0, 0)).is_none(),
            "a bare repository alone offers nothing"
        );
    }

    #[test]
    fn a_workspace_menu_renames_and_closes_that_workspace() {
        let snapshot = snapshot();
        let id = snapshot.workspaces[0].workspace_id.clone();
        let menu = ContextMenu::workspace(&snapshot, 0, (1, 2), QUIET).expect("a menu");
        assert_eq!(labels(&menu), ["Rename", "Close"]);
        assert_eq!(menu.items[0].command, rename_step(RenameTarget::Workspace(id.clone()), "api"));
        assert_eq!(menu.items[1].command, Step::Call(wire("workspace.close", json!({ "workspace_id": id }))));
        assert!(ContextMenu::workspace(&snapshot, 5, (1, 2), QUIET).is_none(), "no such row");
        let asking = ContextMenu::workspace(&snapshot, 0, (1, 2), ASKING).expect("a menu");
        let confirm = CloseConfirm::new(CloseTarget::Workspace(id), &snapshot);
        assert_eq!(asking.items[1].command, Step::Ui(UiStep::Confirm(confirm)), "close asks first");
    }

    #[test]
    fn a_tab_menu_names_the_clicked_tab_of_the_focused_workspace() {
        let snapshot = snapshot();
        let logs = snapshot.tabs.iter().find(|t| t.label == "logs").expect("the logs tab").tab_id.clone();
        let menu = ContextMenu::tab(&snapshot, 1, (30, 0), QUIET).expect("a menu");
        assert_eq!(labels(&menu), ["New tab", "Rename", "Close"]);
        assert_eq!(menu.items[1].command, rename_step(RenameTarget::Tab(logs.clone()), "logs"));
        assert_eq!(menu.items[2].command, Step::Call(wire("tab.close", json!({ "tab_id": logs }))));
        let focused = snapshot.focused_workspace_id.clone().expect("a focused workspace");
        let new_tab = wire("tab.create", json!({ "workspace_id": focused, "focus": true }));
        assert_eq!(menu.items[0].command, Step::Call(new_tab.clone()));
        // With the default prompts New tab names the tab it makes and Close asks.
        let asking = ContextMenu::tab(&snapshot, 1, (30, 0), ASKING).expect("a menu");
        let Step::Ui(UiStep::CreateAndName(named)) = &asking.items[0].command else {
            panic!("a named new tab: {:?}", asking.items[0].command)
        };
        assert_eq!(named, &new_tab);
        assert!(
            matches!(&asking.items[2].command, Step::Ui(UiStep::Confirm(c)) if c.target() == &CloseTarget::Tab(logs))
        );
    }

    #[test]
    fn the_plugin_actions_menu_invokes_each_action_with_the_pane_context() {
        let snapshot = snapshot();
        let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
        let context =
            crate::commands::pane_plugin_context(&snapshot, &pane, "context_menu").expect("a context");
        assert_eq!(context.focused_pane_id.as_ref().map(|p| p.as_str()), Some(pane.as_str()));
        assert_eq!(context.workspace_id, snapshot.focused_workspace_id.as_deref().map(Into::into));
        assert!(crate::commands::pane_plugin_context(&snapshot, "w9:p9", "context_menu").is_none());
        let action = |plugin: &str, id: &str, title: &str| PluginActionInfo {
            plugin_id: plugin.into(),
            action_id: id.into(),
            title: title.into(),
            description: None,
            contexts: vec!["pane".into()],
            command: vec!["true".into()],
            platforms: None,
        };
        let actions = [action("a.b", "go", "Go there"), action("c.d", "go", "Go elsewhere")];
        let menu = ContextMenu::plugin_actions(&actions, &context, (3, 4)).expect("a menu");
        assert_eq!(labels(&menu), ["Go there", "Go elsewhere"]);
        let context_json = serde_json::to_value(&context).expect("context json");
        assert_eq!(
            menu.items[1].command,
            Step::Call(wire(
                "plugin.action.invoke",
                json!({ "action_id": "go", "plugin_id": "c.d", "context": context_json })
            ))
        );
        assert!(ContextMenu::plugin_actions(&[], &context, (3, 4)).is_none(), "no actions, no menu");
    }

    #[test]
    fn a_pane_menu_offers_swapping_only_for_another_pane() {
        let snapshot = snapshot();
        let focused = snapshot.focused_pane_id.clone().expect("a focused pane");
        let layout = snapshot.layouts.iter().find(|l| Some(&l.tab_id) == snapshot.focused_tab_id.as_ref());
        let other = layout.expect("the focused tab's layout").panes.iter().find(|p| p.pane_id != focused);
        let other = other.expect("the second pane").pane_id.clone();
        let own = ContextMenu::pane(&snapshot, &focused, (50, 10), QUIET).expect("a menu");
        assert_eq!(
            labels(&own),
            [
                "Rename pane",
                "Clear pane name",
                "Split right",
                "Split down",
                "Zoom",
                "Close pane",
                "Plugin actions…"
            ]
        );
        assert_eq!(own.items[6].command, Step::Ui(UiStep::PluginActions(focused.clone())));
        let menu = ContextMenu::pane(&snapshot, &other, (50, 10), QUIET).expect("a menu");
        assert_eq!(labels(&menu)[2], "Swap with focused pane");
        assert_eq!(
            menu.items[2].command,
            Step::Call(wire("pane.swap", json!({ "source_pane_id": focused, "target_pane_id": other })))
        );
        assert_eq!(
            menu.items[3].command,
            Step::Call(wire(
                "pane.split",
                json!({ "target_pane_id": other, "direction": "right", "focus": true })
            ))
        );
        assert_eq!(menu.items[1].command, Step::Call(wire("pane.rename", json!({ "pane_id": other }))));
        assert_eq!(menu.items[6].command, Step::Call(wire("pane.close", json!({ "pane_id": other }))));
        let asking = ContextMenu::pane(&snapshot, &other, (50, 10), ASKING).expect("a menu");
        let confirm = CloseConfirm::new(CloseTarget::Pane(other), &snapshot);
        assert_eq!(asking.items[6].command, Step::Ui(UiStep::Confirm(confirm)));
    }

    #[test]
    fn a_zoomed_pane_offers_to_unzoom() {
        let zoomed = session("zoomed_split");
        let pane = zoomed.focused_pane_id.clone().expect("a focused pane");
        assert!(zoomed.layouts.iter().any(|l| l.zoomed), "the fixture's tab is zoomed");
        let menu = ContextMenu::pane(&zoomed, &pane, (50, 10), QUIET).expect("a menu");
        assert!(labels(&menu).contains(&"Unzoom"), "{:?}", labels(&menu));
        assert!(!labels(&menu).contains(&"Zoom"));
    }

    #[test]
    fn keys_move_the_highlight_around_and_enter_runs_it() {
        let snapshot = snapshot();
        let mut menu = ContextMenu::tab(&snapshot, 0, (30, 0), QUIET).expect("a menu");
        assert_eq!(menu.key(plain(KeyCode::Enter)), MenuInput::Stay, "nothing highlighted yet");
        menu.key(plain(KeyCode::Up));
        assert_eq!(menu.selected, Some(2), "up from nothing starts at the bottom");
        menu.key(plain(KeyCode::Char('j')));
        assert_eq!(menu.selected, Some(0), "down wraps");
        menu.key(plain(KeyCode::Char('k')));
        menu.key(plain(KeyCode::Down));
        menu.key(plain(KeyCode::Down));
        assert_eq!(menu.selected, Some(1));
        assert!(matches!(menu.key(plain(KeyCode::Enter)), MenuInput::Run(Step::Ui(UiStep::Rename(..)))));
        assert_eq!(menu.key(plain(KeyCode::Esc)), MenuInput::Close);
        assert_eq!(menu.key(KeyEvent::ctrl('j')), MenuInput::Stay);
    }

    #[test]
    fn the_mouse_highlights_and_clicks_items_and_a_click_outside_closes() {
        let snapshot = snapshot();
        let screen = Rect::new(0, 0, 120, 40);
        let mut menu = ContextMenu::tab(&snapshot, 0, (30, 1), QUIET).expect("a menu");
        // The box starts at the click: border row 1, items on rows 2..=4 from column 31.
        assert!(menu.hover(screen, (33, 3)));
        assert!(!menu.hover(screen, (34, 3)), "same item");
        assert!(!menu.hover(screen, (80, 20)), "off the menu keeps the highlight");
        assert_eq!(menu.view().selected, Some(1));
        assert_eq!(menu.view().items, ["New tab", "Rename", "Close"]);
        assert!(
            matches!(menu.click(screen, (33, 4)), MenuInput::Run(Step::Call(r)) if r.method() == "tab.close")
        );
        assert_eq!(menu.click(screen, (30, 3)), MenuInput::Stay, "the border");
        assert_eq!(menu.click(screen, (80, 20)), MenuInput::Close);
    }

    #[test]
    fn an_empty_menu_does_not_open() {
        assert!(ContextMenu::new(Vec::new(), (0, 0)).is_none());
    }
}
