//! The herdr terminal client: connects to a supervisor's `herdr-client.sock`, says `Hello` with
//! the terminal's size, then puts the terminal in raw mode on the alternate screen (bracketed
//! paste, focus reporting and SGR mouse on), forwards every byte typed as `Input`, sends a
//! `Resize` on SIGWINCH, and writes the paints it receives. Keys are interpreted by the
//! supervisor, so this stays thin; `prefix+q` there detaches.
//!
//! When the connection ends without a `Shutdown` (the supervisor crashed or was killed; its
//! panes live on in their workers and a new supervisor re-adopts them), the client stays
//! attached: a notice on the bottom row says it is reconnecting, keys typed meanwhile are held
//! for the next server when it answers within two seconds (a live handoff) and dropped after a
//! longer outage, a local `ctrl+b q` detaches, and it retries the same socket with backoff (the
//! `reconnect` module), running the caller's hook to start a server when nobody listens. The
//! new server's first paint replaces the screen.
//!
//! Desktop notifications the supervisor sends are written as OSC 9 or handed to the desktop
//! notifier (the `notify` module). Copies arrive as OSC 52 for the
//! terminal's clipboard (the `clipboard` module). Not here: how to start a supervisor (the CLI
//! passes that in as a hook), sounds. The terminal is restored on every exit path:
//! detach, server gone, errors, and panics (a panic hook restores before the message prints).
//!
//! [`mod@attach`] is the other kind of client: a direct terminal attach showing one pane alone (and
//! its NDJSON form for programs, [`attach::bridge`]).

pub mod attach;
mod clipboard;
mod detach_chord;
mod input;
mod link;
mod notify;
mod pump;
mod reconnect;
mod terminal;

use std::io;
use std::path::Path;
use std::thread;
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGTERM, SIGWINCH};
use signal_hook::iterator::Signals;

pub use link::{Link, connect, connect_with_keys};
pub use pump::{Controls, Session, SizeFn, TerminalIo};
pub use reconnect::ReconnectPolicy;

/// What a [`ServerMissingHook`] fails with; its text ends up in the give-up message.
pub type HookError = Box<dyn std::error::Error + Send + Sync>;

/// Called (on its own thread, never twice at once, at most once per
/// [`ReconnectPolicy::hook_interval`]) when a reconnect attempt finds nobody listening at the
/// client socket; it should start a server and return once that answers.
pub type ServerMissingHook = Box<dyn FnMut() -> Result<(), HookError> + Send>;

/// How [`attach_with`] (or a [`Session`]) behaves when the server goes away.
#[derive(Default)]
pub struct AttachOptions {
    pub on_server_missing: Option<ServerMissingHook>,
    pub reconnect: ReconnectPolicy,
    /// This client's own `[keys]` TOML, sent after each `Hello` so the supervisor uses them
    /// for this client (`herdr --remote` with local key bindings); `None` = the server's keys.
    pub keys: Option<String>,
}

impl std::fmt::Debug for AttachOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttachOptions")
            .field("on_server_missing", &self.on_server_missing.as_ref().map(|_| "<hook>"))
            .field("reconnect", &self.reconnect)
            .field("keys", &self.keys)
            .finish()
    }
}

/// Why an attached session ended normally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitReason {
    /// The user detached (`prefix+q`); the session keeps running.
    Detached,
    /// The supervisor is stopping.
    ServerStopping,
    /// The supervisor closed the connection without saying why (it crashed or was killed) and
    /// no server welcomed the client again within `waited`; `last_error` is the last reason an
    /// attempt (or the hook starting a server) failed.
    ConnectionLost { waited: Duration, last_error: Option<String> },
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
/// server stopping or the terminal closing, reconnecting without starting a server when the
/// connection is lost. Handshake problems (including a version mismatch) are reported before
/// the terminal is touched.
pub fn attach(client_socket: &Path) -> Result<ExitReason, AttachError> {
    attach_with(client_socket, AttachOptions::default())
}

/// This process's terminal opened afresh, read-write, for the supervisor to read and paint (its
/// own open file description, so the supervisor making it non-blocking leaves ours alone); `None`
/// when input or output is not that terminal. Opened by its own name where `/proc` tells it (the
/// supervisor's descriptor then shows which terminal it is), else as `/dev/tty`.
fn own_terminal() -> Option<std::fs::File> {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return None;
    }
    let named = std::fs::read_link("/proc/self/fd/0").ok().filter(|path| path.starts_with("/dev/"));
    let path = named.unwrap_or_else(|| "/dev/tty".into());
    std::fs::OpenOptions::new().read(true).write(true).open(path).ok()
}

/// [`attach()`] with the reconnect behaviour spelled out.
pub fn attach_with(client_socket: &Path, options: AttachOptions) -> Result<ExitReason, AttachError> {
    let (cols, rows) = crossterm::terminal::size().map_err(AttachError::Terminal)?;
    let terminal = own_terminal();
    let link = link::connect_offering(client_socket, cols, rows, options.keys.as_deref(), terminal.as_ref())?;
    let io = TerminalIo {
        input: Box::new(io::stdin()),
        terminal,
        output: Box::new(io::stdout()),
        size: Box::new(crossterm::terminal::size),
    };
    let session = Session::new(client_socket, link, io, options)?;
    let mut signals = Signals::new([SIGWINCH, SIGHUP, SIGTERM])?;
    let signal_handle = signals.handle();
    let controls = session.controls();
    thread::Builder::new().name("herdr-signals".into()).spawn(move || {
        for signal in signals.forever() {
            if signal == SIGWINCH {
                controls.resized();
            } else {
                controls.terminal_closed();
                break;
            }
        }
    })?;
    let guard = terminal::HostTerminal::enter().map_err(AttachError::Terminal)?;
    let result = session.run();
    signal_handle.close();
    drop(guard);
    result
}
