//! Raw NDJSON exchanges with a herdr API socket, below the level of "a request and its answer":
//! the transport tests need to send broken bytes and observe whether the server replied, closed
//! the connection silently, or kept it open.
//!
//! Nothing here validates or interprets JSON; [`crate::server::TestServer`] does that.

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// What came back on a connection after we wrote our bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// One line (without its `\n`).
    Line(String),
    /// The server closed the connection; `partial` is whatever arrived without a final `\n`.
    Closed { partial: Vec<u8> },
    /// Nothing ended the exchange before the deadline.
    TimedOut { partial: Vec<u8> },
}

fn is_disconnect(error: &io::Error) -> bool {
    matches!(error.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted)
}

/// Connects, writes `bytes` (a write cut short because the server hung up is not an error: the
/// oversized-line test provokes exactly that), then reads one line or the end of the stream.
pub fn exchange(socket: &Path, bytes: &[u8], timeout: Duration) -> io::Result<Reply> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_write_timeout(Some(timeout))?;
    match stream.write_all(bytes) {
        Ok(()) => {}
        Err(error) if is_disconnect(&error) => {}
        Err(error) => return Err(error),
    }
    read_reply(&mut stream, timeout)
}

/// Reads until the first `\n`, EOF, or `timeout`.
pub fn read_reply(stream: &mut UnixStream, timeout: Duration) -> io::Result<Reply> {
    let deadline = Instant::now() + timeout;
    let mut received = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(Reply::TimedOut { partial: received });
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(Reply::Closed { partial: received }),
            Ok(n) => {
                received.extend_from_slice(&chunk[..n]);
                if let Some(end) = received.iter().position(|&b| b == b'\n') {
                    received.truncate(end);
                    return Ok(Reply::Line(String::from_utf8_lossy(&received).into_owned()));
                }
            }
            Err(error) if is_disconnect(&error) => return Ok(Reply::Closed { partial: received }),
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Ok(Reply::TimedOut { partial: received });
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}

/// Whether the peer has closed `stream` (EOF or reset) within `timeout`, ignoring nothing: any
/// byte that arrives instead is returned as an error so the caller sees the unexpected output.
pub fn wait_closed(stream: &mut UnixStream, timeout: Duration) -> io::Result<bool> {
    match read_reply(stream, timeout)? {
        Reply::Closed { partial } if partial.is_empty() => Ok(true),
        Reply::TimedOut { partial } if partial.is_empty() => Ok(false),
        other => Err(io::Error::other(format!("expected silence then close, got {other:?}"))),
    }
}

/// A long-lived connection that reads one line at a time (for `events.subscribe` and for
/// checking that a wait is still pending).
#[derive(Debug)]
pub struct LineStream {
    reader: BufReader<UnixStream>,
}

impl LineStream {
    /// Connects and writes one request line (a `\n` is appended).
    pub fn open(socket: &Path, line: &str) -> io::Result<Self> {
        let mut stream = UnixStream::connect(socket)?;
        stream.write_all(line.as_bytes())?;
        stream.write_all(b"\n")?;
        Ok(Self { reader: BufReader::new(stream) })
    }

    /// The next line, `None` on EOF; an error with kind `WouldBlock`/`TimedOut` after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> io::Result<Option<String>> {
        self.reader.get_ref().set_read_timeout(Some(timeout))?;
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => {
                if line.ends_with('\n') {
                    line.pop();
                }
                Ok(Some(line))
            }
            Err(error) if is_disconnect(&error) => Ok(None),
            Err(error) => Err(error),
        }
    }
}
