//! `herdr plugin …`: the `plugin.*` methods from the command line, with upstream's subcommands,
//! flags and output. Most subcommands send one request (id `cli:plugin`) and print the envelope;
//! `link`, `list`, `install` and `uninstall` edit the registry (`plugins.json`) themselves when
//! no server runs ([`offline`]), and `config-dir` is local. `install` and `uninstall` live in
//! [`install`], the build commands install runs in [`build`].

pub mod build;
pub mod install;
pub mod offline;

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{ArgAction, Args, Subcommand, ValueEnum};
use serde_json::Value;

use herdr_protocol::api::requests::{
    OptionalPlugin, PluginActionInvokeParams, PluginInvocationContext, PluginLinkParams, PluginLogListParams,
    PluginPaneOpenParams, PluginPanePlacement, PluginPaneTarget, PluginRequest, PluginTarget, PopupSize,
};
use herdr_protocol::api::{PaneId, Request};
use herdr_protocol::paths::{self, PathEnv};

use crate::args::{SplitDirection, parse_env_assignment};
use crate::call;
use crate::connect::{self, ConnectError, PING_TIMEOUT, REPLY_TIMEOUT};
use crate::output::{self, Rendered};
use crate::request::{ApiCall, ApiRequest, Caller, UsageError};
use crate::target::Target;
use crate::worktree::absolute_path;

/// The request id of every `herdr plugin` request (upstream's).
pub const ID: &str = "cli:plugin";

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Install a plugin from GitHub (owner/repo[/subdir]), a git URL, or a local directory
    Install(InstallArgs),
    /// Unregister a plugin and remove the checkout `install` made
    Uninstall {
        /// A plugin id, or the owner/repo[/subdir] it was installed from
        target: String,
    },
    /// Register a local plugin directory (no build commands run)
    Link {
        /// The plugin directory or its herdr-plugin.toml (made absolute)
        path: String,
        /// Register it disabled
        #[arg(long, overrides_with = "enabled")]
        disabled: bool,
        #[arg(long, overrides_with = "disabled")]
        enabled: bool,
    },
    /// Unregister a plugin; its files stay
    Unlink { plugin_id: String },
    /// Enable a plugin
    Enable { plugin_id: String },
    /// Disable a plugin
    Disable { plugin_id: String },
    /// List installed and linked plugins
    List {
        #[arg(long, value_name = "ID")]
        plugin: Option<String>,
        /// Print the API envelope instead of text
        #[arg(long)]
        json: bool,
    },
    /// Print (and create) a plugin's config directory
    ConfigDir { plugin_id: String },
    /// List or invoke plugin actions
    #[command(subcommand)]
    Action(ActionCommand),
    /// The plugin command log
    #[command(subcommand, alias = "logs")]
    Log(LogCommand),
    /// Open, focus or close plugin panes
    #[command(subcommand)]
    Pane(PluginPaneCommand),
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// owner/repo[/subdir...], a git URL, or a local path (./dir, /abs/dir, ~/dir)
    pub source: String,
    /// The branch, tag or commit to check out (git sources)
    #[arg(long = "ref", value_name = "REF")]
    pub git_ref: Option<String>,
    /// Do not ask before building and registering
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Subcommand)]
pub enum ActionCommand {
    /// List the actions of enabled and disabled plugins
    List {
        #[arg(long, value_name = "ID")]
        plugin: Option<String>,
    },
    /// Run an action (`plugin.id.action` or a unique local id)
    Invoke {
        action_id: String,
        #[arg(long, value_name = "ID")]
        plugin: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum LogCommand {
    /// The server's recent plugin command runs, oldest first
    List {
        #[arg(long, value_name = "ID")]
        plugin: Option<String>,
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
    },
}

#[derive(Debug, Subcommand)]
pub enum PluginPaneCommand {
    /// Open a plugin pane entrypoint
    Open(PaneOpenArgs),
    /// Focus a plugin pane
    Focus { pane_id: String },
    /// Close a plugin pane
    Close { pane_id: String },
}

/// `--placement` (upstream also spells zoomed `fullscreen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Placement {
    Overlay,
    Popup,
    Split,
    Tab,
    #[value(alias = "fullscreen")]
    Zoomed,
}

impl Placement {
    fn wire(self) -> PluginPanePlacement {
        match self {
            Placement::Overlay => PluginPanePlacement::Overlay,
            Placement::Popup => PluginPanePlacement::Popup,
            Placement::Split => PluginPanePlacement::Split,
            Placement::Tab => PluginPanePlacement::Tab,
            Placement::Zoomed => PluginPanePlacement::Zoomed,
        }
    }
}

#[derive(Debug, Args)]
pub struct PaneOpenArgs {
    #[arg(long, value_name = "ID")]
    pub plugin: String,
    #[arg(long, value_name = "ID")]
    pub entrypoint: String,
    #[arg(long, value_enum)]
    pub placement: Option<Placement>,
    /// Popup width: cells or N%
    #[arg(long, value_name = "SIZE", value_parser = parse_popup_size)]
    pub width: Option<PopupSize>,
    /// Popup height: cells or N%
    #[arg(long, value_name = "SIZE", value_parser = parse_popup_size)]
    pub height: Option<PopupSize>,
    #[arg(long, value_name = "ID")]
    pub workspace: Option<String>,
    #[arg(long = "target-pane", value_name = "PANE")]
    pub target_pane: Option<String>,
    #[arg(long, value_enum)]
    pub direction: Option<SplitDirection>,
    #[arg(long, value_name = "PATH")]
    pub cwd: Option<String>,
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env_assignment, action = ArgAction::Append)]
    pub env: Vec<(String, String)>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus")]
    pub no_focus: bool,
}

/// Why a popup size was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a number of cells (1-65535) or a percentage like 80%, not {0}")]
pub struct PopupSizeError(String);

/// `--width` / `--height`: `N` cells or `N%` (1–100).
pub fn parse_popup_size(raw: &str) -> Result<PopupSize, PopupSizeError> {
    let size = match raw.parse::<u16>() {
        Ok(cells) if cells > 0 => PopupSize::Cells(cells),
        _ => PopupSize::Percent(raw.to_owned()),
    };
    match &size {
        PopupSize::Percent(_) if size.percent().is_none() => Err(PopupSizeError(raw.to_owned())),
        _ => Ok(size),
    }
}

fn plugin_request(request: PluginRequest) -> ApiRequest {
    ApiRequest::new(ID, Request::Plugin(request))
}

/// The request of a subcommand that is one plain `plugin.*` call, `None` for the others.
/// Pure (paths are made absolute from `caller`).
pub fn request(command: &PluginCommand, caller: &Caller) -> Result<Option<ApiRequest>, UsageError> {
    let target = |id: &str| PluginTarget { plugin_id: id.to_owned() };
    let request = match command {
        PluginCommand::Link { path, disabled, .. } => PluginRequest::Link(PluginLinkParams {
            path: absolute_path(path, caller.cwd.as_deref(), caller.home.as_deref())?,
            enabled: Some(!disabled),
            source: None,
        }),
        PluginCommand::List { plugin, .. } => {
            PluginRequest::List(OptionalPlugin { plugin_id: plugin.clone() })
        }
        PluginCommand::Unlink { plugin_id } => PluginRequest::Unlink(target(plugin_id)),
        PluginCommand::Enable { plugin_id } => PluginRequest::Enable(target(plugin_id)),
        PluginCommand::Disable { plugin_id } => PluginRequest::Disable(target(plugin_id)),
        PluginCommand::Action(ActionCommand::List { plugin }) => {
            PluginRequest::ActionList(OptionalPlugin { plugin_id: plugin.clone() })
        }
        PluginCommand::Action(ActionCommand::Invoke { action_id, plugin }) => {
            PluginRequest::ActionInvoke(Box::new(PluginActionInvokeParams {
                action_id: action_id.clone(),
                plugin_id: plugin.clone(),
                context: Some(PluginInvocationContext {
                    invocation_source: Some("cli".to_owned()),
                    ..Default::default()
                }),
            }))
        }
        PluginCommand::Log(LogCommand::List { plugin, limit }) => {
            PluginRequest::LogList(PluginLogListParams { plugin_id: plugin.clone(), limit: *limit })
        }
        PluginCommand::Pane(PluginPaneCommand::Open(args)) => PluginRequest::PaneOpen(pane_open(args)),
        PluginCommand::Pane(PluginPaneCommand::Focus { pane_id }) => {
            PluginRequest::PaneFocus(PluginPaneTarget { pane_id: PaneId::new(pane_id.as_str()) })
        }
        PluginCommand::Pane(PluginPaneCommand::Close { pane_id }) => {
            PluginRequest::PaneClose(PluginPaneTarget { pane_id: PaneId::new(pane_id.as_str()) })
        }
        PluginCommand::Install(_) | PluginCommand::Uninstall { .. } | PluginCommand::ConfigDir { .. } => {
            return Ok(None);
        }
    };
    Ok(Some(plugin_request(request)))
}

fn pane_open(args: &PaneOpenArgs) -> PluginPaneOpenParams {
    PluginPaneOpenParams {
        plugin_id: args.plugin.clone(),
        entrypoint: args.entrypoint.clone(),
        placement: args.placement.map(Placement::wire),
        direction: args.direction.map(SplitDirection::wire),
        target_pane_id: args.target_pane.as_deref().map(PaneId::new),
        workspace_id: args.workspace.as_deref().map(Into::into),
        cwd: args.cwd.clone(),
        env: args.env.iter().cloned().collect::<BTreeMap<_, _>>(),
        focus: Some(!args.no_focus),
        width: args.width.clone(),
        height: args.height.clone(),
    }
}

/// The herdr config dir (`$XDG_CONFIG_HOME/herdr`, else `~/.config/herdr`).
pub fn config_dir(env: &PathEnv) -> Result<PathBuf, Rendered> {
    let path = |v: &Option<std::ffi::OsString>| v.as_ref().map(PathBuf::from);
    paths::config_dir(path(&env.xdg_config_home).as_deref(), path(&env.home).as_deref())
        .map_err(|e| Rendered::usage(&format!("herdr: {e}")))
}

/// Runs a `herdr plugin` subcommand.
pub fn run(command: &PluginCommand, target: &Target, caller: &Caller, env: &PathEnv) -> Rendered {
    let request = match request(command, caller) {
        Ok(request) => request,
        Err(UsageError(message)) => return Rendered::usage(&message),
    };
    let config = || config_dir(env);
    let outcome = match (command, request) {
        (PluginCommand::Install(args), _) => {
            config().and_then(|c| install::install(args, target, caller, &c))
        }
        (PluginCommand::Uninstall { target: which }, _) => {
            config().and_then(|c| install::uninstall(which, target, caller, &c))
        }
        (PluginCommand::ConfigDir { plugin_id }, _) => {
            config().and_then(|c| offline::config_dir(&c, plugin_id))
        }
        (PluginCommand::Link { .. }, Some(request)) => {
            with_offline(target, &request, || config().and_then(|c| offline::link(&c, &request)))
                .map(|reply| output::render_reply(crate::request::Reply::Envelope, &reply))
        }
        (PluginCommand::List { json, .. }, Some(request)) => {
            with_offline(target, &request, || config().and_then(|c| offline::list(&c, &request))).map(
                |reply| {
                    if *json {
                        output::render_reply(crate::request::Reply::Envelope, &reply)
                    } else {
                        offline::human(&reply, env)
                    }
                },
            )
        }
        (_, Some(request)) => Ok(call::run(target, &ApiCall::envelope(request))),
        (_, None) => Err(Rendered::usage("herdr plugin: nothing to do")),
    };
    outcome.unwrap_or_else(|refused| refused)
}

/// Whether a server answered, or none runs.
#[derive(Debug)]
pub enum Reach {
    Reply(Value),
    NotRunning,
}

/// Sends `request` behind the protocol guard; `NotRunning` when nothing listens (so the caller
/// may edit the registry itself). Other failures come back rendered.
pub fn ask(target: &Target, request: &ApiRequest) -> Result<Reach, Rendered> {
    match connect::exchange(target.api_socket(), &ApiRequest::ping("cli:ping"), Some(PING_TIMEOUT)) {
        Err(ConnectError::NotRunning) => return Ok(Reach::NotRunning),
        Err(err) => return Err(call::connect_failure(target, request.id, err)),
        Ok(pong) => {
            call::protocol_check(request.id, &pong)?;
        }
    }
    connect::exchange(target.api_socket(), request, Some(REPLY_TIMEOUT))
        .map(Reach::Reply)
        .map_err(|err| call::connect_failure(target, request.id, err))
}

/// The server's reply, or `offline()`'s when no server runs.
fn with_offline(
    target: &Target,
    request: &ApiRequest,
    offline: impl FnOnce() -> Result<Value, Rendered>,
) -> Result<Value, Rendered> {
    match ask(target, request)? {
        Reach::Reply(reply) => Ok(reply),
        Reach::NotRunning => offline(),
    }
}

#[cfg(test)]
#[path = "plugin/tests.rs"]
mod tests;
