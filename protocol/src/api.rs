//! Public API (protocol 22): the requests, records, results, errors and events that travel over
//! `herdr.sock` as JSON. Shapes follow `schema/herdr-api-p22.schema.json` (the oracle): field names, which
//! fields are optional (omitted when absent), and field order (the reference's order, with the
//! result/event `type` tag first).
//!
//! This module is wire types only: no state, no I/O. The session model builds these records; the
//! supervisor's transport writes them.

mod error;
mod events;
mod ids;
mod integrations;
mod plugins;
mod records;
pub mod requests;
mod results;

pub use error::{ApiError, ErrorCode};
pub use events::Event;
pub use ids::{PaneId, TabId, WorkspaceId, WorkspaceRef, decimal, decode_number, encode_number};
pub use integrations::{IntegrationDetails, IntegrationInfo, IntegrationState, IntegrationTarget};
pub use plugins::{
    InstalledPluginInfo, PluginActionInfo, PluginCommandLogInfo, PluginCommandStatus, PluginPaneInfo,
};
pub use records::{
    AgentInfo, AgentManifestInfo, AgentSessionInfo, AgentSessionRefKind, AgentStatus, LayoutDescription,
    LayoutNode, PaneDirection, PaneInfo, PaneLayoutPane, PaneLayoutRect, PaneLayoutSnapshot, PaneLayoutSplit,
    PaneProcessInfo, PaneProcessInfoProcess, PaneReadResult, PaneScrollInfo, ReadFormat, ReadSource,
    SessionSnapshot, SplitDirection, TabInfo, WorkspaceInfo, WorkspaceWorktreeInfo, WorktreeInfo,
    WorktreeSourceInfo,
};
pub use requests::{METHODS, Request, RequestEnvelope, RequestError};
pub use results::{
    ApiResult, PaneEdgesResult, PaneFocusDirectionReason, PaneFocusDirectionResult, PaneMoveReason,
    PaneMoveResult, PaneNeighborResult, PaneResizeReason, PaneResizeResult, PaneSwapReason, PaneSwapResult,
    PaneZoomReason, PaneZoomResult, ServerBinary, ServerCapabilities, ServiceMode, ServiceState,
};
pub use results::{ClientWindowTitleReason, ConfigReloadStatus, NotificationShowReason};

#[cfg(test)]
mod golden_results;
#[cfg(test)]
mod tests;
