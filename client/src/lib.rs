//! The herdr terminal client: connects to a supervisor's `herdr-client.sock`, says `Hello` with
//! the terminal's size, then puts the terminal in raw mode on the alternate screen (bracketed
//! paste, focus reporting and SGR mouse on), forwards every byte typed as `Input`, sends a
//! `Resize` on SIGWINCH, and writes the paints it receives. Keys are interpreted by the
//! supervisor, so this stays thin; `prefix+q` there detaches.
//!
//! Desktop notifications the supervisor sends are written as OSC 9 or handed to the desktop
//! notifier (the `notify` module). Copies arrive as OSC 52 for the
//! terminal's clipboard (the `clipboard` module). Not here: starting a supervisor (the CLI does
//! that), sounds. The terminal is restored on every exit path:
//! detach, server gone, errors, and panics (a panic hook restores before the message prints).

mod clipboard;
mod link;
mod notify;
mod pump;
mod terminal;

use std::io;
use std::path::Path;

pub use link::{Link, connect};

/// Why an attached session ended normally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitReason {
    /// The user detached (`prefix+q`); the session keeps running.
    Detached,
    /// The supervisor is stopping.
    ServerStopping,
    /// The supervisor closed the connection without saying why (it crashed or was killed).
    ConnectionLost,
    /// The terminal went away (SIGHUP, SIGTERM or end of input); the session keeps running.
    TerminalClosed,
}

#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("cannot connect to {path}: {source}")]
    Connect { path: String, source: io::Error },
    /// The supervisor refused the client (a protocol version mismatch, for one).
    #[error("{0}")]
    Refused(String),
    #[error("the handshake with the server failed: {0}")]
    Handshake(String),
    #[error("the server broke the client protocol: {0}")]
    Protocol(String),
    #[error("cannot set up the terminal: {0}")]
    Terminal(io::Error),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Attaches this process's terminal to the supervisor at `client_socket` until detach, the
/// server going away or the terminal closing. Handshake problems (including a version
/// mismatch) are reported before the terminal is touched.
pub fn attach(client_socket: &Path) -> Result<ExitReason, AttachError> {
    let (cols, rows) = crossterm::terminal::size().map_err(AttachError::Terminal)?;
    let link = connect(client_socket, cols, rows)?;
    let guard = terminal::HostTerminal::enter().map_err(AttachError::Terminal)?;
    let result = pump::run(link);
    drop(guard);
    result
}
