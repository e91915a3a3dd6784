//! `herdr workspace …`: grammar and the `workspace.*` request each subcommand sends.

use clap::{ArgAction, Args, Subcommand};
use std::collections::BTreeMap;

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    EmptyParams, WorkspaceCloseParams, WorkspaceCreateParams, WorkspaceRenameParams,
    WorkspaceReportMetadataParams, WorkspaceRequest, WorkspaceTarget,
};

use crate::args::{parse_env_assignment, parse_token_assignment};
use crate::request::{ApiCall, ApiRequest, SILENT_ID, UsageError};

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// List workspaces
    List,
    /// Create a workspace
    Create(CreateArgs),
    /// Show a workspace
    Get {
        #[arg(value_name = "WORKSPACE_ID")]
        workspace_id: String,
    },
    /// Focus a workspace
    Focus {
        #[arg(value_name = "WORKSPACE_ID")]
        workspace_id: String,
    },
    /// Rename a workspace
    Rename {
        #[arg(value_name = "WORKSPACE_ID")]
        workspace_id: String,
        /// The new label (several words are joined with spaces)
        #[arg(value_name = "LABEL", required = true, num_args = 1.., allow_hyphen_values = true)]
        label: Vec<String>,
    },
    /// Report display-only workspace metadata
    ReportMetadata(ReportMetadataArgs),
    /// Close a workspace
    Close {
        #[arg(value_name = "WORKSPACE_ID")]
        workspace_id: String,
        /// Also close the worktree workspaces grouped under it
        #[arg(long)]
        group: bool,
    },
}

/// The options `workspace create` and `tab create` share.
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Working directory of the first pane (passed through verbatim)
    #[arg(long, value_name = "PATH")]
    pub cwd: Option<String>,
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Set an environment variable for the launched process (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env_assignment, action = ArgAction::Append)]
    pub env: Vec<(String, String)>,
    /// Focus the new item (off by default)
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    /// Do not focus the new item (the default)
    #[arg(long, overrides_with = "focus")]
    pub no_focus: bool,
}

impl LaunchArgs {
    /// `focus` is always sent, false unless `--focus` (the last of `--focus`/`--no-focus` wins).
    pub fn focus(&self) -> Option<bool> {
        Some(self.focus && !self.no_focus)
    }

    pub fn env(&self) -> BTreeMap<String, String> {
        env_map(&self.env)
    }
}

pub fn env_map(pairs: &[(String, String)]) -> BTreeMap<String, String> {
    pairs.iter().cloned().collect()
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub launch: LaunchArgs,
}

#[derive(Debug, Args)]
pub struct ReportMetadataArgs {
    #[arg(value_name = "WORKSPACE_ID")]
    pub workspace_id: String,
    /// Reporting source id
    #[arg(long, value_name = "ID", required = true)]
    pub source: String,
    /// Set a token (repeatable)
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_token_assignment, action = ArgAction::Append)]
    pub token: Vec<(String, String)>,
    /// Clear a token (repeatable)
    #[arg(long = "clear-token", value_name = "NAME", action = ArgAction::Append)]
    pub clear_token: Vec<String>,
    #[arg(long, value_name = "N")]
    pub seq: Option<u64>,
    #[arg(long = "ttl-ms", value_name = "N")]
    pub ttl_ms: Option<u64>,
}

/// `tokens` for a metadata report: set values, then clears (`null`).
pub fn token_map(set: &[(String, String)], clear: &[String]) -> BTreeMap<String, Option<String>> {
    let mut tokens: BTreeMap<String, Option<String>> =
        set.iter().map(|(k, v)| (k.clone(), Some(v.clone()))).collect();
    for key in clear {
        tokens.insert(key.clone(), None);
    }
    tokens
}

/// A non-blank `--source`, trimmed.
pub fn source_id(raw: &str) -> Result<String, UsageError> {
    let source = raw.trim();
    if source.is_empty() {
        return Err(UsageError::new("missing required --source"));
    }
    Ok(source.to_owned())
}

fn workspace(request: WorkspaceRequest) -> Request {
    Request::Workspace(request)
}

pub fn call(command: &WorkspaceCommand) -> Result<ApiCall, UsageError> {
    let call = match command {
        WorkspaceCommand::List => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:list",
            workspace(WorkspaceRequest::List(EmptyParams {})),
        )),
        WorkspaceCommand::Create(args) => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:create",
            workspace(WorkspaceRequest::Create(WorkspaceCreateParams {
                cwd: args.launch.cwd.clone(),
                focus: args.launch.focus(),
                label: args.launch.label.clone(),
                env: args.launch.env(),
                source_workspace_id: None,
            })),
        )),
        WorkspaceCommand::Get { workspace_id } => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:get",
            workspace(WorkspaceRequest::Get(WorkspaceTarget { workspace_id: workspace_id.as_str().into() })),
        )),
        WorkspaceCommand::Focus { workspace_id } => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:focus",
            workspace(WorkspaceRequest::Focus(WorkspaceTarget {
                workspace_id: workspace_id.as_str().into(),
            })),
        )),
        WorkspaceCommand::Rename { workspace_id, label } => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:rename",
            workspace(WorkspaceRequest::Rename(WorkspaceRenameParams {
                workspace_id: workspace_id.as_str().into(),
                label: label.join(" "),
            })),
        )),
        WorkspaceCommand::ReportMetadata(args) => {
            let tokens = token_map(&args.token, &args.clear_token);
            if tokens.is_empty() {
                return Err(UsageError::new("missing token to set or clear"));
            }
            ApiCall::silent(ApiRequest::new(
                SILENT_ID,
                workspace(WorkspaceRequest::ReportMetadata(WorkspaceReportMetadataParams {
                    workspace_id: args.workspace_id.as_str().into(),
                    source: source_id(&args.source)?,
                    tokens,
                    seq: args.seq,
                    ttl_ms: args.ttl_ms,
                })),
            ))
        }
        WorkspaceCommand::Close { workspace_id, group } => ApiCall::envelope(ApiRequest::new(
            "cli:workspace:close",
            workspace(WorkspaceRequest::Close(WorkspaceCloseParams {
                workspace_id: workspace_id.as_str().into(),
                close_group: group.then_some(true),
            })),
        )),
    };
    Ok(call)
}
