//! Params of `workspace.*`, `worktree.*` and `tab.*`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::present;
use crate::api::ids::{TabId, WorkspaceId};

/// `workspace.create`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceCreateParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Default false (see [`Self::focus`]); kept as sent so the wire form round-trips.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Workspace whose focused pane supplies the `follow` cwd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_workspace_id: Option<WorkspaceId>,
}

impl WorkspaceCreateParams {
    pub fn focus(&self) -> bool {
        self.focus.unwrap_or(false)
    }
}

/// `workspace.get`, `workspace.focus`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceTarget {
    pub workspace_id: WorkspaceId,
}

/// `workspace.rename`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRenameParams {
    pub workspace_id: WorkspaceId,
    pub label: String,
}

/// `workspace.move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceMoveParams {
    pub workspace_id: WorkspaceId,
    pub insert_index: usize,
}

/// `workspace.move_block`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceMoveBlockParams {
    pub workspace_ids: Vec<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_workspace_id: Option<WorkspaceId>,
}

/// `workspace.report_metadata`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceReportMetadataParams {
    pub workspace_id: WorkspaceId,
    pub source: String,
    /// Token name → value; a null value clears that token.
    pub tokens: BTreeMap<String, Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

/// `workspace.close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceCloseParams {
    pub workspace_id: WorkspaceId,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub close_group: Option<bool>,
}

impl WorkspaceCloseParams {
    pub fn close_group(&self) -> bool {
        self.close_group.unwrap_or(false)
    }
}

/// `worktree.list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeListParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub trust_repository: Option<bool>,
}

/// `worktree.create`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeCreateParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub trust_repository: Option<bool>,
}

impl WorktreeCreateParams {
    pub fn focus(&self) -> bool {
        self.focus.unwrap_or(false)
    }
}

/// `worktree.open`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeOpenParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub trust_repository: Option<bool>,
}

impl WorktreeOpenParams {
    pub fn focus(&self) -> bool {
        self.focus.unwrap_or(false)
    }
}

/// `worktree.remove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRemoveParams {
    pub workspace_id: WorkspaceId,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub trust_repository: Option<bool>,
}

impl WorktreeRemoveParams {
    pub fn force(&self) -> bool {
        self.force.unwrap_or(false)
    }
}

/// `tab.create`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabCreateParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

impl TabCreateParams {
    pub fn focus(&self) -> bool {
        self.focus.unwrap_or(false)
    }
}

/// `tab.list`, `pane.list`: everything, or one workspace's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionalWorkspace {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
}

/// `tab.get`, `tab.focus`, `tab.close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabTarget {
    pub tab_id: TabId,
}

/// `tab.rename`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabRenameParams {
    pub tab_id: TabId,
    pub label: String,
}

/// `tab.move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabMoveParams {
    pub tab_id: TabId,
    pub insert_index: usize,
}
