//! Mouse hit-testing: what a client's screen shows at a cell, laid out exactly as [`compose`]
//! draws it (sidebar rows, tabs, the sidebar's divider, split borders, panes), and the split
//! ratio a border dragged to a column or row means.
//!
//! Pure, like the rest of the compositor: the client connection decides what a hit does.
//!
//! [`compose`]: super::compose

use herdr_protocol::api::{PaneLayoutSplit, SplitDirection};
use ratatui_core::layout::Rect;

use super::chrome::{FrameLayout, SidebarMode};
use super::sidebar::{self, SidebarRow};
use super::tabbar;
use super::theme::Theme;
use super::view::{RenderOptions, ViewModel};

/// What lies under one cell of a client's screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Hit<'a> {
    /// The index of a workspace in the view (and in the session snapshot).
    Workspace(usize),
    /// The index of an agent in the view (and in the session snapshot).
    Agent(usize),
    /// The index of a tab of the focused workspace.
    Tab(usize),
    /// The expanded sidebar's divider column: dragging it sets the sidebar width.
    SidebarEdge,
    /// A border between the two sides of this split: dragging it sets the split's ratio.
    SplitBorder(&'a PaneLayoutSplit),
    /// The scrollbar of a scrolled-back pane (its right border between the corners): `track` is
    /// that column; pressing or dragging on it moves the view ([`scrollbar_offset`]).
    Scrollbar {
        pane_id: &'a str,
        track: Rect,
    },
    /// A pane: its box or its content. `content` is where its program's grid is on the screen.
    Pane {
        pane_id: &'a str,
        content: Rect,
    },
    Nothing,
}

/// What is at `(x, y)` on the `cols` × `rows` screen composed from `view`.
pub fn hit_test<'a>(
    view: &ViewModel<'a>,
    options: &RenderOptions,
    theme: &Theme,
    (cols, rows): (u16, u16),
    (x, y): (u16, u16),
) -> Hit<'a> {
    let frame = FrameLayout::compute(cols, rows, view.tabs.len(), options);
    let at = |r: Rect| x >= r.left() && x < r.right() && y >= r.top() && y < r.bottom();
    if let Some(area) = frame.sidebar.filter(|a| at(*a)) {
        if x + 1 == area.right() && options.sidebar_mode == SidebarMode::Expanded {
            return Hit::SidebarEdge;
        }
        return match sidebar::row_at(area, view, options, &theme.colors, y) {
            Some(SidebarRow::Workspace(index)) => Hit::Workspace(index),
            Some(SidebarRow::Agent(index)) => Hit::Agent(index),
            None => Hit::Nothing,
        };
    }
    if let Some(area) = frame.tab_bar.filter(|a| at(*a)) {
        return tabbar::tab_at(area, &view.tabs, options, &theme.colors, x).map_or(Hit::Nothing, Hit::Tab);
    }
    let Some(layout) = view.layout.filter(|_| at(frame.pane_area)) else { return Hit::Nothing };
    // A scrolled pane's scrollbar is drawn over its right border, so it wins over a split border.
    for (pane_id, outer, _) in frame.visible_panes(layout) {
        let scrolled = view.panes.get(pane_id).is_some_and(|p| p.scroll.offset_from_bottom > 0);
        if scrolled && frame.pane_borders && outer.width >= 2 && outer.height > 2 {
            let track = Rect::new(outer.right() - 1, outer.y + 1, 1, outer.height - 2);
            if at(track) {
                return Hit::Scrollbar { pane_id, track };
            }
        }
    }
    if !frame.mobile && !layout.zoomed {
        // Innermost splits come last; their borders win over an enclosing split's.
        for split in layout.splits.iter().rev() {
            if on_border(&frame, split, x, y) {
                return Hit::SplitBorder(split);
            }
        }
    }
    frame
        .visible_panes(layout)
        .into_iter()
        .find(|(_, outer, _)| at(*outer))
        .map_or(Hit::Nothing, |(pane_id, _, content)| Hit::Pane { pane_id, content })
}

/// The cell where a split's second side starts, on the screen, along its direction.
fn boundary(frame: &FrameLayout, split: &PaneLayoutSplit) -> u16 {
    // The session model places sides the same way: the first gets round(size * ratio) cells,
    // at least one and leaving one.
    let (origin, size) = match split.direction {
        SplitDirection::Right => (frame.pane_area.x + split.rect.x, split.rect.width),
        SplitDirection::Down => (frame.pane_area.y + split.rect.y, split.rect.height),
    };
    let wanted = (f32::from(size) * split.ratio).round() as u16;
    let first = if size >= 2 { wanted.clamp(1, size - 1) } else { size };
    origin + first
}

/// Whether `(x, y)` is on the border between a split's sides: the first side's last cell or the
/// second side's first one (each side's box border when panes are boxed).
fn on_border(frame: &FrameLayout, split: &PaneLayoutSplit, x: u16, y: u16) -> bool {
    let b = boundary(frame, split);
    let (left, top) = (frame.pane_area.x + split.rect.x, frame.pane_area.y + split.rect.y);
    let across_x = x >= left && x < left + split.rect.width;
    let across_y = y >= top && y < top + split.rect.height;
    match split.direction {
        SplitDirection::Right => across_y && (x + 1 == b || x == b),
        SplitDirection::Down => across_x && (y + 1 == b || y == b),
    }
}

/// The ratio that puts `split`'s border under the mouse at `(x, y)`: the first side ends on the
/// mouse's cell. Not clamped (the session clamps ratios to its own bounds).
pub fn split_ratio_at(frame: &FrameLayout, split: &PaneLayoutSplit, (x, y): (u16, u16)) -> f32 {
    let (origin, size, at) = match split.direction {
        SplitDirection::Right => (frame.pane_area.x + split.rect.x, split.rect.width, x),
        SplitDirection::Down => (frame.pane_area.y + split.rect.y, split.rect.height, y),
    };
    if size == 0 {
        return split.ratio;
    }
    let first = f32::from(at.saturating_sub(origin)) + 1.0;
    first / f32::from(size)
}

/// The scroll offset a press at row `y` of a scrollbar `track` asks for: the top row is the
/// oldest history (`max`), the bottom row the live screen (0), evenly in between.
pub fn scrollbar_offset(track: Rect, max: u32, y: u16) -> u32 {
    let span = u64::from(track.height.saturating_sub(1));
    if span == 0 {
        return max;
    }
    let from_bottom = u64::from(track.bottom() - 1 - y.clamp(track.top(), track.bottom() - 1));
    u32::try_from(from_bottom * u64::from(max) / span).unwrap_or(max)
}

/// The tree path (`false` = first child) of a split from its public id (`split_0_root`,
/// `split_2_01`), as `layout.set_split_ratio` takes it.
pub fn split_path(id: &str) -> Option<Vec<bool>> {
    let rest = id.strip_prefix("split_")?;
    let (_, digits) = rest.split_once('_')?;
    if digits == "root" {
        return Some(Vec::new());
    }
    digits
        .chars()
        .map(|c| match c {
            '0' => Some(false),
            '1' => Some(true),
            _ => None,
        })
        .collect()
}
