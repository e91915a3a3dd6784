//! `[ui]`: presentation and interaction settings, with upstream's defaults, and the
//! [`RenderOptions`] the compositor takes from them.

use std::collections::BTreeMap;

use toml::{Table, Value};

use super::reader::Reader;
use crate::render::{RenderOptions, SidebarMode, StatusStyle};

/// Where a toast shows.
pub const TOAST_POSITIONS: &[&str] =
    &["bottom-right", "bottom-center", "bottom-left", "top-right", "top-center", "top-left"];

/// Tokens sidebar rows may use besides `$name` metadata.
pub const SIDEBAR_TOKENS: &[&str] = &[
    "state_icon",
    "state_text",
    "workspace",
    "tab",
    "pane",
    "agent",
    "terminal_title",
    "terminal_title_stripped",
    "branch",
    "git_status",
];

/// Upstream caps sidebar rows at 16 rows of 16 tokens.
const MAX_ROWS: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub struct ToastConfig {
    /// `off`, `herdr`, `terminal` or `system`.
    pub delivery: &'static str,
    pub delay_seconds: u16,
    pub herdr_position: &'static str,
    pub clipboard_enabled: bool,
    pub clipboard_position: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SoundConfig {
    pub enabled: bool,
    pub path: Option<String>,
    pub done_path: Option<String>,
    pub request_path: Option<String>,
    /// Per agent `default`, `on` or `off`; droid is off unless configured.
    pub agents: BTreeMap<String, &'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UiConfig {
    pub sidebar_width: u16,
    pub sidebar_min_width: u16,
    pub sidebar_max_width: u16,
    pub sidebar_start_collapsed: bool,
    /// `compact` or `hidden`.
    pub sidebar_collapsed_mode: &'static str,
    pub mobile_width_threshold: u16,
    pub mouse_capture: bool,
    pub copy_on_select: bool,
    /// `auto`, `native` or `drawn`.
    pub host_cursor: &'static str,
    pub right_click_passthrough_modifier: &'static str,
    pub redraw_on_focus_gained: bool,
    pub mouse_scroll_lines: u16,
    pub confirm_close: bool,
    pub prompt_new_tab_name: bool,
    pub prompt_new_workspace_name: bool,
    pub pane_borders: bool,
    pub pane_outer_borders: bool,
    pub pane_scrollbars: bool,
    pub pane_gaps: bool,
    pub show_agent_labels_on_pane_borders: bool,
    pub hide_tab_bar_when_single_tab: bool,
    /// `top` or `bottom`.
    pub tab_bar_position: &'static str,
    /// Right-side tab bar entries, kept as written (their rendering is not built yet).
    pub tab_bar_right: Vec<Value>,
    pub tab_bar_right_separator: String,
    pub window_title: String,
    /// `spaces` or `priority`.
    pub agent_panel_sort: &'static str,
    /// `dots` or `symbols`.
    pub status_indicators: &'static str,
    pub spaces_row_gap: u16,
    pub spaces_rows: Vec<Vec<String>>,
    pub agents_row_gap: u16,
    pub agents_rows: Vec<Vec<String>>,
    pub agents_rows_by_agent: BTreeMap<String, Vec<Vec<String>>>,
    pub accent: String,
    pub toast: ToastConfig,
    pub sound: SoundConfig,
}

const UI_KEYS: &[&str] = &[
    "sidebar_width",
    "sidebar_min_width",
    "sidebar_max_width",
    "sidebar_start_collapsed",
    "sidebar_collapsed_mode",
    "mobile_width_threshold",
    "mouse_capture",
    "copy_on_select",
    "host_cursor",
    "right_click_passthrough_modifier",
    "redraw_on_focus_gained",
    "mouse_scroll_lines",
    "confirm_close",
    "prompt_new_tab_name",
    "prompt_new_workspace_name",
    "pane_borders",
    "pane_outer_borders",
    "pane_scrollbars",
    "pane_gaps",
    "show_agent_labels_on_pane_borders",
    "hide_tab_bar_when_single_tab",
    "tab_bar_position",
    "tab_bar_right",
    "tab_bar_right_separator",
    "window_title",
    "agent_panel_sort",
    "status_indicators",
    "sidebar",
    "accent",
    "toast",
    "sound",
];

impl Default for UiConfig {
    fn default() -> Self {
        let mut diagnostics = Vec::new();
        let mut reader = Reader { file: String::new(), diagnostics: &mut diagnostics };
        parse(&mut reader, &Table::new())
    }
}

/// Reads `[ui]` (`ui` is the table, empty when absent).
pub(crate) fn parse(r: &mut Reader<'_>, ui: &Table) -> UiConfig {
    const P: &str = "ui";
    r.check_keys(ui, P, UI_KEYS);
    let empty = Table::new();
    let sidebar = r.table(ui, P, "sidebar").unwrap_or(&empty);
    r.check_keys(sidebar, "ui.sidebar", &["spaces", "agents"]);
    let spaces = r.table(sidebar, "ui.sidebar", "spaces").unwrap_or(&empty);
    r.check_keys(spaces, "ui.sidebar.spaces", &["row_gap", "rows"]);
    let agents = r.table(sidebar, "ui.sidebar", "agents").unwrap_or(&empty);
    r.check_keys(agents, "ui.sidebar.agents", &["row_gap", "rows", "rows_by_agent"]);
    let mut min = r.u16(ui, P, "sidebar_min_width", 18, (1, 200));
    let mut max = r.u16(ui, P, "sidebar_max_width", 36, (1, 200));
    if min > max {
        r.report("ui.sidebar_min_width", format!("{min} is above sidebar_max_width {max}; using 18 and 36"));
        (min, max) = (18, 36);
    }
    let default_rows = |rows: &[&[&str]]| -> Vec<Vec<String>> {
        rows.iter().map(|row| row.iter().map(|t| t.to_string()).collect()).collect()
    };
    let spaces_default = default_rows(&[&["state_icon", "workspace"], &["branch", "git_status"]]);
    let agents_default = default_rows(&[&["state_icon", "workspace", "tab"], &["agent"]]);
    let mut rows_by_agent = BTreeMap::new();
    if let Some(by_agent) = r.table(agents, "ui.sidebar.agents", "rows_by_agent") {
        for (agent, value) in by_agent {
            let key = format!("ui.sidebar.agents.rows_by_agent.{agent}");
            if let Some(rows) = token_rows(r, Some(value), &key) {
                rows_by_agent.insert(agent.clone(), rows);
            }
        }
    }
    let toast_table = r.table(ui, P, "toast").unwrap_or(&empty);
    let sound_table = r.table(ui, P, "sound").unwrap_or(&empty);
    UiConfig {
        sidebar_width: r.u16(ui, P, "sidebar_width", 26, (1, 200)).clamp(min, max),
        sidebar_min_width: min,
        sidebar_max_width: max,
        sidebar_start_collapsed: r.bool(ui, P, "sidebar_start_collapsed", false),
        sidebar_collapsed_mode: r.choice(ui, P, "sidebar_collapsed_mode", &["compact", "hidden"]),
        mobile_width_threshold: r.u16(ui, P, "mobile_width_threshold", 64, (0, 1000)),
        mouse_capture: r.bool(ui, P, "mouse_capture", true),
        copy_on_select: r.bool(ui, P, "copy_on_select", true),
        host_cursor: r.choice(ui, P, "host_cursor", &["auto", "native", "drawn"]),
        right_click_passthrough_modifier: r.choice(
            ui,
            P,
            "right_click_passthrough_modifier",
            &["", "shift", "ctrl", "alt", "super"],
        ),
        redraw_on_focus_gained: r.bool(ui, P, "redraw_on_focus_gained", true),
        mouse_scroll_lines: r.u16(ui, P, "mouse_scroll_lines", 3, (1, 100)),
        confirm_close: r.bool(ui, P, "confirm_close", true),
        prompt_new_tab_name: r.bool(ui, P, "prompt_new_tab_name", true),
        prompt_new_workspace_name: r.bool(ui, P, "prompt_new_workspace_name", false),
        pane_borders: r.bool(ui, P, "pane_borders", true),
        pane_outer_borders: r.bool(ui, P, "pane_outer_borders", true),
        pane_scrollbars: r.bool(ui, P, "pane_scrollbars", true),
        pane_gaps: r.bool(ui, P, "pane_gaps", true),
        show_agent_labels_on_pane_borders: r.bool(ui, P, "show_agent_labels_on_pane_borders", false),
        hide_tab_bar_when_single_tab: r.bool(ui, P, "hide_tab_bar_when_single_tab", false),
        tab_bar_position: r.choice(ui, P, "tab_bar_position", &["top", "bottom"]),
        tab_bar_right: match ui.get("tab_bar_right") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(other) => {
                r.report("ui.tab_bar_right", format!("expected an array, found {}", other.type_str()));
                Vec::new()
            }
        },
        tab_bar_right_separator: r.string(ui, P, "tab_bar_right_separator", " "),
        window_title: r.string(ui, P, "window_title", "{hostname}: {workspace}"),
        agent_panel_sort: r.choice(ui, P, "agent_panel_sort", &["spaces", "priority"]),
        status_indicators: r.choice(ui, P, "status_indicators", &["dots", "symbols"]),
        spaces_row_gap: r.u16(spaces, "ui.sidebar.spaces", "row_gap", 0, (0, 4)),
        spaces_rows: token_rows(r, spaces.get("rows"), "ui.sidebar.spaces.rows").unwrap_or(spaces_default),
        agents_row_gap: r.u16(agents, "ui.sidebar.agents", "row_gap", 0, (0, 4)),
        agents_rows: token_rows(r, agents.get("rows"), "ui.sidebar.agents.rows").unwrap_or(agents_default),
        agents_rows_by_agent: rows_by_agent,
        accent: r.string(ui, P, "accent", "cyan"),
        toast: toast(r, toast_table),
        sound: sound(r, sound_table),
    }
}

fn toast(r: &mut Reader<'_>, t: &Table) -> ToastConfig {
    const P: &str = "ui.toast";
    r.check_keys(t, P, &["delivery", "delay_seconds", "herdr", "clipboard"]);
    let empty = Table::new();
    let herdr = r.table(t, P, "herdr").unwrap_or(&empty);
    r.check_keys(herdr, "ui.toast.herdr", &["position"]);
    let clipboard = r.table(t, P, "clipboard").unwrap_or(&empty);
    r.check_keys(clipboard, "ui.toast.clipboard", &["enabled", "position"]);
    let mut clipboard_positions = TOAST_POSITIONS.to_vec();
    clipboard_positions.swap(0, 1);
    ToastConfig {
        delivery: r.choice(t, P, "delivery", &["off", "herdr", "terminal", "system"]),
        delay_seconds: r.u16(t, P, "delay_seconds", 1, (0, 3600)),
        herdr_position: r.choice(herdr, "ui.toast.herdr", "position", TOAST_POSITIONS),
        clipboard_enabled: r.bool(clipboard, "ui.toast.clipboard", "enabled", true),
        clipboard_position: r.choice(clipboard, "ui.toast.clipboard", "position", &clipboard_positions),
    }
}

fn sound(r: &mut Reader<'_>, t: &Table) -> SoundConfig {
    const P: &str = "ui.sound";
    r.check_keys(t, P, &["enabled", "path", "done_path", "request_path", "agents"]);
    let mut agents = BTreeMap::from([("droid".to_string(), "off")]);
    if let Some(table) = r.table(t, P, "agents") {
        for agent in table.keys() {
            agents
                .insert(agent.clone(), r.choice(table, "ui.sound.agents", agent, &["default", "on", "off"]));
        }
    }
    SoundConfig {
        enabled: r.bool(t, P, "enabled", true),
        path: r.opt_string(t, P, "path"),
        done_path: r.opt_string(t, P, "done_path"),
        request_path: r.opt_string(t, P, "request_path"),
        agents,
    }
}

/// Sidebar token rows: an array (≤ 16) of arrays (≤ 16) of token names or inline tables
/// `{ token = "...", fg, bold, dim }` (styling is not drawn yet; the token is).
fn token_rows(r: &mut Reader<'_>, value: Option<&Value>, key: &str) -> Option<Vec<Vec<String>>> {
    let rows = match value? {
        Value::Array(rows) if rows.len() <= MAX_ROWS => rows,
        Value::Array(_) => {
            r.report(key, format!("more than {MAX_ROWS} rows; using the default"));
            return None;
        }
        other => {
            r.report(
                key,
                format!("expected an array of rows, found {}; using the default", other.type_str()),
            );
            return None;
        }
    };
    let mut out = Vec::new();
    for row in rows {
        let Some(tokens) = row.as_array().filter(|t| t.len() <= MAX_ROWS) else {
            r.report(
                key,
                format!("each row must be an array of at most {MAX_ROWS} tokens; using the default"),
            );
            return None;
        };
        let mut names = Vec::new();
        for token in tokens {
            let name = match token {
                Value::String(s) => s.clone(),
                Value::Table(t) => t.get("token").and_then(Value::as_str).unwrap_or_default().to_string(),
                _ => String::new(),
            };
            if !(SIDEBAR_TOKENS.contains(&name.as_str()) || (name.starts_with('$') && name.len() > 1)) {
                r.report(key, format!("unknown token {name:?}; using the default rows"));
                return None;
            }
            names.push(name);
        }
        out.push(names);
    }
    Some(out)
}

impl UiConfig {
    /// The compositor's options; `collapsed` is the client's current `prefix+b` state.
    pub fn render_options(&self, collapsed: bool) -> RenderOptions {
        RenderOptions {
            status_style: if self.status_indicators == "symbols" {
                StatusStyle::Symbols
            } else {
                StatusStyle::Dots
            },
            sidebar_mode: match (collapsed, self.sidebar_collapsed_mode) {
                (false, _) => SidebarMode::Expanded,
                (true, "hidden") => SidebarMode::Hidden,
                (true, _) => SidebarMode::Compact,
            },
            sidebar_width: self.sidebar_width,
            sidebar_min_width: self.sidebar_min_width,
            sidebar_max_width: self.sidebar_max_width,
            sidebar_section_split: 0.5,
            mobile_width_threshold: self.mobile_width_threshold,
            pane_borders: self.pane_borders,
            tab_bar_bottom: self.tab_bar_position == "bottom",
            hide_tab_bar_when_single_tab: self.hide_tab_bar_when_single_tab,
            show_agent_labels_on_pane_borders: self.show_agent_labels_on_pane_borders,
            spaces_rows: self.spaces_rows.clone(),
            agents_rows: self.agents_rows.clone(),
        }
    }
}
