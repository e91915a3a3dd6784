//! A client's modal overlay (one at a time): a context menu, a rename dialog or a confirm-close
//! question, drawn over the composed frame and everything else on it except the keybinding help.

use herdr_protocol::grid::CursorPlacement;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::dialog::{DialogView, draw_confirm, draw_dialog};
use super::menu::{MenuView, draw_menu};
use super::theme::ThemeColors;

/// What an open modal shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModalView {
    Menu(MenuView),
    Dialog(DialogView),
    /// "close pane \"editor\"?" with a detail line (what else goes), answered with y or n. It
    /// sits where a rename dialog would ([`super::dialog_rect`]), so a click outside it is one
    /// outside that rectangle.
    Confirm {
        question: String,
        detail: String,
    },
}

/// Draws `modal` over `buf` (clipped to `screen`); the cursor the frame should show instead of
/// the pane's: the dialog's text cursor, or none over a menu or a question.
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
        ModalView::Confirm { question, detail } => {
            draw_confirm(buf, screen, question, detail, colors);
            None
        }
    }
}
