//! One client connection carried over one ssh channel, both ways, without blocking: the local
//! socket and the ssh session's TCP socket are polled together, each direction has its own
//! bounded buffer, so a slow or stalled link holds back only its own direction (the local
//! client's input is read as long as there is room, never waiting on the link). Keepalives go
//! out on schedule and a link that answers nothing for [`Liveness::dead_after`] is declared
//! lost, as OpenSSH's `ServerAliveCountMax` does.
//!
//! The client's first frame is its `Hello`; the relay asks for [`Encoding::Ansi`] in it, the
//! supervisor's encoding for remote clients (ready-to-write terminal bytes, diffed on the
//! server, instead of cell updates): that is what crosses the slow link. The local client writes
//! `Ansi` paints as they come, so nothing else changes for it.

use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use herdr_protocol::client::{ClientToServer, Encoding};
use herdr_protocol::ipc::{FrameDecoder, encode_frame};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use ssh2::{Channel, Session};

/// Per direction: past this many bytes buffered, that side is not read until the other drains.
const BUFFER_CAP: usize = 4 * 1024 * 1024;
/// The remote bridge's stderr kept for the user (its last words when it fails).
const STDERR_KEEP: usize = 4096;
/// libssh2's "would block" (`LIBSSH2_ERROR_EAGAIN`) as ssh2 reports it for non-I/O calls.
const EAGAIN: i32 = -37;

/// When to send keepalives and when silence means the link is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveness {
    pub keepalive_every: Duration,
    pub dead_after: Duration,
}

impl Default for Liveness {
    /// Upstream's managed ssh config: `ServerAliveInterval 15`, `ServerAliveCountMax 4`.
    fn default() -> Self {
        Liveness { keepalive_every: Duration::from_secs(15), dead_after: Duration::from_secs(60) }
    }
}

/// How a relay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelayEnd {
    /// The local client closed its connection.
    ClientLeft,
    /// The remote side ended the stream (the supervisor closed the client, or the remote bridge
    /// failed); `stderr` is what it said.
    RemoteClosed { stderr: String },
    /// The ssh link failed or went silent.
    LinkLost(String),
}

/// Rewrites the first frame, a `Hello`, to ask for ANSI paints; later bytes pass unchanged.
#[derive(Debug, Default)]
pub struct HelloRewrite {
    done: bool,
    pending: Vec<u8>,
}

impl HelloRewrite {
    /// Feeds bytes read from the client; appends what should go to the remote to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        if self.done {
            out.extend_from_slice(bytes);
            return;
        }
        self.pending.extend_from_slice(bytes);
        let Some(prefix) = self.pending.get(..4) else { return };
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        if self.pending.len() < 4 + len {
            return;
        }
        self.done = true;
        let rest = self.pending.split_off(4 + len);
        let mut decoder = FrameDecoder::new();
        decoder.push(&self.pending);
        let rewritten = match decoder.next_frame::<ClientToServer>() {
            Ok(Some(ClientToServer::Hello { version, cols, rows, .. })) => {
                encode_frame(&ClientToServer::Hello { version, cols, rows, encoding: Encoding::Ansi }).ok()
            }
            // Not a Hello we understand: the supervisor answers it as it would locally.
            _ => None,
        };
        out.extend_from_slice(rewritten.as_deref().unwrap_or(&self.pending));
        out.extend_from_slice(&rest);
        self.pending = Vec::new();
    }
}

/// Relays between `local` and `channel` (an exec channel of `session`, whose TCP socket is
/// `tcp`) until one side ends. Puts the session and the socket in non-blocking mode.
pub fn run(
    session: &Session,
    tcp: BorrowedFd<'_>,
    channel: &mut Channel,
    local: &UnixStream,
    liveness: Liveness,
) -> RelayEnd {
    session.set_blocking(false);
    let every = u32::try_from(liveness.keepalive_every.as_secs()).unwrap_or(u32::MAX).max(1);
    session.set_keepalive(true, every);
    if let Err(err) = local.set_nonblocking(true) {
        return RelayEnd::LinkLost(format!("cannot make the local socket non-blocking: {err}"));
    }
    let mut pump =
        Pump { up: Vec::new(), down: Vec::new(), stderr: Vec::new(), hello: HelloRewrite::default() };
    let mut buf = vec![0u8; 64 * 1024];
    let mut local_eof = false;
    let mut remote_eof = false;
    let mut last_heard = Instant::now();
    let mut next_keepalive = Instant::now() + liveness.keepalive_every;
    loop {
        let mut progress = false;
        if !local_eof && pump.up.len() < BUFFER_CAP {
            match (&*local).read(&mut buf) {
                Ok(0) => local_eof = true,
                Ok(n) => {
                    pump.hello.feed(&buf[..n], &mut pump.up);
                    progress = true;
                }
                Err(e) if is_retry(&e) => {}
                Err(_) => local_eof = true,
            }
        }
        while !pump.up.is_empty() {
            match channel.write(&pump.up) {
                Ok(0) => break,
                Ok(n) => {
                    pump.up.drain(..n);
                    progress = true;
                }
                Err(e) if is_retry(&e) => break,
                Err(e) => return RelayEnd::LinkLost(format!("writing to the ssh channel: {e}")),
            }
        }
        if local_eof && pump.up.is_empty() {
            // Best effort: the remote bridge sees end of input and closes the supervisor's side.
            let _ = channel.send_eof();
            return RelayEnd::ClientLeft;
        }
        if !remote_eof && pump.down.len() < BUFFER_CAP {
            match channel.read(&mut buf) {
                Ok(0) => remote_eof = channel.eof(),
                Ok(n) => {
                    pump.down.extend_from_slice(&buf[..n]);
                    // A busy stream may never reach the poll below: data is a sign of life too.
                    last_heard = Instant::now();
                    progress = true;
                }
                Err(e) if is_retry(&e) => {}
                Err(e) => return RelayEnd::LinkLost(format!("reading from the ssh channel: {e}")),
            }
        }
        match channel.stderr().read(&mut buf) {
            Ok(n) if n > 0 => {
                pump.stderr.extend_from_slice(&buf[..n]);
                let excess = pump.stderr.len().saturating_sub(STDERR_KEEP);
                pump.stderr.drain(..excess);
                progress = true;
            }
            _ => {}
        }
        while !pump.down.is_empty() {
            match (&*local).write(&pump.down) {
                Ok(n) => {
                    pump.down.drain(..n);
                    progress = true;
                }
                Err(e) if is_retry(&e) => break,
                Err(_) => return RelayEnd::ClientLeft,
            }
        }
        if remote_eof && pump.down.is_empty() {
            return RelayEnd::RemoteClosed {
                stderr: String::from_utf8_lossy(&pump.stderr).trim().to_owned(),
            };
        }
        let now = Instant::now();
        if now >= next_keepalive {
            match session.keepalive_send() {
                Ok(secs) => next_keepalive = now + Duration::from_secs(u64::from(secs.max(1))),
                Err(e) if e.code() == ssh2::ErrorCode::Session(EAGAIN) => {
                    next_keepalive = now + Duration::from_millis(50);
                }
                Err(e) => return RelayEnd::LinkLost(format!("sending a keepalive: {e}")),
            }
        }
        if now.duration_since(last_heard) >= liveness.dead_after {
            return RelayEnd::LinkLost(format!(
                "the host answered nothing (not even keepalives) for {} s",
                liveness.dead_after.as_secs()
            ));
        }
        if progress {
            continue;
        }
        let mut local_events = PollFlags::empty();
        if !local_eof && pump.up.len() < BUFFER_CAP {
            local_events |= PollFlags::POLLIN;
        }
        if !pump.down.is_empty() {
            local_events |= PollFlags::POLLOUT;
        }
        let tcp_events = tcp_interest(session.block_directions());
        let wake = next_keepalive.min(last_heard + liveness.dead_after);
        let wait = wake.saturating_duration_since(now).max(Duration::from_millis(1));
        let timeout = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
        quick_ack(tcp);
        let mut fds = [PollFd::new(local.as_fd(), local_events), PollFd::new(tcp, tcp_events)];
        match poll(&mut fds, timeout) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return RelayEnd::LinkLost(format!("poll: {e}")),
        }
        let heard = PollFlags::POLLIN | PollFlags::POLLHUP | PollFlags::POLLERR;
        if fds[1].revents().is_some_and(|r| r.intersects(heard)) {
            last_heard = Instant::now();
        }
    }
}

/// What to wait for on the ssh session's socket: always input (data, keepalive answers, window
/// adjustments), and room to write only while libssh2 is held up writing. A socket has room
/// nearly always, so asking for it otherwise would wake the poll at once, every time: the relay
/// would spin a core, and on a small machine every echo would wait for a turn on the CPU. Input
/// held up by the peer's window is not a write block: it resumes with a window adjustment, which
/// arrives as input.
fn tcp_interest(blocked: ssh2::BlockDirections) -> PollFlags {
    match blocked {
        ssh2::BlockDirections::Outbound | ssh2::BlockDirections::Both => {
            PollFlags::POLLIN | PollFlags::POLLOUT
        }
        ssh2::BlockDirections::None | ssh2::BlockDirections::Inbound => PollFlags::POLLIN,
    }
}

struct Pump {
    /// Local client → remote.
    up: Vec<u8>,
    /// Remote → local client.
    down: Vec<u8>,
    stderr: Vec<u8>,
    hello: HelloRewrite,
}

/// Asks the kernel to acknowledge what arrives next at once (Linux leaves quick-ack mode by
/// itself, so it is asked again before every wait). sshd runs a command without a terminal in
/// "bulk" mode, Nagle on: a paint written in two pieces waits for our ACK of the first, and a
/// delayed ACK would hold every such echo for up to 40 ms.
fn quick_ack(tcp: BorrowedFd<'_>) {
    let on: libc::c_int = 1;
    // SAFETY: `tcp` is a live socket for the duration of the call, `on` outlives it, and the
    // length passed is its size; a failure only means the option does not apply.
    unsafe {
        libc::setsockopt(
            std::os::fd::AsRawFd::as_raw_fd(&tcp),
            libc::IPPROTO_TCP,
            libc::TCP_QUICKACK,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

fn is_retry(err: &std::io::Error) -> bool {
    matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdr_protocol::client::CLIENT_PROTOCOL_VERSION;

    #[test]
    fn the_hello_asks_for_ansi_and_the_rest_passes_unchanged_across_split_reads() {
        let hello = ClientToServer::Hello {
            version: CLIENT_PROTOCOL_VERSION,
            cols: 100,
            rows: 30,
            encoding: Encoding::CellDiff,
        };
        let mut input = encode_frame(&hello).expect("encode");
        let after = encode_frame(&ClientToServer::Input(b"ls\r".to_vec())).expect("encode");
        input.extend_from_slice(&after);
        let mut rewrite = HelloRewrite::default();
        let mut out = Vec::new();
        for byte in &input {
            rewrite.feed(std::slice::from_ref(byte), &mut out);
        }
        let mut decoder = FrameDecoder::new();
        decoder.push(&out);
        assert_eq!(
            decoder.next_frame::<ClientToServer>().expect("decode"),
            Some(ClientToServer::Hello {
                version: CLIENT_PROTOCOL_VERSION,
                cols: 100,
                rows: 30,
                encoding: Encoding::Ansi
            })
        );
        assert_eq!(
            decoder.next_frame::<ClientToServer>().expect("decode"),
            Some(ClientToServer::Input(b"ls\r".to_vec()))
        );
    }

    #[test]
    fn room_to_write_is_waited_for_only_while_a_write_is_held_up() {
        use ssh2::BlockDirections::{Both, Inbound, None, Outbound};
        assert_eq!(tcp_interest(None), PollFlags::POLLIN);
        assert_eq!(tcp_interest(Inbound), PollFlags::POLLIN);
        assert_eq!(tcp_interest(Outbound), PollFlags::POLLIN | PollFlags::POLLOUT);
        assert_eq!(tcp_interest(Both), PollFlags::POLLIN | PollFlags::POLLOUT);
    }

    #[test]
    fn a_first_frame_that_is_not_a_hello_is_left_alone() {
        let detach = encode_frame(&ClientToServer::Detach).expect("encode");
        let mut rewrite = HelloRewrite::default();
        let mut out = Vec::new();
        rewrite.feed(&detach, &mut out);
        assert_eq!(out, detach);
    }
}
