//! The view model the compositor draws: what a client should see, already resolved from the
//! session model and the mirrored pane grids. Plain data, so tests can build any screen.

use std::collections::{BTreeMap, HashMap};

use herdr_protocol::api::{AgentStatus, PaneLayoutSnapshot, SessionSnapshot, TabInfo};

use super::chrome::SidebarMode;
use super::status::StatusStyle;
use herdr_protocol::grid::PaneGrid;
use herdr_protocol::ipc::{CopyView, ScrollPosition};

/// A row of the sidebar's "spaces" panel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkspaceView {
    pub label: String,
    pub status: AgentStatus,
    pub focused: bool,
    /// The navigate-mode selection (`prefix+w`) is on this row; apart from `focused` until
    /// Enter switches to it.
    pub selected: bool,
    /// Indentation level: Git worktree checkouts sit one level under their parent.
    pub depth: u8,
    /// Extra tokens for configurable sidebar rows (`branch`, `git_status`, `$name` metadata).
    pub tokens: BTreeMap<String, String>,
}

/// A row of the sidebar's "agents" panel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentView {
    /// The `agent` token: the agent's name (`agent.rename`), else the reported display agent,
    /// else the detected agent.
    pub agent: String,
    pub workspace: String,
    pub tab: String,
    pub pane: String,
    pub status: AgentStatus,
    /// The `state_text` token when metadata labelled the current state (`state_labels`).
    pub state_label: Option<String>,
    pub focused: bool,
    /// The `terminal_title` token: the reported metadata title, else the terminal's title.
    pub terminal_title: Option<String>,
    /// `$name` tokens: the pane's reported metadata tokens.
    pub tokens: BTreeMap<String, String>,
}

/// A tab of the focused workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TabView {
    pub label: String,
    pub focused: bool,
    pub zoomed: bool,
    pub status: AgentStatus,
    /// A pane of this (unfocused) tab rang the bell while no client showed it.
    pub bell: bool,
}

/// A pane of the active tab: its border label and, when mirrored, its grid.
#[derive(Debug, Clone, Default)]
pub struct PaneView<'a> {
    /// The manual name (`pane.rename`).
    pub label: Option<String>,
    /// The detected agent, shown on the border when `show_agent_labels_on_pane_borders`.
    pub agent: Option<String>,
    pub status: AgentStatus,
    /// `None` while no damage has arrived yet: the pane is drawn empty.
    pub grid: Option<&'a PaneGrid>,
    /// How far the pane's view is scrolled back through its history (a scrollbar shows while
    /// the offset is above 0).
    pub scroll: ScrollPosition,
    /// Copy mode's cursor and the selection over the grid (viewport cells), when there is one.
    pub copy: Option<CopyView>,
}

/// The input mode, shown as a bar over the bottom row while not in terminal mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModeBadge {
    #[default]
    Terminal,
    Prefix,
    Navigate,
    Resize,
    Copy,
}

/// Everything one client's frame shows.
#[derive(Debug, Clone, Default)]
pub struct ViewModel<'a> {
    pub workspaces: Vec<WorkspaceView>,
    pub agents: Vec<AgentView>,
    pub tabs: Vec<TabView>,
    /// The active tab's layout (`None`: no workspace yet).
    pub layout: Option<&'a PaneLayoutSnapshot>,
    /// Keyed by public pane id.
    pub panes: HashMap<String, PaneView<'a>>,
    pub mode: ModeBadge,
}

/// Presentation settings (from `[ui]` in config.toml).
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    pub status_style: StatusStyle,
    pub sidebar_mode: SidebarMode,
    /// The expanded width, clamped to `sidebar_min_width..=sidebar_max_width`.
    pub sidebar_width: u16,
    pub sidebar_min_width: u16,
    pub sidebar_max_width: u16,
    /// Share of the sidebar height given to the spaces panel (0.0–1.0).
    pub sidebar_section_split: f32,
    /// Widths at or under this use the mobile layout.
    pub mobile_width_threshold: u16,
    pub pane_borders: bool,
    pub tab_bar_bottom: bool,
    pub hide_tab_bar_when_single_tab: bool,
    pub show_agent_labels_on_pane_borders: bool,
    /// Token rows per workspace (`ui.sidebar.spaces.rows`).
    pub spaces_rows: Vec<Vec<String>>,
    /// Token rows per agent (`ui.sidebar.agents.rows`).
    pub agents_rows: Vec<Vec<String>>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        let rows = |rows: &[&[&str]]| -> Vec<Vec<String>> {
            rows.iter().map(|row| row.iter().map(|t| t.to_string()).collect()).collect()
        };
        RenderOptions {
            status_style: StatusStyle::Dots,
            sidebar_mode: SidebarMode::Expanded,
            sidebar_width: 26,
            sidebar_min_width: 18,
            sidebar_max_width: 36,
            sidebar_section_split: 0.5,
            mobile_width_threshold: 64,
            pane_borders: true,
            tab_bar_bottom: false,
            hide_tab_bar_when_single_tab: false,
            show_agent_labels_on_pane_borders: false,
            spaces_rows: rows(&[&["state_icon", "workspace"], &["branch", "git_status"]]),
            agents_rows: rows(&[&["state_icon", "workspace", "tab"], &["agent"]]),
        }
    }
}

impl<'a> ViewModel<'a> {
    /// The view of `snapshot` (from `Session::snapshot()`): the focused workspace's tabs, the
    /// focused tab's layout, and `grids` (keyed by pane id) for its panes.
    pub fn from_snapshot(
        snapshot: &'a SessionSnapshot,
        grids: &'a HashMap<String, PaneGrid>,
        mode: ModeBadge,
    ) -> ViewModel<'a> {
        Self::from_snapshot_with(snapshot, |pane_id| grids.get(pane_id), mode)
    }

    /// [`ViewModel::from_snapshot`] with the grids looked up by public pane id through `grid`,
    /// so a runtime can lend grids it keeps under other keys without copying them.
    pub fn from_snapshot_with(
        snapshot: &'a SessionSnapshot,
        grid: impl Fn(&str) -> Option<&'a PaneGrid>,
        mode: ModeBadge,
    ) -> ViewModel<'a> {
        let workspace_label =
            |id: &str| snapshot.workspaces.iter().find(|w| w.workspace_id == id).map(|w| w.label.clone());
        let tab_label = |id: &str| snapshot.tabs.iter().find(|t| t.tab_id == id).map(|t| t.label.clone());
        let workspaces = snapshot
            .workspaces
            .iter()
            .enumerate()
            .map(|(index, w)| WorkspaceView {
                label: w.label.clone(),
                status: w.agent_status,
                focused: w.focused,
                selected: false,
                depth: u8::from(under_its_repository(snapshot, index)),
                tokens: w.tokens.clone(),
            })
            .collect();
        let agents = snapshot
            .agents
            .iter()
            .map(|a| AgentView {
                agent: [&a.name, &a.display_agent, &a.agent]
                    .into_iter()
                    .find_map(|name| name.as_deref().filter(|n| !n.is_empty()))
                    .unwrap_or_default()
                    .to_owned(),
                workspace: workspace_label(&a.workspace_id).unwrap_or_default(),
                tab: tab_label(&a.tab_id).unwrap_or_default(),
                pane: a.pane_id.clone(),
                status: a.agent_status,
                state_label: a.state_labels.get(status_key(a.agent_status)).cloned(),
                focused: a.focused,
                terminal_title: a
                    .title
                    .clone()
                    .filter(|t| !t.is_empty())
                    .or_else(|| a.terminal_title.clone()),
                tokens: a.tokens.clone(),
            })
            .collect();
        let zoomed = |tab_id: &str| snapshot.layouts.iter().any(|l| l.tab_id == tab_id && l.zoomed);
        let tabs = workspace_tabs(snapshot)
            .map(|t| TabView {
                label: t.label.clone(),
                focused: t.focused,
                zoomed: zoomed(&t.tab_id),
                status: t.agent_status,
                bell: false,
            })
            .collect();
        let layout = snapshot.layouts.iter().find(|l| Some(&l.tab_id) == snapshot.focused_tab_id.as_ref());
        let panes = snapshot
            .panes
            .iter()
            .filter(|p| layout.is_some_and(|l| l.panes.iter().any(|lp| lp.pane_id == p.pane_id)))
            .map(|p| {
                let view = PaneView {
                    label: p.label.clone(),
                    agent: p.display_agent.clone().or_else(|| p.agent.clone()),
                    status: p.agent_status,
                    grid: grid(&p.pane_id),
                    scroll: ScrollPosition::default(),
                    copy: None,
                };
                (p.pane_id.clone(), view)
            })
            .collect();
        ViewModel { workspaces, agents, tabs, layout, panes, mode }
    }

    /// Puts the bell marker on each unfocused tab of `snapshot` (the one this view was made
    /// from) that holds a pane for which `belled` (given its public id) holds.
    pub fn mark_bells(&mut self, snapshot: &SessionSnapshot, belled: impl Fn(&str) -> bool) {
        for (view, tab) in self.tabs.iter_mut().zip(workspace_tabs(snapshot)) {
            let rang = snapshot.panes.iter().any(|p| p.tab_id == tab.tab_id && belled(&p.pane_id));
            view.bell = rang && !view.focused;
        }
    }
}

/// Whether workspace `index` of `snapshot` sits indented under its repository: a linked worktree
/// checkout that follows, with only other checkouts of the same repository between, a workspace
/// on that repository's main checkout (worktree workspaces open right after their group). One
/// moved away from its group stands on its own, unindented.
fn under_its_repository(snapshot: &SessionSnapshot, index: usize) -> bool {
    let repo = |i: usize| snapshot.workspaces[i].worktree.as_ref();
    let Some(own) = repo(index).filter(|wt| wt.is_linked_worktree) else {
        return false;
    };
    (0..index)
        .rev()
        .map(repo)
        .take_while(|wt| wt.is_some_and(|wt| wt.repo_key == own.repo_key))
        .any(|wt| wt.is_some_and(|wt| !wt.is_linked_worktree))
}

/// The key `state_labels` uses for `status` (the wire name).
fn status_key(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Idle => "idle",
        AgentStatus::Working => "working",
        AgentStatus::Blocked => "blocked",
        AgentStatus::Done => "done",
        AgentStatus::Unknown => "unknown",
    }
}

/// The focused workspace's tabs, in tab-bar order.
fn workspace_tabs(snapshot: &SessionSnapshot) -> impl Iterator<Item = &TabInfo> {
    snapshot.tabs.iter().filter(|t| Some(&t.workspace_id) == snapshot.focused_workspace_id.as_ref())
}
