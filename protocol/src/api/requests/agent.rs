//! Params of `agent.*`. An agent `target` is an agent name or a pane id, so it stays a string.

use serde::{Deserialize, Serialize};

use super::present;
use crate::api::ids::PaneId;
use crate::api::records::{AgentStatus, ReadFormat, ReadSource};

/// `agent.get`, `agent.explain`, `agent.focus`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentTarget {
    pub target: String,
}

/// `agent.read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentReadParams {
    pub target: String,
    pub source: ReadSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u32>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub format: Option<ReadFormat>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub strip_ansi: Option<bool>,
}

impl AgentReadParams {
    /// Default `text`.
    pub fn format(&self) -> ReadFormat {
        self.format.unwrap_or_default()
    }

    /// Default true.
    pub fn strip_ansi(&self) -> bool {
        self.strip_ansi.unwrap_or(true)
    }
}

/// `agent.send_keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSendKeysParams {
    pub target: String,
    pub keys: Vec<String>,
}

/// `agent.rename`: a null or absent name clears it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRenameParams {
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `agent.view.set`: a projection of the agent list (the sidebar applies filter and sort).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentViewSetParams {
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<AgentViewFilter>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sort: Vec<AgentViewSort>,
}

/// `AgentViewFilter`: a boolean tree over agent fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum AgentViewFilter {
    All { filters: Vec<AgentViewFilter> },
    Any { filters: Vec<AgentViewFilter> },
    Not { filter: Box<AgentViewFilter> },
    Eq { field: AgentViewField, value: AgentViewValue },
    In { field: AgentViewField, values: Vec<AgentViewValue> },
    Exists { field: AgentViewField },
}

/// `AgentViewBuiltinField`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentViewBuiltinField {
    Status,
    WorkspaceId,
    TabId,
    PaneId,
    Agent,
    Seen,
    StateChangeSeq,
}

/// A built-in field, or a metadata token by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentViewField {
    Builtin(AgentViewBuiltinField),
    Token { token: String },
}

/// `AgentViewContext`: a value taken from the viewing client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentViewContext {
    CurrentWorkspaceId,
    CurrentTabId,
}

/// `AgentViewValue`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentViewValue {
    Text(String),
    Flag(bool),
    Number(u64),
    Context { context: AgentViewContext },
}

/// `AgentViewBuiltinSortField`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentViewBuiltinSortField {
    WorkspaceOrder,
    TabOrder,
    PaneOrder,
    Attention,
    Status,
    Agent,
    Seen,
    StateChangeSeq,
}

/// A built-in sort key, or a metadata token by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentViewSortField {
    Builtin(AgentViewBuiltinSortField),
    Token { token: String },
}

/// `AgentViewSortOrder`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentViewSortOrder {
    #[default]
    Asc,
    Desc,
}

/// `AgentViewSort`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentViewSort {
    pub field: AgentViewSortField,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub order: Option<AgentViewSortOrder>,
}

/// `agent.view.clear`: only `source`'s projection, if given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentViewClearParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// `agent.start`: a managed launch of agent `kind` in pane `pane_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentStartParams {
    pub name: String,
    pub kind: String,
    pub pane_id: PaneId,
    /// Kept as sent (an explicit `[]` stays), like the defaulted fields.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Startup timeout in milliseconds: more than 3000 and at most 300000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// `AgentPromptWaitOptions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentPromptWait {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Vec<AgentStatus>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// `agent.prompt`: send `text`, then optionally wait like `agent.wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentPromptParams {
    pub target: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<AgentPromptWait>,
}

/// `agent.wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentWaitParams {
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Vec<AgentStatus>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
