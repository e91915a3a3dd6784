//! Golden result files (`protocol/tests/golden/results/<type>.json`, one per [`ApiResult`]
//! type): each validates against the schema inside a success response and round-trips through
//! [`ApiResult`] unchanged.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::ApiResult;
use crate::schema_check::{SchemaKind, validate};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/results")
}

/// Every result type. Exhaustive on purpose: a new [`ApiResult`] variant does not compile here
/// until it is named, and then needs its golden file.
fn result_type(result: &ApiResult) -> &'static str {
    match result {
        ApiResult::Pong { .. } => "pong",
        ApiResult::Ok => "ok",
        ApiResult::SessionSnapshot { .. } => "session_snapshot",
        ApiResult::WorkspaceInfo { .. } => "workspace_info",
        ApiResult::WorkspaceCreated { .. } => "workspace_created",
        ApiResult::WorkspaceList { .. } => "workspace_list",
        ApiResult::TabInfo { .. } => "tab_info",
        ApiResult::TabCreated { .. } => "tab_created",
        ApiResult::TabList { .. } => "tab_list",
        ApiResult::AgentInfo { .. } => "agent_info",
        ApiResult::AgentList { .. } => "agent_list",
        ApiResult::AgentPrompted { .. } => "agent_prompted",
        ApiResult::AgentStarted { .. } => "agent_started",
        ApiResult::AgentExplain { .. } => "agent_explain",
        ApiResult::AgentManifestStatus { .. } => "agent_manifest_status",
        ApiResult::AgentManifestReload { .. } => "agent_manifest_reload",
        ApiResult::AgentView { .. } => "agent_view",
        ApiResult::PaneInfo { .. } => "pane_info",
        ApiResult::PaneList { .. } => "pane_list",
        ApiResult::PaneCurrent { .. } => "pane_current",
        ApiResult::PaneSwap { .. } => "pane_swap",
        ApiResult::PaneMove { .. } => "pane_move",
        ApiResult::PaneZoom { .. } => "pane_zoom",
        ApiResult::PaneLayout { .. } => "pane_layout",
        ApiResult::PaneProcessInfo { .. } => "pane_process_info",
        ApiResult::LayoutExport { .. } => "layout_export",
        ApiResult::LayoutApply { .. } => "layout_apply",
        ApiResult::LayoutSplitRatioSet { .. } => "layout_split_ratio_set",
        ApiResult::PaneNeighbor { .. } => "pane_neighbor",
        ApiResult::PaneEdges { .. } => "pane_edges",
        ApiResult::PaneFocusDirection { .. } => "pane_focus_direction",
        ApiResult::PaneResize { .. } => "pane_resize",
        ApiResult::PaneRead { .. } => "pane_read",
        ApiResult::SubscriptionStarted { .. } => "subscription_started",
        ApiResult::WaitMatched { .. } => "wait_matched",
        ApiResult::OutputMatched { .. } => "output_matched",
        ApiResult::NotificationShow { .. } => "notification_show",
        ApiResult::ClientWindowTitle { .. } => "client_window_title",
        ApiResult::PaneLinkActivated { .. } => "pane_link_activated",
        ApiResult::ConfigReload { .. } => "config_reload",
        ApiResult::IntegrationList { .. } => "integration_list",
        ApiResult::IntegrationInstall { .. } => "integration_install",
        ApiResult::IntegrationUninstall { .. } => "integration_uninstall",
        ApiResult::WorktreeList { .. } => "worktree_list",
        ApiResult::WorktreeCreated { .. } => "worktree_created",
        ApiResult::WorktreeOpened { .. } => "worktree_opened",
        ApiResult::WorktreeRemoved { .. } => "worktree_removed",
        ApiResult::PaneSelection { .. } => "pane_selection",
        ApiResult::PaneCopyMotion { .. } => "pane_copy_motion",
        ApiResult::PaneCopySearch { .. } => "pane_copy_search",
        ApiResult::PluginLinked { .. } => "plugin_linked",
        ApiResult::PluginList { .. } => "plugin_list",
        ApiResult::PluginUnlinked { .. } => "plugin_unlinked",
        ApiResult::PluginEnabled { .. } => "plugin_enabled",
        ApiResult::PluginDisabled { .. } => "plugin_disabled",
        ApiResult::PluginActionList { .. } => "plugin_action_list",
        ApiResult::PluginActionInvoked { .. } => "plugin_action_invoked",
        ApiResult::PluginLogList { .. } => "plugin_log_list",
        ApiResult::PluginPaneOpened { .. } => "plugin_pane_opened",
        ApiResult::PluginPaneFocused { .. } => "plugin_pane_focused",
        ApiResult::PluginPaneClosed { .. } => "plugin_pane_closed",
    }
}

/// The result types [`result_type`] names: the golden files there must be.
const TYPES: &[&str] = &[
    "pong",
    "ok",
    "session_snapshot",
    "workspace_info",
    "workspace_created",
    "workspace_list",
    "tab_info",
    "tab_created",
    "tab_list",
    "agent_info",
    "agent_list",
    "agent_prompted",
    "agent_started",
    "agent_explain",
    "agent_manifest_status",
    "agent_manifest_reload",
    "agent_view",
    "pane_info",
    "pane_list",
    "pane_current",
    "pane_swap",
    "pane_move",
    "pane_zoom",
    "pane_layout",
    "pane_process_info",
    "layout_export",
    "layout_apply",
    "layout_split_ratio_set",
    "pane_neighbor",
    "pane_edges",
    "pane_focus_direction",
    "pane_resize",
    "pane_read",
    "subscription_started",
    "wait_matched",
    "output_matched",
    "notification_show",
    "client_window_title",
    "pane_link_activated",
    "config_reload",
    "integration_list",
    "integration_install",
    "integration_uninstall",
    "worktree_list",
    "worktree_created",
    "worktree_opened",
    "worktree_removed",
    "pane_selection",
    "pane_copy_motion",
    "pane_copy_search",
    "plugin_linked",
    "plugin_list",
    "plugin_unlinked",
    "plugin_enabled",
    "plugin_disabled",
    "plugin_action_list",
    "plugin_action_invoked",
    "plugin_log_list",
    "plugin_pane_opened",
    "plugin_pane_focused",
    "plugin_pane_closed",
];

#[test]
fn every_result_type_has_a_golden_file_and_no_file_is_extra() {
    let files: BTreeSet<String> = std::fs::read_dir(golden_dir())
        .expect("the golden results folder")
        .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    let wanted: BTreeSet<String> = TYPES.iter().map(|t| format!("{t}.json")).collect();
    assert_eq!(files, wanted);
}

#[test]
fn golden_results_validate_and_round_trip() {
    let mut failures = Vec::new();
    for kind in TYPES {
        let path = golden_dir().join(format!("{kind}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else { continue }; // reported above
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                failures.push(format!("{kind}: not JSON: {e}"));
                continue;
            }
        };
        if let Err(errors) = validate(SchemaKind::SuccessResponse, &json!({"id": "golden", "result": value}))
        {
            failures.push(format!("{kind}: the schema rejects it: {errors:?}"));
        }
        let result: ApiResult = match serde_json::from_value(value.clone()) {
            Ok(result) => result,
            Err(e) => {
                failures.push(format!("{kind}: does not parse: {e}"));
                continue;
            }
        };
        if result_type(&result) != *kind {
            failures.push(format!("{kind}: parsed as {}", result_type(&result)));
        }
        match serde_json::to_value(&result) {
            Ok(back) if back == value => {}
            Ok(back) => failures.push(format!("{kind}: round trip differs:\n  file {value}\n  back {back}")),
            Err(e) => failures.push(format!("{kind}: does not serialize: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
