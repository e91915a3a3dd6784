//! The client's end of `herdr-client.sock`: connecting, the `Hello`/`Welcome` handshake, and
//! reading and writing whole frames on a blocking socket.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use herdr_protocol::client::{AttachRole, CLIENT_PROTOCOL_VERSION, ClientToServer, Encoding, ServerToClient};
use herdr_protocol::ipc::{FrameDecoder, encode_frame};
use sendfd::SendWithFd;

use crate::AttachError;

/// How long the supervisor may take to answer `Hello`.
const WELCOME_TIMEOUT: Duration = Duration::from_secs(10);

/// A connected, welcomed client link.
#[derive(Debug)]
pub struct Link {
    stream: UnixStream,
    frames: FrameDecoder,
    /// The `Hello` carried this client's terminal (the supervisor may take it).
    pub(crate) offered_terminal: bool,
}

/// Connects to `client_socket` and does the handshake for a `cols` × `rows` terminal that
/// wants cell updates.
pub fn connect(client_socket: &Path, cols: u16, rows: u16) -> Result<Link, AttachError> {
    connect_with_keys(client_socket, cols, rows, None)
}

/// [`connect`], then, with `keys` (a `[keys]` TOML table), asks the supervisor to use them for
/// this client instead of its own config's (`ClientToServer::Keys`).
pub fn connect_with_keys(
    client_socket: &Path,
    cols: u16,
    rows: u16,
    keys: Option<&str>,
) -> Result<Link, AttachError> {
    connect_offering(client_socket, cols, rows, keys, None)
}

/// [`connect_with_keys`], handing `terminal` (this client's terminal, opened read-write) over
/// with the `Hello`: a supervisor that takes it reads the keys and writes the paints itself (see
/// the client protocol's module doc).
pub(crate) fn connect_offering(
    client_socket: &Path,
    cols: u16,
    rows: u16,
    keys: Option<&str>,
    terminal: Option<&File>,
) -> Result<Link, AttachError> {
    let stream = UnixStream::connect(client_socket)
        .map_err(|source| AttachError::Connect { path: client_socket.display().to_string(), source })?;
    let mut link = Link { stream, frames: FrameDecoder::new(), offered_terminal: terminal.is_some() };
    let hello =
        ClientToServer::Hello { version: CLIENT_PROTOCOL_VERSION, cols, rows, encoding: Encoding::CellDiff };
    match terminal {
        Some(terminal) => link.send_with_fd(&hello, terminal)?,
        None => link.send(&hello)?,
    }
    if let Some(keys) = keys {
        link.send(&ClientToServer::Keys(keys.to_owned()))?;
    }
    link.welcomed()
}

/// Connects to `client_socket` as a direct terminal attach of `target` (see
/// [`ClientToServer::AttachTerminal`]) from a `cols` × `rows` terminal, and waits for the
/// supervisor's `Welcome` (a refusal says why: an unknown target, a pane already owned).
pub fn connect_terminal(
    client_socket: &Path,
    cols: u16,
    rows: u16,
    target: &str,
    role: AttachRole,
) -> Result<Link, AttachError> {
    let stream = UnixStream::connect(client_socket)
        .map_err(|source| AttachError::Connect { path: client_socket.display().to_string(), source })?;
    let mut link = Link { stream, frames: FrameDecoder::new(), offered_terminal: false };
    let version = CLIENT_PROTOCOL_VERSION;
    link.send(&ClientToServer::AttachTerminal { version, cols, rows, target: target.to_owned(), role })?;
    link.welcomed()
}

impl Link {
    /// Waits for the answer to the first frame.
    fn welcomed(mut self) -> Result<Link, AttachError> {
        self.stream.set_read_timeout(Some(WELCOME_TIMEOUT))?;
        let welcome = match self.recv() {
            Ok(Some(msg)) => msg,
            Ok(None) => return Err(AttachError::Handshake("the server closed the connection".into())),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(AttachError::Handshake("the server did not answer".into()));
            }
            Err(e) => return Err(AttachError::Handshake(e.to_string())),
        };
        self.stream.set_read_timeout(None)?;
        match welcome {
            ServerToClient::Welcome { error: Some(error), .. } => Err(AttachError::Refused(error)),
            ServerToClient::Welcome { error: None, .. } => Ok(self),
            other => Err(AttachError::Handshake(format!("expected Welcome, got {other:?}"))),
        }
    }

    /// Sends one message.
    pub fn send(&mut self, msg: &ClientToServer) -> io::Result<()> {
        let bytes = encode_frame(msg).map_err(io::Error::other)?;
        self.stream.write_all(&bytes)
    }

    /// Sends one message with `fd` attached to its first byte (`SCM_RIGHTS`).
    fn send_with_fd(&mut self, msg: &ClientToServer, fd: &File) -> io::Result<()> {
        let bytes = encode_frame(msg).map_err(io::Error::other)?;
        let sent = loop {
            match self.stream.send_with_fd(&bytes, &[fd.as_raw_fd()]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                result => break result?,
            }
        };
        self.stream.write_all(&bytes[sent..])
    }

    /// The next message; `None` when the server closed the connection.
    pub fn recv(&mut self) -> io::Result<Option<ServerToClient>> {
        let mut buf = [0u8; 64 * 1024];
        loop {
            if let Some(msg) =
                self.frames.next_frame().map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
            {
                return Ok(Some(msg));
            }
            let n = self.stream.read(&mut buf)?;
            if n == 0 {
                return Ok(None);
            }
            self.frames.push(&buf[..n]);
        }
    }

    /// A second handle on the socket for the writer side (input, resizes).
    pub(crate) fn writer(&self) -> io::Result<Writer> {
        Ok(Writer(self.stream.try_clone()?))
    }
}

/// The sending half, shared by the input and signal threads behind a mutex.
#[derive(Debug)]
pub(crate) struct Writer(UnixStream);

impl Writer {
    pub(crate) fn send(&mut self, msg: &ClientToServer) -> io::Result<()> {
        let bytes = encode_frame(msg).map_err(io::Error::other)?;
        self.0.write_all(&bytes)
    }

    /// Ends the connection both ways, which also wakes the reader.
    pub(crate) fn close(&self) {
        let _ = self.0.shutdown(std::net::Shutdown::Both);
    }
}
