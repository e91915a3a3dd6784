//! The terminal UI compositor: turns a [`ViewModel`] (workspaces, agents, tabs, the active tab's
//! pane layout and the visible panes' cell grids) into a ratatui [`Buffer`], and diffs successive
//! frames into what a client needs to repaint ([`FrameUpdate`]: cell updates for local clients,
//! ANSI bytes for remote ones, both one synchronized-output paint). The cell and update types
//! are wire data from [`herdr_protocol::grid`], re-exported here.
//!
//! Pure: no sockets, no tokio, no terminal I/O. The supervisor runtime mirrors pane grids from
//! worker damage, builds the view model, calls [`compose`] per client and sends the diff.
//!
//! Geometry (see [`FrameLayout`]): the terminal is split into the sidebar (left), the tab bar (top
//! or bottom row of the rest) and the pane area. The session model's layout area must be the pane
//! area's size; each pane rect from the model is the pane's *outer* box, and with pane borders on,
//! the program's grid is that box inset by one cell ([`FrameLayout::content_rect`]). Under the
//! mobile width threshold only the focused pane is shown, below a header and a tab switcher.
//!
//! [`Buffer`]: ratatui_core::buffer::Buffer

mod chrome;
mod compose;
mod dialog;
mod diff;
mod grid;
mod hit;
mod incremental;
mod menu;
mod mobile;
mod modal;
mod overlay;
mod panes;
mod picker;
mod popup;
mod selection;
mod sidebar;
mod single;
mod status;
mod tabbar;
mod theme;
mod view;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_diff;
#[cfg(test)]
mod tests_hit;
#[cfg(test)]
mod tests_navigate;
#[cfg(test)]
mod tests_scroll;
#[cfg(test)]
mod tests_sidebar;

pub use chrome::{FrameLayout, SidebarMode};
pub use compose::{Frame, ShownPane, compose, compose_reusing};
pub use dialog::{DialogView, dialog_rect, draw_dialog};
pub use diff::{diff_frames, encode_ansi};
pub use herdr_protocol::grid::{
    CellAttrs, CellUpdate, CursorPlacement, CursorShape, FrameUpdate, GridCell, GridColor, PaneGrid,
    WireColor,
};
pub use hit::{Hit, hit_test, scrollbar_offset, split_path, split_ratio_at};
pub use incremental::{pane_cursor, repaint_rows};
pub use menu::{MenuView, draw_menu, menu_item_at, menu_rect};
pub use modal::{ModalView, draw_modal};
pub use overlay::{ToastView, draw_help, draw_toast};
pub use picker::{PickerEntry, PickerView, draw_picker, picker_entry_at, picker_rect};
pub use popup::{PopupView, draw_popup};
pub use selection::{copy_hint, draw_copy_hint};
pub use single::single_pane;
pub use status::{StatusStyle, status_glyph};
pub use theme::{Theme, ThemeColors, parse_color};
pub use view::{AgentView, ModeBadge, PaneView, RenderOptions, TabView, ViewModel, WorkspaceView};
