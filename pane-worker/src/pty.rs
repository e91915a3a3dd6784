//! The PTY edge: spawning the pane's program on a new PTY (portable-pty), then raw, non-blocking
//! I/O on the master fd for both spawned and adopted panes, window size, foreground process group
//! and slave path. Nothing here parses terminal output.

use std::{
    collections::VecDeque,
    ffi::OsString,
    io,
    os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd},
};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use tokio::io::{Interest, unix::AsyncFd};

use crate::room::Room;

/// Largest single read from the master: big chunks keep floods cheap.
pub const READ_CHUNK: usize = 64 * 1024;

/// A read shorter than this is a program's burst (a frame, a prompt, an echo), not a flood: the
/// turn that read it ends without asking the terminal again (see [`Pty::read`]).
pub const SMALL_READ: usize = 1024;

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("working directory {dir:?}: {reason}")]
    BadCwd { dir: String, reason: String },
    #[error("could not open a pty: {0}")]
    OpenPty(String),
    #[error("could not start {program:?}: {reason}")]
    Start { program: String, reason: String },
    #[error("could not keep the pty master: {0}")]
    Master(#[source] io::Error),
}

impl SpawnError {
    /// Why it failed, without saying what was started where (a held pane says that itself).
    pub fn reason(&self) -> String {
        match self {
            Self::BadCwd { reason, .. } | Self::Start { reason, .. } => reason.clone(),
            Self::OpenPty(reason) => format!("could not open a pty: {reason}"),
            Self::Master(err) => format!("could not keep the pty master: {}", os_reason(err)),
        }
    }
}

/// An OS error's text without the "(os error N)" suffix std adds.
fn os_reason(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// What to start and where (the `Start::Spawn` request, minus the wire type).
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    pub argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
    pub cols: u16,
    pub rows: u16,
}

/// A started program: its pid and the PTY master (close-on-exec, owned by the worker).
#[derive(Debug)]
pub struct Spawned {
    pub master: OwnedFd,
    pub pid: i32,
}

/// The environment a pane's program starts with: the worker's own, terminal defaults, then the
/// request's entries in order (later wins). `CODEX_THREAD_ID` never leaks into a pane: an agent
/// started inside one would otherwise believe it is that Codex thread.
pub fn program_env(
    base: impl IntoIterator<Item = (OsString, OsString)>,
    overrides: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = base.into_iter().collect();
    let mut set = |key: &str, value: &str| {
        env.retain(|(k, _)| k != key);
        env.push((key.into(), value.into()));
    };
    set("TERM", "xterm-256color");
    set("COLORTERM", "truecolor");
    for (key, value) in overrides {
        set(key, value);
    }
    env.retain(|(k, _)| k != "CODEX_THREAD_ID");
    env
}

/// The program to run: the request's argv, else `$SHELL` from the program's environment, else
/// `/bin/sh`.
pub fn program_argv(argv: Option<&[String]>, env: &[(OsString, OsString)]) -> Vec<String> {
    if let Some(argv) = argv.filter(|a| !a.is_empty()) {
        return argv.to_vec();
    }
    let shell = env
        .iter()
        .rev()
        .find(|(k, _)| k == "SHELL")
        .and_then(|(_, v)| v.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("/bin/sh");
    vec![shell.to_string()]
}

/// Opens a PTY of the requested size and starts the program on it as a session leader with the
/// PTY as its controlling terminal. The slave is closed here once the program has it.
pub fn spawn(spec: &SpawnSpec) -> Result<Spawned, SpawnError> {
    let bad_cwd = |dir: &str, reason: String| SpawnError::BadCwd { dir: dir.to_string(), reason };
    let cwd = match &spec.cwd {
        Some(dir) => match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => dir.clone().into(),
            Ok(_) => return Err(bad_cwd(dir, "Not a directory".into())),
            Err(err) => return Err(bad_cwd(dir, os_reason(&err))),
        },
        // portable-pty would fall back to $HOME; a pane without a cwd inherits the worker's.
        None => std::env::current_dir().map_err(|e| bad_cwd(".", os_reason(&e)))?,
    };
    let env = program_env(std::env::vars_os(), &spec.env);
    let argv = program_argv(spec.argv.as_deref(), &env);
    let mut cmd = CommandBuilder::from_argv(argv.iter().map(OsString::from).collect());
    cmd.env_clear();
    for (key, value) in &env {
        cmd.env(key, value);
    }
    cmd.cwd(cwd);

    let size = PtySize { rows: spec.rows, cols: spec.cols, pixel_width: 0, pixel_height: 0 };
    let pair = native_pty_system().openpty(size).map_err(|e| SpawnError::OpenPty(format!("{e:#}")))?;
    let child = pair.slave.spawn_command(cmd).map_err(|e| SpawnError::Start {
        program: argv.first().cloned().unwrap_or_default(),
        reason: format!("{e:#}"),
    })?;
    drop(pair.slave);
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .ok_or_else(|| SpawnError::Start { program: argv[0].clone(), reason: "no process id".into() })?;
    // Dropping portable-pty's child handle neither kills nor reaps: the worker reaps via pidfd.
    drop(child);
    let raw = pair.master.as_raw_fd().ok_or_else(|| SpawnError::Master(io::Error::other("no master fd")))?;
    let master = dup_cloexec(raw).map_err(SpawnError::Master)?;
    Ok(Spawned { master, pid })
}

/// A PTY of the requested size with no program on it, for a pane that keeps showing why its
/// program could not start. The slave is closed at once: nothing will ever write to it.
pub fn open_without_program(cols: u16, rows: u16) -> Result<OwnedFd, SpawnError> {
    let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
    let pair = native_pty_system().openpty(size).map_err(|e| SpawnError::OpenPty(format!("{e:#}")))?;
    drop(pair.slave);
    let raw = pair.master.as_raw_fd().ok_or_else(|| SpawnError::Master(io::Error::other("no master fd")))?;
    dup_cloexec(raw).map_err(SpawnError::Master)
}

/// What `spec` starts and where, as a person would name them: the program (after the `$SHELL`
/// default) and the directory (the worker's own when none is given).
pub fn describe(spec: &SpawnSpec) -> (String, String) {
    let env = program_env(std::env::vars_os(), &spec.env);
    let program = program_argv(spec.argv.as_deref(), &env).into_iter().next().unwrap_or_default();
    let cwd = spec.cwd.clone().unwrap_or_else(|| {
        std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_else(|_| ".".into())
    });
    (program, cwd)
}

/// A close-on-exec duplicate of `fd`.
pub fn dup_cloexec(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC only reads `fd`; a non-negative result is a new fd we own.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` was just returned by fcntl and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// Marks `fd` close-on-exec and, if asked, non-blocking.
pub fn set_fd_flags(fd: BorrowedFd<'_>, nonblocking: bool) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: plain fcntl flag reads/writes on a valid borrowed fd.
    unsafe {
        let fd_flags = libc::fcntl(raw, libc::F_GETFD);
        if fd_flags < 0 || libc::fcntl(raw, libc::F_SETFD, fd_flags | libc::FD_CLOEXEC) < 0 {
            return Err(io::Error::last_os_error());
        }
        if nonblocking {
            let fl = libc::fcntl(raw, libc::F_GETFL);
            if fl < 0 || libc::fcntl(raw, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Outcome of draining the master once.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadOutcome {
    /// This many bytes were read.
    Data(usize),
    /// Nothing more right now.
    WouldBlock,
    /// Every slave fd is closed (EOF or EIO): no more output will come.
    Closed,
}

/// The PTY master, non-blocking, registered with the runtime for reading only; plus input not
/// yet accepted by the PTY (a program that does not read its input must not stall the worker).
/// Registered for writability too, edge-triggered epoll would wake the worker each time the
/// program's terminal takes a typed key in, apart from the echo's own wake a moment later;
/// input is written straight to the master and only input the PTY cannot take right now waits
/// on a registration of its own (`room`), as the link does.
#[derive(Debug)]
pub struct Pty {
    fd: AsyncFd<OwnedFd>,
    room: Room,
    pending_input: VecDeque<u8>,
}

impl Pty {
    pub fn new(master: OwnedFd) -> io::Result<Self> {
        set_fd_flags(master.as_fd(), true)?;
        // SAFETY: the AsyncFd owns the OwnedFd, so the fd stays open and unchanged for its life.
        let fd = unsafe { AsyncFd::register_with_interest(master, Interest::READABLE) }
            .map_err(|e| e.into_parts().1)?;
        Ok(Self { fd, pending_input: VecDeque::new(), room: Room::default() })
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.get_ref().as_raw_fd()
    }

    /// Waits for output and reads one chunk of it into `buf`. A chunk under [`SMALL_READ`] took
    /// all the terminal had (the master's line discipline hands over its whole buffer, up to 4 KiB
    /// here), and the program is not writing faster than the worker reads: the readiness it came
    /// from is cleared here instead of by a second read that would most likely just say `EAGAIN`
    /// (one syscall less per spinner frame). Only the readiness seen before the read is cleared,
    /// and output arriving after it wakes the registration again (edge-triggered epoll queues an
    /// event per arrival), so nothing waits unread.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<ReadOutcome> {
        loop {
            let mut guard = self.fd.readable().await?;
            match guard.try_io(|fd| raw_read(fd.as_raw_fd(), buf)) {
                Ok(Ok(ReadOutcome::Data(n))) if n < SMALL_READ => {
                    guard.clear_ready();
                    return Ok(ReadOutcome::Data(n));
                }
                Ok(result) => return result,
                Err(_would_block) => {}
            }
        }
    }

    /// Reads one more chunk if output is ready now, without waiting.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<ReadOutcome> {
        match self.fd.try_io(Interest::READABLE, |fd| raw_read(fd.as_raw_fd(), buf)) {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => Ok(ReadOutcome::WouldBlock),
            other => other,
        }
    }

    /// Queues input for the program and writes as much as the PTY takes now.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.pending_input.extend(bytes);
        self.flush_input()
    }

    pub fn has_pending_input(&self) -> bool {
        !self.pending_input.is_empty()
    }

    /// Waits until the PTY can take more input (on the master's writability registration,
    /// kept while input waits).
    pub async fn writable(&self) -> io::Result<()> {
        self.room.wait(self.fd.get_ref().as_fd()).await
    }

    /// Writes queued input until the PTY would block.
    pub fn flush_input(&mut self) -> io::Result<()> {
        while !self.pending_input.is_empty() {
            let (front, _) = self.pending_input.as_slices();
            match raw_write(self.raw_fd(), front) {
                Ok(n) => {
                    self.pending_input.drain(..n);
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                // EIO: the program is gone; its input has nowhere to go.
                Err(err) if err.raw_os_error() == Some(libc::EIO) => self.pending_input.clear(),
                Err(err) => return Err(err),
            }
        }
        self.room.done();
        Ok(())
    }

    /// Current window size as (cols, rows).
    pub fn size(&self) -> io::Result<(u16, u16)> {
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        // SAFETY: TIOCGWINSZ writes a winsize into the valid pointer.
        if unsafe { libc::ioctl(self.raw_fd(), libc::TIOCGWINSZ, &mut ws) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((ws.ws_col, ws.ws_row))
    }

    /// Sets the window size; the kernel sends SIGWINCH to the foreground group when it changes.
    pub fn set_size(&self, cols: u16, rows: u16) -> io::Result<()> {
        let ws = libc::winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCSWINSZ reads the winsize from the valid pointer.
        if unsafe { libc::ioctl(self.raw_fd(), libc::TIOCSWINSZ, &ws) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The slave's foreground process group (tcgetpgrp works on the master on Linux).
    pub fn foreground_pgrp(&self) -> Option<i32> {
        // SAFETY: tcgetpgrp only queries the fd.
        let pgrp = unsafe { libc::tcgetpgrp(self.raw_fd()) };
        (pgrp > 0).then_some(pgrp)
    }

    /// The slave device path, e.g. `/dev/pts/3`.
    pub fn slave_path(&self) -> Option<String> {
        let mut buf = [0u8; 128];
        // SAFETY: ptsname_r writes a NUL-terminated path into the buffer we pass.
        if unsafe { libc::ptsname_r(self.raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } != 0 {
            return None;
        }
        let len = buf.iter().position(|&b| b == 0)?;
        String::from_utf8(buf[..len].to_vec()).ok()
    }
}

/// One `read(2)`: `WouldBlock` stays an error so tokio clears readiness; EOF and EIO (Linux's
/// answer once every slave fd is closed) mean no more output.
fn raw_read(fd: RawFd, buf: &mut [u8]) -> io::Result<ReadOutcome> {
    loop {
        // SAFETY: reading into a valid, exclusively borrowed buffer.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            return Ok(ReadOutcome::Data(n.unsigned_abs()));
        }
        if n == 0 {
            return Ok(ReadOutcome::Closed);
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EIO) => return Ok(ReadOutcome::Closed),
            _ => return Err(err),
        }
    }
}

fn raw_write(fd: RawFd, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: writing from a valid slice.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n.unsigned_abs()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
    }

    #[test]
    fn env_defaults_overrides_and_scrubbing() {
        let base = os(&[("PATH", "/bin"), ("TERM", "dumb"), ("CODEX_THREAD_ID", "t1"), ("A", "0")]);
        let env = program_env(
            base,
            &[("A".into(), "1".into()), ("COLORTERM".into(), "24bit".into()), ("A".into(), "2".into())],
        );
        let get = |k: &str| env.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        assert_eq!(get("TERM"), Some("xterm-256color".into()));
        assert_eq!(get("COLORTERM"), Some("24bit".into()));
        assert_eq!(get("A"), Some("2".into()));
        assert_eq!(get("PATH"), Some("/bin".into()));
        assert_eq!(get("CODEX_THREAD_ID"), None);
        assert_eq!(env.iter().filter(|(k, _)| k == "A").count(), 1);
    }

    /// A master in a `Pty` and its slave end, with no program on it.
    fn pair() -> (Pty, std::fs::File) {
        use std::os::unix::fs::OpenOptionsExt;
        // SAFETY: plain libc calls on the fd they return; it is owned right after.
        let master = unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(fd >= 0 && libc::grantpt(fd) == 0 && libc::unlockpt(fd) == 0);
            OwnedFd::from_raw_fd(fd)
        };
        let pty = Pty::new(master).expect("register the master");
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(pty.slave_path().expect("slave path"))
            .expect("open the slave");
        (pty, slave)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_small_read_ends_the_readiness_and_later_output_still_wakes_the_reader() {
        use std::io::Write;
        let (pty, mut slave) = pair();
        let mut buf = vec![0u8; READ_CHUNK];
        let wait = std::time::Duration::from_secs(5);
        slave.write_all(b"frame 1").expect("write");
        assert_eq!(pty.read(&mut buf).await.expect("read"), ReadOutcome::Data(7));
        // The runtime has not looked at epoll since that read, so the readiness it came from
        // is all there is: cleared, nothing is read without waiting, though frame 2 is there
        // (a second read would find it).
        slave.write_all(b"frame 2").expect("write");
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(pty.try_read(&mut buf).expect("read"), ReadOutcome::WouldBlock);
        // Frame 2's own arrival wakes the next wait.
        let next =
            tokio::time::timeout(wait, pty.read(&mut buf)).await.expect("frame 2 never woke the reader");
        assert_eq!(next.expect("read"), ReadOutcome::Data(7));
        assert_eq!(&buf[..7], b"frame 2");

        // A large read may have left more behind: it keeps the readiness for another try.
        slave.write_all(&[b'x'; SMALL_READ]).expect("write");
        let big =
            tokio::time::timeout(wait, pty.read(&mut buf)).await.expect("a large write woke the reader");
        assert_eq!(big.expect("read"), ReadOutcome::Data(SMALL_READ));
        slave.write_all(b"more").expect("write");
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(pty.try_read(&mut buf).expect("read"), ReadOutcome::Data(4));
    }

    #[test]
    fn program_defaults_to_shell() {
        let with_shell = os(&[("SHELL", "/bin/bash")]);
        assert_eq!(program_argv(None, &with_shell), vec!["/bin/bash"]);
        assert_eq!(program_argv(None, &os(&[("SHELL", "")])), vec!["/bin/sh"]);
        assert_eq!(program_argv(None, &[]), vec!["/bin/sh"]);
        let argv = vec!["vi".to_string(), "x".to_string()];
        assert_eq!(program_argv(Some(&argv), &with_shell), argv);
        assert_eq!(program_argv(Some(&[]), &with_shell), vec!["/bin/bash"]);
    }
}
