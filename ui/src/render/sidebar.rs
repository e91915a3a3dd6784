//! The left sidebar: the "spaces" panel (workspaces) above the "agents" panel, each row built
//! from configurable tokens, with status indicators; or, collapsed, one icon per workspace.

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::{Line, Span};

use super::chrome::SidebarMode;
use super::compose::{fill, put_line};
use super::status::{status_glyph, status_text};
use super::theme::ThemeColors;
use super::view::{AgentView, RenderOptions, ViewModel, WorkspaceView};

/// Columns continuation rows (the second and later token rows of an item) are indented by, so
/// they line up after the status icon.
const CONTINUATION_INDENT: u16 = 2;

pub(crate) fn draw(
    buf: &mut Buffer,
    area: Rect,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    colors: &ThemeColors,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let inner = Rect::new(area.x, area.y, area.width - 1, area.height);
    fill(buf, inner, Style::new().bg(colors.sidebar_bg).fg(colors.text));
    let divider = Style::new().fg(colors.surface1).bg(colors.sidebar_bg);
    for y in area.top()..area.bottom() {
        buf[(area.right() - 1, y)].set_symbol("│").set_style(divider);
    }
    if options.sidebar_mode == SidebarMode::Compact {
        draw_compact(buf, inner, view, options, colors);
        return;
    }
    let (spaces, agents) = panels(inner, options);
    let rows: Vec<Item> = view.workspaces.iter().map(|w| workspace_item(w, options, colors)).collect();
    draw_panel(buf, spaces, "spaces", &rows, colors);
    let rows: Vec<Item> = view.agents.iter().map(|a| agent_item(a, options, colors)).collect();
    draw_panel(buf, agents, "agents", &rows, colors);
}

/// The spaces and agents panels of the sidebar's inside (without its divider).
fn panels(inner: Rect, options: &RenderOptions) -> (Rect, Rect) {
    let split = ((f32::from(inner.height) * options.sidebar_section_split.clamp(0.0, 1.0)).round() as u16)
        .clamp(inner.height.min(1), inner.height);
    let spaces = Rect::new(inner.x, inner.y, inner.width, split);
    let agents = Rect::new(inner.x, inner.y + split, inner.width, inner.height - split);
    (spaces, agents)
}

/// What a sidebar row shows, for mouse hit-testing: an index into the view's workspaces or agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SidebarRow {
    Workspace(usize),
    Agent(usize),
}

/// The item drawn on row `y` of the sidebar `area` (as [`draw`] lays them out), if any.
pub(crate) fn row_at(
    area: Rect,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    colors: &ThemeColors,
    y: u16,
) -> Option<SidebarRow> {
    if area.width == 0 || area.height == 0 {
        return None;
    }
    let inner = Rect::new(area.x, area.y, area.width - 1, area.height);
    if options.sidebar_mode == SidebarMode::Compact {
        let index = usize::from(y.checked_sub(inner.y)?);
        return (index < view.workspaces.len() && y < inner.bottom()).then_some(SidebarRow::Workspace(index));
    }
    let (spaces, agents) = panels(inner, options);
    let find = |panel: Rect, heights: Vec<usize>| -> Option<usize> {
        let mut top = usize::from(panel.y) + 1;
        for (index, height) in heights.into_iter().enumerate() {
            if (top..top + height).contains(&usize::from(y)) && y < panel.bottom() {
                return Some(index);
            }
            top += height;
        }
        None
    };
    if y < spaces.bottom() {
        let heights = view.workspaces.iter().map(|w| workspace_item(w, options, colors).lines.len());
        return find(spaces, heights.collect()).map(SidebarRow::Workspace);
    }
    let heights = view.agents.iter().map(|a| agent_item(a, options, colors).lines.len());
    find(agents, heights.collect()).map(SidebarRow::Agent)
}

/// One workspace or agent: its rendered rows, indentation, whether it is the focused one and
/// whether navigate mode has it selected.
struct Item {
    lines: Vec<Line<'static>>,
    indent: u16,
    active: bool,
    selected: bool,
}

/// Drawn in the first column of the navigate-mode selection's rows, so it shows without colour.
const SELECTION_MARKER: &str = "▌";

fn draw_panel(buf: &mut Buffer, area: Rect, title: &str, items: &[Item], colors: &ThemeColors) {
    if area.height == 0 {
        return;
    }
    let header = Style::new().fg(colors.subtext0).add_modifier(Modifier::BOLD);
    put_line(buf, area.x + 1, area.y, area.width.saturating_sub(1), &Line::styled(title.to_string(), header));
    let mut y = area.y + 1;
    for item in items {
        for (index, line) in item.lines.iter().enumerate() {
            if y >= area.bottom() {
                return;
            }
            if item.selected {
                fill(buf, Rect::new(area.x, y, area.width, 1), Style::new().bg(colors.selection_bg));
                let marker = Line::styled(SELECTION_MARKER, Style::new().fg(colors.accent));
                put_line(buf, area.x, y, 1, &marker);
            } else if item.active {
                fill(buf, Rect::new(area.x, y, area.width, 1), Style::new().bg(colors.active_row_bg));
            }
            let indent = 1 + item.indent + if index > 0 { CONTINUATION_INDENT } else { 0 };
            put_line(buf, area.x + indent, y, area.width.saturating_sub(indent + 1), line);
            y += 1;
        }
    }
}

fn workspace_item(w: &WorkspaceView, options: &RenderOptions, colors: &ThemeColors) -> Item {
    let lines = options
        .spaces_rows
        .iter()
        .filter_map(|row| {
            token_line(row, |token| match token {
                "state_icon" => Some(icon(w.status, options, colors)),
                "state_text" => Some(plain(status_text(w.status), colors.subtext0)),
                "workspace" => Some(label(&w.label, w.focused, colors)),
                other => w.tokens.get(other.trim_start_matches('$')).map(|v| plain(v, colors.subtext0)),
            })
        })
        .collect();
    Item { lines, indent: u16::from(w.depth) * 2, active: w.focused, selected: w.selected }
}

fn agent_item(a: &AgentView, options: &RenderOptions, colors: &ThemeColors) -> Item {
    let lines = options
        .agents_rows
        .iter()
        .filter_map(|row| {
            token_line(row, |token| match token {
                "state_icon" => Some(icon(a.status, options, colors)),
                "state_text" => {
                    Some(plain(a.state_label.as_deref().unwrap_or(status_text(a.status)), colors.subtext0))
                }
                "workspace" => Some(label(&a.workspace, a.focused, colors)),
                "tab" => Some(plain(&a.tab, colors.subtext0)),
                "pane" => Some(plain(&a.pane, colors.subtext0)),
                "agent" => Some(plain(&a.agent, colors.overlay1)),
                "terminal_title" | "terminal_title_stripped" => {
                    a.terminal_title.as_deref().map(|t| plain(t, colors.subtext0))
                }
                other => other
                    .strip_prefix('$')
                    .and_then(|name| a.tokens.get(name))
                    .map(|v| plain(v, colors.subtext0)),
            })
        })
        .collect();
    Item { lines, indent: 0, active: a.focused, selected: false }
}

/// The spans of one token row, separated by spaces; `None` when every token is empty (a row
/// such as `[branch, git_status]` outside a Git checkout is left out).
fn token_line<'t>(
    row: &'t [String],
    resolve: impl Fn(&'t str) -> Option<Span<'static>>,
) -> Option<Line<'static>> {
    let spans: Vec<Span<'static>> =
        row.iter().filter_map(|token| resolve(token)).filter(|span| !span.content.is_empty()).collect();
    if spans.is_empty() {
        return None;
    }
    let mut line = Vec::with_capacity(spans.len() * 2);
    for (index, span) in spans.into_iter().enumerate() {
        if index > 0 {
            line.push(Span::raw(" "));
        }
        line.push(span);
    }
    Some(Line::from(line))
}

fn icon(
    status: herdr_protocol::api::AgentStatus,
    options: &RenderOptions,
    colors: &ThemeColors,
) -> Span<'static> {
    let (glyph, color) = status_glyph(status, options.status_style, colors);
    Span::styled(glyph, Style::new().fg(color))
}

fn label(text: &str, focused: bool, colors: &ThemeColors) -> Span<'static> {
    let style = Style::new().fg(colors.text);
    Span::styled(text.to_string(), if focused { style.add_modifier(Modifier::BOLD) } else { style })
}

fn plain(text: &str, color: ratatui_core::style::Color) -> Span<'static> {
    Span::styled(text.to_string(), Style::new().fg(color))
}

fn draw_compact(
    buf: &mut Buffer,
    area: Rect,
    view: &ViewModel<'_>,
    options: &RenderOptions,
    colors: &ThemeColors,
) {
    for (w, y) in view.workspaces.iter().zip(area.top()..area.bottom()) {
        if w.selected {
            fill(buf, Rect::new(area.x, y, area.width, 1), Style::new().bg(colors.selection_bg));
            put_line(buf, area.x, y, 1, &Line::styled(SELECTION_MARKER, Style::new().fg(colors.accent)));
        } else if w.focused {
            fill(buf, Rect::new(area.x, y, area.width, 1), Style::new().bg(colors.active_row_bg));
        }
        put_line(
            buf,
            area.x + 1,
            y,
            area.width.saturating_sub(1),
            &Line::from(icon(w.status, options, colors)),
        );
    }
}
