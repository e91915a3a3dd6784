//! Direct terminal attach: this terminal shows one pane alone (`herdr agent attach`, `herdr
//! terminal attach`) as the pane's writable owner. The supervisor sends ANSI frames of the pane
//! at this terminal's size, written here as they come; typed bytes go to the pane unchanged
//! except for this module's own keys (`escape`: `ctrl+b q` detaches, `ctrl+b ctrl+b` sends a
//! literal `ctrl+b`); SIGWINCH resizes the pane. No reconnecting: when the connection ends the
//! attach does, saying why ([`AttachEnd`]).
//!
//! [`bridge`] is the same stream for programs: `terminal session observe|control` as NDJSON.

pub mod bridge;
mod escape;

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use herdr_protocol::client::{AttachRole, ClientToServer, ServerToClient, ShutdownReason};
use signal_hook::consts::{SIGHUP, SIGTERM, SIGWINCH};
use signal_hook::iterator::Signals;

use crate::link::{Link, Writer, connect_terminal};
use crate::{AttachError, terminal};
use escape::{Escape, Filtered};

/// How a direct attach ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachEnd {
    /// The user detached (`ctrl+b q`), or the terminal went away; the pane runs on.
    Detached,
    /// Another client attached with `--takeover`.
    TakenOver,
    /// The pane ended (its terminal id).
    PaneEnded(String),
    /// The supervisor is stopping.
    ServerStopping,
    /// The connection closed without a reason (the supervisor died, or the client protocol
    /// was broken: the text says how).
    Lost(String),
}

impl AttachEnd {
    fn of(reason: ShutdownReason) -> AttachEnd {
        match reason {
            ShutdownReason::Detached => AttachEnd::Detached,
            ShutdownReason::TakenOver => AttachEnd::TakenOver,
            ShutdownReason::PaneEnded(terminal) => AttachEnd::PaneEnded(terminal),
            ShutdownReason::ServerStopping => AttachEnd::ServerStopping,
            ShutdownReason::ProtocolError(why) => AttachEnd::Lost(format!("protocol error: {why}")),
        }
    }
}

/// Attaches this terminal to `target` (a terminal id, pane id or agent target) at
/// `client_socket` until it ends. With `takeover` an existing owner is displaced; without, a
/// pane that has one is refused ([`AttachError::Refused`], before the terminal is touched).
pub fn attach_terminal(client_socket: &Path, target: &str, takeover: bool) -> Result<AttachEnd, AttachError> {
    let (cols, rows) = crossterm::terminal::size().map_err(AttachError::Terminal)?;
    let mut link = connect_terminal(client_socket, cols, rows, target, AttachRole::Control { takeover })?;
    let writer = Arc::new(Mutex::new(link.writer()?));
    let mut signals = Signals::new([SIGWINCH, SIGHUP, SIGTERM])?;
    let signal_handle = signals.handle();
    let on_signal = writer.clone();
    thread::Builder::new().name("herdr-attach-signals".into()).spawn(move || {
        for signal in signals.forever() {
            let mut writer = on_signal.lock().unwrap_or_else(PoisonError::into_inner);
            if signal == SIGWINCH {
                if let Ok((cols, rows)) = crossterm::terminal::size() {
                    let _ = writer.send(&ClientToServer::Resize { cols, rows });
                }
            } else {
                let _ = writer.send(&ClientToServer::Detach);
                break;
            }
        }
    })?;
    let guard = terminal::HostTerminal::enter_plain().map_err(AttachError::Terminal)?;
    let typing = writer.clone();
    thread::Builder::new().name("herdr-attach-input".into()).spawn(move || forward_input(&typing))?;
    let end = show(&mut link, &mut io::stdout());
    signal_handle.close();
    writer.lock().unwrap_or_else(PoisonError::into_inner).close();
    drop(guard);
    end
}

/// Stdin to the pane through the attach's own keys, until detach or end of input.
fn forward_input(writer: &Mutex<Writer>) {
    let mut escape = Escape::default();
    let mut stdin = io::stdin().lock();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => 0,
            Ok(n) => n,
        };
        let (bytes, detach) = match escape.filter(&buf[..n]) {
            _ if n == 0 => (Vec::new(), true),
            Filtered::Forward(bytes) => (bytes, false),
            Filtered::Detach(bytes) => (bytes, true),
        };
        let mut writer = writer.lock().unwrap_or_else(PoisonError::into_inner);
        if !bytes.is_empty() && writer.send(&ClientToServer::Input(bytes)).is_err() {
            return;
        }
        if detach {
            let _ = writer.send(&ClientToServer::Detach);
            return;
        }
    }
}

/// Writes the pane's frames to `out` until the supervisor ends the attach.
fn show(link: &mut Link, out: &mut impl Write) -> Result<AttachEnd, AttachError> {
    loop {
        match link.recv() {
            Ok(Some(ServerToClient::Terminal(frame))) => {
                out.write_all(&frame.bytes)?;
                out.flush()?;
            }
            Ok(Some(ServerToClient::Bell)) => {
                out.write_all(b"\x07")?;
                out.flush()?;
            }
            Ok(Some(ServerToClient::Shutdown { reason })) => return Ok(AttachEnd::of(reason)),
            Ok(Some(_)) => {}
            Ok(None) => return Ok(AttachEnd::Lost("the server closed the connection".into())),
            Err(e) => return Ok(AttachEnd::Lost(e.to_string())),
        }
    }
}
