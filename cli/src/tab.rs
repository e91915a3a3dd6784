//! `herdr tab …`: grammar and the `tab.*` request each subcommand sends. (Upstream has no
//! `tab move` command.)

use clap::{Args, Subcommand};

use crate::request::{ApiCall, ApiRequest, UsageError};
use crate::workspace::LaunchArgs;

#[derive(Debug, Subcommand)]
pub enum TabCommand {
    /// List tabs
    List {
        #[arg(long, value_name = "WORKSPACE_ID")]
        workspace: Option<String>,
    },
    /// Create a tab
    Create(CreateArgs),
    /// Show a tab
    Get {
        #[arg(value_name = "TAB_ID")]
        tab_id: String,
    },
    /// Focus a tab
    Focus {
        #[arg(value_name = "TAB_ID")]
        tab_id: String,
    },
    /// Rename a tab
    Rename {
        #[arg(value_name = "TAB_ID")]
        tab_id: String,
        /// The new label (several words are joined with spaces)
        #[arg(value_name = "LABEL", required = true, num_args = 1.., allow_hyphen_values = true)]
        label: Vec<String>,
    },
    /// Close a tab
    Close {
        #[arg(value_name = "TAB_ID")]
        tab_id: String,
    },
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[arg(long, value_name = "WORKSPACE_ID")]
    pub workspace: Option<String>,
    #[command(flatten)]
    pub launch: LaunchArgs,
}

pub fn call(command: &TabCommand) -> Result<ApiCall, UsageError> {
    let call = match command {
        TabCommand::List { workspace } => ApiCall::envelope(
            ApiRequest::new("cli:tab:list", "tab.list").with_opt("workspace_id", workspace.clone()),
        ),
        TabCommand::Create(args) => ApiCall::envelope(args.launch.apply(
            ApiRequest::new("cli:tab:create", "tab.create").with_opt("workspace_id", args.workspace.clone()),
        )),
        TabCommand::Get { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:get", "tab.get").with("tab_id", tab_id.as_str()))
        }
        TabCommand::Focus { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:focus", "tab.focus").with("tab_id", tab_id.as_str()))
        }
        TabCommand::Rename { tab_id, label } => ApiCall::envelope(
            ApiRequest::new("cli:tab:rename", "tab.rename")
                .with("tab_id", tab_id.as_str())
                .with("label", label.join(" ")),
        ),
        TabCommand::Close { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:close", "tab.close").with("tab_id", tab_id.as_str()))
        }
    };
    Ok(call)
}
