//! The mouse while a popup is open: a press inside the popup's grid goes to its program (and the
//! drag and release that follow, even outside it), the wheel and motion over it too; anything
//! outside the popup is ignored, so a click on the layout underneath neither focuses nor
//! resizes anything. The popup's worker encodes for its program's mouse mode, as for any pane.

use herdr_protocol::ipc::PaneMouseAction;
use herdr_ui::popup::geometry;
use herdr_ui::render::PopupView;

use super::Connection;
use super::mouse::{Drag, inside, wire_button};
use crate::keymap::{MouseEvent, MouseKind};
use crate::session::PaneKey;

impl Connection {
    /// `event` while the popup `key` (drawn as `view`) is open.
    pub(super) fn popup_mouse(&mut self, key: PaneKey, view: &PopupView, event: &MouseEvent) {
        let area = self.frame_layout().pane_area;
        let Some(content) = geometry(view.width, view.height, area).map(|g| g.inner) else { return };
        let held = match &self.drag {
            Some(Drag::Pane { key: held, content }) if *held == key => Some(*content),
            _ => None,
        };
        let over = inside(content, event);
        match event.kind {
            MouseKind::Press(button) if over => {
                self.drag = Some(Drag::Pane { key, content });
                self.to_pane(key, content, event, PaneMouseAction::Press(wire_button(button)));
            }
            MouseKind::Drag(button) => {
                if let Some(content) = held {
                    self.to_pane(key, content, event, PaneMouseAction::Drag(wire_button(button)));
                }
            }
            MouseKind::Release(button) => {
                self.drag = None;
                if let Some(content) = held {
                    self.to_pane(key, content, event, PaneMouseAction::Release(wire_button(button)));
                }
            }
            MouseKind::ScrollUp | MouseKind::ScrollDown if over => {
                let up = event.kind == MouseKind::ScrollUp;
                let lines = self.hub.config().ui.mouse_scroll_lines.max(1);
                self.to_pane(key, content, event, PaneMouseAction::Wheel { up, lines });
            }
            MouseKind::Move if over => self.to_pane(key, content, event, PaneMouseAction::Move),
            // Outside the popup: nothing underneath is touched.
            _ => self.drag = held.map(|content| Drag::Pane { key, content }),
        }
    }
}
