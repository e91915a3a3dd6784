//! The supervisor link: frames (herdr-protocol's length-prefixed bincode) and file descriptors
//! (SCM_RIGHTS) over a Unix stream socket — the inherited one, or a connection a re-adopting
//! supervisor made to the worker's own socket. Reading is cancel-safe so it can sit in a
//! `select!`; writing is queued, so a slow supervisor never blocks the pane's output.
//!
//! The socket is registered for readability only. Registered for writability too (as a tokio
//! `UnixStream` is), edge-triggered epoll would wake the worker every time the supervisor drained
//! a damage frame — once per frame of a visible pane. A duplicate descriptor is registered for
//! writability only while queued frames wait for room (`crate::room`).

use std::{
    collections::VecDeque,
    io,
    os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd},
    rc::Rc,
};

use herdr_protocol::ipc::{FrameDecoder, FrameError, SupervisorToWorker, WorkerToSupervisor, encode_frame};
use sendfd::{RecvWithFd, SendWithFd};
use std::io::Write;
use std::os::unix::net::UnixStream;
use tokio::io::{Interest, unix::AsyncFd};

use crate::{pty::set_fd_flags, room::Room};

/// Bytes read per `recvmsg`; frames larger than this arrive over several reads.
const RECV_CHUNK: usize = 64 * 1024;
/// File descriptors accepted per `recvmsg` (the protocol sends at most one per frame).
const MAX_FDS_PER_READ: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("supervisor link i/o: {0}")]
    Io(#[from] io::Error),
    #[error("supervisor link frame: {0}")]
    Frame(#[from] FrameError),
}

impl LinkError {
    /// The supervisor's end is closed: a write found nobody there (it died or hung up).
    pub fn is_gone(&self) -> bool {
        matches!(self, Self::Io(err) if matches!(
            err.kind(),
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset | io::ErrorKind::NotConnected
        ))
    }
}

/// Wraps a connected socket fd (made close-on-exec so pane programs never inherit it).
pub fn open(fd: OwnedFd) -> Result<(LinkReader, LinkWriter), LinkError> {
    set_fd_flags(fd.as_fd(), true)?;
    let socket = UnixStream::from(fd);
    socket.set_nonblocking(true)?;
    let stream = Rc::new(register(socket, Interest::READABLE)?);
    Ok((
        LinkReader {
            stream: Rc::clone(&stream),
            decoder: FrameDecoder::new(),
            fds: VecDeque::new(),
            eof: false,
            buf: vec![0u8; RECV_CHUNK].into_boxed_slice(),
        },
        LinkWriter { stream, queue: VecDeque::new(), room: Room::default() },
    ))
}

/// Incoming frames and the fds that travelled beside them.
#[derive(Debug)]
pub struct LinkReader {
    stream: Rc<AsyncFd<UnixStream>>,
    decoder: FrameDecoder,
    fds: VecDeque<OwnedFd>,
    eof: bool,
    buf: Box<[u8]>,
}

impl LinkReader {
    /// The next frame; `None` once the supervisor closed its end. Cancel-safe: bytes are only
    /// consumed into the decoder between awaits.
    pub async fn recv(&mut self) -> Result<Option<SupervisorToWorker>, LinkError> {
        loop {
            if let Some(frame) = self.decoder.next_frame()? {
                return Ok(Some(frame));
            }
            if self.eof {
                return Ok(None);
            }
            let mut ready = self.stream.readable().await?;
            let mut fds = [-1 as RawFd; MAX_FDS_PER_READ];
            let received = match ready.try_io(|s| s.get_ref().recv_with_fd(&mut self.buf, &mut fds)) {
                Ok(result) => result,
                Err(_would_block) => continue,
            };
            match received {
                Ok((0, 0)) => self.eof = true,
                Ok((n, nfds)) => {
                    self.decoder.push(&self.buf[..n]);
                    for &raw in &fds[..nfds] {
                        // SAFETY: SCM_RIGHTS just installed this fd in our table; we own it.
                        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
                        set_fd_flags(fd.as_fd(), false)?;
                        self.fds.push_back(fd);
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                Err(err) if err.kind() == io::ErrorKind::ConnectionReset => self.eof = true,
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// The oldest fd received and not yet claimed by a frame.
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fds.pop_front()
    }
}

#[derive(Debug)]
struct Outgoing {
    bytes: Vec<u8>,
    sent: usize,
    fd: Option<OwnedFd>,
}

/// Outgoing frames, written as the socket accepts them.
#[derive(Debug)]
pub struct LinkWriter {
    stream: Rc<AsyncFd<UnixStream>>,
    queue: VecDeque<Outgoing>,
    room: Room,
}

impl LinkWriter {
    /// Queues a frame (with `fd` beside its first byte) and writes what the socket takes now.
    pub fn send(&mut self, msg: &WorkerToSupervisor, fd: Option<OwnedFd>) -> Result<(), LinkError> {
        let bytes = encode_frame(msg)?;
        self.queue.push_back(Outgoing { bytes, sent: 0, fd });
        self.flush()
    }

    pub fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Waits until the socket can take more (on its writability registration, kept while
    /// frames wait).
    pub async fn writable(&self) -> io::Result<()> {
        self.room.wait(self.stream.get_ref().as_fd()).await
    }

    /// Writes queued frames until the socket would block.
    pub fn flush(&mut self) -> Result<(), LinkError> {
        while let Some(front) = self.queue.front_mut() {
            let rest = &front.bytes[front.sent..];
            let result = match front.fd.take() {
                Some(fd) => {
                    let r = self.stream.get_ref().send_with_fd(rest, &[fd.as_raw_fd()]);
                    if r.is_err() {
                        front.fd = Some(fd);
                    }
                    // On success the kernel holds its own reference; ours closes here.
                    r
                }
                None => self.stream.get_ref().write(rest),
            };
            match result {
                Ok(n) => {
                    front.sent += n;
                    if front.sent == front.bytes.len() {
                        self.queue.pop_front();
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err.into()),
            }
        }
        self.room.done();
        Ok(())
    }

    /// Writes everything queued, waiting as needed (used before the worker exits).
    pub async fn flush_all(&mut self) -> Result<(), LinkError> {
        while self.has_pending() {
            self.writable().await?;
            self.flush()?;
        }
        Ok(())
    }
}

/// Registers `socket` with the runtime's reactor for `interest`.
fn register(socket: UnixStream, interest: Interest) -> io::Result<AsyncFd<UnixStream>> {
    // SAFETY: the stream owns its descriptor, which stays open and the same for as long as the
    // AsyncFd (which owns the stream) lives.
    unsafe { AsyncFd::register_with_interest(socket, interest) }.map_err(|e| e.into_parts().1)
}
