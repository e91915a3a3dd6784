//! `herdr terminal session observe|control`: a direct terminal attach for programs. Every frame
//! of the pane is printed as one NDJSON record, upstream's shape:
//! `{"type":"terminal.frame","seq","encoding":"ansi","width","height","full","bytes"}` with the
//! frame's terminal bytes in base64, and the end as `{"type":"terminal.closed","reason"}`.
//! `control` is the pane's writable owner and also reads NDJSON commands on stdin:
//! `terminal.input {text | bytes (base64)}`, `terminal.resize {cols, rows}` and
//! `terminal.release {}` (detach; end of input does the same). Upstream's `terminal.scroll` and
//! `terminal.mouse` are refused with a message: this build forwards only bytes to the pane.

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use herdr_protocol::client::{AttachRole, ClientToServer, ServerToClient};
use serde::Deserialize;
use serde_json::json;

use crate::AttachError;
use crate::link::{Link, Writer, connect_terminal};

/// Prints `target`'s frames, seen at `cols` × `rows`, to `out` until the attach ends.
pub fn observe(
    client_socket: &Path,
    target: &str,
    cols: u16,
    rows: u16,
    out: &mut impl Write,
) -> Result<(), AttachError> {
    let mut link = connect_terminal(client_socket, cols, rows, target, AttachRole::Observe)?;
    print_frames(&mut link, out)
}

/// [`observe`] as `target`'s writable owner (sized `cols` × `rows`), writing the commands read
/// from `input` to it.
pub fn control(
    client_socket: &Path,
    target: &str,
    takeover: bool,
    (cols, rows): (u16, u16),
    input: impl BufRead + Send + 'static,
    out: &mut impl Write,
) -> Result<(), AttachError> {
    let mut link = connect_terminal(client_socket, cols, rows, target, AttachRole::Control { takeover })?;
    let writer = Arc::new(Mutex::new(link.writer()?));
    let commands = writer.clone();
    thread::Builder::new()
        .name("herdr-session-input".into())
        .spawn(move || read_commands(input, &commands))?;
    let printed = print_frames(&mut link, out);
    writer.lock().unwrap_or_else(PoisonError::into_inner).close();
    printed
}

fn print_frames(link: &mut Link, out: &mut impl Write) -> Result<(), AttachError> {
    loop {
        let record = match link.recv() {
            Ok(Some(ServerToClient::Terminal(frame))) => json!({
                "type": "terminal.frame",
                "seq": frame.seq,
                "encoding": "ansi",
                "width": frame.width,
                "height": frame.height,
                "full": frame.full,
                "bytes": STANDARD.encode(&frame.bytes),
            }),
            Ok(Some(ServerToClient::Shutdown { reason })) => {
                json!({"type": "terminal.closed", "reason": reason.to_string()})
            }
            Ok(Some(_)) => continue,
            Ok(None) => return Ok(()),
            Err(e) => return Err(AttachError::Protocol(e.to_string())),
        };
        let closed = record["type"] == "terminal.closed";
        writeln!(out, "{record}")?;
        out.flush()?;
        if closed {
            return Ok(());
        }
    }
}

/// One command line of `control`'s input.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum Command {
    #[serde(rename = "terminal.input")]
    Input { text: Option<String>, bytes: Option<String> },
    #[serde(rename = "terminal.resize")]
    Resize { cols: u16, rows: u16 },
    #[serde(rename = "terminal.release")]
    Release {},
    #[serde(rename = "terminal.scroll")]
    Scroll {},
    #[serde(rename = "terminal.mouse")]
    Mouse {},
}

/// Why a command line was ignored.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BadCommand {
    #[error("invalid json command: {0}")]
    Json(#[from] serde_json::Error),
    #[error("terminal.input accepts text or bytes, not both")]
    TextAndBytes,
    #[error("invalid terminal.input bytes: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("terminal.resize cols and rows must be greater than 0")]
    ZeroSize,
    #[error("{0} is not supported by this herdr (only input, resize and release are)")]
    Unsupported(&'static str),
}

/// The message a command line asks for.
pub(crate) fn command_message(line: &str) -> Result<ClientToServer, BadCommand> {
    Ok(match serde_json::from_str::<Command>(line)? {
        Command::Input { text: Some(_), bytes: Some(_) } => return Err(BadCommand::TextAndBytes),
        Command::Input { text: Some(text), bytes: None } => ClientToServer::Input(text.into_bytes()),
        Command::Input { text: None, bytes: Some(bytes) } => ClientToServer::Input(STANDARD.decode(bytes)?),
        Command::Input { text: None, bytes: None } => ClientToServer::Input(Vec::new()),
        Command::Resize { cols: 0, .. } | Command::Resize { rows: 0, .. } => {
            return Err(BadCommand::ZeroSize);
        }
        Command::Resize { cols, rows } => ClientToServer::Resize { cols, rows },
        Command::Release {} => ClientToServer::Detach,
        Command::Scroll {} => return Err(BadCommand::Unsupported("terminal.scroll")),
        Command::Mouse {} => return Err(BadCommand::Unsupported("terminal.mouse")),
    })
}

fn read_commands(input: impl BufRead, writer: &Mutex<Writer>) {
    for line in input.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        match command_message(&line) {
            Ok(msg) => {
                let release = msg == ClientToServer::Detach;
                if writer.lock().unwrap_or_else(PoisonError::into_inner).send(&msg).is_err() || release {
                    return;
                }
            }
            Err(err) => {
                let _ = writeln!(io::stderr(), "herdr: terminal session control input ignored: {err}");
            }
        }
    }
    let _ = writer.lock().unwrap_or_else(PoisonError::into_inner).send(&ClientToServer::Detach);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_takes_text_or_base64_bytes() {
        assert_eq!(
            command_message(r#"{"type":"terminal.input","text":"ls\r"}"#).expect("a command"),
            ClientToServer::Input(b"ls\r".to_vec())
        );
        assert_eq!(
            command_message(r#"{"type":"terminal.input","bytes":"AwQ="}"#).expect("a command"),
            ClientToServer::Input(vec![3, 4])
        );
        assert!(matches!(
            command_message(r#"{"type":"terminal.input","text":"a","bytes":"YQ=="}"#),
            Err(BadCommand::TextAndBytes)
        ));
        assert!(matches!(
            command_message(r#"{"type":"terminal.input","bytes":"!!"}"#),
            Err(BadCommand::Base64(_))
        ));
    }

    #[test]
    fn resize_and_release_and_what_is_refused() {
        assert_eq!(
            command_message(r#"{"type":"terminal.resize","cols":90,"rows":20,"cell_width_px":8}"#)
                .expect("a command"),
            ClientToServer::Resize { cols: 90, rows: 20 }
        );
        assert!(matches!(
            command_message(r#"{"type":"terminal.resize","cols":0,"rows":20}"#),
            Err(BadCommand::ZeroSize)
        ));
        assert_eq!(
            command_message(r#"{"type":"terminal.release"}"#).expect("a command"),
            ClientToServer::Detach
        );
        assert!(matches!(
            command_message(r#"{"type":"terminal.scroll","direction":"up","lines":3}"#),
            Err(BadCommand::Unsupported("terminal.scroll"))
        ));
        assert!(matches!(command_message("not json"), Err(BadCommand::Json(_))));
    }
}
