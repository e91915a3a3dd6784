//! A client's mouse: a left click focuses the workspace, agent, tab or pane under it; a press on
//! a split border or the sidebar's edge starts a drag that resizes it live, one on a scrolled
//! pane's scrollbar moves its view through the history; the wheel and clicks over a pane go to
//! that pane's worker, which knows whether its program asked for mouse reports (else a wheel
//! scrolls the scrollback, or sends arrows on the alternate screen). A left press on a pane
//! whose program takes no mouse reports (or with shift) selects text instead (`super::select`);
//! with ctrl on a URL it opens the link (a plugin link handler, else the desktop's opener).
//!
//! Not here: what is under a cell (the compositor's [`hit_test`]) and what the program receives
//! (the worker encodes for its program's mouse mode).

use crate::clients::calls;
use herdr_protocol::api::requests::PaneLinkActivateParams;
use herdr_protocol::api::{ApiResult, PaneId, PaneLayoutSplit, SessionSnapshot};
use herdr_protocol::ipc::{PaneMouse, PaneMouseAction, PaneMouseButton, ScrollTo, WorkerRequest};
use ratatui_core::layout::Rect;

use super::Connection;
use crate::api::envelope::Failure;
use crate::clients::notify::toast;
use crate::clients::paint::{self, render_options};
use crate::keymap::{Modifiers, MouseButton, MouseEvent, MouseKind};
use crate::render::{FrameLayout, Hit, ViewModel, hit_test, scrollbar_offset, split_path, split_ratio_at};
use crate::session::PaneKey;

/// What a held button is doing.
#[derive(Debug, Clone)]
pub(super) enum Drag {
    /// Moving the border of this split of tab `tab_id`.
    Split { tab_id: String, path: Vec<bool>, split: PaneLayoutSplit },
    /// Moving the sidebar's edge.
    Sidebar,
    /// Moving a scrolled pane's view along its scrollbar.
    Scrollbar { key: PaneKey, track: Rect },
    /// The press went to this pane: motion and the release go there too, even outside it.
    Pane { key: PaneKey, content: Rect },
    /// Selecting text in this pane (`super::select`).
    Select { key: PaneKey, content: Rect },
}

impl Connection {
    pub(super) async fn mouse(&mut self, event: MouseEvent) {
        if let Some(popup) = crate::popups::shown(&self.hub.shared) {
            return self.popup_mouse(popup.key, &popup.view, &event);
        }
        match (event.kind, self.drag.clone()) {
            (MouseKind::Drag(_), Some(Drag::Split { tab_id, path, split })) => {
                let frame = self.frame_layout();
                let ratio = split_ratio_at(&frame, &split, (event.x, event.y));
                let request = calls::set_split_ratio(&tab_id, path, f64::from(ratio));
                if let Some(Err(e)) = self.hub.shared.session_call(request).await {
                    log::debug!("dragging a split border failed: {e:?}");
                }
            }
            (MouseKind::Drag(_), Some(Drag::Scrollbar { key, track })) => {
                self.scroll_along(key, track, event.y);
            }
            (MouseKind::Drag(_), Some(Drag::Sidebar)) => {
                let options = render_options(&self.hub, &self.view.borrow());
                let min = options.sidebar_min_width.min(options.sidebar_max_width);
                let width = (event.x + 1).clamp(min, options.sidebar_max_width);
                self.view.send_if_modified(|v| v.sidebar_width.replace(width) != Some(width));
            }
            (MouseKind::Drag(button), Some(Drag::Pane { key, content })) => {
                self.to_pane(key, content, &event, PaneMouseAction::Drag(wire_button(button)));
            }
            (MouseKind::Drag(_), Some(Drag::Select { key, content })) => {
                self.select_drag(key, content, &event)
            }
            (MouseKind::Release(button), drag) => {
                self.drag = None;
                if let Some(Drag::Pane { key, content }) = drag {
                    self.to_pane(key, content, &event, PaneMouseAction::Release(wire_button(button)));
                }
                if let Some(Drag::Select { key, .. }) = drag {
                    self.finish_selection(key);
                }
            }
            (MouseKind::Press(button), _) => self.press(button, &event).await,
            (MouseKind::ScrollUp | MouseKind::ScrollDown, _) => {
                let up = event.kind == MouseKind::ScrollUp;
                let lines = self.hub.config().ui.mouse_scroll_lines.max(1);
                if let Some((key, content)) = self.pane_under(&event) {
                    self.to_pane(key, content, &event, PaneMouseAction::Wheel { up, lines });
                }
            }
            (MouseKind::Move, _) => {
                if let Some((key, content)) = self.pane_under(&event) {
                    self.to_pane(key, content, &event, PaneMouseAction::Move);
                }
            }
            _ => {}
        }
    }

    async fn press(&mut self, button: MouseButton, event: &MouseEvent) {
        self.drag = None;
        let (snapshot, panes) = paint::capture(&self.hub.shared);
        let target = self.hit(&self.hit_view(&snapshot, &panes), event);
        if button == MouseButton::Right && self.context_menu(&snapshot, &target, event) {
            return;
        }
        let left = button == MouseButton::Left;
        let call = match target {
            Target::Workspace(index) if left => snapshot
                .workspaces
                .get(index)
                .filter(|w| !w.focused)
                .map(|w| calls::focus_workspace(&w.workspace_id)),
            Target::Agent(index) if left => snapshot.agents.get(index).map(|a| calls::focus_pane(&a.pane_id)),
            Target::Tab(index) if left => snapshot
                .tabs
                .iter()
                .filter(|t| Some(&t.workspace_id) == snapshot.focused_workspace_id.as_ref())
                .nth(index)
                .filter(|t| !t.focused)
                .map(|t| calls::focus_tab(&t.tab_id)),
            Target::Scrollbar { pane_id, track } if left => {
                if let Some((key, _)) = panes.iter().find(|(_, id)| *id == pane_id) {
                    self.drag = Some(Drag::Scrollbar { key: *key, track });
                    self.scroll_along(*key, track, event.y);
                }
                None
            }
            Target::SidebarEdge if left => {
                self.drag = Some(Drag::Sidebar);
                None
            }
            Target::Split(split) if left => {
                let tab_id = snapshot.focused_tab_id.clone().unwrap_or_default();
                if let Some(path) = split_path(&split.id) {
                    self.drag = Some(Drag::Split { tab_id, path, split });
                }
                None
            }
            Target::Pane { pane_id, content }
                if left
                    && event.mods.contains(Modifiers::CTRL)
                    && inside(content, event)
                    && self.open_link(&pane_id, content, event).await =>
            {
                None
            }
            Target::Pane { pane_id, content } => {
                let key = panes.iter().find(|(_, id)| *id == pane_id).map(|(key, _)| *key);
                if let Some(key) = key.filter(|_| inside(content, event))
                    && !(left && self.select_press(key, content, event))
                {
                    self.drag = Some(Drag::Pane { key, content });
                    self.to_pane(key, content, event, PaneMouseAction::Press(wire_button(button)));
                }
                let focused = snapshot.focused_pane_id.as_deref() == Some(pane_id.as_str());
                (left && !focused).then(|| calls::focus_pane(&pane_id))
            }
            _ => None,
        };
        if let Some(request) = call {
            let method = request.method();
            if let Some(Err(e)) = self.hub.shared.session_call(request).await {
                log::debug!("mouse {method} failed: {e:?}");
            }
        }
    }

    /// A ctrl+click on a pane: the URL under the cell goes to a plugin link handler or the
    /// desktop's opener (`pane.link.activate`'s way). False when there is no URL there, so the
    /// click is an ordinary one.
    async fn open_link(&self, pane_id: &str, content: Rect, event: &MouseEvent) -> bool {
        let params = PaneLinkActivateParams {
            pane_id: PaneId::new(pane_id),
            viewport_row: event.y - content.y,
            col: event.x - content.x,
            offset_from_bottom: None,
            content_revision: None,
        };
        match crate::api::links::activate(&self.hub.shared, params).await {
            Ok(ApiResult::PaneLinkActivated { handled, .. }) => handled,
            Ok(_) => false,
            Err(Failure::Api(e) | Failure::Probe(e)) => {
                toast(&self.hub.shared, "cannot open the link", Some(e.message));
                true
            }
            Err(Failure::BadRequest(reason)) => {
                toast(&self.hub.shared, "cannot open the link", Some(reason));
                true
            }
        }
    }

    /// What is under the mouse, with what the hit borrows from the view copied out.
    fn hit(&self, view: &ViewModel<'_>, event: &MouseEvent) -> Target {
        let current = *self.view.borrow();
        let options = render_options(&self.hub, &current);
        let size = (current.cols, current.rows);
        match hit_test(view, &options, self.hub.config().theme(), size, (event.x, event.y)) {
            Hit::Workspace(index) => Target::Workspace(index),
            Hit::Agent(index) => Target::Agent(index),
            Hit::Tab(index) => Target::Tab(index),
            Hit::SidebarEdge => Target::SidebarEdge,
            Hit::Scrollbar { pane_id, track } => Target::Scrollbar { pane_id: pane_id.to_owned(), track },
            Hit::SplitBorder(split) => Target::Split(split.clone()),
            Hit::Pane { pane_id, content } => Target::Pane { pane_id: pane_id.to_owned(), content },
            Hit::Nothing => Target::Nothing,
        }
    }

    /// The pane whose program grid is under the mouse.
    fn pane_under(&self, event: &MouseEvent) -> Option<(PaneKey, Rect)> {
        let (snapshot, panes) = paint::capture(&self.hub.shared);
        let view = self.hit_view(&snapshot, &panes);
        let Target::Pane { pane_id, content } = self.hit(&view, event) else { return None };
        let key = panes.iter().find(|(_, id)| *id == pane_id).map(|(key, _)| *key)?;
        inside(content, event).then_some((key, content))
    }

    /// The view hit-testing needs: the layout, and which panes are scrolled (their scrollbars).
    fn hit_view<'s>(&self, snapshot: &'s SessionSnapshot, panes: &[(PaneKey, String)]) -> ViewModel<'s> {
        let mut view = ViewModel::from_snapshot_with(snapshot, |_| None, Default::default());
        for (key, pane_id) in panes {
            if let (Some(pane), Some((scroll, _))) =
                (view.panes.get_mut(pane_id), self.hub.shared.screens().scroll_info(*key))
            {
                pane.scroll = scroll;
            }
        }
        view
    }

    /// Scrolls `key` to where row `y` of its scrollbar `track` points in its history.
    fn scroll_along(&self, key: PaneKey, track: Rect, y: u16) {
        let shared = &self.hub.shared;
        let (Some(handle), Some((scroll, _))) = (shared.pane_handle(key), shared.screens().scroll_info(key))
        else {
            return;
        };
        let to = match scrollbar_offset(track, scroll.max_offset_from_bottom, y) {
            0 => ScrollTo::Bottom,
            offset => ScrollTo::OffsetFromBottom(offset),
        };
        handle.notify(shared.next_request_id(), WorkerRequest::Scroll(to));
    }

    pub(super) fn frame_layout(&self) -> FrameLayout {
        let current = *self.view.borrow();
        let tabs = {
            let snapshot = self.hub.shared.session().snapshot();
            let focused = snapshot.focused_workspace_id;
            snapshot.tabs.iter().filter(|t| Some(&t.workspace_id) == focused.as_ref()).count()
        };
        FrameLayout::compute(current.cols, current.rows, tabs, &render_options(&self.hub, &current))
    }

    /// Sends `action` at the mouse's cell, relative to the pane's grid (clamped into it, so a
    /// drag that leaves the pane reports its edge).
    pub(super) fn to_pane(&self, key: PaneKey, content: Rect, event: &MouseEvent, action: PaneMouseAction) {
        let Some(handle) = self.hub.shared.pane_handle(key) else { return };
        let rel = |at: u16, origin: u16, size: u16| at.saturating_sub(origin).min(size.saturating_sub(1));
        let mouse = PaneMouse {
            action,
            x: rel(event.x, content.x, content.width),
            y: rel(event.y, content.y, content.height),
            shift: event.mods.contains(Modifiers::SHIFT),
            alt: event.mods.contains(Modifiers::ALT),
            ctrl: event.mods.contains(Modifiers::CTRL),
        };
        handle.notify(self.hub.shared.next_request_id(), WorkerRequest::Mouse(mouse));
    }
}

/// A [`Hit`] that owns what it names, so the session snapshot can be dropped.
pub(super) enum Target {
    Workspace(usize),
    Agent(usize),
    Tab(usize),
    SidebarEdge,
    Scrollbar { pane_id: String, track: Rect },
    Split(PaneLayoutSplit),
    Pane { pane_id: String, content: Rect },
    Nothing,
}

pub(super) fn inside(content: Rect, event: &MouseEvent) -> bool {
    event.x >= content.left()
        && event.x < content.right()
        && event.y >= content.top()
        && event.y < content.bottom()
}

pub(super) fn wire_button(button: MouseButton) -> PaneMouseButton {
    match button {
        MouseButton::Left => PaneMouseButton::Left,
        MouseButton::Middle => PaneMouseButton::Middle,
        MouseButton::Right => PaneMouseButton::Right,
    }
}
