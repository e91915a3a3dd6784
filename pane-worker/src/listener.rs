//! The worker's own socket, where a new supervisor of the session finds this worker after its
//! supervisor died: binding it (replacing only a stale socket, never any other file), accepting
//! connections from peers of our own uid, reading each one's first frame within a bounded time
//! (several at once, so a silent peer cannot hold up a real supervisor), and removing the socket
//! file when the worker exits, but only while the file is still the one we bound.
//!
//! Not here: whether an `Adopt` is accepted (`adoption`), what adoption does to the pane (`pane`).

use std::{
    ffi::CString,
    fs, future, io,
    os::{
        fd::{AsRawFd, OwnedFd},
        unix::{
            ffi::OsStrExt,
            fs::{FileTypeExt, MetadataExt},
            net::{UnixListener, UnixStream},
        },
    },
    path::{Path, PathBuf},
    pin::Pin,
    task::Poll,
    time::Duration,
};

use herdr_protocol::ipc::{IPC_VERSION, SupervisorToWorker, WorkerToSupervisor};
use tokio::io::{Interest, unix::AsyncFd};

use crate::link::{self, LinkError, LinkReader, LinkWriter};

/// How long a connection may take to send its first frame before it is dropped.
pub const FIRST_FRAME_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections waiting for their first frame at once; more are closed unanswered. A real
/// supervisor connects once per worker, so this only bounds what a confused peer can cost.
const MAX_HANDSHAKES: usize = 4;

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("the worker socket directory {0} does not exist")]
    NoDirectory(String),
    #[error("another worker owns {0} (it accepts connections)")]
    InUse(String),
    #[error("{path} is a {kind}, not a socket; it is left alone")]
    NotASocket { path: String, kind: &'static str },
    #[error("could not bind {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// The listening socket and the file it is bound to.
#[derive(Debug)]
pub struct Listener {
    socket: AsyncFd<UnixListener>,
    /// Our effective uid, read once: `accept` is polled afresh on every turn of the worker's
    /// loop, and asking the kernel each time was a syscall per frame of output.
    me: u32,
    // Dropped after `socket`'s registration, so the file goes only when we stop listening.
    _file: SocketFile,
}

impl Listener {
    /// Binds `path` (mode 0600) and registers it with the runtime. Something already at `path`
    /// is replaced only if it is a socket nobody listens on.
    pub fn bind(path: &Path) -> Result<Self, BindError> {
        let shown = path.display().to_string();
        let io_err = |source| BindError::Io { path: shown.clone(), source };
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(BindError::NoDirectory(dir.display().to_string()));
        }
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_socket() => {
                if accepts_connections(path).map_err(io_err)? {
                    return Err(BindError::InUse(shown));
                }
                // Stale: its worker is gone. Someone may remove it first; that is fine too.
                match fs::remove_file(path) {
                    Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(io_err(err)),
                    _ => {}
                }
            }
            Ok(meta) => return Err(BindError::NotASocket { path: shown, kind: kind_of(&meta) }),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_err(err)),
        }
        let listener = bind_private(path).map_err(|err| match err.kind() {
            // Another worker bound it between our check and our bind.
            io::ErrorKind::AddrInUse => BindError::InUse(shown.clone()),
            _ => io_err(err),
        })?;
        let file = SocketFile::record(path).map_err(io_err)?;
        listener.set_nonblocking(true).map_err(io_err)?;
        // SAFETY: the AsyncFd owns the listener, whose fd stays open and the same for its life.
        let socket = unsafe { AsyncFd::register_with_interest(listener, Interest::READABLE) }
            .map_err(|e| io_err(e.into_parts().1))?;
        Ok(Self { socket, me: effective_uid(), _file: file })
    }

    /// The next connection from a peer running as our own user; others are closed unanswered.
    /// Accept errors (a peer that hung up, no fds left) are logged, never fatal: the next
    /// connection tries again.
    pub async fn accept(&self) -> io::Result<UnixStream> {
        let me = self.me;
        loop {
            let mut ready = self.socket.readable().await?;
            match ready.try_io(|l| l.get_ref().accept()) {
                Ok(Ok((stream, _))) => match peer_uid(&stream) {
                    Ok(uid) if uid == me => return Ok(stream),
                    Ok(uid) => log::warn!("closed a connection from uid {uid} to the worker socket"),
                    Err(err) => log::warn!("closed a worker socket connection without credentials: {err}"),
                },
                Ok(Err(err)) => {
                    log::warn!("could not accept on the worker socket: {err}");
                    // Without this, a queued connection we cannot take (EMFILE) would wake us in
                    // a loop; the next connection retries.
                    ready.clear_ready();
                }
                Err(_would_block) => {}
            }
        }
    }
}

/// `bind(2)` with a umask that leaves the socket file 0600 from its first moment.
fn bind_private(path: &Path) -> io::Result<UnixListener> {
    // SAFETY: umask only swaps the process's file creation mask; nothing else creates files
    // concurrently (the worker runs on one thread).
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, restoring the mask the pane's program will inherit.
    unsafe { libc::umask(old) };
    bound
}

/// Whether a socket file has a listener behind it. Connecting without blocking: a live worker
/// whose backlog is full (EAGAIN) is still live.
fn accepts_connections(path: &Path) -> io::Result<bool> {
    let (addr, len) = sockaddr(path)?;
    // SAFETY: socket(2) returns a new fd or -1.
    let raw = unsafe {
        libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0)
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` was just created and is owned by nobody else.
    let probe = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(raw) };
    // SAFETY: connect reads `len` bytes of the sockaddr_un we built.
    let rc = unsafe { libc::connect(probe.as_raw_fd(), (&raw const addr).cast(), len) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EAGAIN | libc::EINPROGRESS) => Ok(true),
        Some(libc::ECONNREFUSED | libc::ENOENT) => Ok(false),
        _ => Err(err),
    }
}

fn sockaddr(path: &Path) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    // SAFETY: sockaddr_un is plain old data; all zeroes is a valid (empty) value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::sa_family_t::try_from(libc::AF_UNIX).map_err(io::Error::other)?;
    let bytes = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let bytes = bytes.as_bytes_with_nul();
    if bytes.len() > addr.sun_path.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "socket path too long"));
    }
    for (dst, &src) in addr.sun_path.iter_mut().zip(bytes) {
        *dst = src.cast_signed();
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len();
    Ok((addr, libc::socklen_t::try_from(len).map_err(io::Error::other)?))
}

fn kind_of(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        "symbolic link"
    } else if t.is_dir() {
        "directory"
    } else if t.is_file() {
        "regular file"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_block_device() || t.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// The uid of the process at the other end of `stream` (SO_PEERCRED: as of its connect).
fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = libc::socklen_t::try_from(std::mem::size_of::<libc::ucred>()).map_err(io::Error::other)?;
    // SAFETY: SO_PEERCRED writes at most `len` bytes of a ucred into the valid pointer.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}

/// The socket file we bound, identified by device and inode so that exiting never removes a
/// file someone else put at the same path since (a replacement worker's socket).
#[derive(Debug)]
struct SocketFile {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl SocketFile {
    fn record(path: &Path) -> io::Result<Self> {
        let meta = fs::symlink_metadata(path)?;
        Ok(Self { path: path.to_path_buf(), dev: meta.dev(), ino: meta.ino() })
    }

    fn is_ours(&self) -> bool {
        fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.file_type().is_socket() && m.dev() == self.dev && m.ino() == self.ino)
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        if self.is_ours()
            && let Err(err) = fs::remove_file(&self.path)
        {
            log::warn!("could not remove the worker socket {}: {err}", self.path.display());
        }
    }
}

/// A connection that sent its first frame: the link it would become, and that frame.
#[derive(Debug)]
pub struct Candidate {
    pub reader: LinkReader,
    pub writer: LinkWriter,
    pub first: SupervisorToWorker,
}

#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("the peer closed the connection before its first frame")]
    Closed,
    #[error("no first frame within {FIRST_FRAME_TIMEOUT:?}")]
    TimedOut,
    #[error(transparent)]
    Link(#[from] LinkError),
}

type Pending = Pin<Box<dyn Future<Output = Result<Candidate, HandshakeError>>>>;

/// Connections waiting for their first frame, each with its own deadline.
#[derive(Default)]
pub struct Handshakes {
    pending: Vec<Pending>,
}

impl std::fmt::Debug for Handshakes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handshakes").field("pending", &self.pending.len()).finish()
    }
}

impl Handshakes {
    /// Starts reading `stream`'s first frame; a connection over the limit is closed at once.
    pub fn start(&mut self, stream: UnixStream) {
        if self.pending.len() >= MAX_HANDSHAKES {
            log::warn!("closed a worker socket connection: {MAX_HANDSHAKES} are already waiting");
            return;
        }
        self.pending.push(Box::pin(first_frame(stream)));
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The next connection to finish its handshake (pending forever while none waits).
    pub async fn next(&mut self) -> Result<Candidate, HandshakeError> {
        future::poll_fn(|cx| {
            let done = self.pending.iter_mut().enumerate().find_map(|(i, pending)| {
                match pending.as_mut().poll(cx) {
                    Poll::Ready(result) => Some((i, result)),
                    Poll::Pending => None,
                }
            });
            match done {
                Some((i, result)) => {
                    drop(self.pending.swap_remove(i));
                    Poll::Ready(result)
                }
                None => Poll::Pending,
            }
        })
        .await
    }
}

async fn first_frame(stream: UnixStream) -> Result<Candidate, HandshakeError> {
    let (mut reader, mut writer) = link::open(OwnedFd::from(stream))?;
    match tokio::time::timeout(FIRST_FRAME_TIMEOUT, reader.recv()).await {
        Ok(Ok(Some(first))) => Ok(Candidate { reader, writer, first }),
        Ok(Ok(None)) => Err(HandshakeError::Closed),
        Ok(Err(LinkError::Frame(err))) => {
            // Most likely a supervisor of another ipc version whose `Adopt` has another shape:
            // say which version we speak rather than just hang up.
            let reason = format!(
                "could not read the first frame ({err}); this worker speaks ipc version {IPC_VERSION}"
            );
            if let Err(err) = writer.send(&WorkerToSupervisor::Refused { reason }, None) {
                log::warn!("could not send Refused: {err}");
            }
            Err(HandshakeError::Link(LinkError::Frame(err)))
        }
        Ok(Err(err)) => Err(err.into()),
        Err(_elapsed) => Err(HandshakeError::TimedOut),
    }
}

#[cfg(test)]
#[path = "listener_tests.rs"]
mod tests;
