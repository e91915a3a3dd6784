//! Lifecycle events (reference §10). On a subscription stream each event is one line
//! `{"event":"<kind>","data":{"type":"<kind>", ...}}`; `events.subscribe` names them with dotted
//! types (`pane.created`). Events carry public ids only.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::records::{AgentStatus, PaneInfo, PaneLayoutSnapshot, TabInfo, WorkspaceInfo, WorktreeInfo};

fn is_false(b: &bool) -> bool {
    !*b
}

/// Record payloads are boxed: events sit in the hub's ring and are cloned per subscriber.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    WorkspaceCreated {
        workspace: Box<WorkspaceInfo>,
    },
    WorkspaceUpdated {
        workspace: Box<WorkspaceInfo>,
    },
    /// A workspace's tokens changed (`workspace.report_metadata`, or a token's ttl ran out).
    WorkspaceMetadataUpdated {
        workspace: Box<WorkspaceInfo>,
    },
    WorkspaceClosed {
        workspace_id: String,
        /// The workspace as it was just before closing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace: Option<Box<WorkspaceInfo>>,
    },
    WorkspaceRenamed {
        workspace_id: String,
        label: String,
    },
    WorkspaceMoved {
        workspace_id: String,
        insert_index: usize,
        workspaces: Vec<WorkspaceInfo>,
    },
    WorkspaceReordered {
        workspace_ids: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before_workspace_id: Option<String>,
        workspaces: Vec<WorkspaceInfo>,
    },
    WorkspaceFocused {
        workspace_id: String,
    },
    WorktreeCreated {
        workspace: Box<WorkspaceInfo>,
        worktree: Box<WorktreeInfo>,
    },
    WorktreeOpened {
        workspace: Box<WorkspaceInfo>,
        worktree: Box<WorktreeInfo>,
        already_open: bool,
    },
    WorktreeRemoved {
        workspace_id: String,
        /// The workspace as it was just before closing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace: Option<Box<WorkspaceInfo>>,
        worktree: Box<WorktreeInfo>,
        forced: bool,
    },
    TabCreated {
        tab: Box<TabInfo>,
    },
    TabClosed {
        tab_id: String,
        workspace_id: String,
    },
    TabRenamed {
        tab_id: String,
        workspace_id: String,
        label: String,
    },
    TabMoved {
        tab_id: String,
        workspace_id: String,
        insert_index: usize,
        tabs: Vec<TabInfo>,
    },
    TabFocused {
        tab_id: String,
        workspace_id: String,
    },
    PaneCreated {
        pane: Box<PaneInfo>,
    },
    PaneClosed {
        pane_id: String,
        workspace_id: String,
    },
    PaneUpdated {
        pane: Box<PaneInfo>,
    },
    PaneFocused {
        pane_id: String,
        workspace_id: String,
    },
    PaneMoved {
        previous_pane_id: String,
        previous_workspace_id: String,
        previous_tab_id: String,
        pane: Box<PaneInfo>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        created_workspace: Option<Box<WorkspaceInfo>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        created_tab: Option<Box<TabInfo>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closed_workspace_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closed_tab_id: Option<String>,
    },
    PaneExited {
        pane_id: String,
        workspace_id: String,
    },
    PaneAgentDetected {
        pane_id: String,
        workspace_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "is_false")]
        released: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        final_status: Option<AgentStatus>,
    },
    PaneAgentStatusChanged {
        pane_id: String,
        workspace_id: String,
        agent_status: AgentStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display_agent: Option<String>,
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        state_labels: std::collections::BTreeMap<String, String>,
    },
    LayoutUpdated {
        layout: Box<PaneLayoutSnapshot>,
    },
}

impl Event {
    /// `pane.agent_status_changed` for a pane as its record says now (status, agent and the
    /// reported presentation).
    pub fn agent_status_of(info: &PaneInfo) -> Event {
        Event::PaneAgentStatusChanged {
            pane_id: info.pane_id.clone(),
            workspace_id: info.workspace_id.clone(),
            agent_status: info.agent_status,
            agent: info.agent.clone(),
            title: info.title.clone(),
            display_agent: info.display_agent.clone(),
            state_labels: info.state_labels.clone(),
        }
    }

    /// The underscored kind: the envelope's `event` and the data's `type` (`pane_created`).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::WorkspaceCreated { .. } => "workspace_created",
            Event::WorkspaceUpdated { .. } => "workspace_updated",
            Event::WorkspaceMetadataUpdated { .. } => "workspace_metadata_updated",
            Event::WorkspaceClosed { .. } => "workspace_closed",
            Event::WorkspaceRenamed { .. } => "workspace_renamed",
            Event::WorkspaceMoved { .. } => "workspace_moved",
            Event::WorkspaceReordered { .. } => "workspace_reordered",
            Event::WorkspaceFocused { .. } => "workspace_focused",
            Event::WorktreeCreated { .. } => "worktree_created",
            Event::WorktreeOpened { .. } => "worktree_opened",
            Event::WorktreeRemoved { .. } => "worktree_removed",
            Event::TabCreated { .. } => "tab_created",
            Event::TabClosed { .. } => "tab_closed",
            Event::TabRenamed { .. } => "tab_renamed",
            Event::TabMoved { .. } => "tab_moved",
            Event::TabFocused { .. } => "tab_focused",
            Event::PaneCreated { .. } => "pane_created",
            Event::PaneClosed { .. } => "pane_closed",
            Event::PaneUpdated { .. } => "pane_updated",
            Event::PaneFocused { .. } => "pane_focused",
            Event::PaneMoved { .. } => "pane_moved",
            Event::PaneExited { .. } => "pane_exited",
            Event::PaneAgentDetected { .. } => "pane_agent_detected",
            Event::PaneAgentStatusChanged { .. } => "pane_agent_status_changed",
            Event::LayoutUpdated { .. } => "layout_updated",
        }
    }

    /// The dotted subscription type that selects this event in `events.subscribe`
    /// (`pane.created`). `pane.agent_status_changed` is the parameterised subscription.
    pub fn subscription_type(&self) -> &'static str {
        match self {
            Event::WorkspaceCreated { .. } => "workspace.created",
            Event::WorkspaceUpdated { .. } => "workspace.updated",
            Event::WorkspaceMetadataUpdated { .. } => "workspace.metadata_updated",
            Event::WorkspaceClosed { .. } => "workspace.closed",
            Event::WorkspaceRenamed { .. } => "workspace.renamed",
            Event::WorkspaceMoved { .. } => "workspace.moved",
            Event::WorkspaceReordered { .. } => "workspace.reordered",
            Event::WorkspaceFocused { .. } => "workspace.focused",
            Event::WorktreeCreated { .. } => "worktree.created",
            Event::WorktreeOpened { .. } => "worktree.opened",
            Event::WorktreeRemoved { .. } => "worktree.removed",
            Event::TabCreated { .. } => "tab.created",
            Event::TabClosed { .. } => "tab.closed",
            Event::TabRenamed { .. } => "tab.renamed",
            Event::TabMoved { .. } => "tab.moved",
            Event::TabFocused { .. } => "tab.focused",
            Event::PaneCreated { .. } => "pane.created",
            Event::PaneClosed { .. } => "pane.closed",
            Event::PaneUpdated { .. } => "pane.updated",
            Event::PaneFocused { .. } => "pane.focused",
            Event::PaneMoved { .. } => "pane.moved",
            Event::PaneExited { .. } => "pane.exited",
            Event::PaneAgentDetected { .. } => "pane.agent_detected",
            Event::PaneAgentStatusChanged { .. } => "pane.agent_status_changed",
            Event::LayoutUpdated { .. } => "layout.updated",
        }
    }

    /// The pane this event is about, if any (the new id for `pane_moved`).
    pub fn pane_id(&self) -> Option<&str> {
        match self {
            Event::PaneCreated { pane } | Event::PaneUpdated { pane } | Event::PaneMoved { pane, .. } => {
                Some(&pane.pane_id)
            }
            Event::PaneClosed { pane_id, .. }
            | Event::PaneFocused { pane_id, .. }
            | Event::PaneExited { pane_id, .. }
            | Event::PaneAgentDetected { pane_id, .. }
            | Event::PaneAgentStatusChanged { pane_id, .. } => Some(pane_id),
            _ => None,
        }
    }

    /// The subscription line: `{"event":"<kind>","data":{"type":"<kind>", ...}}`.
    pub fn to_wire(&self) -> Value {
        let data = self.data();
        let mut envelope = Map::new();
        envelope.insert("event".into(), Value::String(self.kind().into()));
        envelope.insert("data".into(), data);
        Value::Object(envelope)
    }

    /// The line of the parameterised `pane.agent_status_changed` subscription: dotted `event`,
    /// `data` without `type`. `None` for every other kind.
    pub fn to_subscription_wire(&self) -> Option<Value> {
        if !matches!(self, Event::PaneAgentStatusChanged { .. }) {
            return None;
        }
        let mut data = self.data();
        if let Value::Object(map) = &mut data {
            map.shift_remove("type");
        }
        let mut envelope = Map::new();
        envelope.insert("event".into(), Value::String(self.subscription_type().into()));
        envelope.insert("data".into(), data);
        Some(Value::Object(envelope))
    }

    fn data(&self) -> Value {
        // Serializing plain data (strings, numbers, maps with string keys) cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
