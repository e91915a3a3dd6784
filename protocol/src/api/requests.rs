//! Requests: one params type per protocol-22 method, a request enum nested by domain
//! (`Request::Pane(PaneRequest::Read(PaneReadParams))`), and THE table mapping each method name
//! to its variant (`requests!` below), from which parsing, serializing, [`Request::method`] and
//! [`METHODS`] (in the schema's order) are all generated. Adding a variant without a table row,
//! or a row without a variant, does not compile.
//!
//! Field conventions, so the wire form round-trips exactly as a client sent it:
//! - a field the schema marks nullable is `Option<T>`, absent when `None`;
//! - a field with a schema default is `Option<T>` too, kept as sent (absent stays absent, an
//!   explicit `false` stays explicit), with an accessor that applies the default; an explicit
//!   `null` there is refused, as the server always did (`present`);
//! - maps and lists a method may omit are empty when absent, and left out when empty;
//! - unknown fields are ignored (the server never rejected them).

mod agent;
mod events;
#[cfg(test)]
mod golden;
mod integration;
mod layout;
mod pane;
mod plugin;
mod server;
#[cfg(test)]
mod tests;
mod workspace;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use agent::{
    AgentPromptParams, AgentPromptWait, AgentReadParams, AgentRenameParams, AgentSendKeysParams,
    AgentStartParams, AgentTarget, AgentViewBuiltinField, AgentViewBuiltinSortField, AgentViewClearParams,
    AgentViewContext, AgentViewField, AgentViewFilter, AgentViewSetParams, AgentViewSort, AgentViewSortField,
    AgentViewSortOrder, AgentViewValue, AgentWaitParams,
};
pub use events::{
    AgentStatusSubscription, EventMatch, EventsSubscribeParams, EventsWaitParams, LifecycleSubscription,
    OutputSubscription, PaneSubscription, Subscription,
};
pub use integration::IntegrationTargetParams;
pub use layout::{LayoutApplyParams, LayoutExportParams, LayoutSetSplitRatioParams};
pub use pane::{
    CopyMotion, CopySearchDirection, GraphicsFormat, GraphicsPlacement, MoveDestination, OptionalPane,
    OutputMatch, PaneClearAgentAuthorityParams, PaneCopyMotionParams, PaneCopySearchParams,
    PaneCurrentParams, PaneDirectional, PaneGraphicsClearParams, PaneGraphicsSetParams, PaneInputSetParams,
    PaneLinkActivateParams, PaneMoveParams, PaneReadParams, PaneReleaseAgentParams, PaneRenameParams,
    PaneReportAgentParams, PaneReportAgentSessionParams, PaneReportMetadataParams, PaneResizeParams,
    PaneScrollParams, PaneSelectionReadParams, PaneSendInputParams, PaneSendKeysParams, PaneSendTextParams,
    PaneSplitParams, PaneSwapParams, PaneTarget, PaneTextPoint, PaneTextRange, PaneWaitForOutputParams,
    PaneZoomParams, ReportedState, RightClickTarget, ZoomMode,
};
pub use plugin::{
    OptionalPlugin, PluginActionInvokeParams, PluginInvocationContext, PluginLinkParams, PluginLogListParams,
    PluginPaneOpenParams, PluginPanePlacement, PluginPaneTarget, PluginSourceInfo, PluginSourceKind,
    PluginTarget, PopupSize,
};
pub use server::{
    ClientShellSurfaceSetParams, ClientWindowTitleSetParams, CommandInvokeParams, EmptyParams,
    NotificationShowParams, NotificationSound, ProductAnnouncementDismissParams, ReleaseNotesDismissParams,
    ServerLiveHandoffParams, ToastPosition,
};
pub use workspace::{
    OptionalWorkspace, TabCreateParams, TabMoveParams, TabRenameParams, TabTarget, WorkspaceCloseParams,
    WorkspaceCreateParams, WorkspaceMoveBlockParams, WorkspaceMoveParams, WorkspaceRenameParams,
    WorkspaceReportMetadataParams, WorkspaceTarget, WorktreeCreateParams, WorktreeListParams,
    WorktreeOpenParams, WorktreeRemoveParams,
};

/// For an optional field with a default: a present value must be a `T` (`null` is refused),
/// while an absent one is `None` through `#[serde(default)]`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// `ping` and `server.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerRequest {
    Ping(EmptyParams),
    Stop(EmptyParams),
    LiveHandoff(ServerLiveHandoffParams),
    ReloadConfig(EmptyParams),
    AgentManifests(EmptyParams),
    ReloadAgentManifests(EmptyParams),
}

/// What attached clients show and do: notifications, announcements, commands, window titles,
/// the client shell surface, popups.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientRequest {
    NotificationShow(NotificationShowParams),
    ProductAnnouncementDismiss(ProductAnnouncementDismissParams),
    ReleaseNotesDismiss(ReleaseNotesDismissParams),
    CommandInvoke(CommandInvokeParams),
    WindowTitleSet(ClientWindowTitleSetParams),
    WindowTitleClear(EmptyParams),
    ShellSurfaceSet(ClientShellSurfaceSetParams),
    PopupClose(EmptyParams),
}

/// `session.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionRequest {
    Snapshot(EmptyParams),
}

/// `workspace.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkspaceRequest {
    Create(WorkspaceCreateParams),
    List(EmptyParams),
    Get(WorkspaceTarget),
    Focus(WorkspaceTarget),
    Rename(WorkspaceRenameParams),
    Move(WorkspaceMoveParams),
    MoveBlock(WorkspaceMoveBlockParams),
    ReportMetadata(WorkspaceReportMetadataParams),
    Close(WorkspaceCloseParams),
}

/// `worktree.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum WorktreeRequest {
    List(WorktreeListParams),
    Create(WorktreeCreateParams),
    Open(WorktreeOpenParams),
    Remove(WorktreeRemoveParams),
}

/// `tab.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum TabRequest {
    Create(TabCreateParams),
    List(OptionalWorkspace),
    Get(TabTarget),
    Focus(TabTarget),
    Rename(TabRenameParams),
    Move(TabMoveParams),
    Close(TabTarget),
}

/// `agent.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentRequest {
    List(EmptyParams),
    Get(AgentTarget),
    Read(AgentReadParams),
    Explain(AgentTarget),
    SendKeys(AgentSendKeysParams),
    Rename(AgentRenameParams),
    ViewSet(AgentViewSetParams),
    ViewClear(AgentViewClearParams),
    Focus(AgentTarget),
    Start(AgentStartParams),
    Prompt(AgentPromptParams),
    Wait(AgentWaitParams),
}

/// `pane.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneRequest {
    Split(PaneSplitParams),
    Swap(PaneSwapParams),
    Move(PaneMoveParams),
    Zoom(PaneZoomParams),
    Layout(OptionalPane),
    ProcessInfo(OptionalPane),
    Neighbor(PaneDirectional),
    Edges(OptionalPane),
    FocusDirection(PaneDirectional),
    Resize(PaneResizeParams),
    Scroll(PaneScrollParams),
    EditScrollback(PaneTarget),
    SelectionRead(PaneSelectionReadParams),
    CopyMotion(PaneCopyMotionParams),
    CopySearch(PaneCopySearchParams),
    List(OptionalWorkspace),
    Current(PaneCurrentParams),
    Get(PaneTarget),
    Focus(PaneTarget),
    InputSet(PaneInputSetParams),
    LinkActivate(PaneLinkActivateParams),
    Rename(PaneRenameParams),
    SendText(PaneSendTextParams),
    SendKeys(PaneSendKeysParams),
    SendInput(PaneSendInputParams),
    Read(PaneReadParams),
    GraphicsSet(PaneGraphicsSetParams),
    GraphicsClear(PaneGraphicsClearParams),
    GraphicsInfo(PaneTarget),
    ReportAgent(PaneReportAgentParams),
    ReportAgentSession(PaneReportAgentSessionParams),
    ReportMetadata(PaneReportMetadataParams),
    ClearAgentAuthority(PaneClearAgentAuthorityParams),
    ReleaseAgent(PaneReleaseAgentParams),
    Close(PaneTarget),
    WaitForOutput(PaneWaitForOutputParams),
}

/// `layout.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum LayoutRequest {
    Export(LayoutExportParams),
    Apply(LayoutApplyParams),
    SetSplitRatio(LayoutSetSplitRatioParams),
}

/// `events.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum EventsRequest {
    Subscribe(EventsSubscribeParams),
    Wait(EventsWaitParams),
}

/// `integration.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum IntegrationRequest {
    List(EmptyParams),
    Install(IntegrationTargetParams),
    Uninstall(IntegrationTargetParams),
}

/// `plugin.*`.
#[derive(Debug, Clone, PartialEq)]
pub enum PluginRequest {
    Link(PluginLinkParams),
    List(OptionalPlugin),
    Unlink(PluginTarget),
    Enable(PluginTarget),
    Disable(PluginTarget),
    ActionList(OptionalPlugin),
    /// Boxed: the invocation context is by far the largest params type.
    ActionInvoke(Box<PluginActionInvokeParams>),
    LogList(PluginLogListParams),
    PaneOpen(PluginPaneOpenParams),
    PaneFocus(PluginPaneTarget),
    PaneClose(PluginPaneTarget),
}

/// One request of protocol 22, by domain.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Server(ServerRequest),
    Client(ClientRequest),
    Session(SessionRequest),
    Workspace(WorkspaceRequest),
    Worktree(WorktreeRequest),
    Tab(TabRequest),
    Agent(AgentRequest),
    Pane(PaneRequest),
    Layout(LayoutRequest),
    Events(EventsRequest),
    Integration(IntegrationRequest),
    Plugin(PluginRequest),
}

/// Why a request line or its params did not parse. Each is answered with id `""` and
/// `invalid_request`, `"invalid request: <this message>"`.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Not JSON, or `id`/`method`/`params` missing or mistyped.
    #[error("{0}")]
    Envelope(serde_json::Error),
    /// Worded like serde's message for an unknown enum variant, listing every method.
    #[error("unknown variant `{0}`, expected one of {list}", list = method_list())]
    UnknownMethod(String),
    #[error("invalid type: {0}, expected params object")]
    ParamsNotObject(&'static str),
    /// The params do not fit the method's params type.
    #[error("{0}")]
    Params(serde_json::Error),
    /// `server.live_handoff`'s params do not fit.
    #[error("invalid server.live_handoff params: {0}")]
    HandoffParams(serde_json::Error),
}

fn method_list() -> String {
    METHODS.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}

/// The table: method name → variant, in the schema's order. Everything that names a method is
/// generated from it.
macro_rules! requests {
    ($($method:literal => $domain:ident :: $variant:ident,)*) => {
        /// Every method name of protocol 22, in the schema's order.
        pub const METHODS: &[&str] = &[$($method,)*];

        impl Request {
            /// The method name on the wire.
            pub fn method(&self) -> &'static str {
                paste_domains! { self; $($method => $domain :: $variant,)* }
            }

            /// Builds the request for `method` from its params (already known to be an object).
            fn from_params(method: &str, params: &Value) -> Result<Request, RequestError> {
                let parsed = match method {
                    $($method => Deserialize::deserialize(params).map(|p| domain_request!($domain :: $variant (p))),)*
                    other => return Err(RequestError::UnknownMethod(other.to_owned())),
                };
                parsed.map_err(|e| match method {
                    // Worded as the server answered before the typed API.
                    "server.live_handoff" => RequestError::HandoffParams(e),
                    _ => RequestError::Params(e),
                })
            }

            /// The params as JSON (optional fields left out rather than null).
            pub fn params_value(&self) -> Result<Value, serde_json::Error> {
                params_value! { self; $($domain :: $variant,)* }
            }
        }
    };
}

/// `Request::<Domain>(<Domain>Request::<Variant>(p))` from the table's `Domain::Variant`.
macro_rules! domain_request {
    (Server :: $v:ident ($p:expr)) => {
        Request::Server(ServerRequest::$v($p))
    };
    (Client :: $v:ident ($p:expr)) => {
        Request::Client(ClientRequest::$v($p))
    };
    (Session :: $v:ident ($p:expr)) => {
        Request::Session(SessionRequest::$v($p))
    };
    (Workspace :: $v:ident ($p:expr)) => {
        Request::Workspace(WorkspaceRequest::$v($p))
    };
    (Worktree :: $v:ident ($p:expr)) => {
        Request::Worktree(WorktreeRequest::$v($p))
    };
    (Tab :: $v:ident ($p:expr)) => {
        Request::Tab(TabRequest::$v($p))
    };
    (Agent :: $v:ident ($p:expr)) => {
        Request::Agent(AgentRequest::$v($p))
    };
    (Pane :: $v:ident ($p:expr)) => {
        Request::Pane(PaneRequest::$v($p))
    };
    (Layout :: $v:ident ($p:expr)) => {
        Request::Layout(LayoutRequest::$v($p))
    };
    (Events :: $v:ident ($p:expr)) => {
        Request::Events(EventsRequest::$v($p))
    };
    (Integration :: $v:ident ($p:expr)) => {
        Request::Integration(IntegrationRequest::$v($p))
    };
    (Plugin :: $v:ident ($p:expr)) => {
        Request::Plugin(PluginRequest::$v($p))
    };
}

/// The same, as a pattern binding `$p`.
macro_rules! domain_pattern {
    (Server :: $v:ident ($p:pat)) => {
        Request::Server(ServerRequest::$v($p))
    };
    (Client :: $v:ident ($p:pat)) => {
        Request::Client(ClientRequest::$v($p))
    };
    (Session :: $v:ident ($p:pat)) => {
        Request::Session(SessionRequest::$v($p))
    };
    (Workspace :: $v:ident ($p:pat)) => {
        Request::Workspace(WorkspaceRequest::$v($p))
    };
    (Worktree :: $v:ident ($p:pat)) => {
        Request::Worktree(WorktreeRequest::$v($p))
    };
    (Tab :: $v:ident ($p:pat)) => {
        Request::Tab(TabRequest::$v($p))
    };
    (Agent :: $v:ident ($p:pat)) => {
        Request::Agent(AgentRequest::$v($p))
    };
    (Pane :: $v:ident ($p:pat)) => {
        Request::Pane(PaneRequest::$v($p))
    };
    (Layout :: $v:ident ($p:pat)) => {
        Request::Layout(LayoutRequest::$v($p))
    };
    (Events :: $v:ident ($p:pat)) => {
        Request::Events(EventsRequest::$v($p))
    };
    (Integration :: $v:ident ($p:pat)) => {
        Request::Integration(IntegrationRequest::$v($p))
    };
    (Plugin :: $v:ident ($p:pat)) => {
        Request::Plugin(PluginRequest::$v($p))
    };
}

macro_rules! paste_domains {
    ($self:ident; $($method:literal => $domain:ident :: $variant:ident,)*) => {
        match $self {
            $(domain_pattern!($domain :: $variant (_)) => $method,)*
        }
    };
}

macro_rules! params_value {
    ($self:ident; $($domain:ident :: $variant:ident,)*) => {
        match $self {
            $(domain_pattern!($domain :: $variant (p)) => serde_json::to_value(p),)*
        }
    };
}

requests! {
    "ping" => Server::Ping,
    "server.stop" => Server::Stop,
    "server.live_handoff" => Server::LiveHandoff,
    "server.reload_config" => Server::ReloadConfig,
    "server.agent_manifests" => Server::AgentManifests,
    "server.reload_agent_manifests" => Server::ReloadAgentManifests,
    "notification.show" => Client::NotificationShow,
    "product_announcement.dismiss" => Client::ProductAnnouncementDismiss,
    "release_notes.dismiss" => Client::ReleaseNotesDismiss,
    "command.invoke" => Client::CommandInvoke,
    "client.window_title.set" => Client::WindowTitleSet,
    "client.window_title.clear" => Client::WindowTitleClear,
    "client_shell.surface.set" => Client::ShellSurfaceSet,
    "session.snapshot" => Session::Snapshot,
    "workspace.create" => Workspace::Create,
    "workspace.list" => Workspace::List,
    "workspace.get" => Workspace::Get,
    "workspace.focus" => Workspace::Focus,
    "workspace.rename" => Workspace::Rename,
    "workspace.move" => Workspace::Move,
    "workspace.move_block" => Workspace::MoveBlock,
    "workspace.report_metadata" => Workspace::ReportMetadata,
    "workspace.close" => Workspace::Close,
    "worktree.list" => Worktree::List,
    "worktree.create" => Worktree::Create,
    "worktree.open" => Worktree::Open,
    "worktree.remove" => Worktree::Remove,
    "tab.create" => Tab::Create,
    "tab.list" => Tab::List,
    "tab.get" => Tab::Get,
    "tab.focus" => Tab::Focus,
    "tab.rename" => Tab::Rename,
    "tab.move" => Tab::Move,
    "tab.close" => Tab::Close,
    "agent.list" => Agent::List,
    "agent.get" => Agent::Get,
    "agent.read" => Agent::Read,
    "agent.explain" => Agent::Explain,
    "agent.send_keys" => Agent::SendKeys,
    "agent.rename" => Agent::Rename,
    "agent.view.set" => Agent::ViewSet,
    "agent.view.clear" => Agent::ViewClear,
    "agent.focus" => Agent::Focus,
    "agent.start" => Agent::Start,
    "agent.prompt" => Agent::Prompt,
    "agent.wait" => Agent::Wait,
    "pane.split" => Pane::Split,
    "pane.swap" => Pane::Swap,
    "pane.move" => Pane::Move,
    "pane.zoom" => Pane::Zoom,
    "pane.layout" => Pane::Layout,
    "pane.process_info" => Pane::ProcessInfo,
    "layout.export" => Layout::Export,
    "layout.apply" => Layout::Apply,
    "layout.set_split_ratio" => Layout::SetSplitRatio,
    "pane.neighbor" => Pane::Neighbor,
    "pane.edges" => Pane::Edges,
    "pane.focus_direction" => Pane::FocusDirection,
    "pane.resize" => Pane::Resize,
    "pane.scroll" => Pane::Scroll,
    "pane.edit_scrollback" => Pane::EditScrollback,
    "pane.selection.read" => Pane::SelectionRead,
    "pane.copy_motion" => Pane::CopyMotion,
    "pane.copy_search" => Pane::CopySearch,
    "pane.list" => Pane::List,
    "pane.current" => Pane::Current,
    "pane.get" => Pane::Get,
    "pane.focus" => Pane::Focus,
    "pane.input.set" => Pane::InputSet,
    "pane.link.activate" => Pane::LinkActivate,
    "pane.rename" => Pane::Rename,
    "pane.send_text" => Pane::SendText,
    "pane.send_keys" => Pane::SendKeys,
    "pane.send_input" => Pane::SendInput,
    "pane.read" => Pane::Read,
    "pane.graphics.set" => Pane::GraphicsSet,
    "pane.graphics.clear" => Pane::GraphicsClear,
    "pane.graphics.info" => Pane::GraphicsInfo,
    "pane.report_agent" => Pane::ReportAgent,
    "pane.report_agent_session" => Pane::ReportAgentSession,
    "pane.report_metadata" => Pane::ReportMetadata,
    "pane.clear_agent_authority" => Pane::ClearAgentAuthority,
    "pane.release_agent" => Pane::ReleaseAgent,
    "pane.close" => Pane::Close,
    "popup.close" => Client::PopupClose,
    "events.subscribe" => Events::Subscribe,
    "events.wait" => Events::Wait,
    "pane.wait_for_output" => Pane::WaitForOutput,
    "integration.list" => Integration::List,
    "integration.install" => Integration::Install,
    "integration.uninstall" => Integration::Uninstall,
    "plugin.link" => Plugin::Link,
    "plugin.list" => Plugin::List,
    "plugin.unlink" => Plugin::Unlink,
    "plugin.enable" => Plugin::Enable,
    "plugin.disable" => Plugin::Disable,
    "plugin.action.list" => Plugin::ActionList,
    "plugin.action.invoke" => Plugin::ActionInvoke,
    "plugin.log.list" => Plugin::LogList,
    "plugin.pane.open" => Plugin::PaneOpen,
    "plugin.pane.focus" => Plugin::PaneFocus,
    "plugin.pane.close" => Plugin::PaneClose,
}

impl Request {
    /// The request for `method` with `params`: the method must be one of [`METHODS`] and the
    /// params an object that fits its params type.
    pub fn parse(method: &str, params: &Value) -> Result<Request, RequestError> {
        if !METHODS.contains(&method) {
            return Err(RequestError::UnknownMethod(method.to_owned()));
        }
        if !params.is_object() {
            return Err(RequestError::ParamsNotObject(kind_of(params)));
        }
        Request::from_params(method, params)
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "map",
    }
}

/// A request line `{"id", "method", "params"}`: parsed once, into the typed request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestEnvelope {
    pub id: String,
    pub request: Request,
}

#[derive(Deserialize)]
struct RawEnvelope {
    id: String,
    method: String,
    params: Value,
}

#[derive(Serialize)]
struct WireEnvelope<'a> {
    id: &'a str,
    method: &'static str,
    params: Value,
}

impl RequestEnvelope {
    pub fn new(id: impl Into<String>, request: Request) -> Self {
        Self { id: id.into(), request }
    }

    /// Parses a request line. Every field is required; an unknown method or params that do not
    /// fit are errors here, before any handler runs.
    pub fn parse_line(line: &str) -> Result<RequestEnvelope, RequestError> {
        let raw: RawEnvelope = serde_json::from_str(line).map_err(RequestError::Envelope)?;
        let request = Request::parse(&raw.method, &raw.params)?;
        Ok(RequestEnvelope { id: raw.id, request })
    }

    /// The envelope as JSON: `id`, `method`, `params` (always present, possibly `{}`).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        let wire = WireEnvelope {
            id: &self.id,
            method: self.request.method(),
            params: self.request.params_value()?,
        };
        serde_json::to_value(wire)
    }
}
