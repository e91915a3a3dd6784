//! A socket read and written without wake-ups for write readiness: the supervisor's terminal
//! client connections, which carry a frame per paint, and the terminals such a client hands over.
//!
//! A tokio `UnixStream` is registered for reading and writing for its whole life, and epoll is
//! edge-triggered: every time the client drains what the paint task wrote, the kernel reports
//! the socket writable again and the supervisor wakes for nothing — once per frame, a third of
//! its wake-ups under a 60 Hz spinner. Here the socket is registered for reading only; a write
//! goes straight to the socket and only a write the socket cannot take right now registers a
//! duplicate descriptor for writability, for as long as that one write waits.
//!
//! The reading half of a socket also takes the descriptors a client passes with its bytes
//! (`SCM_RIGHTS`; a local client passes its terminal), kept for [`Reader::take_fd`]. A terminal
//! handed over that way is split the same way ([`split_terminal`]). The writing half can pass
//! one beside the first byte of a write ([`Writer::send_all`]; a worker link passes PTY masters).
//!
//! A reader can also give up its registration for a while ([`Reader::unregister`]) and take
//! what has arrived when it chooses ([`Reader::read_now`]): bytes then arriving wake nobody.
//! The next wait registers again, and a fresh registration reports what is already there at
//! once.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream as StdStream;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use sendfd::{RecvWithFd, SendWithFd};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::UnixStream;

/// The reading half (registered for readability, unless [`Reader::unregister`]ed).
#[derive(Debug)]
pub struct Reader<S: AsRawFd> {
    socket: Arc<S>,
    /// `None` until the next [`Reader::read`] after [`Reader::unregister`].
    registration: Option<AsyncFd<Shared<S>>>,
    /// Descriptors that arrived with the bytes read so far, oldest first.
    fds: VecDeque<OwnedFd>,
}

/// The writing half (not registered; see the module doc).
#[derive(Debug)]
pub struct Writer<S: AsRawFd> {
    socket: Arc<S>,
}

/// The descriptor both halves share, as the reactor registers it.
#[derive(Debug)]
struct Shared<S>(Arc<S>);

impl<S: AsRawFd> AsRawFd for Shared<S> {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// A client connection's halves.
pub type ClientReader = Reader<StdStream>;
pub type ClientWriter = Writer<StdStream>;
/// A handed-over terminal's halves.
pub type TerminalReader = Reader<File>;
pub type TerminalWriter = Writer<File>;

/// What can be split: a descriptor readable and writable through a shared reference, that can
/// be duplicated for a registration of its own.
pub trait Halves: AsRawFd + Sized {
    fn read_some(&self, buf: &mut [u8], fds: &mut VecDeque<OwnedFd>) -> io::Result<usize>;
    fn write_some(&self, bytes: &[u8]) -> io::Result<usize>;
    /// A write with `fds` passed beside its first byte; only sockets can.
    fn send_some(&self, bytes: &[u8], fds: &[RawFd]) -> io::Result<usize> {
        match fds {
            [] => self.write_some(bytes),
            _ => Err(io::ErrorKind::Unsupported.into()),
        }
    }
    fn duplicate(&self) -> io::Result<Self>;
}

/// Takes ownership of the descriptors one `recvmsg` just received (`SCM_RIGHTS`), in order,
/// and makes them close-on-exec: they arrive without it, and a PTY master or a client's
/// terminal must never leak into a program the supervisor starts.
pub fn keep_received(raw: &[RawFd], into: &mut VecDeque<OwnedFd>) {
    for &fd in raw {
        // SAFETY: the kernel just installed this descriptor for us; nobody else owns it.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        let _ = nix::fcntl::fcntl(&owned, nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC));
        into.push_back(owned);
    }
}

impl Halves for StdStream {
    /// One `recvmsg`, keeping any descriptors that came with the bytes (close-on-exec).
    fn read_some(&self, buf: &mut [u8], fds: &mut VecDeque<OwnedFd>) -> io::Result<usize> {
        let mut raw: [RawFd; 4] = [-1; 4];
        let (n, count) = self.recv_with_fd(buf, &mut raw)?;
        keep_received(&raw[..count], fds);
        Ok(n)
    }

    fn write_some(&self, bytes: &[u8]) -> io::Result<usize> {
        (&*self).write(bytes)
    }

    /// Without fds, a plain write: `send_with_fd` would still allocate a control buffer and
    /// hand the kernel an empty `SCM_RIGHTS` message to parse, on every keystroke sent to a pane.
    fn send_some(&self, bytes: &[u8], fds: &[RawFd]) -> io::Result<usize> {
        match fds {
            [] => self.write_some(bytes),
            _ => self.send_with_fd(bytes, fds),
        }
    }

    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }
}

impl Halves for File {
    fn read_some(&self, buf: &mut [u8], _fds: &mut VecDeque<OwnedFd>) -> io::Result<usize> {
        (&*self).read(buf)
    }

    fn write_some(&self, bytes: &[u8]) -> io::Result<usize> {
        (&*self).write(bytes)
    }

    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }
}

/// Splits an accepted connection into its halves.
pub fn split(stream: UnixStream) -> io::Result<(ClientReader, ClientWriter)> {
    let std = stream.into_std()?;
    std.set_nonblocking(true)?;
    halves(std)
}

/// Splits a terminal a client handed over (it must be a terminal; it is made non-blocking,
/// which only this process's open file description sees).
pub fn split_terminal(fd: OwnedFd) -> io::Result<(TerminalReader, TerminalWriter)> {
    if !nix::unistd::isatty(&fd).unwrap_or(false) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the descriptor is not a terminal"));
    }
    let flags = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    halves(File::from(fd))
}

fn halves<S: Halves>(descriptor: S) -> io::Result<(Reader<S>, Writer<S>)> {
    let socket = Arc::new(descriptor);
    let registration = Some(register(Shared(socket.clone()), Interest::READABLE)?);
    Ok((Reader { socket: socket.clone(), registration, fds: VecDeque::new() }, Writer { socket }))
}

impl<S: Halves> Reader<S> {
    /// Reads what has arrived (0 at end of stream), waiting until something has. Reads only
    /// once the reactor has seen readiness: a connection read in a `select!` beside others is
    /// asked again after every branch taken, and that read would be an `EAGAIN` on the way of
    /// whatever the other branch just took in (a keystroke, before it is sent to its pane).
    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            self.ready().await?;
            if let Some(n) = self.read_now(buf)? {
                return Ok(n);
            }
        }
    }

    /// Reads what has arrived without waiting: `None` when nothing has (0 at end of stream).
    pub fn read_now(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let Reader { socket, registration, fds } = self;
        // Taken before the read: clearing it forgets only the readiness it saw, never that of
        // bytes arriving after the read, so the next `ready` waits for exactly those.
        let mut cx = Context::from_waker(Waker::noop());
        let mut seen = match registration.as_ref().map(|r| r.poll_read_ready(&mut cx)) {
            Some(Poll::Ready(Ok(guard))) => Some(guard),
            _ => None,
        };
        loop {
            match socket.read_some(buf, fds) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if let Some(seen) = seen.as_mut() {
                        seen.clear_ready();
                    }
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Resolves once bytes (or the end) may have arrived since the last [`Reader::read_now`]
    /// found none, registering again after [`Reader::unregister`].
    pub async fn ready(&mut self) -> io::Result<()> {
        let Reader { socket, registration, .. } = self;
        let registration = match registration {
            Some(registration) => registration,
            None => registration.insert(register(Shared(socket.clone()), Interest::READABLE)?),
        };
        registration.readable().await?.retain_ready();
        Ok(())
    }

    /// Stops the reactor watching for bytes until the next [`Reader::ready`]: what arrives
    /// meanwhile wakes nobody.
    pub fn unregister(&mut self) {
        self.registration = None;
    }

    /// Whether descriptors that came with the bytes read are still unclaimed.
    pub fn has_fds(&self) -> bool {
        !self.fds.is_empty()
    }

    /// The oldest descriptor that came with the bytes read so far, if any is left.
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fds.pop_front()
    }
}

impl<S: Halves> Writer<S> {
    /// Writes all of `bytes`, waiting for room only when the socket is full.
    pub async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.send_all(bytes, None).await
    }

    /// [`Writer::write_all`], with `fd` passed beside the first byte. Takes `&self`: whoever
    /// shares a writer keeps its frames whole (a worker link locks around each).
    pub async fn send_all(&self, mut bytes: &[u8], fd: Option<BorrowedFd<'_>>) -> io::Result<()> {
        let mut fd = fd.map(|fd| [fd.as_raw_fd()]);
        while !bytes.is_empty() {
            match self.socket.send_some(bytes, fd.as_ref().map_or(&[], |fd| &fd[..])) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    bytes = &bytes[n..];
                    fd = None;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.room().await?,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// [`Writer::write_all`], failing with `TimedOut` (saying `stuck`) when the peer has not taken
    /// it all within `limit`.
    pub async fn write_all_within(&mut self, bytes: &[u8], limit: Duration, stuck: &str) -> io::Result<()> {
        match tokio::time::timeout(limit, self.write_all(bytes)).await {
            Ok(result) => result,
            Err(_) => Err(io::Error::new(io::ErrorKind::TimedOut, stuck.to_owned())),
        }
    }

    /// Resolves once the socket can take more. A fresh edge-triggered registration reports the
    /// current state at once, so room that appeared before it is not missed.
    async fn room(&self) -> io::Result<()> {
        let waiter = register(self.socket.duplicate()?, Interest::WRITABLE)?;
        let _ready = waiter.writable().await?;
        Ok(())
    }
}

impl<S: AsRawFd> AsRawFd for Writer<S> {
    fn as_raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }
}

/// Registers `descriptor` with the runtime's reactor for `interest`.
fn register<S: AsRawFd>(descriptor: S, interest: Interest) -> io::Result<AsyncFd<S>> {
    // SAFETY: `S` (a socket or a file, or a share of one) owns its descriptor, which stays open
    // and the same for as long as the AsyncFd (which owns `S`) lives.
    unsafe { AsyncFd::register_with_interest(descriptor, interest) }.map_err(|e| e.into_parts().1)
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::os::fd::AsFd;

    use super::*;

    #[tokio::test]
    async fn a_write_bigger_than_the_socket_buffer_waits_for_the_reader() {
        let (a, b) = UnixStream::pair().expect("socketpair");
        let (_, mut writer) = split(a).expect("split");
        let (mut reader, _keep) = split(b).expect("split");
        let payload: Vec<u8> = (0..4 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        let expected = payload.clone();
        let writing = tokio::spawn(async move { writer.write_all(&payload).await });
        let mut got = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        while got.len() < expected.len() {
            let n = reader.read(&mut buf).await.expect("read");
            assert_ne!(n, 0, "the writer hung up early");
            got.extend_from_slice(&buf[..n]);
        }
        writing.await.expect("join").expect("write_all");
        assert_eq!(got, expected);
    }

    #[tokio::test]
    async fn a_descriptor_sent_with_the_bytes_is_kept_for_the_reader() {
        use sendfd::SendWithFd;
        let (a, b) = StdStream::pair().expect("socketpair");
        a.set_nonblocking(true).expect("non-blocking");
        let (mut reader, _writer) = split(UnixStream::from_std(a).expect("tokio stream")).expect("split");
        let (pipe_read, _pipe_write) = std::io::pipe().expect("pipe");
        assert_eq!(b.send_with_fd(b"hello", &[pipe_read.as_raw_fd()]).expect("send"), 5);
        let mut buf = [0u8; 16];
        assert_eq!(reader.read(&mut buf).await.expect("read"), 5);
        let fd = reader.take_fd().expect("the descriptor came with the bytes");
        assert!(reader.take_fd().is_none(), "one descriptor was sent");
        let flags = nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFD).expect("F_GETFD");
        assert!(
            nix::fcntl::FdFlag::from_bits_truncate(flags).contains(nix::fcntl::FdFlag::FD_CLOEXEC),
            "a received descriptor must not leak into the programs the supervisor starts"
        );
        // Not a terminal: refused, so the client is painted over the socket.
        let refused = split_terminal(fd).map(|_| ()).expect_err("a pipe is no terminal");
        assert_eq!(refused.kind(), io::ErrorKind::InvalidInput);
    }

    #[tokio::test]
    async fn a_writer_passes_an_fd_with_the_bytes_it_is_given_with_and_none_otherwise() {
        let (a, b) = UnixStream::pair().expect("socketpair");
        let (_, writer) = split(a).expect("split");
        let (mut reader, _keep) = split(b).expect("split");
        let (pipe_read, _pipe_write) = std::io::pipe().expect("pipe");
        let mut buf = [0u8; 8];
        writer.send_all(b"plain", None).await.expect("send");
        assert_eq!(reader.read(&mut buf).await.expect("read"), 5);
        assert!(reader.take_fd().is_none(), "nothing was passed");
        writer.send_all(b"fd", Some(pipe_read.as_fd())).await.expect("send");
        assert_eq!(reader.read(&mut buf).await.expect("read"), 2);
        assert!(reader.take_fd().is_some(), "the descriptor came with its bytes");
    }

    /// `ready` polled once: whether it resolved.
    fn ready_now(reader: &mut ClientReader) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        std::pin::pin!(reader.ready()).poll(&mut cx).is_ready()
    }

    #[tokio::test]
    async fn an_unregistered_reader_takes_bytes_when_it_chooses_and_waits_only_for_new_ones() {
        let (a, b) = StdStream::pair().expect("socketpair");
        a.set_nonblocking(true).expect("non-blocking");
        let (mut reader, _writer) = split(UnixStream::from_std(a).expect("tokio stream")).expect("split");
        let mut peer = b;
        let mut buf = [0u8; 16];
        reader.unregister();
        assert_eq!(reader.read_now(&mut buf).expect("read"), None, "nothing sent yet");
        peer.write_all(b"one").expect("send");
        assert_eq!(reader.read_now(&mut buf).expect("read"), Some(3), "there without a registration");
        // Registered again with bytes already waiting: reported at once.
        peer.write_all(b"two").expect("send");
        reader.ready().await.expect("ready");
        assert_eq!(reader.read_now(&mut buf).expect("read"), Some(3));
        // Drained: the next wait is for new bytes only (not a spin on stale readiness).
        assert_eq!(reader.read_now(&mut buf).expect("read"), None);
        assert!(!ready_now(&mut reader), "nothing new arrived");
        peer.write_all(b"three").expect("send");
        reader.ready().await.expect("ready");
        assert_eq!(reader.read(&mut buf).await.expect("read"), 5);
    }

    /// A socket that counts its reads.
    #[derive(Debug)]
    struct Counted(StdStream, Arc<std::sync::atomic::AtomicUsize>);

    impl AsRawFd for Counted {
        fn as_raw_fd(&self) -> RawFd {
            self.0.as_raw_fd()
        }
    }

    impl Halves for Counted {
        fn read_some(&self, buf: &mut [u8], fds: &mut VecDeque<OwnedFd>) -> io::Result<usize> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.0.read_some(buf, fds)
        }

        fn write_some(&self, bytes: &[u8]) -> io::Result<usize> {
            self.0.write_some(bytes)
        }

        fn duplicate(&self) -> io::Result<Self> {
            Ok(Self(self.0.try_clone()?, self.1.clone()))
        }
    }

    #[tokio::test]
    async fn a_read_asked_again_in_a_select_reads_only_after_readiness_is_seen() {
        let (a, mut peer) = StdStream::pair().expect("socketpair");
        a.set_nonblocking(true).expect("non-blocking");
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (mut reader, _writer) = halves(Counted(a, reads.clone())).expect("register");
        let count = || reads.load(std::sync::atomic::Ordering::Relaxed);
        let mut buf = [0u8; 16];
        let mut cx = Context::from_waker(Waker::noop());
        peer.write_all(b"key").expect("send");
        assert_eq!(reader.read(&mut buf).await.expect("read"), 3);
        // Drained: one read says so, and the wait is on the reactor.
        assert!(std::pin::pin!(reader.read(&mut buf)).poll(&mut cx).is_pending());
        let after_drain = count();
        // Asked again, as a `select!` does after another branch: no read until bytes come.
        for _ in 0..3 {
            assert!(std::pin::pin!(reader.read(&mut buf)).poll(&mut cx).is_pending());
        }
        assert_eq!(count(), after_drain, "a read without readiness is only an EAGAIN");
        peer.write_all(b"next").expect("send");
        assert_eq!(reader.read(&mut buf).await.expect("read"), 4);
    }

    #[tokio::test]
    async fn reading_after_the_peer_closed_is_end_of_stream() {
        let (a, b) = UnixStream::pair().expect("socketpair");
        let (mut reader, _writer) = split(a).expect("split");
        drop(b);
        let mut buf = [0u8; 8];
        assert_eq!(reader.read(&mut buf).await.expect("read"), 0);
    }
}
