//! Frame geometry: where the sidebar, tab bar and pane area go for a terminal size, and how the
//! session model's pane rects map to screen cells. Programs are sized inside their boxes by the
//! session model's content inset; [`FrameLayout::pane_content_sizes`] states the same geometry
//! for the compositor's tests.

use herdr_protocol::api::{PaneLayoutRect, PaneLayoutSnapshot};
use ratatui_core::layout::Rect;

use super::view::RenderOptions;

/// How the sidebar shows (`prefix+b` toggles between expanded and the collapsed mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SidebarMode {
    #[default]
    Expanded,
    /// Icons only.
    Compact,
    Hidden,
}

/// Width of the compact sidebar: a space, the icon, a space and the divider.
const COMPACT_WIDTH: u16 = 4;
/// Rows the mobile layout uses above the pane: the header and the tab switcher.
const MOBILE_HEADER_ROWS: u16 = 2;

/// Where everything goes on one client's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLayout {
    pub screen: Rect,
    /// Single column: header, switcher, the focused pane only.
    pub mobile: bool,
    /// The sidebar including its divider column on the right.
    pub sidebar: Option<Rect>,
    pub tab_bar: Option<Rect>,
    /// The session model's layout area, placed on the screen: the model's area must have this
    /// size (width × height) so its pane rects tile it.
    pub pane_area: Rect,
    /// Whether each pane is boxed (content inset by one cell).
    pub pane_borders: bool,
}

impl FrameLayout {
    /// The layout of a `cols` × `rows` terminal showing `tab_count` tabs.
    pub fn compute(cols: u16, rows: u16, tab_count: usize, options: &RenderOptions) -> FrameLayout {
        let screen = Rect::new(0, 0, cols, rows);
        if cols <= options.mobile_width_threshold {
            let header = MOBILE_HEADER_ROWS.min(rows);
            return FrameLayout {
                screen,
                mobile: true,
                sidebar: None,
                tab_bar: None,
                pane_area: Rect::new(0, header, cols, rows - header),
                pane_borders: false,
            };
        }
        let min = options.sidebar_min_width.min(options.sidebar_max_width);
        let sidebar_width = match options.sidebar_mode {
            SidebarMode::Expanded => options.sidebar_width.clamp(min, options.sidebar_max_width),
            SidebarMode::Compact => COMPACT_WIDTH,
            SidebarMode::Hidden => 0,
        }
        .min(cols / 2);
        let sidebar = (sidebar_width > 0 && rows > 0).then(|| Rect::new(0, 0, sidebar_width, rows));
        let rest = Rect::new(sidebar_width, 0, cols - sidebar_width, rows);
        let show_tab_bar = rows >= 2 && !(options.hide_tab_bar_when_single_tab && tab_count <= 1);
        let (tab_bar, pane_area) = if !show_tab_bar {
            (None, rest)
        } else if options.tab_bar_bottom {
            (
                Some(Rect::new(rest.x, rest.bottom() - 1, rest.width, 1)),
                Rect::new(rest.x, rest.y, rest.width, rest.height - 1),
            )
        } else {
            (Some(Rect::new(rest.x, 0, rest.width, 1)), Rect::new(rest.x, 1, rest.width, rest.height - 1))
        };
        FrameLayout { screen, mobile: false, sidebar, tab_bar, pane_area, pane_borders: options.pane_borders }
    }

    /// A model rect (relative to the model's area) placed on the screen, clipped to the pane area.
    pub fn pane_outer_rect(&self, rect: &PaneLayoutRect) -> Rect {
        let placed = Rect::new(
            self.pane_area.x.saturating_add(rect.x),
            self.pane_area.y.saturating_add(rect.y),
            rect.width,
            rect.height,
        );
        placed.intersection(self.pane_area)
    }

    /// Where a pane's program grid goes inside its outer box.
    pub fn content_rect(&self, outer: Rect) -> Rect {
        if self.pane_borders && outer.width >= 2 && outer.height >= 2 {
            Rect::new(outer.x + 1, outer.y + 1, outer.width - 2, outer.height - 2)
        } else if self.pane_borders {
            Rect::new(outer.x, outer.y, 0, 0)
        } else {
            outer
        }
    }

    /// The grid size `(pane id, cols, rows)` each visible pane of `layout` should have: its
    /// content rect, or the whole pane area for the one pane shown when zoomed or on mobile.
    pub fn pane_content_sizes(&self, layout: &PaneLayoutSnapshot) -> Vec<(String, u16, u16)> {
        self.visible_panes(layout)
            .into_iter()
            .map(|(id, _outer, content)| (id.to_string(), content.width, content.height))
            .collect()
    }

    /// The panes drawn for `layout`: `(pane id, outer box, content rect)`.
    pub(crate) fn visible_panes<'l>(&self, layout: &'l PaneLayoutSnapshot) -> Vec<(&'l str, Rect, Rect)> {
        let single = self.mobile || layout.zoomed;
        layout
            .panes
            .iter()
            .filter(|p| !single || p.pane_id == layout.focused_pane_id)
            .map(|p| {
                let outer = if single { self.pane_area } else { self.pane_outer_rect(&p.rect) };
                (p.pane_id.as_str(), outer, self.content_rect(outer))
            })
            .collect()
    }
}
