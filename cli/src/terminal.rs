//! `herdr terminal title set|clear`: override the outer terminal's window title
//! (`client.window_title.*`). Terminal attach/session streams use the client socket and come
//! with the terminal UI work.

use clap::Subcommand;

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{ClientRequest, ClientWindowTitleSetParams, EmptyParams};

use crate::request::{ApiCall, ApiRequest, UsageError};

#[derive(Debug, Subcommand)]
pub enum TerminalCommand {
    /// Manage the outer terminal title
    #[command(subcommand)]
    Title(TitleCommand),
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

pub fn call(command: &TerminalCommand) -> Result<ApiCall, UsageError> {
    let TerminalCommand::Title(title) = command;
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
