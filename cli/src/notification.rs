//! `herdr notification show`: one `notification.show` request.

use clap::{Args, Subcommand, ValueEnum};

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
    fn wire(self) -> &'static str {
        match self {
            Position::TopLeft => "top-left",
            Position::TopRight => "top-right",
            Position::BottomLeft => "bottom-left",
            Position::BottomRight => "bottom-right",
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
    fn wire(self) -> &'static str {
        match self {
            Sound::None => "none",
            Sound::Done => "done",
            Sound::Request => "request",
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
    Ok(ApiCall::envelope(
        ApiRequest::new("cli:notification:show", "notification.show")
            .with("title", args.title.as_str())
            .with_opt("body", args.body.clone())
            .with_opt("position", args.position.map(Position::wire))
            .with_opt("sound", args.sound.map(Sound::wire)),
    ))
}
