//! `herdr notification show`: one `notification.show` request.

use clap::{Args, Subcommand, ValueEnum};

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    ClientRequest, NotificationShowParams, NotificationSound, ToastPosition,
};

use crate::request::{ApiCall, ApiRequest, UsageError};

#[derive(Debug, Subcommand)]
pub enum NotificationCommand {
    /// Show a notification
    Show(ShowArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Position {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

impl Position {
    fn wire(self) -> ToastPosition {
        match self {
            Position::TopLeft => ToastPosition::TopLeft,
            Position::TopRight => ToastPosition::TopRight,
            Position::BottomLeft => ToastPosition::BottomLeft,
            Position::BottomRight => ToastPosition::BottomRight,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Sound {
    None,
    Done,
    Request,
}

impl Sound {
    fn wire(self) -> NotificationSound {
        match self {
            Sound::None => NotificationSound::None,
            Sound::Done => NotificationSound::Done,
            Sound::Request => NotificationSound::Request,
        }
    }
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[arg(value_name = "TITLE")]
    pub title: String,
    #[arg(long, value_name = "TEXT")]
    pub body: Option<String>,
    #[arg(long, value_enum, value_name = "POSITION")]
    pub position: Option<Position>,
    #[arg(long, value_enum, value_name = "SOUND")]
    pub sound: Option<Sound>,
}

pub fn call(command: &NotificationCommand) -> Result<ApiCall, UsageError> {
    let NotificationCommand::Show(args) = command;
    Ok(ApiCall::envelope(ApiRequest::new(
        "cli:notification:show",
        Request::Client(ClientRequest::NotificationShow(NotificationShowParams {
            title: args.title.clone(),
            body: args.body.clone(),
            position: args.position.map(Position::wire),
            sound: args.sound.map(Sound::wire),
        })),
    )))
}
