//! The `result` of a success response: an internally tagged enum (`"type"` first, then fields in
//! reference order), plus the nested results of the layout/navigation methods.

use serde::{Deserialize, Serialize};

use super::records::{
    AgentInfo, AgentManifestInfo, LayoutDescription, PaneDirection, PaneInfo, PaneLayoutSnapshot,
    PaneProcessInfo, PaneReadResult, SessionSnapshot, TabInfo, WorkspaceInfo, WorktreeInfo,
    WorktreeSourceInfo,
};

/// `pong.capabilities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    pub live_handoff: bool,
    #[serde(default)]
    pub detached_server_daemon: bool,
    #[serde(default)]
    pub endpoint_protocol_generation: Option<u32>,
    #[serde(default)]
    pub health_check: bool,
    #[serde(default)]
    pub surface_interest: bool,
}

/// `pong.binary` (ours, additive): the executable a running supervisor was started from.
/// `identity` tells two builds at the same path apart (device, inode, size and mtime of the
/// running image), so a client can see that an install replaced the file since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerBinary {
    pub path: String,
    pub identity: String,
}

/// How a running supervisor was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServiceMode {
    /// A systemd unit (`herdr.service`): restarts and reloads go through systemctl.
    Systemd,
    /// A daemon in its own session (`herdr server --detach`, or the importer of a handoff).
    Detached,
    /// `herdr server` in a terminal or under a script.
    Foreground,
}

/// `pong.service` (ours, additive): how the supervisor runs and its pid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceState {
    pub mode: ServiceMode,
    /// The systemd unit, when `mode` is `systemd` and the cgroup names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    pub pid: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneNeighborResult {
    pub pane_id: String,
    pub direction: PaneDirection,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbor_pane_id: Option<String>,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneEdgesResult {
    pub pane_id: String,
    pub left: bool,
    pub right: bool,
    pub up: bool,
    pub down: bool,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneFocusDirectionReason {
    NoNeighbor,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneFocusDirectionResult {
    pub changed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<PaneFocusDirectionReason>,
    pub source_pane_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused_pane_id: Option<String>,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneResizeReason {
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneResizeResult {
    pub changed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<PaneResizeReason>,
    pub pane_id: String,
    pub focused_pane_id: String,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneSwapReason {
    NoNeighbor,
    SamePane,
    NotFound,
    CrossTab,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSwapResult {
    pub changed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<PaneSwapReason>,
    pub source_pane_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_pane_id: Option<String>,
    pub focused_pane_id: String,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneZoomReason {
    SinglePane,
    AlreadyZoomed,
    AlreadyUnzoomed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneZoomResult {
    pub changed: bool,
    pub zoom_changed: bool,
    pub focus_changed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<PaneZoomReason>,
    pub pane_id: String,
    pub focused_pane_id: String,
    pub zoomed: bool,
    pub layout: PaneLayoutSnapshot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneMoveReason {
    SameTab,
    ZoomedTab,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneMoveResult {
    pub changed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<PaneMoveReason>,
    pub previous_pane_id: String,
    pub previous_workspace_id: String,
    pub previous_tab_id: String,
    pub pane: PaneInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_layout: Option<PaneLayoutSnapshot>,
    pub target_layout: PaneLayoutSnapshot,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_workspace: Option<WorkspaceInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_tab: Option<TabInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_workspace_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_tab_id: Option<String>,
    pub focused_pane_id: String,
}

/// `notification_show.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationShowReason {
    Shown,
    /// Notifications are off (`ui.toast.delivery = "off"`).
    Disabled,
    RateLimited,
    NoForegroundClient,
    Busy,
}

/// `client_window_title.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientWindowTitleReason {
    /// `client.window_title.set`: the override is now this title.
    Set,
    /// `client.window_title.clear`: the terminal's own title is back.
    Cleared,
    /// No terminal client is attached to show a title.
    NoForegroundClient,
}

/// `config_reload.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigReloadStatus {
    /// Read without a problem; everything took effect.
    Applied,
    /// Read, but some settings were wrong and kept their defaults (see the diagnostics).
    Partial,
    /// Not read at all (unreadable, not TOML); the previous settings stay.
    Failed,
}

/// A success response's `result`. Large payloads are boxed so the enum stays small to move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApiResult {
    Pong {
        version: String,
        protocol: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capabilities: Option<ServerCapabilities>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        binary: Option<ServerBinary>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        service: Option<ServiceState>,
    },
    Ok,
    SessionSnapshot {
        snapshot: Box<SessionSnapshot>,
    },
    WorkspaceInfo {
        workspace: Box<WorkspaceInfo>,
    },
    WorkspaceCreated {
        workspace: Box<WorkspaceInfo>,
        tab: Box<TabInfo>,
        root_pane: Box<PaneInfo>,
    },
    WorkspaceList {
        workspaces: Vec<WorkspaceInfo>,
    },
    TabInfo {
        tab: Box<TabInfo>,
    },
    TabCreated {
        tab: Box<TabInfo>,
        root_pane: Box<PaneInfo>,
    },
    TabList {
        tabs: Vec<TabInfo>,
    },
    AgentInfo {
        agent: Box<AgentInfo>,
    },
    AgentList {
        agents: Vec<AgentInfo>,
    },
    /// `agent.prompt`: the agent after the prompt was sent (and, with `wait`, settled).
    AgentPrompted {
        agent: Box<AgentInfo>,
    },
    /// `agent.start`: the pane's agent record right after typing `argv` into its shell.
    AgentStarted {
        agent: Box<AgentInfo>,
        argv: Vec<String>,
    },
    /// `agent.explain`: free-form detector evidence.
    AgentExplain {
        explain: serde_json::Value,
    },
    /// `server.agent_manifests`: the manifests in force. Remote updates do not exist yet, so
    /// `last_check_unix` / `last_result` are absent.
    AgentManifestStatus {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_check_unix: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_result: Option<String>,
        manifests: Vec<AgentManifestInfo>,
    },
    /// `server.reload_agent_manifests`: the manifests in force after the reload.
    AgentManifestReload {
        manifests: Vec<AgentManifestInfo>,
    },
    /// `agent.view.set` / `agent.view.clear`: the sidebar projection now in force.
    AgentView {
        active: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    PaneInfo {
        pane: Box<PaneInfo>,
    },
    PaneList {
        panes: Vec<PaneInfo>,
    },
    PaneCurrent {
        pane: Box<PaneInfo>,
    },
    PaneSwap {
        swap: Box<PaneSwapResult>,
    },
    PaneMove {
        move_result: Box<PaneMoveResult>,
    },
    PaneZoom {
        zoom: Box<PaneZoomResult>,
    },
    PaneLayout {
        layout: Box<PaneLayoutSnapshot>,
    },
    PaneProcessInfo {
        process_info: Box<PaneProcessInfo>,
    },
    LayoutExport {
        layout: Box<LayoutDescription>,
    },
    LayoutApply {
        layout: Box<LayoutDescription>,
    },
    LayoutSplitRatioSet {
        layout: Box<LayoutDescription>,
    },
    PaneNeighbor {
        neighbor: Box<PaneNeighborResult>,
    },
    PaneEdges {
        edges: Box<PaneEdgesResult>,
    },
    PaneFocusDirection {
        focus: Box<PaneFocusDirectionResult>,
    },
    PaneResize {
        resize: Box<PaneResizeResult>,
    },
    PaneRead {
        read: Box<PaneReadResult>,
    },
    /// The ack of `events.subscribe`. Every field is an extension (resumable events) that
    /// protocol 22 clients ignore.
    SubscriptionStarted {
        /// This supervisor run's id: sequence numbers restart with every run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epoch: Option<String>,
        /// The sequence number the stream continues after (replayed events, then live ones).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// With `after_seq`: events after it were lost (out of the ring, or another epoch).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
        /// With `truncated`: the oldest event still held, where the replay starts.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_available_seq: Option<u64>,
    },
    /// `event` is an event envelope as built by [`super::Event::to_wire`].
    WaitMatched {
        event: serde_json::Value,
    },
    /// `pane.selection.read`: the text between two client-owned points.
    PaneSelection {
        pane_id: String,
        text: String,
    },
    /// `pane.copy_motion`: where the motion put the cursor.
    PaneCopyMotion {
        pane_id: String,
        cursor: crate::api::requests::PaneTextPoint,
        content_revision: u64,
    },
    /// `pane.copy_search`: the matches and which one the cursor moved to.
    PaneCopySearch {
        pane_id: String,
        content_revision: u64,
        matches: Vec<crate::api::requests::PaneTextRange>,
        total: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        current: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        current_global: Option<u64>,
    },
    OutputMatched {
        pane_id: String,
        revision: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        matched_line: Option<String>,
        read: Box<PaneReadResult>,
    },
    /// `notification.show`: whether a toast was shown, and why (not).
    NotificationShow {
        shown: bool,
        reason: NotificationShowReason,
    },
    /// `pane.link.activate`: whether a link under the cell was opened, and which.
    PaneLinkActivated {
        handled: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// `client.window_title.set|clear`: whether the override changed, and why (not).
    ClientWindowTitle {
        changed: bool,
        reason: ClientWindowTitleReason,
    },
    /// `server.reload_config`: how much of the re-read config took effect, and what was wrong.
    ConfigReload {
        status: ConfigReloadStatus,
        diagnostics: Vec<String>,
    },
    /// `worktree.list`: the repository and every checkout `git worktree list` names.
    WorktreeList {
        source: Box<WorktreeSourceInfo>,
        worktrees: Vec<WorktreeInfo>,
    },
    /// `worktree.create`: the new checkout and the workspace opened on it.
    WorktreeCreated {
        workspace: Box<WorkspaceInfo>,
        tab: Box<TabInfo>,
        root_pane: Box<PaneInfo>,
        worktree: Box<WorktreeInfo>,
    },
    /// `worktree.open`: the workspace of an existing checkout (`already_open`: it had one).
    WorktreeOpened {
        workspace: Box<WorkspaceInfo>,
        tab: Box<TabInfo>,
        root_pane: Box<PaneInfo>,
        worktree: Box<WorktreeInfo>,
        already_open: bool,
    },
    /// `worktree.remove`: the checkout is gone (its branch is kept) and its workspace closed.
    WorktreeRemoved {
        workspace_id: String,
        path: String,
        forced: bool,
    },
    IntegrationList {
        integrations: Vec<super::IntegrationInfo>,
    },
    IntegrationInstall {
        target: super::IntegrationTarget,
        details: super::IntegrationDetails,
    },
    IntegrationUninstall {
        target: super::IntegrationTarget,
        details: super::IntegrationDetails,
    },
    /// `plugin.link`: the registered plugin.
    PluginLinked {
        plugin: Box<super::InstalledPluginInfo>,
    },
    PluginList {
        plugins: Vec<super::InstalledPluginInfo>,
    },
    /// `plugin.unlink`: `removed` is false when no such plugin was registered.
    PluginUnlinked {
        plugin_id: String,
        removed: bool,
    },
    PluginEnabled {
        plugin: Box<super::InstalledPluginInfo>,
    },
    PluginDisabled {
        plugin: Box<super::InstalledPluginInfo>,
    },
    PluginActionList {
        actions: Vec<super::PluginActionInfo>,
    },
    /// `plugin.action.invoke`: the action, the context it got, and its (running) log entry.
    PluginActionInvoked {
        action: Box<super::PluginActionInfo>,
        context: Box<crate::api::requests::PluginInvocationContext>,
        log: Box<super::PluginCommandLogInfo>,
    },
    PluginLogList {
        logs: Vec<super::PluginCommandLogInfo>,
    },
    PluginPaneOpened {
        plugin_pane: Box<super::PluginPaneInfo>,
    },
    PluginPaneFocused {
        plugin_pane: Box<super::PluginPaneInfo>,
    },
    PluginPaneClosed {
        pane_id: String,
    },
}
