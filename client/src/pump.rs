//! The attached loop: one thread forwards stdin to the server, one turns signals into resizes
//! or an exit, and the calling thread writes the server's paints to stdout until the
//! connection ends.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use herdr_protocol::client::{ClientToServer, MAX_INPUT_CHUNK, NotifyVia, ServerToClient, ShutdownReason};
use signal_hook::consts::{SIGHUP, SIGTERM, SIGWINCH};
use signal_hook::iterator::Signals;

use crate::link::{Link, Writer};
use crate::{AttachError, ExitReason};
use crate::{clipboard, notify, terminal};

type SharedWriter = Arc<Mutex<Writer>>;

pub(crate) fn run(mut link: Link) -> Result<ExitReason, AttachError> {
    let writer: SharedWriter = Arc::new(Mutex::new(link.writer()?));
    let terminal_closed = Arc::new(AtomicBool::new(false));
    let mut signals = Signals::new([SIGWINCH, SIGHUP, SIGTERM])?;
    let signal_handle = signals.handle();
    {
        let (writer, closed) = (writer.clone(), terminal_closed.clone());
        thread::spawn(move || forward_input(&writer, &closed));
    }
    {
        let (writer, closed) = (writer.clone(), terminal_closed.clone());
        thread::spawn(move || {
            for signal in signals.forever() {
                if signal == SIGWINCH {
                    if let Ok((cols, rows)) = crossterm::terminal::size() {
                        let _ = lock(&writer).send(&ClientToServer::Resize { cols, rows });
                    }
                } else {
                    closed.store(true, Ordering::SeqCst);
                    lock(&writer).close();
                    break;
                }
            }
        });
    }
    let result = paint(&mut link, &terminal_closed);
    signal_handle.close();
    lock(&writer).close();
    result
}

fn lock(writer: &SharedWriter) -> std::sync::MutexGuard<'_, Writer> {
    writer.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Stdin bytes to the server, as read. End of input means the terminal is gone.
fn forward_input(writer: &SharedWriter, closed: &AtomicBool) {
    let mut stdin = io::stdin().lock();
    let mut buf = vec![0u8; MAX_INPUT_CHUNK];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) | Err(_) => {
                closed.store(true, Ordering::SeqCst);
                lock(writer).close();
                return;
            }
            Ok(n) => {
                if lock(writer).send(&ClientToServer::Input(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes paints until the server ends the conversation.
fn paint(link: &mut Link, terminal_closed: &AtomicBool) -> Result<ExitReason, AttachError> {
    let mut out = io::stdout().lock();
    let gone = || {
        if terminal_closed.load(Ordering::SeqCst) {
            ExitReason::TerminalClosed
        } else {
            ExitReason::ConnectionLost
        }
    };
    loop {
        let msg = match link.recv() {
            Ok(Some(msg)) => msg,
            Ok(None) => return Ok(gone()),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(AttachError::Protocol(e.to_string()));
            }
            Err(_) => return Ok(gone()),
        };
        let bytes = match msg {
            ServerToClient::Frame(update) => update.to_ansi(),
            ServerToClient::Ansi(bytes) => bytes,
            ServerToClient::Bell => b"\x07".to_vec(),
            ServerToClient::Clipboard(text) => clipboard::osc52(&text),
            ServerToClient::MouseCapture { enabled } => terminal::mouse_capture(enabled),
            ServerToClient::Notify { title, body, via: NotifyVia::Terminal } => {
                notify::osc9(&title, body.as_deref(), std::env::var_os("TMUX").is_some())
            }
            ServerToClient::Notify { title, body, via: NotifyVia::System } => {
                notify::system(&title, body.as_deref());
                continue;
            }
            ServerToClient::Shutdown { reason } => {
                return match reason {
                    ShutdownReason::Detached => Ok(ExitReason::Detached),
                    ShutdownReason::ServerStopping => Ok(ExitReason::ServerStopping),
                    ShutdownReason::ProtocolError(text) => Err(AttachError::Protocol(text)),
                };
            }
            ServerToClient::Welcome { .. } => {
                return Err(AttachError::Protocol("a second Welcome arrived".into()));
            }
        };
        if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
            return Ok(ExitReason::TerminalClosed);
        }
    }
}
