//! The handoff socket between the old supervisor (exporter) and the new one (importer): one
//! JSON line per step (`herdr_protocol::handoff::Step`), with the listening sockets and the
//! session lock passed beside the `fds` step (SCM_RIGHTS).

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::Duration;

use herdr_host::stream::keep_received;
use herdr_protocol::handoff::Step;
use sendfd::{RecvWithFd, SendWithFd};
use tokio::net::UnixStream;

/// How long each step may take (upstream's `READY_TIMEOUT`).
pub const STEP_TIMEOUT: Duration = Duration::from_secs(30);
/// A step line longer than this is not ours.
const MAX_LINE: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the other side closed the handoff socket")]
    Closed,
    #[error("no answer within {} s", STEP_TIMEOUT.as_secs())]
    TimedOut,
    #[error("handoff socket: {0}")]
    Io(#[from] io::Error),
    #[error("not a handoff step: {0}")]
    Garbled(String),
}

/// One end of the handoff socket.
#[derive(Debug)]
pub struct Conversation {
    stream: UnixStream,
    buf: Vec<u8>,
    fds: VecDeque<OwnedFd>,
}

impl Conversation {
    pub fn new(stream: UnixStream) -> Self {
        Self { stream, buf: Vec::new(), fds: VecDeque::new() }
    }

    /// Sends `step`, with `fds` beside its first byte.
    pub async fn send(&self, step: &Step, fds: &[BorrowedFd<'_>]) -> Result<(), WireError> {
        let mut bytes = serde_json::to_vec(step).map_err(|e| WireError::Garbled(e.to_string()))?;
        bytes.push(b'\n');
        let mut pending: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
        let mut sent = 0;
        while sent < bytes.len() {
            self.stream.writable().await?;
            match self.stream.send_with_fd(&bytes[sent..], &pending) {
                Ok(0) => return Err(WireError::Closed),
                Ok(n) => {
                    sent += n;
                    pending.clear();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// The next step, waiting at most [`STEP_TIMEOUT`].
    pub async fn recv(&mut self) -> Result<Step, WireError> {
        self.recv_within(STEP_TIMEOUT).await
    }

    pub async fn recv_within(&mut self, limit: Duration) -> Result<Step, WireError> {
        tokio::time::timeout(limit, self.next_step()).await.map_err(|_| WireError::TimedOut)?
    }

    /// The descriptors received so far, in order.
    pub fn take_fds(&mut self) -> Vec<OwnedFd> {
        self.fds.drain(..).collect()
    }

    async fn next_step(&mut self) -> Result<Step, WireError> {
        loop {
            if let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                return serde_json::from_slice(&line[..pos])
                    .map_err(|e| WireError::Garbled(format!("{e}: {}", String::from_utf8_lossy(&line))));
            }
            if self.buf.len() > MAX_LINE {
                return Err(WireError::Garbled("a step longer than 64 KiB".to_owned()));
            }
            self.stream.readable().await?;
            let mut chunk = [0u8; 4096];
            let mut fds: [RawFd; 8] = [-1; 8];
            match self.stream.recv_with_fd(&mut chunk, &mut fds) {
                Ok((0, 0)) => return Err(WireError::Closed),
                Ok((n, nfds)) => {
                    keep_received(&fds[..nfds], &mut self.fds);
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fds_travel_beside_their_step() {
        let (a, b) = UnixStream::pair().expect("pair");
        let (mut left, mut right) = (Conversation::new(a), Conversation::new(b));
        let file = std::fs::File::open("/dev/null").expect("devnull");
        left.send(&Step::Fds, &[std::os::fd::AsFd::as_fd(&file)]).await.expect("sent");
        assert_eq!(right.recv().await.expect("step"), Step::Fds);
        assert_eq!(right.take_fds().len(), 1);
        drop(right);
        assert!(matches!(left.recv().await, Err(WireError::Closed)));
    }
}
