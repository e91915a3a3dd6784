//! `herdr tab …`: grammar and the `tab.*` request each subcommand sends. (Upstream has no
//! `tab move` command.)

use clap::{Args, Subcommand};

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    OptionalWorkspace, TabCreateParams, TabRenameParams, TabRequest, TabTarget,
};

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

fn tab(request: TabRequest) -> Request {
    Request::Tab(request)
}

fn target(tab_id: &str) -> TabTarget {
    TabTarget { tab_id: tab_id.into() }
}

pub fn call(command: &TabCommand) -> Result<ApiCall, UsageError> {
    let call = match command {
        TabCommand::List { workspace } => ApiCall::envelope(ApiRequest::new(
            "cli:tab:list",
            tab(TabRequest::List(OptionalWorkspace { workspace_id: workspace.as_deref().map(Into::into) })),
        )),
        TabCommand::Create(args) => ApiCall::envelope(ApiRequest::new(
            "cli:tab:create",
            tab(TabRequest::Create(TabCreateParams {
                workspace_id: args.workspace.as_deref().map(Into::into),
                cwd: args.launch.cwd.clone(),
                focus: args.launch.focus(),
                label: args.launch.label.clone(),
                env: args.launch.env(),
            })),
        )),
        TabCommand::Get { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:get", tab(TabRequest::Get(target(tab_id)))))
        }
        TabCommand::Focus { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:focus", tab(TabRequest::Focus(target(tab_id)))))
        }
        TabCommand::Rename { tab_id, label } => ApiCall::envelope(ApiRequest::new(
            "cli:tab:rename",
            tab(TabRequest::Rename(TabRenameParams {
                tab_id: tab_id.as_str().into(),
                label: label.join(" "),
            })),
        )),
        TabCommand::Close { tab_id } => {
            ApiCall::envelope(ApiRequest::new("cli:tab:close", tab(TabRequest::Close(target(tab_id)))))
        }
    };
    Ok(call)
}
