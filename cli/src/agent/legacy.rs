//! The herdr 0.7 form of `agent start`, which scripts written for 0.7.x still call:
//! `herdr agent start NAME [--cwd P] [--workspace ID] [--tab ID] [--split right|down]
//! [--env K=V]… [--focus|--no-focus] -- AGENT [ARG…]` — a new pane running AGENT as the agent
//! NAME. The form is chosen by the absence of `--kind`/`--pane` (0.9's form, [`super::start`]).
//!
//! Mapped onto protocol 22: the new pane comes from `pane.split` (of `--tab`'s focused pane, of
//! `--workspace`'s, else of the caller's pane or the focused one; `workspace.create` when the
//! server has no workspace yet), then the 0.9 flow starts the agent in it with `--kind` = the
//! executable's name and `--pane` = the new pane. A start that fails closes the pane it made.
//! AGENT must be a supported agent: protocol 22's `agent.start` only starts those.

use std::collections::BTreeMap;

use clap::{ArgAction, Args};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    OptionalWorkspace, PaneRequest, PaneSplitParams, PaneTarget, WorkspaceCreateParams, WorkspaceRequest,
};
use serde_json::Value;

use super::start::{self, AGENT_KINDS, Conversation, SocketConversation, StartArgs, StartFailure};
use crate::args::{SplitDirection, parse_env_assignment};
use crate::output::{self, EXIT_ERROR, Rendered};
use crate::request::{ApiRequest, UsageError};
use crate::target::Target;

const ID: &str = "cli:agent:start";

/// Where the 0.7 form puts the agent's new pane.
#[derive(Debug, Clone, Default, Args)]
pub struct Placement {
    /// 0.7 form: working directory of the new pane (passed through verbatim)
    #[arg(long, value_name = "PATH", conflicts_with = "pane")]
    pub cwd: Option<String>,
    /// 0.7 form: split the focused pane of this workspace
    #[arg(long, value_name = "ID", conflicts_with = "pane")]
    pub workspace: Option<String>,
    /// 0.7 form: split a pane of this tab
    #[arg(long, value_name = "ID", conflicts_with = "pane")]
    pub tab: Option<String>,
    /// 0.7 form: where the new pane goes (default: right)
    #[arg(long, value_enum, value_name = "DIRECTION", conflicts_with = "pane")]
    pub split: Option<SplitDirection>,
    /// 0.7 form: set an environment variable for the new pane (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env_assignment, action = ArgAction::Append,
          conflicts_with = "pane")]
    pub env: Vec<(String, String)>,
    /// 0.7 form: focus the new pane (off by default)
    #[arg(long, overrides_with = "no_focus", conflicts_with = "pane")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus", conflicts_with = "pane")]
    pub no_focus: bool,
}

/// Which form a parsed `agent start` is.
#[derive(Debug)]
pub enum StartForm {
    /// `--kind K --pane ID`: an existing pane.
    Existing(StartArgs),
    /// The 0.7 form: a new pane; `args` already hold `kind` and the agent's own arguments.
    NewPane(StartArgs),
}

/// The agent kind an executable names (`pi`, `/usr/local/bin/claude`).
pub fn kind_of(executable: &str) -> Option<&'static str> {
    let base = executable.rsplit('/').next().unwrap_or(executable);
    AGENT_KINDS.iter().copied().find(|kind| *kind == base)
}

/// Decides the form (pure): `--kind`/`--pane` choose 0.9's; without them the words after `--`
/// are the agent's command line.
pub fn form(mut args: StartArgs) -> Result<StartForm, UsageError> {
    if args.kind.is_some() || args.pane.is_some() {
        return Ok(StartForm::Existing(args));
    }
    let Some(executable) = args.args.first().cloned() else {
        return Err(UsageError::new(
            "herdr agent start: give --kind KIND --pane ID, or the agent's command line after `--` \
             (e.g. `herdr agent start reviewer -- claude`)",
        ));
    };
    let Some(kind) = kind_of(&executable) else {
        return Err(UsageError::new(format!(
            "herdr agent start: {executable} is not a supported agent; the command after `--` must start with \
             one of: {}",
            AGENT_KINDS.join(", ")
        )));
    };
    args.kind = Some(kind.to_owned());
    args.args.remove(0);
    Ok(StartForm::NewPane(args))
}

fn split_request(args: &StartArgs, target_pane: Option<String>, workspace: Option<String>) -> ApiRequest {
    let placement = &args.placement;
    let env: BTreeMap<String, String> = placement.env.iter().cloned().collect();
    ApiRequest::new(
        "cli:agent:start:split",
        Request::Pane(PaneRequest::Split(PaneSplitParams {
            direction: placement.split.unwrap_or(SplitDirection::Right).wire(),
            target_pane_id: target_pane.map(Into::into),
            workspace_id: workspace.map(Into::into),
            ratio: None,
            cwd: placement.cwd.clone(),
            focus: Some(placement.focus && !placement.no_focus),
            env,
            right_click: None,
        })),
    )
}

fn failure(reply: Value) -> StartFailure {
    StartFailure::Envelope(reply)
}

/// The pane of `tab` to split: its focused one when the tab is the active one, else its first.
fn tab_pane(conv: &mut impl Conversation, tab: &str) -> Result<String, StartFailure> {
    let workspace = tab.split_once(':').map(|(ws, _)| ws.to_owned());
    let list = PaneRequest::List(OptionalWorkspace { workspace_id: workspace.map(Into::into) });
    let reply = conv.send(&ApiRequest::new("cli:agent:start:panes", Request::Pane(list)))?;
    if reply.get("error").is_some() {
        return Err(failure(reply));
    }
    let panes: Vec<&Value> = reply["result"]["panes"]
        .as_array()
        .map(|panes| panes.iter().filter(|p| p["tab_id"] == tab).collect())
        .unwrap_or_default();
    let chosen = panes.iter().find(|p| p["focused"] == true).or(panes.first());
    chosen.and_then(|p| p["pane_id"].as_str()).map(str::to_owned).ok_or_else(|| {
        let message = format!("tab {tab} not found");
        failure(serde_json::json!({"id": ID, "error": {"code": "tab_not_found", "message": message}}))
    })
}

/// Makes the agent's pane; returns its id.
fn new_pane(
    conv: &mut impl Conversation,
    args: &StartArgs,
    caller_pane: Option<&str>,
) -> Result<String, StartFailure> {
    let placement = &args.placement;
    let request = match (&placement.tab, &placement.workspace) {
        (Some(tab), _) => split_request(args, Some(tab_pane(conv, tab)?), None),
        (None, Some(workspace)) => split_request(args, None, Some(workspace.clone())),
        (None, None) => split_request(args, caller_pane.map(str::to_owned), None),
    };
    let mut reply = conv.send(&request)?;
    let nothing_to_split =
        matches!(reply["error"]["code"].as_str(), Some("workspace_not_found" | "no_active_pane"));
    if nothing_to_split && placement.tab.is_none() && placement.workspace.is_none() {
        let create = WorkspaceCreateParams {
            cwd: placement.cwd.clone(),
            focus: Some(placement.focus && !placement.no_focus),
            label: None,
            env: placement.env.iter().cloned().collect(),
            source_workspace_id: None,
        };
        let request = ApiRequest::new(
            "cli:agent:start:workspace",
            Request::Workspace(WorkspaceRequest::Create(create)),
        );
        reply = conv.send(&request)?;
        if reply.get("error").is_none() {
            reply["result"]["pane"] = reply["result"]["root_pane"].take();
        }
    }
    if reply.get("error").is_some() {
        return Err(failure(reply));
    }
    reply["result"]["pane"]["pane_id"].as_str().map(str::to_owned).ok_or_else(|| {
        failure(serde_json::json!({"id": ID, "error": {"code": "pane_split_failed", "message": "no pane in the reply"}}))
    })
}

/// The whole 0.7 flow: a new pane, then the 0.9 start in it (closing the pane if that fails).
pub fn run(
    args: &StartArgs,
    caller_pane: Option<&str>,
    conv: &mut impl Conversation,
) -> Result<Value, StartFailure> {
    let pane = new_pane(conv, args, caller_pane)?;
    let mut filled = args.clone();
    filled.pane = Some(pane.clone());
    let outcome = start::run(&filled, conv);
    if outcome.is_err() {
        let close = PaneRequest::Close(PaneTarget { pane_id: pane.into() });
        let _ = conv.send(&ApiRequest::new("cli:agent:start:close", Request::Pane(close)));
    }
    outcome
}

/// `herdr agent start NAME … -- AGENT …` against a server.
pub fn run_against(target: &Target, args: &StartArgs, caller_pane: Option<&str>) -> Rendered {
    if let Err(refused) = crate::call::guard(target, ID) {
        return refused;
    }
    match run(args, caller_pane, &mut SocketConversation { target }) {
        Ok(response) => Rendered::stdout(output::sorted_line(&response)),
        Err(StartFailure::Envelope(error)) => Rendered::stderr(output::sorted_line(&error), EXIT_ERROR),
        Err(StartFailure::Connect(err)) => crate::call::connect_failure(target, ID, err),
    }
}

#[cfg(test)]
mod tests;
