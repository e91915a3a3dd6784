//! `herdr agent start NAME --kind K --pane ID [--timeout MS] [-- ARGS…]`: the one agent command
//! whose client side is a conversation, not a single request.
//!
//! 1. Pin the pane's terminal (`pane.get`), so a pane that is replaced meanwhile is noticed.
//! 2. `agent.start`; when the pane is busy only because its shell is still starting
//!    (`agent_pane_busy` while `pane.process_info` shows the shell alone in the foreground),
//!    retry for up to 2 s.
//! 3. The server returns right after typing the command, so poll `agent.get` until the named
//!    agent is detected in the same terminal and ready for input, within the timeout.
//!
//! The flow runs against a [`Conversation`] so it is tested without a server.

use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Value, json};

use crate::connect::{self, ConnectError, REPLY_TIMEOUT};
use crate::output::{self, EXIT_ERROR, Rendered};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    AgentRequest, AgentStartParams, AgentTarget, OptionalPane, PaneRequest, PaneTarget,
};

use crate::request::ApiRequest;
use crate::target::Target;

/// The supported kinds, each also its canonical executable's label.
pub const AGENT_KINDS: [&str; 22] = [
    "pi",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "devin",
    "agy",
    "cline",
    "omp",
    "mastracode",
    "opencode",
    "copilot",
    "kimi",
    "kiro",
    "droid",
    "amp",
    "grok",
    "hermes",
    "kilo",
    "qodercli",
    "qwen",
    "maki",
];

const ID: &str = "cli:agent:start";
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The server's accepted timeout range is (3000, 300000]; busy retries only make sense inside it.
const SETTLE_DELAY_MS: u64 = 3_000;
const MAX_TIMEOUT_MS: u64 = 300_000;
const BUSY_RETRY_WINDOW: Duration = Duration::from_secs(2);
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// Shell names that may legitimately sit alone in the foreground of a starting pane.
const SHELL_NAMES: [&str; 15] = [
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "elvish",
    "xonsh",
    "nu",
    "pwsh",
    "powershell",
    "cmd",
];

#[derive(Debug, Clone, Args)]
#[command(
    override_usage = "herdr agent start <NAME> --kind <KIND> --pane <ID> [OPTIONS] [-- [AGENT_ARG]...]\n       \
                      herdr agent start <NAME> [--cwd P] [--workspace ID] [--tab ID] [--split right|down] \
                      [--env K=V]... [--focus|--no-focus] -- <AGENT> [AGENT_ARG]..."
)]
#[command(
    after_help = "The pane must be at its interactive shell prompt. Success means the expected agent was \
                        detected in the same terminal and is ready for input. Without --kind and --pane (the \
                        herdr 0.7 form), a new pane is split off (--tab's or --workspace's focused pane, else the \
                        caller's or the focused one) and the agent named by the first word after `--` starts in it."
)]
pub struct StartArgs {
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Supported agent kind and canonical executable
    #[arg(long, value_name = "KIND", value_parser = AGENT_KINDS, requires = "pane")]
    pub kind: Option<String>,
    /// Existing pane at an interactive shell prompt
    #[arg(long, value_name = "ID", requires = "kind")]
    pub pane: Option<String>,
    /// Wait for interactive readiness (default: 30000; max: 300000)
    #[arg(long, value_name = "MS")]
    pub timeout: Option<u64>,
    #[command(flatten)]
    pub placement: super::legacy::Placement,
    /// Arguments for the agent, after `--` (the 0.7 form: the agent's executable, then its arguments)
    #[arg(value_name = "AGENT_ARG", last = true)]
    pub args: Vec<String>,
}

impl StartArgs {
    /// `--kind` (set in every flow run: the 0.7 form fills it from the executable).
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or_default()
    }

    /// `--pane` (likewise filled with the new pane by the 0.7 form).
    pub fn pane(&self) -> &str {
        self.pane.as_deref().unwrap_or_default()
    }
}

/// One request per call to a server, plus the clock the flow waits on.
pub trait Conversation {
    fn send(&mut self, request: &ApiRequest) -> Result<Value, ConnectError>;
    fn now(&self) -> Instant;
    fn pause(&mut self, duration: Duration);
}

/// The real conversation: fresh connections to the target's socket, the wall clock.
pub struct SocketConversation<'a> {
    pub target: &'a Target,
}

impl Conversation for SocketConversation<'_> {
    fn send(&mut self, request: &ApiRequest) -> Result<Value, ConnectError> {
        connect::exchange(self.target.api_socket(), request, Some(REPLY_TIMEOUT))
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn pause(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// How `agent start` ended without success.
#[derive(Debug)]
pub enum StartFailure {
    /// An error envelope to print (from the server, or made here with the `cli:agent:start` id).
    Envelope(Value),
    /// The socket failed.
    Connect(ConnectError),
}

impl From<ConnectError> for StartFailure {
    fn from(err: ConnectError) -> Self {
        StartFailure::Connect(err)
    }
}

fn cli_error(code: &str, message: impl Into<String>) -> StartFailure {
    StartFailure::Envelope(json!({"id": ID, "error": {"code": code, "message": message.into()}}))
}

fn is_error(reply: &Value) -> bool {
    reply.get("error").is_some()
}

fn pane_terminal(conv: &mut impl Conversation, pane: &str) -> Result<Option<String>, ConnectError> {
    let get = PaneRequest::Get(PaneTarget { pane_id: pane.into() });
    let reply = conv.send(&ApiRequest::new("cli:agent:start:pane", Request::Pane(get)))?;
    Ok(reply["result"]["pane"]["terminal_id"].as_str().map(str::to_owned))
}

/// Whether the pane's foreground is only its shell (still starting up, not running a program).
pub fn shell_alone_in_foreground(process_info: &Value) -> bool {
    let Some(shell_pid) = process_info["shell_pid"].as_u64() else { return false };
    if process_info["foreground_process_group_id"].as_u64() != Some(shell_pid) {
        return false;
    }
    let is_shell = |name: &str| {
        let base = name.rsplit('/').next().unwrap_or(name).trim_start_matches('-');
        SHELL_NAMES.iter().any(|shell| shell.eq_ignore_ascii_case(base))
    };
    process_info["foreground_processes"].as_array().is_some_and(|processes| {
        processes.iter().any(|p| {
            p["pid"].as_u64() == Some(shell_pid)
                && (p["name"].as_str().is_some_and(is_shell) || p["argv"][0].as_str().is_some_and(is_shell))
        })
    })
}

fn shell_starting(conv: &mut impl Conversation, pane: &str) -> Result<bool, ConnectError> {
    let info = PaneRequest::ProcessInfo(OptionalPane { pane_id: Some(pane.into()) });
    let request = ApiRequest::new("cli:agent:start:process_info", Request::Pane(info));
    Ok(shell_alone_in_foreground(&conv.send(&request)?["result"]["process_info"]))
}

/// The `agent.start` request.
pub fn start_request(args: &StartArgs) -> ApiRequest {
    ApiRequest::new(
        ID,
        Request::Agent(AgentRequest::Start(AgentStartParams {
            name: args.name.clone(),
            kind: args.kind().to_owned(),
            pane_id: args.pane().into(),
            // Always sent, `[]` included, as before.
            args: Some(args.args.clone()),
            timeout_ms: args.timeout,
        })),
    )
}

/// Runs the whole flow; on success returns the `agent.start` envelope with `result.agent`
/// replaced by the ready agent.
pub fn run(args: &StartArgs, conv: &mut impl Conversation) -> Result<Value, StartFailure> {
    let timeout_ms = args.timeout.unwrap_or(DEFAULT_TIMEOUT_MS);
    let retryable = timeout_ms > SETTLE_DELAY_MS && timeout_ms <= MAX_TIMEOUT_MS;
    let pinned = pane_terminal(conv, args.pane())?;

    let request = start_request(args);
    let mut retry_deadline = None;
    let mut response = loop {
        let reply = conv.send(&request)?;
        if !is_error(&reply) {
            break reply;
        }
        let busy = reply["error"]["code"] == "agent_pane_busy";
        if !busy || !retryable || pinned.is_none() {
            return Err(StartFailure::Envelope(reply));
        }
        let deadline = *retry_deadline.get_or_insert_with(|| conv.now() + BUSY_RETRY_WINDOW);
        if conv.now() >= deadline
            || pane_terminal(conv, args.pane())? != pinned
            || !shell_starting(conv, args.pane())?
        {
            return Err(StartFailure::Envelope(reply));
        }
        conv.pause(POLL_INTERVAL.min(deadline.saturating_duration_since(conv.now())));
    };

    let Some(terminal) = response["result"]["agent"]["terminal_id"].as_str().map(str::to_owned) else {
        return Err(cli_error("agent_start_failed", "agent start response did not include terminal_id"));
    };
    if pinned.as_deref().is_some_and(|p| p != terminal) {
        return Err(name_lost(&args.name));
    }
    let agent = wait_ready(args, conv, &terminal, Duration::from_millis(timeout_ms))?;
    response["result"]["agent"] = agent;
    Ok(response)
}

/// `herdr agent start`: protocol guard, the flow, then printing (sorted keys, as upstream prints
/// both the server's and its own errors for this command).
pub fn run_against(target: &Target, args: &StartArgs) -> Rendered {
    if let Err(refused) = crate::call::guard(target, ID) {
        return refused;
    }
    match run(args, &mut SocketConversation { target }) {
        Ok(response) => Rendered::stdout(output::sorted_line(&response)),
        Err(StartFailure::Envelope(error)) => Rendered::stderr(output::sorted_line(&error), EXIT_ERROR),
        Err(StartFailure::Connect(err)) => crate::call::connect_failure(target, ID, err),
    }
}

fn name_lost(name: &str) -> StartFailure {
    cli_error("agent_name_not_found", format!("named agent {name} no longer owns the target terminal"))
}

/// What one `agent.get` poll says about the starting agent.
enum Poll {
    Ready(Value),
    Failed(StartFailure),
    Pending,
}

fn judge(agent: &Value, args: &StartArgs, terminal: &str) -> Poll {
    let name = args.name.as_str();
    if agent["terminal_id"].as_str() != Some(terminal) {
        return Poll::Failed(name_lost(name));
    }
    if let Some(actual) = agent["agent"].as_str().filter(|actual| *actual != args.kind()) {
        return Poll::Failed(cli_error(
            "agent_kind_mismatch",
            format!("expected {}, detected {actual}", args.kind()),
        ));
    }
    if agent["name"].as_str() != Some(name) {
        return Poll::Failed(name_lost(name));
    }
    let ready = agent["interactive_ready"].as_bool() == Some(true);
    match agent["agent_status"].as_str() {
        Some("blocked") => Poll::Failed(cli_error(
            "agent_not_ready",
            format!("agent {name} is blocked during startup and is not ready for prompts"),
        )),
        // Codex reports no idle screen until first used; readiness is its signal.
        Some("unknown") if args.kind() == "codex" && ready => Poll::Ready(agent.clone()),
        Some("idle" | "done") if ready => Poll::Ready(agent.clone()),
        Some("idle" | "done") if !agent["launch_pending"].as_bool().unwrap_or(false) => {
            Poll::Failed(cli_error("agent_start_failed", "agent process exited before becoming interactive"))
        }
        _ => Poll::Pending,
    }
}

fn wait_ready(
    args: &StartArgs,
    conv: &mut impl Conversation,
    terminal: &str,
    timeout: Duration,
) -> Result<Value, StartFailure> {
    let get = |target: &str, id: &'static str| {
        ApiRequest::new(id, Request::Agent(AgentRequest::Get(AgentTarget { target: target.to_owned() })))
    };
    let deadline = conv.now() + timeout;
    loop {
        if conv.now() >= deadline {
            // Lets the server settle its own startup deadline so the name is reusable at once.
            let _ = conv.send(&get(&args.name, "cli:agent:start:timeout"));
            return Err(cli_error("timeout", "timed out waiting for agent startup"));
        }
        let mut reply = conv.send(&get(&args.name, ID))?;
        if is_error(&reply) {
            reply = conv.send(&get(args.pane(), ID))?;
        }
        if !is_error(&reply) {
            match judge(&reply["result"]["agent"], args, terminal) {
                Poll::Ready(agent) => return Ok(agent),
                Poll::Failed(failure) => return Err(failure),
                Poll::Pending => {}
            }
        }
        conv.pause(POLL_INTERVAL);
    }
}

#[cfg(test)]
mod tests;
