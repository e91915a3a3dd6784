//! The `herdr` command line: `herdr server` (runs the supervisor), and the subcommands that drive
//! a running server through its JSON API socket with upstream's grammar, request ids, output
//! and exit codes, and [`attach`] (`herdr` with no subcommand), which hands the terminal to
//! `herdr-client`. Not here: the terminal UI itself (composed by the supervisor), the server
//! itself (`herdr-supervisor`), the wire types beyond plain JSON.
//!
//! Map:
//! - [`args`]: root grammar, global `--session`, shared value types;
//! - one module per command group: [`workspace`], [`worktree`], [`tab`], [`pane`], [`agent`],
//!   [`api`], [`notification`], [`terminal`], [`status`], [`server`], [`session`], [`update`],
//!   [`integration`], [`plugin`] — each turns its arguments into an [`request::ApiCall`] (pure) or runs a
//!   local action;
//! - [`call`]: ping + protocol guard + the single request; [`connect`]: the socket edge;
//! - local commands: [`completion`] (scripts from the command table), [`config`] (`config check`,
//!   `config reset-keys`, `--default-config`);
//! - [`output`]: sorted-key printing and exit codes; [`target`]: which server to talk to.

pub mod agent;
pub mod api;
pub mod args;
pub mod attach;
pub mod call;
pub mod completion;
pub mod config;
pub mod connect;
pub mod integration;
pub mod notification;
pub mod output;
pub mod pane;
pub mod plugin;
pub mod remote;
pub mod remote_bin;
pub mod request;
pub mod server;
pub mod session;
pub mod status;
pub mod tab;
pub mod target;
pub mod terminal;
pub mod update;
pub mod workspace;
pub mod worktree;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use herdr_protocol::paths::PathEnv;

use crate::args::{Cli, Command};
use crate::output::{EXIT_ERROR, Rendered};
use crate::request::{ApiCall, Caller, UsageError};
use crate::server::ServerAction;
use crate::target::Target;

/// Runs the CLI on `args` (including the program name) and returns the process exit code.
/// `herdr --remote` is run by the `herdr-remote` binary beside this one ([`remote_bin`]): only it
/// links ssh, so no other command pays for loading libssl and libcrypto (about 1 ms a call).
pub fn main_with(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    if let Some(session) = bare_attach(&args) {
        return output::emit(attach::run(session.as_deref(), &PathEnv::from_process_env()));
    }
    let (cli, session) = match parse(args.clone()) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    let rendered = match cli.command {
        _ if cli.default_config => Rendered::stdout(config::DEFAULT_CONFIG),
        _ if cli.remote.is_used() => remote_bin::hand_over(&args),
        None => attach::run(session.or(cli.session).as_deref(), &PathEnv::from_process_env()),
        Some(command) => {
            let session = session.or(cli.session);
            dispatch(command, session.as_deref(), &Caller::from_process_env())
        }
    };
    output::emit(rendered)
}

/// `Some(session)` when `args` is plain `herdr`, perhaps with `--session NAME`: the command
/// people run most attaches without building clap's tree of every subcommand, which cost a
/// hundred page faults and a few tenths of a millisecond before the first frame.
fn bare_attach(args: &[OsString]) -> Option<Option<String>> {
    let (kept, session) = extract_session(args.to_vec()).ok()?;
    (kept.len() <= 1).then_some(session)
}

/// The `herdr-remote` binary: `herdr --remote` handed it its own arguments.
pub fn remote_main_with(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let (cli, session) = match parse(args.into_iter().collect()) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    let rendered = if cli.remote.is_used() {
        remote::run(&cli.remote, cli.command.is_some(), session.or(cli.session).as_deref())
    } else {
        Rendered::usage("herdr-remote runs `herdr --remote <TARGET>`; run that instead")
    };
    output::emit(rendered)
}

/// `args` parsed as the root grammar, with the global `--session` taken out; `Err` is the exit
/// code once clap or the session option has said what was wrong (or printed help or version).
fn parse(args: Vec<OsString>) -> Result<(Cli, Option<String>), ExitCode> {
    let (args, session) = match extract_session(args) {
        Ok(split) => split,
        Err(message) => return Err(output::emit(Rendered::usage(&message))),
    };
    match Cli::try_parse_from(args) {
        Ok(cli) => Ok((cli, session)),
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = err.print();
            Err(ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(EXIT_ERROR)))
        }
    }
}

/// Takes every `--session NAME` / `--session=NAME` out of `args` (up to a `--` terminator), the
/// last one winning, as upstream does: the option is global and may sit anywhere, even after a
/// command's trailing words (`herdr pane run w1:p1 make test --session work`). clap still
/// declares it, for help and completion.
pub fn extract_session(args: Vec<OsString>) -> Result<(Vec<OsString>, Option<String>), String> {
    let mut kept = Vec::with_capacity(args.len());
    let mut session = None;
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            kept.push(arg);
            kept.extend(rest.by_ref());
            break;
        }
        if arg == "--session" {
            let value = rest.next().ok_or("missing value for --session")?;
            session = Some(value.into_string().map_err(|_| "--session must be valid UTF-8".to_owned())?);
            continue;
        }
        if let Some(value) = arg.to_str().and_then(|a| a.strip_prefix("--session=")) {
            session = Some(value.to_owned());
            continue;
        }
        kept.push(arg);
    }
    Ok((kept, session))
}

/// What a parsed command line does, as a plan (before anything is resolved or sent).
#[derive(Debug)]
pub enum Plan {
    /// One socket-backed request behind the protocol guard.
    Call(ApiCall),
    /// `api schema`: the embedded schema, printed or written to a file; no socket.
    Schema(api::SchemaArgs),
    Status(status::StatusArgs),
    /// `herdr server [--no-session]`.
    ServerForeground {
        no_session: bool,
    },
    /// `herdr server --detach [--no-session]`.
    ServerDetach {
        no_session: bool,
    },
    ServerStop,
    /// `herdr server --handoff-import <socket> <token>` (hidden): a live handoff's importer.
    ServerImport {
        no_session: bool,
        socket: std::path::PathBuf,
        token: String,
    },
    /// `agent start --kind K --pane ID`: a guarded conversation of several requests.
    AgentStart(agent::start::StartArgs),
    /// `agent start NAME -- AGENT …` (0.7 form): the same, in a pane it makes first.
    AgentStartNewPane(agent::start::StartArgs),
    /// `agent send TARGET TEXT` (0.7): the target's pane, then its input.
    AgentSend(agent::send::SendArgs),
    /// `completion SHELL`: a script from the command table; no socket.
    Completion(completion::Shell),
    /// `config check|reset-keys`: local edits of config.toml.
    Config(config::ConfigCommand),
    /// `herdr session …`: local, across sessions.
    Session(session::SessionCommand),
    /// `herdr integration …`: local edits of agents' config dirs.
    Integration(integration::IntegrationCommand),
    /// `herdr plugin …`: `plugin.*` requests, offline registry edits, install.
    Plugin(plugin::PluginCommand),
    /// `herdr update [--handoff]`: across sessions (the global `--session` picks one).
    Update(update::UpdateArgs),
    /// `herdr remote-client-bridge` (hidden): the far end of `herdr --remote`.
    RemoteClientBridge,
    /// `agent attach`, `terminal attach`, `terminal session …`: the client socket.
    TerminalAttach(terminal::attach::Attach),
}

/// Turns a command into a plan. Pure; usage errors surface here.
pub fn plan(command: Command, caller: &Caller) -> Result<Plan, UsageError> {
    let plan = match command {
        Command::Status(args) => Plan::Status(args),
        Command::Server(args) => match (args.action, args.detach) {
            (Some(ServerAction::Stop), _) => Plan::ServerStop,
            (Some(ServerAction::ReloadConfig), _) => Plan::Call(server::reload_config_call()),
            (Some(ServerAction::AgentManifests { json }), _) => {
                Plan::Call(server::agent_manifests_call(json))
            }
            (Some(ServerAction::ReloadAgentManifests), _) => {
                Plan::Call(server::reload_agent_manifests_call())
            }
            (Some(ServerAction::LiveHandoff { import_exe, expected_protocol, expected_version }), _) => {
                Plan::Call(server::live_handoff_call(
                    import_exe.as_deref(),
                    expected_protocol,
                    expected_version.as_deref(),
                ))
            }
            (None, _) if args.handoff_import.is_some() => {
                let mut import = args.handoff_import.unwrap_or_default().into_iter();
                let (socket, token) = (import.next().unwrap_or_default(), import.next().unwrap_or_default());
                Plan::ServerImport { no_session: args.no_session, socket: socket.into(), token }
            }
            (None, true) => Plan::ServerDetach { no_session: args.no_session },
            (None, false) => Plan::ServerForeground { no_session: args.no_session },
        },
        Command::Session(cmd) => Plan::Session(cmd),
        Command::Api(api::ApiCommand::Snapshot) => Plan::Call(api::snapshot_call()),
        Command::Api(api::ApiCommand::Schema(args)) => Plan::Schema(args),
        Command::Workspace(cmd) => Plan::Call(workspace::call(&cmd)?),
        Command::Tab(cmd) => Plan::Call(tab::call(&cmd)?),
        Command::Pane(cmd) => Plan::Call(pane::call(&cmd, caller)?),
        Command::Agent(agent::AgentCommand::Request(cmd)) => Plan::Call(agent::call(&cmd)?),
        Command::Agent(agent::AgentCommand::Start(args)) => match agent::legacy::form(args)? {
            agent::legacy::StartForm::Existing(args) => Plan::AgentStart(args),
            agent::legacy::StartForm::NewPane(args) => Plan::AgentStartNewPane(args),
        },
        Command::Agent(agent::AgentCommand::Send(args)) => Plan::AgentSend(args),
        Command::Completion(args) => Plan::Completion(args.shell),
        Command::Config(cmd) => Plan::Config(cmd),
        Command::Notification(cmd) => Plan::Call(notification::call(&cmd)?),
        Command::Worktree(cmd) => Plan::Call(worktree::call(&cmd, caller)?),
        Command::Terminal(terminal::TerminalCommand::Title(cmd)) => Plan::Call(terminal::title_call(&cmd)?),
        Command::Terminal(terminal::TerminalCommand::Attach(args)) => {
            Plan::TerminalAttach(terminal::attach::Attach::Terminal(args))
        }
        Command::Terminal(terminal::TerminalCommand::Session(cmd)) => {
            Plan::TerminalAttach(terminal::attach::Attach::Session(cmd))
        }
        Command::Agent(agent::AgentCommand::Attach(args)) => {
            Plan::TerminalAttach(terminal::attach::Attach::Agent(args))
        }
        Command::Integration(cmd) => Plan::Integration(cmd),
        Command::Plugin(cmd) => Plan::Plugin(cmd),
        Command::Update(args) => Plan::Update(args),
        Command::RemoteClientBridge => Plan::RemoteClientBridge,
    };
    Ok(plan)
}

fn dispatch(command: Command, session: Option<&str>, caller: &Caller) -> Rendered {
    let env = PathEnv::from_process_env();
    let plan = match plan(command, caller) {
        Ok(plan) => plan,
        Err(UsageError(message)) => return Rendered::usage(&message),
    };
    // Only commands that talk to one server resolve it (so `api schema` works without HOME).
    let target = || Target::resolve(session, &env).map_err(|err| Rendered::usage(&format!("herdr: {err}")));
    let result = match plan {
        Plan::Schema(args) => Ok(api::schema(&args)),
        Plan::Session(cmd) => Ok(session::run(&cmd, &env)),
        Plan::Integration(cmd) => Ok(integration::run(&cmd, &herdr_integrations::Env::from_process_env())),
        Plan::Update(args) => Ok(update::run(&args, session, &env)),
        Plan::Completion(shell) => {
            Ok(Rendered::stdout(completion::script(shell, &completion::Table::of_cli())))
        }
        Plan::Config(cmd) => Ok(config::run(&cmd, &env)),
        Plan::Call(call) => target().map(|t| call::run(&t, &call)),
        Plan::Status(args) => target().map(|t| status::run(&args, &t)),
        Plan::ServerForeground { no_session } => target().map(|t| server::run_foreground(&t, no_session)),
        Plan::ServerDetach { no_session } => target().map(|t| server::detach(&t, no_session)),
        Plan::ServerStop => target().map(|t| server::stop(&t)),
        Plan::ServerImport { no_session, socket, token } => {
            target().map(|t| server::run_import(&t, no_session, &socket, &token))
        }
        Plan::AgentStart(args) => target().map(|t| agent::start::run_against(&t, &args)),
        Plan::AgentStartNewPane(args) => {
            target().map(|t| agent::legacy::run_against(&t, &args, caller.pane_id.as_deref()))
        }
        Plan::AgentSend(args) => target().map(|t| agent::send::run_against(&t, &args)),
        Plan::Plugin(cmd) => target().map(|t| plugin::run(&cmd, &t, caller, &env)),
        Plan::RemoteClientBridge => target().map(|t| remote::client_bridge(&t)),
        Plan::TerminalAttach(attach) => target().map(|t| terminal::attach::run(&t, &attach)),
    };
    result.unwrap_or_else(|refused| refused)
}

#[cfg(test)]
mod tests;
