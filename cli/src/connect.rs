//! The socket edge: one NDJSON request per connection over a std `UnixStream`. Connect, write
//! one line, read one line, close. Nothing else in the CLI touches the API socket.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::request::ApiRequest;

/// How long `ping` (the protocol guard) may take.
pub const PING_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an ordinary (non-waiting) request may take to answer.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// Why an exchange produced no reply.
#[derive(Debug)]
pub enum ConnectError {
    /// Nothing listens at the socket (missing file or connection refused).
    NotRunning,
    /// The server closed the connection without a complete reply line.
    Closed,
    /// No reply within the allowed time.
    TimedOut(Duration),
    /// The reply line was not JSON.
    BadReply(String),
    /// Any other socket error.
    Io(std::io::Error),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::NotRunning => f.write_str("no server is listening"),
            ConnectError::Closed => f.write_str("the server closed the connection without a reply"),
            ConnectError::TimedOut(after) => write!(f, "no reply within {} s", after.as_secs()),
            ConnectError::BadReply(err) => write!(f, "the server sent a reply that is not JSON: {err}"),
            ConnectError::Io(err) => write!(f, "socket error: {err}"),
        }
    }
}

/// Sends `request` on a fresh connection and returns the reply envelope.
/// `timeout` bounds the wait for the reply; `None` waits as long as the server holds the call.
pub fn exchange(
    socket: &Path,
    request: &ApiRequest,
    timeout: Option<Duration>,
) -> Result<Value, ConnectError> {
    let mut stream = UnixStream::connect(socket).map_err(|err| match err.kind() {
        ErrorKind::NotFound | ErrorKind::ConnectionRefused => ConnectError::NotRunning,
        _ => ConnectError::Io(err),
    })?;
    stream.set_read_timeout(timeout).map_err(ConnectError::Io)?;
    stream.set_write_timeout(Some(PING_TIMEOUT)).map_err(ConnectError::Io)?;

    let mut line = request.to_line().map_err(|err| ConnectError::Io(std::io::Error::other(err)))?;
    line.push('\n');
    stream.write_all(line.as_bytes()).map_err(|err| write_error(err, timeout))?;
    stream.flush().map_err(|err| write_error(err, timeout))?;

    let mut reply = String::new();
    let read = BufReader::new(&stream).read_line(&mut reply).map_err(|err| match err.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => ConnectError::TimedOut(timeout.unwrap_or_default()),
        ErrorKind::ConnectionReset | ErrorKind::UnexpectedEof => ConnectError::Closed,
        _ => ConnectError::Io(err),
    })?;
    if read == 0 || !reply.ends_with('\n') {
        return Err(ConnectError::Closed);
    }
    serde_json::from_str(&reply).map_err(|err| ConnectError::BadReply(err.to_string()))
}

fn write_error(err: std::io::Error, timeout: Option<Duration>) -> ConnectError {
    match err.kind() {
        ErrorKind::BrokenPipe | ErrorKind::ConnectionReset => ConnectError::Closed,
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            ConnectError::TimedOut(timeout.unwrap_or(PING_TIMEOUT))
        }
        _ => ConnectError::Io(err),
    }
}

/// Whether anything answers a `ping` at `socket` right now (used by `server --detach`/`stop`).
pub fn answers_ping(socket: &Path) -> bool {
    let ping = ApiRequest::ping("cli:ping");
    matches!(exchange(socket, &ping, Some(PING_TIMEOUT)), Ok(reply) if reply.get("result").is_some())
}
