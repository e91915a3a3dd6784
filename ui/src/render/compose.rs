//! Composition of one client's frame: geometry, then sidebar, tab bar (or the mobile header),
//! panes and the mode bar, into a fresh ratatui buffer plus the cursor the client should show.

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};

use super::chrome::FrameLayout;
use super::theme::{Theme, ThemeColors};
use super::view::{ModeBadge, RenderOptions, ViewModel};
use super::{mobile, panes, sidebar, tabbar};
use herdr_protocol::grid::CursorPlacement;

/// One composed frame: the cells, where (and whether) the cursor shows, and the geometry used,
/// which the runtime also needs for mouse hit-testing and pane sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub buffer: Buffer,
    /// `None`: hide the cursor.
    pub cursor: Option<CursorPlacement>,
    pub layout: FrameLayout,
    /// The panes whose grids this frame shows, where, and which has focus: what a later paint
    /// needs to repaint their changed rows in place (`repaint_rows`).
    pub panes: Vec<ShownPane>,
}

/// One pane shown in a [`Frame`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownPane {
    pub pane_id: String,
    /// The program's grid on screen (inside the borders).
    pub content: Rect,
    pub focused: bool,
}

/// Composes the frame a `cols` × `rows` client sees of `view`. Never panics on tiny sizes: a
/// zero-sized terminal gets an empty frame.
pub fn compose(view: &ViewModel<'_>, options: &RenderOptions, theme: &Theme, cols: u16, rows: u16) -> Frame {
    compose_into(Buffer::empty(Rect::new(0, 0, cols, rows)), view, options, theme)
}

/// [`compose`] into `spare`, a frame buffer that is no longer needed: its cells are blanked and
/// reused when it has this size (cheaper than a fresh buffer for every paint).
pub fn compose_reusing(
    spare: Option<Buffer>,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    theme: &Theme,
    cols: u16,
    rows: u16,
) -> Frame {
    let area = Rect::new(0, 0, cols, rows);
    let buffer = match spare {
        Some(mut buffer) if buffer.area == area => {
            buffer.reset();
            buffer
        }
        _ => Buffer::empty(area),
    };
    compose_into(buffer, view, options, theme)
}

/// Composes onto `buffer`, blank and of the client's size.
fn compose_into(mut buffer: Buffer, view: &ViewModel<'_>, options: &RenderOptions, theme: &Theme) -> Frame {
    let (cols, rows) = (buffer.area.width, buffer.area.height);
    let layout = FrameLayout::compute(cols, rows, view.tabs.len(), options);
    if cols == 0 || rows == 0 {
        return Frame { buffer, cursor: None, layout, panes: Vec::new() };
    }
    let colors = &theme.colors;
    if layout.mobile {
        mobile::draw_header(&mut buffer, layout.screen, view, options, colors);
    }
    if let Some(area) = layout.sidebar {
        sidebar::draw(&mut buffer, area, view, options, colors);
    }
    if let Some(area) = layout.tab_bar {
        tabbar::draw(&mut buffer, area, &view.tabs, options, colors);
    }
    let mut cursor = match view.layout {
        Some(snapshot) => panes::draw(&mut buffer, &layout, snapshot, view, options, colors),
        None => {
            let hint = Line::styled(" no workspace yet", Style::new().fg(colors.overlay0));
            let area = layout.pane_area;
            if area.height > 0 {
                put_line(&mut buffer, area.x, area.y, area.width, &hint);
            }
            None
        }
    };
    if view.mode != ModeBadge::Terminal {
        let bar = Rect::new(0, rows - 1, cols, 1);
        draw_mode_bar(&mut buffer, bar, view.mode, colors);
        cursor = cursor.filter(|c| c.y != bar.y);
    }
    let panes = match view.layout {
        Some(snapshot) => layout
            .visible_panes(snapshot)
            .into_iter()
            .map(|(pane_id, _, content)| ShownPane {
                pane_id: pane_id.to_owned(),
                content,
                focused: pane_id == snapshot.focused_pane_id,
            })
            .collect(),
        None => Vec::new(),
    };
    Frame { buffer, cursor: cursor.filter(|c| c.visible), layout, panes }
}

fn draw_mode_bar(buf: &mut Buffer, bar: Rect, mode: ModeBadge, colors: &ThemeColors) {
    let (name, hint) = match mode {
        ModeBadge::Terminal => return,
        ModeBadge::Prefix => ("PREFIX", "c tab  v/- split  hjkl focus  z zoom  x close  ? help  q detach"),
        ModeBadge::Navigate => ("NAVIGATE", "↑↓ workspace  1-9 jump  hjkl pane  enter switch  esc leave"),
        ModeBadge::Resize => ("RESIZE", "hjkl/arrows resize  esc done"),
        ModeBadge::Copy => ("COPY", "hjkl move  v select  y yank  / search  q quit"),
    };
    fill(buf, bar, Style::new().bg(colors.surface0).fg(colors.subtext0));
    let line = Line::from(vec![
        Span::styled(
            format!(" {name} "),
            Style::new().bg(colors.accent).fg(colors.panel_bg).add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!(" {hint}"), Style::new().bg(colors.surface0).fg(colors.subtext0)),
    ]);
    put_line(buf, bar.x, bar.y, bar.width, &line);
}

/// Paints `rect` (clipped to the buffer) with blanks in `style`.
pub(crate) fn fill(buf: &mut Buffer, rect: Rect, style: Style) {
    let rect = rect.intersection(buf.area);
    for y in rect.top()..rect.bottom() {
        for x in rect.left()..rect.right() {
            buf[(x, y)].set_symbol(" ").set_style(style);
        }
    }
}

/// Writes `line` at `(x, y)` within `max_width` columns, clipped to the buffer; returns where
/// it ended. Out-of-buffer positions write nothing.
pub(crate) fn put_line(buf: &mut Buffer, x: u16, y: u16, max_width: u16, line: &Line<'_>) -> (u16, u16) {
    if y >= buf.area.bottom() || x >= buf.area.right() || max_width == 0 {
        return (x, y);
    }
    buf.set_line(x, y, line, max_width)
}
