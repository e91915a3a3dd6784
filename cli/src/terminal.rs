//! `herdr terminal …`: `title set|clear` overrides the outer terminal's window title
//! (`client.window_title.*`); `attach ID [--takeover]` and `session observe|control TARGET`
//! are direct terminal attaches over the client socket ([`attach`]).

pub mod attach;

use clap::{Args, Subcommand};

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{ClientRequest, ClientWindowTitleSetParams, EmptyParams};

use crate::request::{ApiCall, ApiRequest, UsageError};

#[derive(Debug, Subcommand)]
pub enum TerminalCommand {
    /// Manage the outer terminal title
    #[command(subcommand)]
    Title(TitleCommand),
    /// Open this terminal on one pane (detach with ctrl+b q; ctrl+b ctrl+b sends ctrl+b)
    Attach(AttachArgs),
    /// Stream a pane as NDJSON terminal.frame records, for bridges
    #[command(subcommand)]
    Session(SessionCommand),
}

#[derive(Debug, Clone, Args)]
pub struct AttachArgs {
    /// Terminal id (or pane id) to attach to
    #[arg(value_name = "TERMINAL_ID")]
    pub target: String,
    /// Become the pane's writable owner even if another client attached first
    #[arg(long)]
    pub takeover: bool,
}

#[derive(Debug, Clone, Subcommand)]
pub enum SessionCommand {
    /// Own the pane: frames on stdout, NDJSON terminal.input/resize/release commands on stdin
    Control {
        #[arg(value_name = "TARGET")]
        target: String,
        /// Become the pane's writable owner even if another client attached first
        #[arg(long)]
        takeover: bool,
        #[command(flatten)]
        size: SessionSize,
    },
    /// Watch the pane read-only: frames on stdout
    Observe {
        #[arg(value_name = "TARGET")]
        target: String,
        #[command(flatten)]
        size: SessionSize,
    },
}

/// The size a session stream is seen at (upstream's defaults).
#[derive(Debug, Clone, Copy, Args)]
pub struct SessionSize {
    #[arg(long, value_name = "N", default_value_t = 120, value_parser = clap::value_parser!(u16).range(1..))]
    pub cols: u16,
    #[arg(long, value_name = "N", default_value_t = 40, value_parser = clap::value_parser!(u16).range(1..))]
    pub rows: u16,
}

#[derive(Debug, Subcommand)]
pub enum TitleCommand {
    /// Set the outer terminal title
    Set {
        #[arg(value_name = "TITLE")]
        title: String,
    },
    /// Clear the outer terminal title
    Clear,
}

/// `terminal title …`: one request.
pub fn title_call(title: &TitleCommand) -> Result<ApiCall, UsageError> {
    let request = match title {
        TitleCommand::Set { title } => ApiRequest::new(
            "cli:terminal:title:set",
            Request::Client(ClientRequest::WindowTitleSet(ClientWindowTitleSetParams {
                title: title.clone(),
            })),
        ),
        TitleCommand::Clear => ApiRequest::new(
            "cli:terminal:title:clear",
            Request::Client(ClientRequest::WindowTitleClear(EmptyParams {})),
        ),
    };
    Ok(ApiCall::envelope(request))
}
