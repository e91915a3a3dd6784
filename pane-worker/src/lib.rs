//! herdr-pane-worker: the process behind one herdr pane. It owns the pane's PTY and program, feeds
//! every byte of output into a libghostty-vt terminal, and answers the supervisor's reads, input,
//! output waits, process info and resizes over an inherited socketpair (`herdr-protocol::ipc`).
//!
//! It is not the supervisor's model of the pane (layout, agent state, events hub) and it never
//! decides a pane's fate on its own while a supervisor lives. When its supervisor dies (the link
//! closes without a `Shutdown`), the worker keeps the program, terminal and scrollback and waits
//! on its own socket for a new supervisor of the session to adopt it, up to the identity's
//! orphan timeout.
//!
//! Modules: `engine` (the only one touching libghostty-vt), `pty` (spawn + raw master I/O),
//! `program` (pidfd watch, reaping, signals), `link` (frames + fds), `listener` (the worker's
//! own socket), `adoption` (who may take the worker over, pure), `keys` / `reads` / `waits` /
//! `cwd` / `osc` (pure rules), `copy` (copy mode and mouse selection, pure), `procinfo`
//! (`/proc`), `detection` (agent identity and screen state, driving `herdr-manifests`), `pane`
//! (the event loop, request handlers, orphan mode and adoption, held start failures).

pub mod adoption;
pub mod copy;
pub mod cwd;
pub mod detection;
pub mod engine;
pub mod keys;
pub mod link;
pub mod listener;
pub mod osc;
pub mod pane;
pub mod procinfo;
pub mod program;
pub mod pty;
pub mod reads;
pub mod room;
pub mod waits;

use std::{
    os::fd::{AsRawFd, OwnedFd},
    path::Path,
};

use herdr_protocol::ipc::{
    IPC_VERSION, Start, SupervisorToWorker, VersionRange, WorkerToSupervisor, version,
};

use crate::{
    engine::Engine,
    link::{LinkError, LinkReader, LinkWriter},
    listener::Listener,
    pane::{HoldPolicy, Home, Pane},
    program::Program,
    pty::{Pty, SpawnSpec},
};

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
    #[error("handshake refused: {0}")]
    Refused(String),
    #[error("could not start the program: {0}")]
    SpawnFailed(String),
}

/// Runs the worker on the supervisor link `ipc` until the pane ends: the program exits (Ok,
/// after `Exited` is flushed, possibly to a supervisor that adopted the worker later),
/// `Shutdown` or the orphan timeout closes it (Ok), or the handshake or spawn fails (Err, after
/// `Refused` / `SpawnFailed` was sent).
///
/// Builds a single-threaded runtime: the terminal's handles may not leave the thread that made
/// them, and one thread is all a pane needs.
pub fn run(ipc: OwnedFd) -> Result<(), WorkerError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build()?;
    match runtime.block_on(serve(ipc)) {
        // The supervisor went away before the pane existed (during the handshake): there is
        // nothing to keep, so leave quietly.
        Err(WorkerError::Link(err)) if err.is_gone() => Ok(()),
        other => other,
    }
}

async fn serve(ipc: OwnedFd) -> Result<(), WorkerError> {
    let (mut reader, mut writer) = link::open(ipc)?;
    let Some(first) = reader.recv().await? else { return Ok(()) };
    let (start, identity) = match first {
        SupervisorToWorker::Hello { version, min_version, start, identity } => {
            let supervisor = VersionRange { min: min_version, max: version };
            if let Err(mismatch) = version::negotiate(supervisor, VersionRange::OURS) {
                return refuse(&mut writer, mismatch.to_string()).await;
            }
            (start, identity)
        }
        other => return refuse(&mut writer, format!("expected Hello first, got {other:?}")).await,
    };
    // Bound before answering: a worker that cannot be found again must not start a pane.
    let listener = match Listener::bind(Path::new(&identity.socket)) {
        Ok(listener) => listener,
        Err(err) => return refuse(&mut writer, err.to_string()).await,
    };
    writer.send(
        &WorkerToSupervisor::Hello { version: IPC_VERSION, worker_pid: std::process::id().cast_signed() },
        None,
    )?;
    let home = Home::new(listener, identity);
    let pane = match start {
        Start::Spawn { argv, cwd, env, cols, rows, hold_failure, replay } => {
            let spec = SpawnSpec { argv, cwd, env, cols, rows };
            spawn_pane(&spec, hold_failure, replay.as_deref(), (reader, writer), home).await?
        }
        Start::Adopt { child_pid, cols, rows } => {
            let Some(master) = reader.take_fd() else {
                return refuse(&mut writer, "Adopt without a PTY master fd beside Hello".into()).await;
            };
            adopt_pane(master, child_pid, cols, rows, None, (reader, writer), home)?
        }
        Start::Restore { child_pid, cols, rows, revision, dump_len } => {
            let Some(master) = reader.take_fd() else {
                return refuse(&mut writer, "Restore without a PTY master fd beside Hello".into()).await;
            };
            let dump = match receive_dump(&mut reader, dump_len).await {
                Ok(dump) => dump,
                Err(reason) => return refuse(&mut writer, reason.to_string()).await,
            };
            let engine = Engine::restore(cols, rows, &dump, revision)?;
            adopt_pane(master, child_pid, cols, rows, Some(engine), (reader, writer), home)?
        }
    };
    pane.run().await
}

/// Why a `Start::Restore`'s dump did not arrive whole; the text is the `Refused` reason.
#[derive(Debug, thiserror::Error)]
enum DumpError {
    #[error("a dump of {0} bytes is too large")]
    TooLarge(u64),
    /// Another frame (debug-printed) came before the dump was complete.
    #[error("expected the dump, got {0}")]
    Unexpected(String),
    #[error("the supervisor left before sending the whole dump")]
    Left,
    #[error("{0}")]
    Link(LinkError),
    #[error("the dump has {got} bytes, {announced} were announced")]
    Length { got: usize, announced: usize },
}

/// The `dump_len` bytes of dump a `Start::Restore` announced, from the `DumpChunk`s after it.
async fn receive_dump(reader: &mut LinkReader, dump_len: u64) -> Result<Vec<u8>, DumpError> {
    let len = usize::try_from(dump_len).map_err(|_| DumpError::TooLarge(dump_len))?;
    let mut dump = Vec::with_capacity(len);
    while dump.len() < len {
        match reader.recv().await {
            Ok(Some(SupervisorToWorker::DumpChunk { bytes })) => dump.extend_from_slice(&bytes),
            Ok(Some(other)) => return Err(DumpError::Unexpected(format!("{other:?}"))),
            Ok(None) => return Err(DumpError::Left),
            Err(err) => return Err(DumpError::Link(err)),
        }
    }
    if dump.len() != len {
        return Err(DumpError::Length { got: dump.len(), announced: len });
    }
    Ok(dump)
}

async fn refuse(writer: &mut LinkWriter, reason: String) -> Result<(), WorkerError> {
    writer.send(&WorkerToSupervisor::Refused { reason: reason.clone() }, None)?;
    writer.flush_all().await?;
    Err(WorkerError::Refused(reason))
}

async fn spawn_failed(writer: &mut LinkWriter, message: String) -> Result<Pane, WorkerError> {
    writer.send(&WorkerToSupervisor::SpawnFailed { message: message.clone() }, None)?;
    writer.flush_all().await?;
    Err(WorkerError::SpawnFailed(message))
}

/// Starts the program. With `hold_failure`, a program that cannot start still makes a pane (on
/// a PTY with no program) that shows why, and one that fails at once is held by the pane.
/// `replay` (a saved screen) is in the terminal before the program can print anything.
async fn spawn_pane(
    spec: &SpawnSpec,
    hold_failure: bool,
    replay: Option<&[u8]>,
    (reader, mut writer): (LinkReader, LinkWriter),
    home: Home,
) -> Result<Pane, WorkerError> {
    let mut engine = match Engine::new(spec.cols, spec.rows) {
        Ok(engine) => engine,
        Err(err) => return spawn_failed(&mut writer, err.to_string()).await,
    };
    if let Some(bytes) = replay {
        engine.replay(bytes);
    }
    let hold = hold_failure.then(|| {
        let (program, cwd) = pty::describe(spec);
        HoldPolicy::new(program, cwd, tokio::time::Instant::now())
    });
    let spawned = match (pty::spawn(spec), &hold) {
        (Ok(spawned), _) => spawned,
        (Err(err), Some(hold)) => {
            let message = hold.could_not_start(&err.reason());
            return hold_start_failure(engine, spec, message, (reader, writer), home).await;
        }
        (Err(err), None) => return spawn_failed(&mut writer, err.to_string()).await,
    };
    // Watch before anything else can fail, so the program is never left unobserved.
    let program = Program::watch(spawned.pid, true)?;
    let handoff = pty::dup_cloexec(spawned.master.as_raw_fd())?;
    let pty = Pty::new(spawned.master)?;
    let mut pane = Pane::new(engine, pty, program, (reader, writer), home);
    if let Some(hold) = hold {
        pane.hold_failures(hold);
    }
    pane.report_spawned(handoff)?;
    Ok(pane)
}

/// `Spawned { child_pid: 0 }` with the master of a PTY that has no program, then the pane holds
/// `message` as its start failure.
async fn hold_start_failure(
    engine: Engine,
    spec: &SpawnSpec,
    message: String,
    (reader, mut writer): (LinkReader, LinkWriter),
    home: Home,
) -> Result<Pane, WorkerError> {
    let master = match pty::open_without_program(spec.cols, spec.rows) {
        Ok(master) => master,
        Err(err) => return spawn_failed(&mut writer, format!("{message}; and {err}")).await,
    };
    let handoff = pty::dup_cloexec(master.as_raw_fd())?;
    let pty = Pty::new(master)?;
    let mut pane = Pane::without_program(engine, pty, (reader, writer), home);
    pane.report_spawned(handoff)?;
    pane.hold(message)?;
    Ok(pane)
}

/// Takes over a running program on `master`: after a worker crash with a blank terminal
/// (`restored` is `None`: the program redraws for the resize), or after a hand-over with the
/// old worker's terminal, whose state is then re-reported as to an adopting supervisor.
fn adopt_pane(
    master: OwnedFd,
    child_pid: i32,
    cols: u16,
    rows: u16,
    restored: Option<Engine>,
    link: (LinkReader, LinkWriter),
    home: Home,
) -> Result<Pane, WorkerError> {
    let program = Program::watch(child_pid, false)?;
    let pty = Pty::new(master)?;
    let pane = match restored {
        Some(engine) => {
            let mut pane = Pane::new(engine, pty, program, link, home);
            pane.resend_state()?;
            pane
        }
        None => {
            let mut pane = Pane::new(Engine::new(cols, rows)?, pty, program, link, home);
            pane.nudge_redraw(cols, rows)?;
            pane.report_live_cwd()?;
            pane
        }
    };
    Ok(pane)
}

/// A worker command line other than `--ipc-fd N [--scrollback-limit-bytes B]`.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error("usage: herdr-pane-worker --ipc-fd N [--scrollback-limit-bytes B]")]
    Usage,
    #[error("{0} takes a number, got {1:?}")]
    NotANumber(&'static str, String),
    #[error("--ipc-fd {0} is a standard stream, not a socket")]
    StandardStream(i32),
}

/// What the supervisor starts a worker with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerArgs {
    /// The link's fd (`--ipc-fd N`).
    pub ipc_fd: i32,
    /// `--scrollback-limit-bytes B` (`[advanced] scrollback_limit_bytes`), if given.
    pub scrollback_limit_bytes: Option<usize>,
}

/// Parses the worker's command line: `--ipc-fd N` (or `--ipc-fd=N`), optionally
/// `--scrollback-limit-bytes B` (or `=B`), each at most once, in either order.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<WorkerArgs, ArgsError> {
    const FD: &str = "--ipc-fd";
    const SCROLLBACK: &str = "--scrollback-limit-bytes";
    let mut args = args.into_iter();
    let (mut fd, mut scrollback) = (None, None);
    while let Some(arg) = args.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) => (flag.to_owned(), value.to_owned()),
            None => (arg.clone(), args.next().ok_or(ArgsError::Usage)?),
        };
        let slot = match flag.as_str() {
            FD if fd.is_none() => &mut fd,
            SCROLLBACK if scrollback.is_none() => &mut scrollback,
            _ => return Err(ArgsError::Usage),
        };
        *slot = Some(value);
    }
    let fd = fd.ok_or(ArgsError::Usage)?;
    let ipc_fd: i32 = fd.parse().map_err(|_| ArgsError::NotANumber(FD, fd.clone()))?;
    if ipc_fd < 3 {
        return Err(ArgsError::StandardStream(ipc_fd));
    }
    let scrollback_limit_bytes = scrollback
        .map(|b| b.parse().map_err(|_| ArgsError::NotANumber(SCROLLBACK, b.clone())))
        .transpose()?;
    Ok(WorkerArgs { ipc_fd, scrollback_limit_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        let a = |v: &[&str]| parse_args(v.iter().map(|s| s.to_string()));
        let fd = |ipc_fd| Ok(WorkerArgs { ipc_fd, scrollback_limit_bytes: None });
        assert_eq!(a(&["--ipc-fd", "5"]), fd(5));
        assert_eq!(a(&["--ipc-fd=7"]), fd(7));
        assert_eq!(a(&[]), Err(ArgsError::Usage));
        let both = Ok(WorkerArgs { ipc_fd: 3, scrollback_limit_bytes: Some(2_000_000) });
        assert_eq!(a(&["--ipc-fd", "3", "--scrollback-limit-bytes=2000000"]), both);
        assert_eq!(a(&["--scrollback-limit-bytes", "2000000", "--ipc-fd=3"]), both);
        assert_eq!(a(&["--scrollback-limit-bytes", "2000000"]), Err(ArgsError::Usage), "no link");
        assert_eq!(a(&["--ipc-fd", "3", "--ipc-fd", "4"]), Err(ArgsError::Usage));
        assert_eq!(
            a(&["--ipc-fd", "3", "--scrollback-limit-bytes", "lots"]).map_err(|e| e.to_string()),
            Err(r#"--scrollback-limit-bytes takes a number, got "lots""#.to_owned())
        );
        assert_eq!(
            a(&["--ipc-fd", "x"]).map_err(|e| e.to_string()),
            Err(r#"--ipc-fd takes a number, got "x""#.to_owned())
        );
        assert_eq!(
            a(&["--ipc-fd", "1"]).map_err(|e| e.to_string()),
            Err("--ipc-fd 1 is a standard stream, not a socket".to_owned())
        );
        assert_eq!(
            a(&["--ipc-fd", "5", "extra"]).map_err(|e| e.to_string()),
            Err("usage: herdr-pane-worker --ipc-fd N [--scrollback-limit-bytes B]".to_owned())
        );
    }
}
