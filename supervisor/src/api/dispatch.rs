//! The method table: one line per method, routing to the module that owns it.

use herdr_protocol::api::{ApiError, ApiResult};

use super::envelope::{Failure, Request};
use super::{agents, events, hooks, integrations, panes, server_methods, ui_methods};
use crate::state::Shared;

/// Methods that may hold the connection open for a long time; they are abandoned when the
/// client hangs up.
pub fn waits(method: &str) -> bool {
    matches!(method, "pane.wait_for_output" | "events.wait" | "agent.wait" | "agent.prompt")
}

pub async fn dispatch(shared: &Shared, req: &Request) -> Result<ApiResult, Failure> {
    if shared.is_shutting_down() {
        return Err(ApiError::new("server_unavailable", "herdr server is shutting down").into());
    }
    match req.method.as_str() {
        "ping" => Ok(server_methods::ping()),
        "server.stop" => Ok(ApiResult::Ok),
        "server.live_handoff" => server_methods::live_handoff(shared, req).await,
        "server.reload_config" => Ok(ui_methods::reload(shared)),
        "notification.show" => ui_methods::notification_show(shared, req),
        "pane.read" => panes::read(shared, req).await,
        "pane.send_text" => panes::send_text(shared, req).await,
        "pane.send_keys" => panes::send_keys(shared, req).await,
        "pane.send_input" => panes::send_input(shared, req).await,
        "pane.wait_for_output" => panes::wait_for_output(shared, req).await,
        "pane.process_info" => panes::process_info(shared, req).await,
        "pane.scroll" => panes::scroll(shared, req).await,
        "events.wait" => events::wait(shared, req).await,
        "pane.report_agent" => hooks::report_agent(shared, req).await,
        "pane.report_agent_session" => hooks::report_agent_session(shared, req).await,
        "pane.release_agent" => hooks::release_agent(shared, req).await,
        "pane.clear_agent_authority" => hooks::clear_agent_authority(shared, req).await,
        "agent.list" => agents::list(shared, req).await,
        "agent.get" => agents::get(shared, req).await,
        "agent.focus" => agents::focus(shared, req).await,
        "agent.rename" => agents::rename(shared, req).await,
        "agent.read" => agents::read(shared, req).await,
        "agent.send_keys" => agents::send_keys(shared, req).await,
        "agent.explain" => agents::explain(shared, req).await,
        "agent.wait" => agents::wait(shared, req).await,
        "agent.prompt" => agents::prompt(shared, req).await,
        "agent.start" => agents::start(shared, req).await,
        "agent.view.set" => agents::view_set(shared, req).await,
        "agent.view.clear" => agents::view_clear(shared, req).await,
        "server.reload_agent_manifests" => agents::reload_manifests(shared, req).await,
        "server.agent_manifests" => agents::manifest_status(shared, req).await,
        "integration.list" => integrations::list(req),
        "integration.install" => integrations::install(req),
        "integration.uninstall" => integrations::uninstall(req),
        method @ ("pane.get" | "pane.list" | "pane.current") => {
            match shared.session_call(method, req.params.clone()).await {
                Some(outcome) => outcome.map(|result| panes::with_scroll(shared, result)),
                None => Err(ApiError::internal(format!("{method} has no handler")).into()),
            }
        }
        method => match shared.session_call(method, req.params.clone()).await {
            Some(outcome) => outcome,
            None => Err(ApiError::new("not_implemented", format!("{method} is not implemented yet")).into()),
        },
    }
}
