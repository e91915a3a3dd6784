//! Params of `layout.*`.

use serde::{Deserialize, Serialize};

use super::present;
use crate::api::ids::{PaneId, TabId, WorkspaceId};
use crate::api::records::LayoutNode;

/// `layout.export`: the tab named, else the tab of `pane_id`, else the focused tab.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutExportParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
}

/// `layout.apply`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutApplyParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_label: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    pub root: LayoutNode,
}

impl LayoutApplyParams {
    pub fn focus(&self) -> bool {
        self.focus.unwrap_or(false)
    }
}

/// `layout.set_split_ratio`: the split at `path` (false = first child) in a tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutSetSplitRatioParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
    pub path: Vec<bool>,
    pub ratio: f64,
}
