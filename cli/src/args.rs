//! The `herdr` command-line grammar: the root command, the global `--session` option, and the
//! value types several command groups share. Each group's own sub-grammar lives next to the code
//! that turns it into a request (`workspace.rs`, `pane.rs`, ...). Parsing only: no I/O here.
//!
//! Usage errors are clap's: text on stderr, exit code 2. `--help` prints to stdout, exit 0.

use herdr_protocol::api as protocol;

use clap::{Parser, Subcommand, ValueEnum};

use crate::{
    agent, api, completion, config, integration, notification, pane, plugin, server, session, status, tab,
    terminal, update, workspace, worktree,
};

/// terminal workspace manager for AI coding agents
#[derive(Debug, Parser)]
#[command(name = "herdr", version, disable_help_subcommand = true)]
pub struct Cli {
    /// Use or create a named persistent session (valid before or after the subcommand).
    #[arg(long, global = true, value_name = "NAME")]
    pub session: Option<String>,

    /// Print the default config.toml and exit
    #[arg(long = "default-config")]
    pub default_config: bool,

    #[command(flatten)]
    pub remote: crate::remote::RemoteArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show local client and running server status
    Status(status::StatusArgs),
    /// Run or control the server
    Server(server::ServerArgs),
    /// Manage named persistent sessions
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Inspect socket API metadata and live runtime state
    #[command(subcommand)]
    Api(api::ApiCommand),
    /// Manage workspaces over the socket API
    #[command(subcommand)]
    Workspace(workspace::WorkspaceCommand),
    /// Manage git worktree-backed workspaces
    #[command(subcommand)]
    Worktree(worktree::WorktreeCommand),
    /// Install, link and run plugins
    #[command(subcommand)]
    Plugin(plugin::PluginCommand),
    /// Manage tabs over the socket API
    #[command(subcommand)]
    Tab(tab::TabCommand),
    /// Control terminal panes
    #[command(subcommand)]
    Pane(pane::PaneCommand),
    /// Control and inspect agent panes
    #[command(
        subcommand,
        after_help = "Targets accept unique agent names and pane ids that currently host agents."
    )]
    Agent(agent::AgentCommand),
    /// Show herdr notifications
    #[command(subcommand)]
    Notification(notification::NotificationCommand),
    /// Control the outer terminal (window title)
    #[command(subcommand)]
    Terminal(terminal::TerminalCommand),
    /// Install, remove or check agent integrations (local config edits)
    #[command(subcommand)]
    Integration(integration::IntegrationCommand),
    /// Print a shell completion script (bash, zsh or fish)
    Completion(completion::CompletionArgs),
    /// Check config.toml, or reset its key bindings (local)
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Hand running servers to this binary (`--handoff`); this build downloads nothing
    Update(update::UpdateArgs),
    /// The far end of `herdr --remote`: relays stdin/stdout to this host's client socket
    #[command(hide = true)]
    RemoteClientBridge,
}

/// A pane neighbour direction (`pane.neighbor`, `focus_direction`, `resize`, `swap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    /// The protocol's value.
    pub fn wire(self) -> protocol::PaneDirection {
        match self {
            Direction::Left => protocol::PaneDirection::Left,
            Direction::Right => protocol::PaneDirection::Right,
            Direction::Up => protocol::PaneDirection::Up,
            Direction::Down => protocol::PaneDirection::Down,
        }
    }
}

/// Where a split puts the new pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitDirection {
    Right,
    Down,
}

impl SplitDirection {
    /// The protocol's value.
    pub fn wire(self) -> protocol::SplitDirection {
        match self {
            SplitDirection::Right => protocol::SplitDirection::Right,
            SplitDirection::Down => protocol::SplitDirection::Down,
        }
    }
}

/// A read snapshot source. The CLI spellings are `recent-unwrapped` and `last-turn`; the wire
/// spellings `recent_unwrapped` and `last_turn` are accepted here too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadSource {
    Visible,
    Recent,
    #[value(name = "recent-unwrapped", alias = "recent_unwrapped")]
    RecentUnwrapped,
    Detection,
    /// Extension: the agent's reply to the last prompt, chrome removed (wire `last_turn`).
    #[value(name = "last-turn", alias = "last_turn")]
    LastTurn,
}

impl ReadSource {
    /// The protocol's value.
    pub fn wire(self) -> protocol::ReadSource {
        match self {
            ReadSource::Visible => protocol::ReadSource::Visible,
            ReadSource::Recent => protocol::ReadSource::Recent,
            ReadSource::RecentUnwrapped => protocol::ReadSource::RecentUnwrapped,
            ReadSource::Detection => protocol::ReadSource::Detection,
            ReadSource::LastTurn => protocol::ReadSource::LastTurn,
        }
    }
}

/// The sources `pane wait-output` accepts (no `detection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaitSource {
    Visible,
    Recent,
    #[value(name = "recent-unwrapped", alias = "recent_unwrapped")]
    RecentUnwrapped,
}

impl WaitSource {
    /// The protocol's value.
    pub fn wire(self) -> protocol::ReadSource {
        match self {
            WaitSource::Visible => protocol::ReadSource::Visible,
            WaitSource::Recent => protocol::ReadSource::Recent,
            WaitSource::RecentUnwrapped => protocol::ReadSource::RecentUnwrapped,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadFormat {
    Text,
    Ansi,
}

impl ReadFormat {
    /// The protocol's value.
    pub fn wire(self) -> protocol::ReadFormat {
        match self {
            ReadFormat::Text => protocol::ReadFormat::Text,
            ReadFormat::Ansi => protocol::ReadFormat::Ansi,
        }
    }
}

/// Agent status as matched by `agent wait` / `agent prompt --until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentStatus {
    Idle,
    Working,
    Blocked,
    Done,
    Unknown,
}

impl AgentStatus {
    /// The protocol's value.
    pub fn wire(self) -> protocol::AgentStatus {
        match self {
            AgentStatus::Idle => protocol::AgentStatus::Idle,
            AgentStatus::Working => protocol::AgentStatus::Working,
            AgentStatus::Blocked => protocol::AgentStatus::Blocked,
            AgentStatus::Done => protocol::AgentStatus::Done,
            AgentStatus::Unknown => protocol::AgentStatus::Unknown,
        }
    }
}

/// Who handles right clicks in a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RightClick {
    Herdr,
    Pane,
}

impl RightClick {
    /// The protocol's value.
    pub fn wire(self) -> protocol::requests::RightClickTarget {
        match self {
            RightClick::Herdr => protocol::requests::RightClickTarget::Herdr,
            RightClick::Pane => protocol::requests::RightClickTarget::Pane,
        }
    }
}

/// The key grammar, for `send-keys` help.
pub const KEY_HELP: &str = "Keys (case-insensitive): enter|return, esc|escape, tab, backspace|bs, space, left, right, \
up, down, f1..f12, named punctuation (minus comma period slash backslash quote double_quote semicolon colon \
percent ampersand backtick plus) or any single character (uppercase implies shift). Modifiers join with '+': \
ctrl|control, shift, alt|option|meta, cmd|command|super, hyper, e.g. ctrl+c, shift+tab, alt+enter; C-c means ctrl+c.";

/// An option value that does not parse; clap prints it after "invalid value ... for ...".
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("env must use KEY=VALUE")]
    EnvForm,
    #[error("env key must not be empty")]
    EnvKeyEmpty,
    #[error("env must not contain NUL bytes")]
    EnvNul,
    #[error("token must use NAME=VALUE")]
    TokenForm,
    #[error("token name must not be empty")]
    TokenNameEmpty,
    #[error("invalid number: {0}")]
    Number(String),
    #[error("expected --state-label STATUS=TEXT")]
    StateLabelForm,
    #[error("unknown state label: {0}")]
    StateLabel(String),
}

/// Parses `KEY=VALUE` for `--env` (key non-empty, no NUL bytes).
pub fn parse_env_assignment(raw: &str) -> Result<(String, String), ValueError> {
    let (key, value) = raw.split_once('=').ok_or(ValueError::EnvForm)?;
    if key.is_empty() {
        return Err(ValueError::EnvKeyEmpty);
    }
    if key.contains('\0') || value.contains('\0') {
        return Err(ValueError::EnvNul);
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// Parses `NAME=VALUE` for `--token` (name non-empty).
pub fn parse_token_assignment(raw: &str) -> Result<(String, String), ValueError> {
    let (key, value) = raw.split_once('=').ok_or(ValueError::TokenForm)?;
    if key.is_empty() {
        return Err(ValueError::TokenNameEmpty);
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// Parses a finite number (`--ratio`, `--amount`).
pub fn parse_finite(raw: &str) -> Result<f64, ValueError> {
    match raw.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(ValueError::Number(raw.to_owned())),
    }
}
