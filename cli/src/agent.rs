//! `herdr agent …`: the agent subcommands (all single requests except [`start`]), and the text
//! rendering of `agent explain`; `agent attach` is a direct terminal attach
//! ([`crate::terminal::attach`]).

pub mod legacy;
#[cfg(test)]
pub mod script;
pub mod send;
pub mod start;

use clap::{ArgGroup, Args, Subcommand};
use herdr_protocol::api::{self, Request, requests as rq};
use serde_json::Value;

use crate::args::{AgentStatus, ReadFormat, ReadSource};
use crate::request::{ApiCall, ApiRequest, Reply, UsageError};

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    #[command(flatten)]
    Request(AgentRequest),
    /// Start a supported interactive agent in an existing pane, or (herdr 0.7 form) in a new one
    Start(start::StartArgs),
    /// Write text into an agent's pane without submitting it (herdr 0.7)
    Send(send::SendArgs),
    /// Open this terminal on an agent's pane (detach with ctrl+b q; ctrl+b ctrl+b sends ctrl+b)
    Attach(AttachArgs),
}

#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Become the pane's writable owner even if another client attached first
    #[arg(long)]
    pub takeover: bool,
}

/// The agent subcommands that are one request each.
#[derive(Debug, Subcommand)]
pub enum AgentRequest {
    /// List agents
    List,
    /// Show an agent
    Get {
        #[arg(value_name = "TARGET")]
        target: String,
    },
    /// Focus an agent
    Focus {
        #[arg(value_name = "TARGET")]
        target: String,
    },
    /// Rename an agent, or clear its name
    Rename(RenameArgs),
    /// Read agent terminal output (prints the text verbatim)
    Read(ReadArgs),
    /// Send key presses to an agent
    #[command(after_help = crate::args::KEY_HELP)]
    SendKeys {
        #[arg(value_name = "TARGET")]
        target: String,
        #[arg(value_name = "KEY", required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true)]
        keys: Vec<String>,
    },
    /// Explain agent detection state
    Explain(ExplainArgs),
    /// Submit a prompt to an agent
    Prompt(PromptArgs),
    /// Wait until an agent reaches one of the requested states
    Wait(WaitArgs),
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("new_name").args(["name", "clear"]).required(true).multiple(false)))]
#[command(override_usage = "herdr agent rename <TARGET> <NAME>|--clear")]
pub struct RenameArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    #[arg(long)]
    pub clear: bool,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Terminal snapshot source (default: recent)
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub source: Option<ReadSource>,
    #[arg(long, value_name = "N")]
    pub lines: Option<u32>,
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReadFormat>,
    /// Same as --format ansi
    #[arg(long)]
    pub ansi: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Print the explanation as JSON
    #[arg(long)]
    pub json: bool,
    /// text or json
    #[arg(long, value_name = "FORMAT", value_parser = ["text", "json"])]
    pub format: Option<String>,
    /// Also list every evaluated rule
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "If the agent is already blocked, nothing is sent (agent_blocked). With --wait, an accepted \
                        prompt must cause an observed state change within 5000 ms (else agent_prompt_stalled, or \
                        timeout when the caller's timeout is shorter); then it waits for idle, done or blocked, or \
                        any --until state. Turns are not tracked: if the agent is already working, the end of that \
                        turn may match."
)]
pub struct PromptArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    pub text: String,
    /// Wait for the first matching state observed after submission
    #[arg(long)]
    pub wait: bool,
    /// State to match after --wait; repeat for more than one state
    #[arg(long, value_enum, value_name = "STATUS", requires = "wait")]
    pub until: Vec<AgentStatus>,
    /// Fail after this many milliseconds
    #[arg(long, value_name = "MS", requires = "wait")]
    pub timeout: Option<u64>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Without --until, matches idle, done, or blocked. Use --until unknown explicitly when \
                        needed. Without --timeout, waits indefinitely."
)]
pub struct WaitArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// State to match; repeat for more than one state
    #[arg(long, value_enum, value_name = "STATUS")]
    pub until: Vec<AgentStatus>,
    /// Fail after this many milliseconds
    #[arg(long, value_name = "MS")]
    pub timeout: Option<u64>,
}

fn statuses(until: &[AgentStatus]) -> Vec<api::AgentStatus> {
    until.iter().map(|s| s.wire()).collect()
}

fn agent(request: rq::AgentRequest) -> Request {
    Request::Agent(request)
}

fn target(target: &str) -> rq::AgentTarget {
    rq::AgentTarget { target: target.to_owned() }
}

pub fn call(command: &AgentRequest) -> Result<ApiCall, UsageError> {
    let call = match command {
        AgentRequest::List => ApiCall::envelope(ApiRequest::new(
            "cli:agent:list",
            agent(rq::AgentRequest::List(rq::EmptyParams {})),
        )),
        AgentRequest::Get { target: t } => {
            ApiCall::envelope(ApiRequest::new("cli:agent:get", agent(rq::AgentRequest::Get(target(t)))))
        }
        AgentRequest::Focus { target: t } => {
            ApiCall::envelope(ApiRequest::new("cli:agent:focus", agent(rq::AgentRequest::Focus(target(t)))))
        }
        AgentRequest::Rename(args) => ApiCall::envelope(ApiRequest::new(
            "cli:agent:rename",
            agent(rq::AgentRequest::Rename(rq::AgentRenameParams {
                target: args.target.clone(),
                name: if args.clear { None } else { args.name.clone() },
            })),
        )),
        AgentRequest::Read(args) => {
            let format = if args.ansi { ReadFormat::Ansi } else { args.format.unwrap_or(ReadFormat::Text) };
            ApiCall::read_text(ApiRequest::new(
                "cli:agent:read",
                agent(rq::AgentRequest::Read(rq::AgentReadParams {
                    target: args.target.clone(),
                    source: args.source.unwrap_or(ReadSource::Recent).wire(),
                    lines: args.lines,
                    format: Some(format.wire()),
                    strip_ansi: Some(format == ReadFormat::Text),
                })),
            ))
        }
        AgentRequest::SendKeys { target, keys } => ApiCall::envelope(ApiRequest::new(
            "cli:agent:send-keys",
            agent(rq::AgentRequest::SendKeys(rq::AgentSendKeysParams {
                target: target.clone(),
                keys: keys.clone(),
            })),
        )),
        AgentRequest::Explain(args) => {
            let json = args.json || args.format.as_deref() == Some("json");
            ApiCall {
                request: ApiRequest::new(
                    "cli:agent:explain",
                    agent(rq::AgentRequest::Explain(target(&args.target))),
                ),
                reply: Reply::Explain { json, verbose: args.verbose },
            }
        }
        AgentRequest::Prompt(args) => {
            let wait = args.wait.then(|| rq::AgentPromptWait {
                until: Some(statuses(&args.until)),
                timeout_ms: args.timeout,
            });
            ApiCall::envelope(ApiRequest::new(
                "cli:agent:prompt",
                agent(rq::AgentRequest::Prompt(rq::AgentPromptParams {
                    target: args.target.clone(),
                    text: args.text.clone(),
                    wait,
                })),
            ))
        }
        AgentRequest::Wait(args) => ApiCall::envelope(ApiRequest::new(
            "cli:agent:wait",
            agent(rq::AgentRequest::Wait(rq::AgentWaitParams {
                target: args.target.clone(),
                until: Some(statuses(&args.until)),
                timeout_ms: args.timeout,
            })),
        )),
    };
    Ok(call)
}

fn text_or<'a>(value: &'a Value, default: &'a str) -> &'a str {
    value.as_str().unwrap_or(default)
}

/// Human-readable `agent explain` output from the server's free-form `explain` object.
pub fn explain_text(explain: &Value, verbose: bool) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!("agent: {}", text_or(&explain["agent"], "unknown")));
    line(format!("state: {}", text_or(&explain["state"], "unknown")));
    line(format!(
        "manifest: {} {}",
        text_or(&explain["manifest_source"], "none"),
        text_or(&explain["manifest_version"], "unknown")
    ));
    match explain["matched_rule"].as_object() {
        Some(rule) => line(format!(
            "rule: {} (region={} priority={})",
            rule.get("id").and_then(Value::as_str).unwrap_or("-"),
            rule.get("region").and_then(Value::as_str).unwrap_or("-"),
            rule.get("priority").and_then(Value::as_i64).unwrap_or(0)
        )),
        None => line("rule: none".to_owned()),
    }
    for key in ["fallback_reason", "screen_detection_skip_reason", "skipped_update_reason", "warning"] {
        if let Some(text) = explain[key].as_str() {
            line(format!("{key}: {text}"));
        }
    }
    let rules = explain["evaluated_rules"].as_array().filter(|rules| !rules.is_empty());
    if let (true, Some(rules)) = (verbose, rules) {
        line("evaluated_rules:".to_owned());
        for rule in rules {
            line(format!(
                "  {} {} priority={} region={} state={}",
                if rule["matched"].as_bool().unwrap_or(false) { "✓" } else { "✗" },
                text_or(&rule["id"], "-"),
                rule["priority"].as_i64().unwrap_or(0),
                text_or(&rule["region"], "-"),
                text_or(&rule["state"], "unknown")
            ));
        }
    }
    out
}
