//! `herdr workspace …`: grammar and the `workspace.*` request each subcommand sends.

use clap::{ArgAction, Args, Subcommand};
use serde_json::{Map, Value};

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
    /// Adds `cwd`, `focus`, `label`, `env` to a create request.
    pub fn apply(&self, request: ApiRequest) -> ApiRequest {
        request
            .with_opt("cwd", self.cwd.clone())
            .with("focus", self.focus && !self.no_focus)
            .with_opt("label", self.label.clone())
            .with_map("env", env_map(&self.env))
    }
}

pub fn env_map(pairs: &[(String, String)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect()
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
pub fn token_map(set: &[(String, String)], clear: &[String]) -> Map<String, Value> {
    let mut tokens: Map<String, Value> =
        set.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
    for key in clear {
        tokens.insert(key.clone(), Value::Null);
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

pub fn call(command: &WorkspaceCommand) -> Result<ApiCall, UsageError> {
    let call = match command {
        WorkspaceCommand::List => ApiCall::envelope(ApiRequest::new("cli:workspace:list", "workspace.list")),
        WorkspaceCommand::Create(args) => {
            ApiCall::envelope(args.launch.apply(ApiRequest::new("cli:workspace:create", "workspace.create")))
        }
        WorkspaceCommand::Get { workspace_id } => ApiCall::envelope(
            ApiRequest::new("cli:workspace:get", "workspace.get").with("workspace_id", workspace_id.as_str()),
        ),
        WorkspaceCommand::Focus { workspace_id } => ApiCall::envelope(
            ApiRequest::new("cli:workspace:focus", "workspace.focus")
                .with("workspace_id", workspace_id.as_str()),
        ),
        WorkspaceCommand::Rename { workspace_id, label } => ApiCall::envelope(
            ApiRequest::new("cli:workspace:rename", "workspace.rename")
                .with("workspace_id", workspace_id.as_str())
                .with("label", label.join(" ")),
        ),
        WorkspaceCommand::ReportMetadata(args) => {
            let tokens = token_map(&args.token, &args.clear_token);
            if tokens.is_empty() {
                return Err(UsageError::new("missing token to set or clear"));
            }
            ApiCall::silent(
                ApiRequest::new(SILENT_ID, "workspace.report_metadata")
                    .with("workspace_id", args.workspace_id.as_str())
                    .with("source", source_id(&args.source)?)
                    .with("tokens", Value::Object(tokens))
                    .with_opt("seq", args.seq)
                    .with_opt("ttl_ms", args.ttl_ms),
            )
        }
        WorkspaceCommand::Close { workspace_id, group } => ApiCall::envelope(
            ApiRequest::new("cli:workspace:close", "workspace.close")
                .with("workspace_id", workspace_id.as_str())
                .with_flag("close_group", *group),
        ),
    };
    Ok(call)
}
