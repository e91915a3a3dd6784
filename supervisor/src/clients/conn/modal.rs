//! A client's modals, navigate-mode selection and focus history on its connection. While a
//! context menu, a rename dialog, a confirm-close question or the goto picker is open, keys, pastes and the mouse
//! go to it instead of the keymap and panes (focus reports still count); its view is published
//! to the paint task on a watch channel. A right-click on a workspace row, a tab or a pane opens
//! that thing's menu; on a pane, holding `ui.right_click_passthrough_modifier` sends the click
//! to the program instead. A click outside a dialog cancels it.
//!
//! Not here: the menu, dialog and picker models (pure, [`crate::clients::menu`],
//! [`crate::clients::dialog`], [`crate::clients::confirm`], [`crate::clients::goto`]), drawing them
//! ([`crate::render::draw_modal`]).

use herdr_protocol::api::requests::{OptionalPlugin, PluginRequest};
use herdr_protocol::api::{ApiResult, Request, SessionSnapshot};
use herdr_ui::commands::pane_plugin_context;
use ratatui_core::layout::Rect;
use tokio::sync::watch;

use super::Connection;
use super::mouse::Target;
use crate::clients::actions::{self, Prompts, Step, UiStep};
use crate::clients::calls;
use crate::clients::confirm::{CloseConfirm, ConfirmKey};
use crate::clients::dialog::{DialogKey, RenameDialog, RenameTarget};
use crate::clients::goto::{GotoInput, GotoPicker};
use crate::clients::menu::{ContextMenu, MenuInput};
use crate::clients::notify::toast;
use crate::keymap::{InputEvent, Mode, Modifiers, MouseButton, MouseEvent, MouseKind};
use crate::render::{ModalView, dialog_rect};

/// What is open over the client's frame.
#[derive(Debug, Clone)]
enum Modal {
    Menu(ContextMenu),
    Rename(RenameDialog),
    Confirm(CloseConfirm),
    Goto(GotoPicker),
}

impl Modal {
    fn view(&self) -> ModalView {
        match self {
            Modal::Menu(menu) => ModalView::Menu(menu.view()),
            Modal::Rename(dialog) => ModalView::Dialog(dialog.view()),
            Modal::Confirm(confirm) => confirm.view(),
            Modal::Goto(picker) => ModalView::Picker(picker.view()),
        }
    }
}

/// The client's open modal, if any, and the channel its paint task draws it from.
#[derive(Debug)]
pub(super) struct Modals {
    open: Option<Modal>,
    view: watch::Sender<Option<ModalView>>,
}

impl Modals {
    /// No modal open; the receiver is the paint task's.
    pub(super) fn new() -> (Modals, watch::Receiver<Option<ModalView>>) {
        let (view, receiver) = watch::channel(None);
        (Modals { open: None, view }, receiver)
    }

    /// Whether `event` goes to an open modal rather than the keymap (focus reports never do).
    pub(super) fn takes(&self, event: &InputEvent) -> bool {
        self.open.is_some() && !matches!(event, InputEvent::FocusIn | InputEvent::FocusOut)
    }

    fn set(&mut self, modal: Option<Modal>) {
        self.open = modal;
        self.publish();
    }

    fn publish(&self) {
        let view = self.open.as_ref().map(Modal::view);
        self.view.send_if_modified(|shown| {
            let changed = *shown != view;
            *shown = view;
            changed
        });
    }
}

impl Connection {
    /// One input event while a modal is open.
    pub(super) async fn modal_event(&mut self, event: InputEvent) {
        let screen = self.screen();
        let Some(modal) = self.modals.open.as_mut() else { return };
        match (modal, event) {
            (Modal::Menu(menu), InputEvent::Key(key)) => {
                let input = menu.key(key.key);
                self.menu_input(input).await;
            }
            (Modal::Menu(menu), InputEvent::Mouse(mouse)) => {
                let at = (mouse.x, mouse.y);
                match mouse.kind {
                    MouseKind::Move | MouseKind::Drag(_) if menu.hover(screen, at) => self.modals.publish(),
                    MouseKind::Press(MouseButton::Left) => {
                        let input = menu.click(screen, at);
                        self.menu_input(input).await;
                    }
                    // Another button closes the menu when pressed outside it.
                    MouseKind::Press(_) if menu.click(screen, at) == MenuInput::Close => {
                        self.modals.set(None)
                    }
                    _ => {}
                }
            }
            (Modal::Rename(dialog), InputEvent::Key(key)) => match dialog.key(key.key) {
                DialogKey::Editing => self.modals.publish(),
                DialogKey::Cancel => self.modals.set(None),
                DialogKey::Apply => {
                    let apply = dialog.apply();
                    self.modals.set(None);
                    if let Some(request) = apply {
                        self.call(request).await;
                    }
                }
            },
            (Modal::Rename(dialog), InputEvent::Paste(bytes)) => {
                dialog.paste(&String::from_utf8_lossy(&bytes));
                self.modals.publish();
            }
            (Modal::Confirm(confirm), InputEvent::Key(key)) => match confirm.key(key.key) {
                ConfirmKey::Stay => {}
                ConfirmKey::Cancel => self.modals.set(None),
                ConfirmKey::Confirm => {
                    let request = confirm.target().call();
                    self.modals.set(None);
                    self.call(request).await;
                }
            },
            (Modal::Goto(picker), InputEvent::Key(key)) => {
                let input = picker.key(key.key);
                self.goto_input(input).await;
            }
            (Modal::Goto(picker), InputEvent::Paste(bytes)) => {
                picker.paste(&String::from_utf8_lossy(&bytes));
                self.modals.publish();
            }
            (Modal::Goto(picker), InputEvent::Mouse(mouse)) => match mouse.kind {
                MouseKind::Move | MouseKind::Drag(_) if picker.hover(screen, (mouse.x, mouse.y)) => {
                    self.modals.publish()
                }
                MouseKind::Press(MouseButton::Left) => {
                    let input = picker.click(screen, (mouse.x, mouse.y));
                    self.goto_input(input).await;
                }
                // Another button closes the picker when pressed outside it.
                MouseKind::Press(_) if picker.click(screen, (mouse.x, mouse.y)) == GotoInput::Close => {
                    self.modals.set(None)
                }
                _ => {}
            },
            (Modal::Rename(_) | Modal::Confirm(_), InputEvent::Mouse(mouse)) => {
                let inside = dialog_rect(screen).contains((mouse.x, mouse.y).into());
                if matches!(mouse.kind, MouseKind::Press(_)) && !inside {
                    self.modals.set(None);
                }
            }
            _ => {}
        }
    }

    async fn menu_input(&mut self, input: MenuInput) {
        match input {
            MenuInput::Stay => self.modals.publish(),
            MenuInput::Close => self.modals.set(None),
            MenuInput::Run(step) => {
                self.modals.set(None);
                // Menu items plan only session calls and dialogs, never a detach.
                let _ = self.carry_out(step).await;
            }
        }
    }

    async fn goto_input(&mut self, input: GotoInput) {
        match input {
            GotoInput::Stay => self.modals.publish(),
            GotoInput::Close => self.modals.set(None),
            GotoInput::Go(step) => {
                self.modals.set(None);
                let _ = self.carry_out(step).await;
            }
        }
    }

    fn open_rename(&mut self, target: RenameTarget, current: &str) {
        self.modals.set(Some(Modal::Rename(RenameDialog::new(target, current))));
    }

    /// A right button press on `target`: opens its context menu and returns true, or false when
    /// the press is not for a menu (nothing with a menu there, or a pane right-click with the
    /// pass-through modifier held, which goes to the program).
    pub(super) fn context_menu(
        &mut self,
        snapshot: &SessionSnapshot,
        target: &Target,
        event: &MouseEvent,
    ) -> bool {
        let at = (event.x, event.y);
        let prompts = self.prompts();
        let menu = match target {
            Target::Workspace(index) => ContextMenu::workspace(snapshot, *index, at, prompts),
            Target::Tab(index) => ContextMenu::tab(snapshot, *index, at, prompts),
            Target::Pane { pane_id, .. } => {
                let modifier = passthrough_modifier(self.hub.config().ui.right_click_passthrough_modifier);
                if modifier.is_some_and(|m| event.mods.contains(m)) {
                    return false;
                }
                ContextMenu::pane(snapshot, pane_id, at, prompts)
            }
            _ => None,
        };
        let Some(menu) = menu else { return false };
        self.modals.set(Some(Modal::Menu(menu)));
        true
    }

    /// Carries out a step that involves this client's modals or selection.
    pub(super) async fn ui_step(&mut self, step: UiStep) {
        let snapshot = self.hub.shared.session().snapshot();
        match step {
            UiStep::Rename(target, current) => self.open_rename(target, &current),
            UiStep::Confirm(confirm) => self.modals.set(Some(Modal::Confirm(confirm))),
            UiStep::CreateAndName(request) => {
                let method = request.method();
                match self.hub.shared.session_call(request).await {
                    Some(Ok(created)) => {
                        if let Some(dialog) = RenameDialog::for_created(&created) {
                            self.modals.set(Some(Modal::Rename(dialog)));
                        }
                    }
                    Some(Err(e)) => log::debug!("{method} before naming failed: {e:?}"),
                    None => {}
                }
            }
            UiStep::LastPane => {
                self.track_focus();
                if let Some(pane_id) = self.recent.previous(&snapshot).map(str::to_owned) {
                    self.call(calls::focus_pane(&pane_id)).await;
                }
            }
            UiStep::MoveSelection { forward } => {
                let current = self.view.borrow().selected_workspace.or_else(|| focused_index(&snapshot));
                let next = actions::move_selection(current, snapshot.workspaces.len(), forward);
                self.view.send_if_modified(|v| std::mem::replace(&mut v.selected_workspace, next) != next);
            }
            UiStep::SwitchToSelection => {
                let selected = self.view.borrow().selected_workspace;
                if let Some(Step::Call(request)) =
                    selected.map(|index| actions::focus_workspace(&snapshot, index))
                {
                    self.call(request).await;
                }
            }
            UiStep::Command(index) => self.custom_command(index).await,
            UiStep::EditScrollback => self.edit_scrollback().await,
            UiStep::Goto => self.modals.set(Some(Modal::Goto(GotoPicker::new(&snapshot)))),
            UiStep::OpenWorktree(workspace_id) => self.open_worktree_menu(&workspace_id).await,
            UiStep::PluginActions(pane_id) => self.open_plugin_actions_menu(&snapshot, &pane_id).await,
            UiStep::OpenNotificationTarget => {
                let open = |pane: &str| snapshot.panes.iter().any(|p| p.pane_id == pane);
                let target = self.hub.shared.screens().open_alert_target(open);
                let focused = snapshot.focused_pane_id.as_deref();
                if let Some(pane_id) = target.filter(|p| Some(p.as_str()) != focused) {
                    self.call(calls::focus_pane(&pane_id)).await;
                }
            }
        }
    }

    /// The keymap changed mode: entering navigate mode selects the focused workspace, leaving
    /// it drops the selection.
    pub(super) fn navigate_mode(&mut self, mode: Mode) {
        let selected =
            if mode == Mode::Navigate { focused_index(&self.hub.shared.session().snapshot()) } else { None };
        self.view.send_if_modified(|v| std::mem::replace(&mut v.selected_workspace, selected) != selected);
    }

    /// Reads focus changes from the event hub into this client's pane history.
    pub(super) fn track_focus(&mut self) {
        let shared = &self.hub.shared;
        self.recent.catch_up(&shared.hub, || {
            let session = shared.session();
            session.focused_pane().and_then(|key| session.pane_ids(key)).map(|(_, _, pane)| pane)
        });
    }

    /// The `[ui]` settings in force that make actions ask or prompt.
    pub(super) fn prompts(&self) -> Prompts {
        Prompts::from_config(&self.hub.config().ui)
    }

    fn screen(&self) -> Rect {
        let view = self.view.borrow();
        Rect::new(0, 0, view.cols, view.rows)
    }

    async fn call(&self, request: Request) {
        self.request(request).await;
    }

    /// `open_worktree`: the repository's checkouts as a menu in the middle of the screen.
    async fn open_worktree_menu(&mut self, workspace_id: &str) {
        let Some(ApiResult::WorktreeList { worktrees, .. }) =
            self.request(calls::list_worktrees(workspace_id)).await
        else {
            return;
        };
        let screen = self.screen();
        let at = (screen.width / 3, screen.height / 3);
        if let Some(menu) = ContextMenu::worktrees(&worktrees, at) {
            self.modals.set(Some(Modal::Menu(menu)));
        }
    }
}

impl Connection {
    /// A pane menu's "Plugin actions…": the enabled plugins' actions as a menu in the middle of
    /// the screen, each run with that pane as the focus of its context; a toast when none.
    async fn open_plugin_actions_menu(&mut self, snapshot: &SessionSnapshot, pane_id: &str) {
        let all = || OptionalPlugin { plugin_id: None };
        let Some(ApiResult::PluginList { plugins }) =
            self.request(Request::Plugin(PluginRequest::List(all()))).await
        else {
            return;
        };
        let Some(ApiResult::PluginActionList { actions }) =
            self.request(Request::Plugin(PluginRequest::ActionList(all()))).await
        else {
            return;
        };
        let enabled = |id: &str| plugins.iter().any(|p| p.enabled && p.plugin_id == id);
        let actions: Vec<_> = actions.into_iter().filter(|a| enabled(&a.plugin_id)).collect();
        let Some(context) = pane_plugin_context(snapshot, pane_id, PLUGIN_MENU_SOURCE) else { return };
        let screen = self.screen();
        let at = (screen.width / 3, screen.height / 3);
        match ContextMenu::plugin_actions(&actions, &context, at) {
            Some(menu) => self.modals.set(Some(Modal::Menu(menu))),
            None => toast(
                &self.hub.shared,
                "no plugin actions",
                Some("no enabled plugin declares [[actions]]".into()),
            ),
        }
    }
}

/// The `invocation_source` of an action chosen from the plugin actions menu.
pub const PLUGIN_MENU_SOURCE: &str = "context_menu";

fn focused_index(snapshot: &SessionSnapshot) -> Option<usize> {
    snapshot.workspaces.iter().position(|w| w.focused)
}

/// The modifier named by `ui.right_click_passthrough_modifier` (`None`: not configured).
fn passthrough_modifier(name: &str) -> Option<Modifiers> {
    match name {
        "shift" => Some(Modifiers::SHIFT),
        "alt" => Some(Modifiers::ALT),
        "ctrl" => Some(Modifiers::CTRL),
        "super" => Some(Modifiers::SUPER),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_passthrough_modifier_is_read_from_its_config_name() {
        assert_eq!(passthrough_modifier(""), None);
        assert_eq!(passthrough_modifier("shift"), Some(Modifiers::SHIFT));
        assert_eq!(passthrough_modifier("alt"), Some(Modifiers::ALT));
        assert_eq!(passthrough_modifier("ctrl"), Some(Modifiers::CTRL));
        assert_eq!(passthrough_modifier("super"), Some(Modifiers::SUPER));
    }
}
