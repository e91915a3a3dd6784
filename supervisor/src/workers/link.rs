//! Frames over a worker's socket, with PTY master fds passed beside them (SCM_RIGHTS).

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::Arc;

use herdr_host::stream::keep_received;
use herdr_protocol::ipc::{FrameDecoder, FrameError, SupervisorToWorker, WorkerToSupervisor, encode_frame};
use sendfd::{RecvWithFd, SendWithFd};
use tokio::net::UnixStream;

/// The writing side; cheap to clone, shared by the pane task and shutdown.
#[derive(Debug, Clone)]
pub struct LinkWriter {
    stream: Arc<UnixStream>,
    write_lock: Arc<tokio::sync::Mutex<()>>,
}

/// The reading side: decodes frames and queues fds in arrival order.
#[derive(Debug)]
pub struct LinkReader {
    stream: Arc<UnixStream>,
    decoder: FrameDecoder,
    fds: VecDeque<OwnedFd>,
}

/// How much one read of a link takes at most.
const RECV_LEN: usize = 64 * 1024;

thread_local! {
    /// Every link's reads land here, one per runtime thread: the decoder copies what arrived
    /// before the next await, so a buffer of each link's own (4 KiB of a quiet pane's 28 KiB of
    /// supervisor heap, 64 KiB after a burst) held nothing between reads. Allocated once per
    /// thread; a fresh zeroed 64 KiB per frame had shown up in profiles.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; RECV_LEN]);
}

pub fn split(stream: UnixStream) -> (LinkWriter, LinkReader) {
    let stream = Arc::new(stream);
    (
        LinkWriter { stream: stream.clone(), write_lock: Arc::default() },
        LinkReader { stream, decoder: FrameDecoder::new(), fds: VecDeque::new() },
    )
}

fn frame_error(e: FrameError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl LinkWriter {
    /// Closes the link both ways without a `Shutdown`: the worker reads EOF and waits to be
    /// adopted, and our reader ends (a live handoff's release).
    pub fn hang_up(&self) {
        // SAFETY: shutdown(2) on the socket this writer shares; the fd stays open and owned.
        unsafe { libc::shutdown(self.stream.as_raw_fd(), libc::SHUT_RDWR) };
    }

    /// Writes one frame; `fd`, when given, travels with the frame's first byte.
    pub async fn send(&self, msg: &SupervisorToWorker, fd: Option<BorrowedFd<'_>>) -> io::Result<()> {
        let bytes = encode_frame(msg).map_err(frame_error)?;
        let _guard = self.write_lock.lock().await;
        let mut sent = 0;
        let mut pending_fd: Option<RawFd> = fd.map(|f| f.as_raw_fd());
        while sent < bytes.len() {
            self.stream.writable().await?;
            let fds: Vec<RawFd> = pending_fd.into_iter().collect();
            match self.stream.send_with_fd(&bytes[sent..], &fds) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    sent += n;
                    pending_fd = None;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl LinkReader {
    /// The next frame; `Ok(None)` when the worker closed the link.
    pub async fn recv(&mut self) -> io::Result<Option<WorkerToSupervisor>> {
        loop {
            if let Some(frame) = self.decoder.next_frame().map_err(frame_error)? {
                return Ok(Some(frame));
            }
            self.stream.readable().await?;
            let mut fds: [RawFd; 4] = [-1; 4];
            let decoder = &mut self.decoder;
            let received = SCRATCH.with_borrow_mut(|buf| {
                let (n, nfds) = self.stream.recv_with_fd(buf, &mut fds)?;
                decoder.push(&buf[..n]);
                Ok::<_, io::Error>((n, nfds))
            });
            match received {
                Ok((0, 0)) => return Ok(None),
                Ok((_, nfds)) => keep_received(&fds[..nfds], &mut self.fds),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The oldest fd received and not yet claimed by a frame.
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fds.pop_front()
    }
}
