//! A client's modal overlay (one at a time): a context menu, a rename dialog, a confirm-close
//! question or the goto picker, drawn over the composed frame and everything else on it except the keybinding help.

use herdr_protocol::grid::CursorPlacement;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;

use super::dialog::{DialogView, draw_confirm, draw_dialog};
use super::menu::{MenuView, draw_menu};
use super::picker::{PickerView, draw_picker};
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
    /// The goto picker (`prefix+g`).
    Picker(PickerView),
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
        ModalView::Picker(picker) => draw_picker(buf, screen, picker, colors),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::render::tests::text_of;
    use crate::render::{ModeBadge, RenderOptions, Theme, ViewModel, compose};

    /// Compares `buf` with `tests/snapshots/<name>.txt` (written instead with UPDATE_SNAPSHOTS).
    fn snapshot(name: &str, buf: &Buffer) {
        let path = format!("{}/tests/snapshots/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let actual = text_of(buf);
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&path, &actual).expect("write snapshot");
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing snapshot {path}"));
        assert_eq!(actual, expected, "snapshot {name} differs");
    }

    #[test]
    fn a_confirm_question_over_a_composed_frame_hides_the_cursor() {
        let snapshot_of_session = crate::tests_fixtures::session("split_right_54x22");
        let grids = HashMap::new();
        let view = ViewModel::from_snapshot(&snapshot_of_session, &grids, ModeBadge::Terminal);
        let theme = Theme::default();
        let mut frame = compose(&view, &RenderOptions::default(), &theme, 80, 24);
        let modal = ModalView::Confirm {
            question: "close pane \"editor\"?".into(),
            detail: "w1:p2 · claude runs here".into(),
        };
        let screen = frame.buffer.area;
        assert_eq!(draw_modal(&mut frame.buffer, screen, &modal, &theme.colors), None, "no text cursor");
        snapshot("confirm_close", &frame.buffer);
    }
}
