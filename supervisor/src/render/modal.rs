//! A client's modal overlay (one at a time): a context menu or a rename dialog, drawn over the
//! composed frame and everything else on it except the keybinding help.

use herdr_protocol::grid::CursorPlacement;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::dialog::{DialogView, draw_dialog};
use super::menu::{MenuView, draw_menu};
use super::theme::ThemeColors;

/// What an open modal shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModalView {
    Menu(MenuView),
    Dialog(DialogView),
}

/// Draws `modal` over `buf` (clipped to `screen`); the cursor the frame should show instead of
/// the pane's: the dialog's text cursor, or none over a menu.
pub fn draw_modal(
    buf: &mut Buffer,
    screen: Rect,
    modal: &ModalView,
    colors: &ThemeColors,
) -> Option<CursorPlacement> {
    match modal {
        ModalView::Menu(menu) => {
            draw_menu(buf, screen, menu, colors);
            None
        }
        ModalView::Dialog(dialog) => draw_dialog(buf, screen, dialog, colors),
    }
}
