//! The session requests an attached client's keys, mouse, menus and dialogs make, built as
//! protocol types (the same the API parses), so the TUI and the socket cannot drift apart.

use herdr_protocol::api::requests::{
    LayoutRequest, LayoutSetSplitRatioParams, PaneDirectional, PaneRenameParams, PaneRequest,
    PaneResizeParams, PaneSplitParams, PaneSwapParams, PaneTarget, PaneZoomParams, TabCreateParams,
    TabRenameParams, TabRequest, TabTarget, WorkspaceCloseParams, WorkspaceCreateParams,
    WorkspaceRenameParams, WorkspaceRequest, WorkspaceTarget, WorktreeCreateParams, WorktreeListParams,
    WorktreeOpenParams, WorktreeRemoveParams, WorktreeRequest, ZoomMode,
};
use herdr_protocol::api::{PaneDirection, PaneId, Request, SplitDirection};

pub fn focus_workspace(workspace_id: &str) -> Request {
    Request::Workspace(WorkspaceRequest::Focus(WorkspaceTarget { workspace_id: workspace_id.into() }))
}

pub fn focus_tab(tab_id: &str) -> Request {
    Request::Tab(TabRequest::Focus(TabTarget { tab_id: tab_id.into() }))
}

pub fn focus_pane(pane_id: &str) -> Request {
    Request::Pane(PaneRequest::Focus(PaneTarget { pane_id: pane_id.into() }))
}

/// A new workspace that takes the focus.
pub fn new_workspace() -> Request {
    Request::Workspace(WorkspaceRequest::Create(WorkspaceCreateParams {
        focus: Some(true),
        ..Default::default()
    }))
}

/// A new tab in `workspace_id` that takes the focus.
pub fn new_tab(workspace_id: &str) -> Request {
    Request::Tab(TabRequest::Create(TabCreateParams {
        workspace_id: Some(workspace_id.into()),
        focus: Some(true),
        ..Default::default()
    }))
}

/// Splits `target` (the new pane takes the focus), in `cwd` when given.
pub fn split(target: &str, direction: SplitDirection, cwd: Option<String>) -> Request {
    Request::Pane(PaneRequest::Split(PaneSplitParams {
        direction,
        target_pane_id: Some(target.into()),
        workspace_id: None,
        ratio: None,
        cwd,
        focus: Some(true),
        env: Default::default(),
        right_click: None,
    }))
}

pub fn focus_direction(pane_id: &str, direction: PaneDirection) -> Request {
    Request::Pane(PaneRequest::FocusDirection(PaneDirectional { direction, pane_id: Some(pane_id.into()) }))
}

pub fn swap_direction(pane_id: &str, direction: PaneDirection) -> Request {
    Request::Pane(PaneRequest::Swap(PaneSwapParams {
        pane_id: Some(pane_id.into()),
        direction: Some(direction),
        ..Default::default()
    }))
}

/// Swaps two panes by id (a context menu's "swap with focused").
pub fn swap_panes(source: &str, target: &str) -> Request {
    Request::Pane(PaneRequest::Swap(PaneSwapParams {
        source_pane_id: Some(source.into()),
        target_pane_id: Some(target.into()),
        ..Default::default()
    }))
}

pub fn resize(pane_id: &str, direction: PaneDirection) -> Request {
    Request::Pane(PaneRequest::Resize(PaneResizeParams {
        direction,
        amount: None,
        pane_id: Some(pane_id.into()),
    }))
}

/// Toggles the zoom (`mode: None`), or sets it.
pub fn zoom(pane_id: &str, mode: Option<ZoomMode>) -> Request {
    Request::Pane(PaneRequest::Zoom(PaneZoomParams { pane_id: Some(pane_id.into()), mode }))
}

pub fn close_workspace(workspace_id: &str) -> Request {
    Request::Workspace(WorkspaceRequest::Close(WorkspaceCloseParams {
        workspace_id: workspace_id.into(),
        close_group: None,
    }))
}

pub fn close_tab(tab_id: &str) -> Request {
    Request::Tab(TabRequest::Close(TabTarget { tab_id: tab_id.into() }))
}

pub fn close_pane(pane_id: &str) -> Request {
    Request::Pane(PaneRequest::Close(PaneTarget { pane_id: pane_id.into() }))
}

pub fn rename_workspace(workspace_id: &str, label: &str) -> Request {
    Request::Workspace(WorkspaceRequest::Rename(WorkspaceRenameParams {
        workspace_id: workspace_id.into(),
        label: label.to_owned(),
    }))
}

pub fn rename_tab(tab_id: &str, label: &str) -> Request {
    Request::Tab(TabRequest::Rename(TabRenameParams { tab_id: tab_id.into(), label: label.to_owned() }))
}

/// Names a pane; `None` clears its label.
pub fn rename_pane(pane_id: &str, label: Option<&str>) -> Request {
    Request::Pane(PaneRequest::Rename(PaneRenameParams {
        pane_id: PaneId::from(pane_id),
        label: label.map(str::to_owned),
    }))
}

/// A new worktree of `workspace_id`'s repository on `branch` (checked out if it exists, else
/// made from HEAD), opened as a workspace that takes the focus.
pub fn create_worktree(workspace_id: &str, branch: &str) -> Request {
    Request::Worktree(WorktreeRequest::Create(WorktreeCreateParams {
        workspace_id: Some(workspace_id.into()),
        branch: Some(branch.to_owned()),
        focus: Some(true),
        ..Default::default()
    }))
}

/// The checkouts of `workspace_id`'s repository.
pub fn list_worktrees(workspace_id: &str) -> Request {
    Request::Worktree(WorktreeRequest::List(WorktreeListParams {
        workspace_id: Some(workspace_id.into()),
        ..Default::default()
    }))
}

/// The checkout at `path` in a workspace (the one it is open in, or a new one) that takes the
/// focus.
pub fn open_worktree(path: &str) -> Request {
    Request::Worktree(WorktreeRequest::Open(WorktreeOpenParams {
        path: Some(path.to_owned()),
        focus: Some(true),
        ..Default::default()
    }))
}

/// Removes the linked checkout `workspace_id` is open on (never its branch) and closes it.
pub fn remove_worktree(workspace_id: &str) -> Request {
    Request::Worktree(WorktreeRequest::Remove(WorktreeRemoveParams {
        workspace_id: workspace_id.into(),
        force: None,
        trust_repository: None,
    }))
}

/// Moves the split at `path` of `tab_id` (a border drag).
pub fn set_split_ratio(tab_id: &str, path: Vec<bool>, ratio: f64) -> Request {
    Request::Layout(LayoutRequest::SetSplitRatio(LayoutSetSplitRatioParams {
        tab_id: Some(tab_id.into()),
        pane_id: None,
        path,
        ratio,
    }))
}

/// A request from its wire form, for tests that state steps as the API would see them (the
/// supervisor's too, with the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
pub fn wire(method: &str, params: serde_json::Value) -> Request {
    Request::parse(method, &params).unwrap_or_else(|e| panic!("{method} {params}: {e}"))
}
