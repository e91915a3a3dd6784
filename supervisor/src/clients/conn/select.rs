//! Selecting text with the mouse: a left press on a pane's content starts a selection when the
//! pane's program did not ask for mouse reports (or with shift held), a drag extends it, the
//! release ends it and copies the text to the client's clipboard (`ui.copy_on_select`). A second
//! press on the same cell within [`DOUBLE_CLICK`] selects the word there and copies it.
//!
//! Not here: which cells and text are selected (the pane worker), focus and drags of borders
//! (`super::mouse`).

use std::time::Duration;

use herdr_protocol::ipc::CopyRequest;
use ratatui_core::layout::Rect;
use tokio::time::Instant;

use super::Connection;
use super::mouse::Drag;
use crate::keymap::{Modifiers, MouseEvent};
use crate::session::PaneKey;

/// Two presses on one cell within this long are a double-click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);

/// A press that started a selection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Click {
    at: Instant,
    pane: PaneKey,
    cell: (u16, u16),
}

impl Click {
    /// Whether a press on `cell` of `pane` at `now` is the second click of a double-click.
    fn doubled_by(&self, pane: PaneKey, cell: (u16, u16), now: Instant) -> bool {
        self.pane == pane && self.cell == cell && now.duration_since(self.at) <= DOUBLE_CLICK
    }
}

/// The viewport cell of `content` under the mouse, clamped into it (a drag that leaves the pane
/// sideways or upward selects up to its edge).
pub(super) fn cell_in(content: Rect, event: &MouseEvent) -> (u16, u16) {
    let rel = |at: u16, origin: u16, size: u16| at.saturating_sub(origin).min(size.saturating_sub(1));
    (rel(event.x, content.x, content.width), rel(event.y, content.y, content.height))
}

impl Connection {
    /// A left press on `pane`'s content: true when it starts (or double-clicks) a selection,
    /// false when it belongs to the pane's program.
    pub(super) fn select_press(&mut self, pane: PaneKey, content: Rect, event: &MouseEvent) -> bool {
        let reporting = self.hub.shared.screens().modes(pane).is_some_and(|m| m.mouse_reporting);
        if reporting && !event.mods.contains(Modifiers::SHIFT) {
            return false;
        }
        if let Some(old) = self.copying.selected.filter(|old| *old != pane) {
            self.to_copy(old, CopyRequest::SelectClear);
        }
        self.copying.selected = Some(pane);
        let (col, row) = cell_in(content, event);
        let now = Instant::now();
        let last = self.copying.last_click.take();
        if last.is_some_and(|click| click.doubled_by(pane, (col, row), now)) {
            self.to_copy(pane, CopyRequest::SelectWord { col, row });
            self.finish_selection(pane);
            return true;
        }
        self.copying.last_click = Some(Click { at: now, pane, cell: (col, row) });
        self.to_copy(pane, CopyRequest::SelectStart { col, row });
        self.drag = Some(Drag::Select { key: pane, content });
        true
    }

    /// The held button moved: the selection now ends at the mouse's cell. Above or below the
    /// pane it scrolls the view a row per motion toward the mouse.
    pub(super) fn select_drag(&mut self, pane: PaneKey, content: Rect, event: &MouseEvent) {
        let (col, cell_row) = cell_in(content, event);
        let row = if event.y < content.top() {
            // One row before the viewport: the pane scrolls back a row, selecting to its top.
            -1
        } else if event.y >= content.bottom() {
            // One row past the viewport: the pane scrolls a row and selects to its bottom row.
            i32::from(content.height)
        } else {
            i32::from(cell_row)
        };
        // Moving off the pressed cell makes the next press a new click, not a double-click.
        if self.copying.last_click.is_some_and(|click| (click.cell.0, i32::from(click.cell.1)) != (col, row))
        {
            self.copying.last_click = None;
        }
        self.to_copy(pane, CopyRequest::SelectExtend { col, row });
    }

    /// The button was released (or a double-click chose a word): the pane answers with the
    /// selected text, which goes to the clipboard.
    pub(super) fn finish_selection(&mut self, pane: PaneKey) {
        let deliver = self.hub.config().ui.copy_on_select;
        self.copying.queue.send(pane, CopyRequest::SelectFinish, deliver);
    }

    fn to_copy(&self, pane: PaneKey, request: CopyRequest) {
        self.copying.queue.send(pane, request, false);
    }
}
