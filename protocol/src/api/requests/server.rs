//! Params of `ping`, `server.*` and the methods about what attached clients show
//! (`notification.show`, announcements, `command.invoke`, window titles, `popup.close`).

use serde::{Deserialize, Serialize};

use crate::api::ids::{PaneId, TabId, WorkspaceId};
use crate::api::requests::pane::PaneSelectionReadParams;

/// `{}`: methods without params (`ping`, `server.stop`, `workspace.list`, ...). Any fields a
/// client sends are ignored, as before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyParams {}

/// `server.live_handoff`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerLiveHandoffParams {
    /// The binary to hand over to; the running one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_exe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_protocol: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<String>,
}

/// Where a toast shows (`ToastHerdrPosition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToastPosition {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

impl ToastPosition {
    pub fn name(self) -> &'static str {
        match self {
            ToastPosition::TopLeft => "top-left",
            ToastPosition::TopRight => "top-right",
            ToastPosition::BottomLeft => "bottom-left",
            ToastPosition::BottomRight => "bottom-right",
        }
    }
}

/// `NotificationShowSound`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotificationSound {
    #[default]
    None,
    Done,
    Request,
}

/// `notification.show`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationShowParams {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<ToastPosition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sound: Option<NotificationSound>,
}

/// `product_announcement.dismiss`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProductAnnouncementDismissParams {
    pub version: String,
    pub id: String,
}

/// `release_notes.dismiss`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseNotesDismissParams {
    pub version: String,
}

/// `command.invoke`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandInvokeParams {
    /// Opaque endpoint-issued command identifier from the client-shell projection.
    pub command_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<WorkspaceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<PaneSelectionReadParams>,
}

/// `client.window_title.set`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientWindowTitleSetParams {
    pub title: String,
}

/// `client_shell.surface.set`: whether the requesting client shell receives and controls pane
/// presentation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientShellSurfaceSetParams {
    pub active: bool,
}
