//! `command.invoke` and `client_shell.surface.set`: the two methods of protocol 22 that belong to
//! upstream's client-shell endpoints (native clients that draw herdr themselves).
//!
//! `command.invoke {command_id, workspace_id?, tab_id?, pane_id?, selection?}` runs one of the
//! config's `[[keys.command]]` entries as its key would: the ids are
//! [`herdr_ui::commands::command_id`]'s (`herdr config commands` lists them), an id the config
//! in force no longer has answers `command_not_found`. The target, when given, is focused first
//! (a pane, else a tab, else a workspace; ids that do not nest answer
//! `command_target_mismatch`), so the command runs where the caller points. A `plugin_action`
//! command given a `selection` of that pane gets the selected text in its context. → `ok`, or
//! `command_failed` with the reason.
//!
//! `client_shell.surface.set` is a lease on the client-shell projection, which only exists on
//! an endpoint's own connection; on the API socket upstream refuses it with
//! `connection_local_only`, and so does herdr (it has no client-shell endpoint).

use herdr_protocol::api::requests::CommandInvokeParams;
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode};
use herdr_ui::calls;
use herdr_ui::commands::find_command;

use super::copy_methods;
use super::envelope::Failure;
use crate::state::Shared;

pub async fn invoke(shared: &Shared, p: CommandInvokeParams) -> Result<ApiResult, Failure> {
    let config = shared.screens().config();
    let Some(command) = find_command(&config.keys.commands, &p.command_id).cloned() else {
        return Err(ApiError::new(
            ErrorCode::CommandNotFound,
            "custom command manifest is stale; reload configuration",
        )
        .into());
    };
    let selected_text = match &p.selection {
        Some(selection) if command.kind == "plugin_action" => {
            if p.pane_id.as_ref().map(|id| id.as_str()) != Some(selection.pane_id.as_str()) {
                return Err(mismatch("command selection does not belong to the requested pane").into());
            }
            match copy_methods::selection_read(shared, selection.clone()).await? {
                ApiResult::PaneSelection { text, .. } => Some(text),
                other => return Err(ApiError::internal(format!("selection read answered {other:?}")).into()),
            }
        }
        _ => None,
    };
    focus_target(shared, &p).await?;
    match crate::clients::run_custom_command(shared, &command, selected_text).await {
        Ok(()) => Ok(ApiResult::Ok),
        Err(problem) => Err(ApiError::new(ErrorCode::CommandFailed, problem.to_string()).into()),
    }
}

pub fn surface_set() -> Result<ApiResult, Failure> {
    Err(ApiError::new(
        ErrorCode::ConnectionLocalOnly,
        "client_shell.surface.set is only available through a client shell endpoint",
    )
    .into())
}

/// Focuses the most specific target `p` names, after checking that the ones it names nest.
async fn focus_target(shared: &Shared, p: &CommandInvokeParams) -> Result<(), Failure> {
    let snapshot = shared.session().snapshot();
    let request = if let Some(pane) = &p.pane_id {
        let (workspace, tab) = pane_parents(shared, pane.as_str())?;
        check_workspace(p, &workspace)?;
        if p.tab_id.as_ref().is_some_and(|t| t.as_str() != tab) {
            return Err(mismatch("command pane does not belong to the requested tab").into());
        }
        calls::focus_pane(pane.as_str())
    } else if let Some(tab) = &p.tab_id {
        let info = snapshot.tabs.iter().find(|t| t.tab_id == tab.as_str());
        let info = info.ok_or_else(|| ApiError::tab_not_found(tab.as_str()))?;
        check_workspace(p, &info.workspace_id)?;
        calls::focus_tab(tab.as_str())
    } else if let Some(workspace) = &p.workspace_id {
        calls::focus_workspace(workspace.as_str())
    } else {
        return Ok(());
    };
    match shared.session_call(request).await {
        Some(outcome) => outcome.map(drop),
        None => Err(ApiError::internal("focus is not a session method").into()),
    }
}

/// The workspace and tab ids of `pane` (any id form the session resolves).
fn pane_parents(shared: &Shared, pane: &str) -> Result<(String, String), ApiError> {
    let session = shared.session();
    let key = session.resolve_pane(pane)?;
    let (workspace, tab, _) = session.pane_ids(key).ok_or_else(|| ApiError::pane_not_found(pane))?;
    Ok((workspace, tab))
}

fn check_workspace(p: &CommandInvokeParams, actual: &str) -> Result<(), ApiError> {
    match &p.workspace_id {
        Some(workspace) if workspace.as_str() != actual => {
            Err(mismatch("command target does not belong to the requested workspace"))
        }
        _ => Ok(()),
    }
}

fn mismatch(message: &str) -> ApiError {
    ApiError::new(ErrorCode::CommandTargetMismatch, message)
}
