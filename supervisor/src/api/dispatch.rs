//! The method table: one arm per method of protocol 22, routing the typed request to the
//! module that owns it. The match is exhaustive, so a method added to the protocol's request
//! enum does not compile until it has an arm here (every method of protocol 22 is built).

use herdr_protocol::api::requests::{
    AgentRequest, ClientRequest, EventsRequest, IntegrationRequest, LayoutRequest, PaneRequest,
    PluginRequest, ServerRequest, SessionRequest, WorkspaceRequest, WorktreeRequest,
};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, Request};

use super::envelope::Failure;
use super::{
    agents, client_methods, command_invoke, copy_methods, events, hooks, integrations, links, metadata,
    pane_facts, panes, server_methods, ui_methods, worktrees,
};
use crate::state::Shared;

/// Methods that may hold the connection open for a long time; they are abandoned when the
/// client hangs up.
pub fn waits(request: &Request) -> bool {
    matches!(
        request,
        Request::Pane(PaneRequest::WaitForOutput(_))
            | Request::Events(EventsRequest::Wait(_))
            | Request::Agent(AgentRequest::Wait(_) | AgentRequest::Prompt(_))
    )
}

pub async fn dispatch(shared: &Shared, request: Request) -> Result<ApiResult, Failure> {
    if shared.is_shutting_down() {
        return Err(ApiError::new(ErrorCode::ServerUnavailable, "herdr server is shutting down").into());
    }
    match request {
        Request::Server(request) => match request {
            ServerRequest::Ping(_) => Ok(server_methods::ping()),
            ServerRequest::Stop(_) => Ok(ApiResult::Ok),
            ServerRequest::LiveHandoff(p) => server_methods::live_handoff(shared, p).await,
            ServerRequest::ReloadConfig(_) => Ok(ui_methods::reload(shared)),
            ServerRequest::AgentManifests(_) => agents::manifest_status(shared).await,
            ServerRequest::ReloadAgentManifests(_) => agents::reload_manifests(shared).await,
        },
        Request::Client(ClientRequest::NotificationShow(p)) => ui_methods::notification_show(shared, p),
        Request::Client(ClientRequest::WindowTitleSet(p)) => ui_methods::window_title_set(shared, p),
        Request::Client(ClientRequest::WindowTitleClear(_)) => Ok(ui_methods::window_title_clear(shared)),
        Request::Client(ClientRequest::ProductAnnouncementDismiss(p)) => {
            client_methods::announcement_dismiss(p)
        }
        Request::Client(ClientRequest::ReleaseNotesDismiss(p)) => client_methods::release_notes_dismiss(p),
        Request::Client(ClientRequest::PopupClose(_)) => match crate::popups::close(shared).await {
            true => Ok(ApiResult::Ok),
            false => Err(ApiError::new(ErrorCode::PopupNotOpen, "no popup is open").into()),
        },
        Request::Pane(request) => match request {
            PaneRequest::Read(p) => panes::read(shared, p).await,
            PaneRequest::SendText(p) => panes::send_text(shared, p).await,
            PaneRequest::SendKeys(p) => panes::send_keys(shared, p).await,
            PaneRequest::SendInput(p) => panes::send_input(shared, p).await,
            PaneRequest::WaitForOutput(p) => panes::wait_for_output(shared, p).await,
            PaneRequest::ProcessInfo(p) => panes::process_info(shared, p).await,
            PaneRequest::Scroll(p) => panes::scroll(shared, p).await,
            PaneRequest::ReportAgent(p) => hooks::report_agent(shared, p).await,
            PaneRequest::ReportAgentSession(p) => hooks::report_agent_session(shared, p).await,
            PaneRequest::ReleaseAgent(p) => hooks::release_agent(shared, p).await,
            PaneRequest::ClearAgentAuthority(p) => hooks::clear_agent_authority(shared, p).await,
            PaneRequest::InputSet(p) => client_methods::input_set(shared, p),
            PaneRequest::GraphicsInfo(p) => client_methods::graphics(shared, &p.pane_id),
            PaneRequest::GraphicsSet(p) => client_methods::graphics(shared, &p.pane_id),
            PaneRequest::GraphicsClear(p) => client_methods::graphics(shared, &p.pane_id),
            // The model's records, with the live facts only the pane's worker knows.
            request @ (PaneRequest::Get(_) | PaneRequest::List(_) | PaneRequest::Current(_)) => {
                Ok(pane_facts::fill(shared, session(shared, Request::Pane(request)).await?).await)
            }
            request @ (PaneRequest::Split(_)
            | PaneRequest::Swap(_)
            | PaneRequest::Move(_)
            | PaneRequest::Zoom(_)
            | PaneRequest::Layout(_)
            | PaneRequest::Neighbor(_)
            | PaneRequest::Edges(_)
            | PaneRequest::FocusDirection(_)
            | PaneRequest::Resize(_)
            | PaneRequest::Focus(_)
            | PaneRequest::Rename(_)
            | PaneRequest::Close(_)) => session(shared, Request::Pane(request)).await,
            PaneRequest::SelectionRead(p) => copy_methods::selection_read(shared, p).await,
            PaneRequest::CopyMotion(p) => copy_methods::copy_motion(shared, p).await,
            PaneRequest::CopySearch(p) => copy_methods::copy_search(shared, p).await,
            PaneRequest::EditScrollback(p) => client_methods::edit_scrollback(shared, p).await,
            PaneRequest::LinkActivate(p) => links::activate(shared, p).await,
            PaneRequest::ReportMetadata(p) => metadata::report_pane(shared, p).await,
        },
        Request::Events(EventsRequest::Wait(p)) => events::wait(shared, p).await,
        // Streams are served by the transport before dispatch (`events::subscribe`).
        request @ Request::Events(EventsRequest::Subscribe(_)) => {
            Err(ApiError::internal(format!("{} is a stream, not a call", request.method())).into())
        }
        Request::Agent(request) => match request {
            AgentRequest::List(_) => Ok(pane_facts::fill(shared, agents::list(shared).await?).await),
            AgentRequest::Get(p) => Ok(pane_facts::fill(shared, agents::get(shared, p).await?).await),
            AgentRequest::Focus(p) => agents::focus(shared, p).await,
            AgentRequest::Rename(p) => agents::rename(shared, p).await,
            AgentRequest::Read(p) => agents::read(shared, p).await,
            AgentRequest::SendKeys(p) => agents::send_keys(shared, p).await,
            AgentRequest::Explain(p) => agents::explain(shared, p).await,
            AgentRequest::Wait(p) => agents::wait(shared, p).await,
            AgentRequest::Prompt(p) => agents::prompt(shared, p).await,
            AgentRequest::Start(p) => agents::start(shared, p).await,
            AgentRequest::ViewSet(p) => agents::view_set(shared, p).await,
            AgentRequest::ViewClear(p) => agents::view_clear(shared, p).await,
        },
        Request::Integration(request) => match request {
            IntegrationRequest::List(_) => integrations::list(),
            IntegrationRequest::Install(p) => integrations::install(p),
            IntegrationRequest::Uninstall(p) => integrations::uninstall(p),
        },
        request @ Request::Session(SessionRequest::Snapshot(_)) => {
            Ok(pane_facts::fill(shared, session(shared, request).await?).await)
        }
        request @ Request::Layout(
            LayoutRequest::Export(_) | LayoutRequest::Apply(_) | LayoutRequest::SetSplitRatio(_),
        )
        | request @ Request::Tab(_) => session(shared, request).await,
        Request::Workspace(request) => match request {
            WorkspaceRequest::ReportMetadata(p) => metadata::report_workspace(shared, p).await,
            request @ (WorkspaceRequest::Create(_)
            | WorkspaceRequest::List(_)
            | WorkspaceRequest::Get(_)
            | WorkspaceRequest::Focus(_)
            | WorkspaceRequest::Rename(_)
            | WorkspaceRequest::Move(_)
            | WorkspaceRequest::MoveBlock(_)
            | WorkspaceRequest::Close(_)) => session(shared, Request::Workspace(request)).await,
        },
        Request::Worktree(request) => match request {
            WorktreeRequest::List(p) => worktrees::list(shared, p).await,
            WorktreeRequest::Create(p) => worktrees::create(shared, p).await,
            WorktreeRequest::Open(p) => worktrees::open(shared, p).await,
            WorktreeRequest::Remove(p) => worktrees::remove(shared, p).await,
        },
        Request::Plugin(request) => match request {
            PluginRequest::Link(p) => crate::plugins::link(&crate::plugins::config_dir()?, p),
            PluginRequest::List(p) => crate::plugins::list(&crate::plugins::config_dir()?, p),
            PluginRequest::Unlink(p) => crate::plugins::unlink(&crate::plugins::config_dir()?, p),
            PluginRequest::Enable(p) => crate::plugins::set_enabled(&crate::plugins::config_dir()?, p, true),
            PluginRequest::Disable(p) => {
                crate::plugins::set_enabled(&crate::plugins::config_dir()?, p, false)
            }
            PluginRequest::ActionList(p) => crate::plugins::action_list(&crate::plugins::config_dir()?, p),
            PluginRequest::ActionInvoke(p) => crate::plugins::invoke::invoke(shared, *p),
            PluginRequest::LogList(p) => crate::plugins::invoke::log_list(shared, p),
            PluginRequest::PaneOpen(p) => crate::plugins::panes::open(shared, p).await,
            PluginRequest::PaneFocus(p) => crate::plugins::panes::focus(shared, p).await,
            PluginRequest::PaneClose(p) => crate::plugins::panes::close(shared, p).await,
        },
        Request::Client(ClientRequest::CommandInvoke(p)) => command_invoke::invoke(shared, p).await,
        Request::Client(ClientRequest::ShellSurfaceSet(_)) => command_invoke::surface_set(),
    }
}

/// A method of the session model (`crate::session`).
async fn session(shared: &Shared, request: Request) -> Result<ApiResult, Failure> {
    let method = request.method();
    match shared.session_call(request).await {
        Some(outcome) => outcome,
        None => Err(ApiError::internal(format!("{method} has no handler in the session model")).into()),
    }
}
