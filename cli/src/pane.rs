//! `herdr pane …`: grammar and the `pane.*` request each subcommand sends. The agent-reporting
//! subcommands (`report-agent`, `report-metadata`, ...) live in `pane/report.rs`, swap and move
//! in `pane/arrange.rs`.

mod arrange;
mod report;
#[cfg(test)]
mod tests;

use clap::{ArgAction, ArgGroup, Args, Subcommand};

use crate::args::{
    Direction, ReadFormat, ReadSource, RightClick, SplitDirection, WaitSource, parse_env_assignment,
    parse_finite,
};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    self, OptionalPane, OptionalWorkspace, OutputMatch, PaneCurrentParams, PaneDirectional,
    PaneInputSetParams, PaneReadParams, PaneRenameParams, PaneRequest, PaneResizeParams, PaneSendInputParams,
    PaneSendKeysParams, PaneSendTextParams, PaneSplitParams, PaneWaitForOutputParams, PaneZoomParams,
    ZoomMode,
};

use crate::request::{ApiCall, ApiRequest, Caller, SILENT_ID, UsageError};
use crate::workspace::env_map;

pub use arrange::{MoveArgs, SwapArgs};
pub use report::{ReleaseAgentArgs, ReportAgentArgs, ReportAgentSessionArgs, ReportMetadataArgs};

#[derive(Debug, Subcommand)]
pub enum PaneCommand {
    /// List panes
    List {
        #[arg(long, value_name = "WORKSPACE_ID")]
        workspace: Option<String>,
    },
    /// Show the current pane (the caller's HERDR_PANE_ID, else the focused pane)
    Current(PaneTarget),
    /// Show a pane
    Get {
        #[arg(value_name = "PANE_ID")]
        pane_id: String,
    },
    /// Show pane layout information
    Layout(PaneTarget),
    /// Show pane process information
    ProcessInfo(PaneTarget),
    /// Find a pane neighbor
    Neighbor(DirectionArgs),
    /// Show pane edge information
    Edges(PaneTarget),
    /// Focus a neighboring pane
    Focus(DirectionArgs),
    /// Resize a pane split
    Resize(ResizeArgs),
    /// Toggle or set pane zoom
    Zoom(ZoomArgs),
    /// Swap panes
    Swap(SwapArgs),
    /// Move a pane to another tab, a new tab or a new workspace
    Move(MoveArgs),
    /// Rename a pane, or clear its label
    Rename(RenameArgs),
    /// Set pane input routing
    Input(InputArgs),
    /// Split a pane
    Split(SplitArgs),
    /// Close a pane
    Close {
        #[arg(value_name = "PANE_ID")]
        pane_id: String,
    },
    /// Read pane terminal output (prints the text verbatim)
    Read(ReadArgs),
    /// Send literal text to a pane (no Enter)
    SendText(InputWords),
    /// Send key presses to a pane (e.g. enter, ctrl+c, esc)
    #[command(after_help = crate::args::KEY_HELP)]
    SendKeys(InputWords),
    /// Run a command in a pane (text, then Enter)
    Run(InputWords),
    /// Wait for matching pane output
    WaitOutput(WaitOutputArgs),
    /// Report pane agent lifecycle state
    ReportAgent(ReportAgentArgs),
    /// Report pane agent session identity
    ReportAgentSession(ReportAgentSessionArgs),
    /// Release pane agent lifecycle authority
    ReleaseAgent(ReleaseAgentArgs),
    /// Report display-only pane metadata
    ReportMetadata(ReportMetadataArgs),
}

/// `[--pane ID | --current]`: an explicit pane, the caller's own pane, or (neither) the server's
/// focused pane.
#[derive(Debug, Args, Default)]
pub struct PaneTarget {
    /// Target this pane
    #[arg(long, value_name = "ID", overrides_with = "current")]
    pub pane: Option<String>,
    /// Use the caller's pane (HERDR_PANE_ID)
    #[arg(long, overrides_with = "pane")]
    pub current: bool,
}

impl PaneTarget {
    /// The pane to name in the request, if any. `--current` outside a pane names none, which
    /// falls back to the server's focused pane.
    fn resolve(&self, caller: &Caller) -> Option<String> {
        match (&self.pane, self.current) {
            (Some(pane), _) => Some(pane.clone()),
            (None, true) => caller.pane_id.clone(),
            (None, false) => None,
        }
    }

    /// Like [`PaneTarget::resolve`], for commands that also take the pane as a positional
    /// argument: `--pane`/`--current` win over it when given.
    fn resolve_or(&self, positional: &Option<String>, caller: &Caller) -> Option<String> {
        if self.pane.is_none() && !self.current { positional.clone() } else { self.resolve(caller) }
    }
}

#[derive(Debug, Args)]
pub struct DirectionArgs {
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub direction: Direction,
    #[command(flatten)]
    pub target: PaneTarget,
}

#[derive(Debug, Args)]
pub struct ResizeArgs {
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub direction: Direction,
    #[arg(long, value_name = "FLOAT", value_parser = parse_finite)]
    pub amount: Option<f64>,
    #[command(flatten)]
    pub target: PaneTarget,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("mode").args(["toggle", "on", "off"]).multiple(false)))]
pub struct ZoomArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: Option<String>,
    #[command(flatten)]
    pub target: PaneTarget,
    #[arg(long)]
    pub toggle: bool,
    #[arg(long)]
    pub on: bool,
    #[arg(long)]
    pub off: bool,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("new_label").args(["label", "clear"]).required(true).multiple(false)))]
#[command(override_usage = "herdr pane rename <PANE_ID> <LABEL>|--clear")]
pub struct RenameArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    /// The new label (several words are joined with spaces)
    #[arg(value_name = "LABEL", num_args = 1..)]
    pub label: Vec<String>,
    /// Remove the manual label
    #[arg(long)]
    pub clear: bool,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: Option<String>,
    #[command(flatten)]
    pub target: PaneTarget,
    #[arg(long = "right-click", value_enum, value_name = "TARGET", required = true)]
    pub right_click: RightClick,
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// The pane to split (default: the server's focused pane)
    #[arg(value_name = "PANE_ID")]
    pub pane_id: Option<String>,
    #[command(flatten)]
    pub target: PaneTarget,
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub direction: SplitDirection,
    /// Share of the space kept by the existing pane
    #[arg(long, value_name = "FLOAT", value_parser = parse_finite)]
    pub ratio: Option<f64>,
    /// Working directory of the new pane (passed through verbatim)
    #[arg(long, value_name = "PATH")]
    pub cwd: Option<String>,
    /// Set an environment variable for the new pane (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_env_assignment, action = ArgAction::Append)]
    pub env: Vec<(String, String)>,
    #[arg(long = "right-click", value_enum, value_name = "TARGET")]
    pub right_click: Option<RightClick>,
    /// Focus the new pane (off by default)
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus")]
    pub no_focus: bool,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
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
    /// ANSI output without stripping anything
    #[arg(long)]
    pub raw: bool,
}

/// `<PANE_ID> <WORD>...` for send-text, send-keys and run.
#[derive(Debug, Args)]
pub struct InputWords {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    /// Text, keys or command words (several are joined with spaces; keys are sent one by one)
    #[arg(value_name = "ARG", required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true)]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("matcher").args(["text", "regex"]).required(true).multiple(false)))]
#[command(after_help = "The selected snapshot is searched immediately, including existing output, then \
                        whenever new output arrives. Without --timeout, this waits indefinitely.")]
pub struct WaitOutputArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    /// Match a literal substring
    #[arg(long = "match", value_name = "TEXT", allow_hyphen_values = true)]
    pub text: Option<String>,
    /// Match a Rust regular expression (per line)
    #[arg(long, value_name = "PATTERN", allow_hyphen_values = true)]
    pub regex: Option<String>,
    /// Terminal snapshot source (default: recent)
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub source: Option<WaitSource>,
    /// Restrict the searched snapshot to N lines
    #[arg(long, value_name = "N")]
    pub lines: Option<u32>,
    /// Fail after this many milliseconds
    #[arg(long, value_name = "MS")]
    pub timeout: Option<u64>,
    /// Keep ANSI escape sequences while matching
    #[arg(long)]
    pub raw: bool,
}

fn pane(request: PaneRequest) -> Request {
    Request::Pane(request)
}

fn target(pane_id: &str) -> requests::PaneTarget {
    requests::PaneTarget { pane_id: pane_id.into() }
}

fn optional(pane_id: Option<String>) -> OptionalPane {
    OptionalPane { pane_id: pane_id.map(Into::into) }
}

/// The request for one `pane` subcommand.
pub fn call(command: &PaneCommand, caller: &Caller) -> Result<ApiCall, UsageError> {
    let envelope = ApiCall::envelope;
    let call = match command {
        PaneCommand::List { workspace } => envelope(ApiRequest::new(
            "cli:pane:list",
            pane(PaneRequest::List(OptionalWorkspace { workspace_id: workspace.as_deref().map(Into::into) })),
        )),
        PaneCommand::Current(target) => {
            // Unlike other commands, `pane current` asks about the caller's pane by default.
            let caller_pane = target.pane.clone().or_else(|| caller.pane_id.clone());
            envelope(ApiRequest::new(
                "cli:pane:current",
                pane(PaneRequest::Current(PaneCurrentParams { caller_pane_id: caller_pane.map(Into::into) })),
            ))
        }
        PaneCommand::Get { pane_id } => {
            envelope(ApiRequest::new("cli:pane:get", pane(PaneRequest::Get(target(pane_id)))))
        }
        PaneCommand::Layout(t) => envelope(ApiRequest::new(
            "cli:pane:layout",
            pane(PaneRequest::Layout(optional(t.resolve(caller)))),
        )),
        PaneCommand::ProcessInfo(t) => envelope(ApiRequest::new(
            "cli:pane:process_info",
            pane(PaneRequest::ProcessInfo(optional(t.resolve(caller)))),
        )),
        PaneCommand::Neighbor(args) => envelope(ApiRequest::new(
            "cli:pane:neighbor",
            pane(PaneRequest::Neighbor(directional(args, caller))),
        )),
        PaneCommand::Edges(t) => {
            envelope(ApiRequest::new("cli:pane:edges", pane(PaneRequest::Edges(optional(t.resolve(caller))))))
        }
        PaneCommand::Focus(args) => envelope(ApiRequest::new(
            "cli:pane:focus",
            pane(PaneRequest::FocusDirection(directional(args, caller))),
        )),
        PaneCommand::Resize(args) => envelope(ApiRequest::new(
            "cli:pane:resize",
            pane(PaneRequest::Resize(PaneResizeParams {
                direction: args.direction.wire(),
                amount: args.amount,
                pane_id: args.target.resolve(caller).map(Into::into),
            })),
        )),
        PaneCommand::Zoom(args) => {
            let mode = if args.on {
                ZoomMode::On
            } else if args.off {
                ZoomMode::Off
            } else {
                ZoomMode::Toggle
            };
            let pane_id = args.target.resolve_or(&args.pane_id, caller);
            envelope(ApiRequest::new(
                "cli:pane:zoom",
                pane(PaneRequest::Zoom(PaneZoomParams {
                    pane_id: pane_id.map(Into::into),
                    mode: Some(mode),
                })),
            ))
        }
        PaneCommand::Swap(args) => envelope(arrange::swap_request(args, caller)?),
        PaneCommand::Move(args) => envelope(arrange::move_request(args)?),
        PaneCommand::Rename(args) => {
            let label = (!args.clear).then(|| args.label.join(" "));
            envelope(ApiRequest::new(
                "cli:pane:rename",
                pane(PaneRequest::Rename(PaneRenameParams { pane_id: args.pane_id.as_str().into(), label })),
            ))
        }
        PaneCommand::Input(args) => {
            let pane_id = args.target.resolve_or(&args.pane_id, caller).ok_or_else(|| {
                UsageError::new(
                    "usage: herdr pane input [<PANE_ID>|--pane ID|--current] --right-click herdr|pane",
                )
            })?;
            envelope(ApiRequest::new(
                "cli:pane:input:set",
                pane(PaneRequest::InputSet(PaneInputSetParams {
                    pane_id: pane_id.into(),
                    right_click: args.right_click.wire(),
                })),
            ))
        }
        PaneCommand::Split(args) => {
            let pane_id = args.target.resolve_or(&args.pane_id, caller);
            envelope(ApiRequest::new(
                "cli:pane:split",
                pane(PaneRequest::Split(PaneSplitParams {
                    direction: args.direction.wire(),
                    target_pane_id: pane_id.map(Into::into),
                    workspace_id: None,
                    ratio: args.ratio,
                    cwd: args.cwd.clone(),
                    focus: Some(args.focus && !args.no_focus),
                    env: env_map(&args.env),
                    right_click: args.right_click.map(RightClick::wire),
                })),
            ))
        }
        PaneCommand::Close { pane_id } => {
            envelope(ApiRequest::new("cli:pane:close", pane(PaneRequest::Close(target(pane_id)))))
        }
        PaneCommand::Read(args) => ApiCall::read_text(read_request(args)),
        PaneCommand::SendText(input) => ApiCall::silent(ApiRequest::new(
            SILENT_ID,
            pane(PaneRequest::SendText(PaneSendTextParams {
                pane_id: input.pane_id.as_str().into(),
                text: input.words.join(" "),
            })),
        )),
        PaneCommand::SendKeys(input) => ApiCall::silent(ApiRequest::new(
            SILENT_ID,
            pane(PaneRequest::SendKeys(PaneSendKeysParams {
                pane_id: input.pane_id.as_str().into(),
                keys: input.words.clone(),
            })),
        )),
        PaneCommand::Run(input) => ApiCall::silent(ApiRequest::new(
            SILENT_ID,
            pane(PaneRequest::SendInput(PaneSendInputParams {
                pane_id: input.pane_id.as_str().into(),
                text: Some(input.words.join(" ")),
                keys: vec!["Enter".to_owned()],
            })),
        )),
        PaneCommand::WaitOutput(args) => envelope(wait_output_request(args)?),
        PaneCommand::ReportAgent(args) => ApiCall::silent(args.request()?),
        PaneCommand::ReportAgentSession(args) => ApiCall::silent(args.request()?),
        PaneCommand::ReleaseAgent(args) => ApiCall::silent(args.request()?),
        PaneCommand::ReportMetadata(args) => ApiCall::silent(args.request()?),
    };
    Ok(call)
}

fn directional(args: &DirectionArgs, caller: &Caller) -> PaneDirectional {
    PaneDirectional { direction: args.direction.wire(), pane_id: args.target.resolve(caller).map(Into::into) }
}

fn read_request(args: &ReadArgs) -> ApiRequest {
    let mut format = args.format.unwrap_or(ReadFormat::Text);
    let mut strip_ansi = true;
    if args.ansi {
        format = ReadFormat::Ansi;
    }
    if args.raw {
        format = ReadFormat::Ansi;
        strip_ansi = false;
    }
    ApiRequest::new(
        "cli:pane:read",
        pane(PaneRequest::Read(PaneReadParams {
            pane_id: args.pane_id.as_str().into(),
            source: args.source.unwrap_or(ReadSource::Recent).wire(),
            lines: args.lines,
            format: Some(format.wire()),
            strip_ansi: Some(strip_ansi),
        })),
    )
}

fn wait_output_request(args: &WaitOutputArgs) -> Result<ApiRequest, UsageError> {
    let matcher = match (&args.text, &args.regex) {
        (None, Some(regex)) => OutputMatch::Regex(regex.clone()),
        (Some(text), None) => OutputMatch::Substring(text.clone()),
        (Some(_), Some(_)) => return Err(UsageError::new("--match and --regex are mutually exclusive")),
        (None, None) => return Err(UsageError::new("missing required --match or --regex")),
    };
    Ok(ApiRequest::new(
        "cli:pane:wait-output",
        pane(PaneRequest::WaitForOutput(PaneWaitForOutputParams {
            pane_id: args.pane_id.as_str().into(),
            source: args.source.unwrap_or(WaitSource::Recent).wire(),
            lines: args.lines,
            matcher,
            timeout_ms: args.timeout,
            strip_ansi: Some(!args.raw),
        })),
    ))
}
