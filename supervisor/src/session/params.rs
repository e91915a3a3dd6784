//! Request params of the session methods, as the schema's `request` definitions name them.
//! Unknown fields are ignored; a wrong type or a missing required field is a parse error.

use std::collections::BTreeMap;

use herdr_protocol::api::{LayoutNode, PaneDirection, SplitDirection};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::HandleError;

pub(super) fn parse<T: DeserializeOwned>(params: Value) -> Result<T, HandleError> {
    serde_json::from_value(params).map_err(|e| HandleError::BadParams(e.to_string()))
}

/// Caller env for a new pane, in a stable order.
pub(super) fn env_pairs(env: BTreeMap<String, String>) -> Vec<(String, String)> {
    env.into_iter().collect()
}

#[derive(Debug, Deserialize)]
pub(super) struct WorkspaceCreate {
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub focus: bool,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub source_workspace_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WorkspaceTarget {
    pub workspace_id: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct WorkspaceRename {
    pub workspace_id: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct WorkspaceMove {
    pub workspace_id: String,
    pub insert_index: usize,
}

#[derive(Debug, Deserialize)]
pub(super) struct WorkspaceMoveBlock {
    pub workspace_ids: Vec<String>,
    #[serde(default)]
    pub before_workspace_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct TabCreate {
    #[serde(default)]
    pub workspace_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub focus: bool,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct OptionalWorkspace {
    #[serde(default)]
    pub workspace_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct TabTarget {
    pub tab_id: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct TabRename {
    pub tab_id: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct TabMove {
    pub tab_id: String,
    pub insert_index: usize,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneTarget {
    pub pane_id: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct OptionalPane {
    #[serde(default)]
    pub pane_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneCurrent {
    #[serde(default)]
    pub caller_pane_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneSplit {
    pub direction: SplitDirection,
    #[serde(default)]
    pub target_pane_id: Option<String>,
    #[serde(default)]
    pub workspace_id: Option<String>,
    #[serde(default)]
    pub ratio: Option<f64>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub focus: bool,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneRename {
    pub pane_id: String,
    #[serde(default)]
    pub label: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneDirectional {
    pub direction: PaneDirection,
    #[serde(default)]
    pub pane_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneResize {
    pub direction: PaneDirection,
    #[serde(default)]
    pub amount: Option<f64>,
    #[serde(default)]
    pub pane_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneSwap {
    #[serde(default)]
    pub pane_id: Option<String>,
    #[serde(default)]
    pub direction: Option<PaneDirection>,
    #[serde(default)]
    pub source_pane_id: Option<String>,
    #[serde(default)]
    pub target_pane_id: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ZoomMode {
    #[default]
    Toggle,
    On,
    Off,
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneZoom {
    #[serde(default)]
    pub pane_id: Option<String>,
    #[serde(default)]
    pub mode: ZoomMode,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum MoveDestination {
    Tab {
        tab_id: String,
        #[serde(default)]
        target_pane_id: Option<String>,
        split: SplitDirection,
        #[serde(default)]
        ratio: Option<f64>,
    },
    NewTab {
        #[serde(default)]
        workspace_id: Option<String>,
        #[serde(default)]
        label: Option<String>,
    },
    NewWorkspace {
        #[serde(default)]
        label: Option<String>,
        #[serde(default)]
        tab_label: Option<String>,
    },
}

#[derive(Debug, Deserialize)]
pub(super) struct PaneMove {
    pub pane_id: String,
    pub destination: MoveDestination,
    #[serde(default)]
    pub focus: bool,
}

#[derive(Debug, Deserialize)]
pub(super) struct LayoutExport {
    #[serde(default)]
    pub tab_id: Option<String>,
    #[serde(default)]
    pub pane_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct LayoutApply {
    #[serde(default)]
    pub workspace_id: Option<String>,
    #[serde(default)]
    pub tab_id: Option<String>,
    #[serde(default)]
    pub tab_label: Option<String>,
    #[serde(default)]
    pub focus: bool,
    pub root: LayoutNode,
}

#[derive(Debug, Deserialize)]
pub(super) struct LayoutSetSplitRatio {
    #[serde(default)]
    pub tab_id: Option<String>,
    #[serde(default)]
    pub pane_id: Option<String>,
    pub path: Vec<bool>,
    pub ratio: f64,
}
