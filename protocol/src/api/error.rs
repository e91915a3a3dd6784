//! The public `{code, message}` error body. Codes are the reference's snake_case strings; the
//! constructors below keep the messages of the codes the session model produces in one place.

use serde::{Deserialize, Serialize};

/// `{"code": "<snake_case>", "message": "<text>"}` inside an error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl ApiError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self { code: code.into(), message: message.into() }
    }

    /// A semantic problem with a request that parsed (the id is echoed, unlike parse failures).
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new("invalid_request", message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("internal_error", message)
    }

    pub fn workspace_not_found(id: &str) -> Self {
        Self::new("workspace_not_found", format!("workspace {id} not found"))
    }

    /// `tab.create` (and friends) without a workspace while none is active.
    pub fn no_active_workspace() -> Self {
        Self::new("workspace_not_found", "no active workspace")
    }

    pub fn tab_not_found(id: &str) -> Self {
        Self::new("tab_not_found", format!("tab {id} not found"))
    }

    pub fn pane_not_found(id: &str) -> Self {
        Self::new("pane_not_found", format!("pane {id} not found"))
    }

    pub fn target_pane_not_found(id: &str) -> Self {
        Self::new("target_pane_not_found", format!("target pane {id} not found"))
    }

    pub fn no_active_pane() -> Self {
        Self::new("no_active_pane", "no active pane")
    }

    pub fn invalid_ratio(ratio: f64) -> Self {
        Self::new("invalid_ratio", format!("invalid ratio {ratio}: must be greater than 0 and less than 1"))
    }

    pub fn invalid_pane_swap(message: impl Into<String>) -> Self {
        Self::new("invalid_pane_swap", message)
    }

    pub fn workspace_move_block_failed(message: impl Into<String>) -> Self {
        Self::new("workspace_move_block_failed", message)
    }

    pub fn pane_move_failed(message: impl Into<String>) -> Self {
        Self::new("pane_move_failed", message)
    }
}
