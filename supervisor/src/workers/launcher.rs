//! The one seam between a pane task and the processes behind it: how a worker is started or
//! reached (either way, a link the pane task speaks `herdr_protocol::ipc` frames over), and how
//! the pane's program is looked at and ended. [`Processes`] is the real thing and the default:
//! `herdr-pane-worker` processes, Unix sockets, `/proc` and signals. In-process tests put a fake
//! behind the same trait (`workers/fake_tests.rs`), which answers over a socketpair and runs nothing.

use std::fmt;
use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;

use herdr_host::procfs;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use tokio::net::UnixStream;

use super::spawn;
use super::start_error::StartError;

/// A worker's end of a link, and the worker's pid (0 when there is no process to watch).
#[derive(Debug)]
pub struct Linked {
    pub pid: i32,
    pub link: UnixStream,
}

/// How a pane's program is ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Its worker was given up on: the program's group is hung up, the program killed.
    HangUp,
    /// Its pane closed and the worker did not end it: the group and the program are killed.
    Kill,
}

/// What [`Launcher::connect`] returns: a future, boxed so the trait can be used as `dyn`.
pub type Connecting<'a> = Pin<Box<dyn Future<Output = Result<Linked, StartError>> + Send + 'a>>;

/// Starts and reaches pane workers, and looks after their programs.
pub trait Launcher: Send + Sync + fmt::Debug + 'static {
    /// Starts a worker from `exe` with a fresh link (the worker then expects a `Hello`).
    fn start(&self, exe: &Path) -> io::Result<Linked>;
    /// Connects to the socket of a worker that outlived its supervisor (it expects an `Adopt`),
    /// refusing one that runs as another user.
    fn connect<'a>(&'a self, socket: &'a str) -> Connecting<'a>;
    /// Whether the program `pid` still runs (never for 0: a held start failure runs nothing).
    fn program_alive(&self, pid: i32) -> bool;
    /// Ends the program `pid` and its process group (nothing for 0).
    fn end_program(&self, pid: i32, how: Ending);
    /// Where the program `pid` runs and where its terminal's foreground job runs.
    fn live_cwds(&self, pid: i32) -> LiveCwds;
}

/// A program's working directory and its terminal's foreground job's (`None`: not known).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveCwds {
    pub cwd: Option<String>,
    pub foreground_cwd: Option<String>,
}

/// The real launcher: `herdr-pane-worker` processes and the pane programs they run.
#[derive(Debug, Clone, Copy)]
pub struct Processes {
    /// Given to each worker it starts (`--scrollback-limit-bytes`).
    pub scrollback_limit_bytes: usize,
}

impl Default for Processes {
    fn default() -> Self {
        Processes { scrollback_limit_bytes: crate::config::DEFAULT_SCROLLBACK_LIMIT_BYTES }
    }
}

impl Launcher for Processes {
    fn start(&self, exe: &Path) -> io::Result<Linked> {
        let started = spawn::start(exe, self.scrollback_limit_bytes)?;
        Ok(Linked { pid: started.pid, link: started.link })
    }

    fn connect<'a>(&'a self, socket: &'a str) -> Connecting<'a> {
        Box::pin(async move {
            let link = UnixStream::connect(socket)
                .await
                .map_err(|source| StartError::NoWorkerAt { socket: socket.to_owned(), source })?;
            let peer = link.peer_cred().map_err(StartError::Credentials)?;
            if peer.uid() != nix::unistd::geteuid().as_raw() {
                return Err(StartError::OtherUser { socket: socket.to_owned(), uid: peer.uid() });
            }
            Ok(Linked { pid: peer.pid().unwrap_or(0), link })
        })
    }

    fn program_alive(&self, pid: i32) -> bool {
        process_alive(pid)
    }

    fn live_cwds(&self, pid: i32) -> LiveCwds {
        let foreground_cwd = procfs::terminal_foreground(pid).and_then(procfs::cwd);
        LiveCwds { cwd: procfs::cwd(pid), foreground_cwd }
    }

    fn end_program(&self, pid: i32, how: Ending) {
        if pid <= 0 {
            return;
        }
        let group_signal = match how {
            Ending::HangUp => Signal::SIGHUP,
            Ending::Kill => Signal::SIGKILL,
        };
        let _ = killpg(Pid::from_raw(pid), group_signal);
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// True while `pid` exists and is not a zombie (never for 0: signalling "pid 0" would signal
/// our own group).
fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
        }
        Err(_) => false,
    }
}
