//! herdr-pane-worker: the process behind one herdr pane. It owns the pane's PTY and program, feeds
//! every byte of output into a libghostty-vt terminal, and answers the supervisor's reads, input,
//! output waits, process info and resizes over an inherited socketpair (`herdr-protocol::ipc`).
//!
//! It is not the supervisor's model of the pane (layout, agent state, events hub) and it never
//! decides a pane's fate on its own: when the supervisor link closes it exits and leaves the
//! program running, so a fresh worker can adopt the PTY.
//!
//! Modules: `engine` (the only one touching libghostty-vt), `pty` (spawn + raw master I/O),
//! `program` (pidfd watch, reaping, signals), `link` (frames + fds), `keys` / `reads` / `waits` /
//! `cwd` / `osc` (pure rules), `copy` (copy mode and mouse selection, pure), `procinfo` (`/proc`),
//! `detection` (agent identity and screen state, driving `herdr-manifests`), `pane` (the event
//! loop and request handlers).

pub mod copy;
pub mod cwd;
pub mod detection;
pub mod engine;
pub mod keys;
pub mod link;
pub mod osc;
pub mod pane;
pub mod procinfo;
pub mod program;
pub mod pty;
pub mod reads;
pub mod waits;

use std::os::fd::OwnedFd;

use herdr_protocol::ipc::{IPC_VERSION, Start, SupervisorToWorker, WorkerToSupervisor};

use crate::{
    engine::Engine,
    link::{LinkError, LinkWriter},
    pane::Pane,
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

/// Runs the worker on the supervisor link `ipc` until the pane's program exits (Ok, after the
/// `Exited` event is flushed), the supervisor closes the link (Ok, program left running), or the
/// handshake or spawn fails (Err, after `Refused` / `SpawnFailed` was sent).
///
/// Builds a single-threaded runtime: the terminal's handles may not leave the thread that made
/// them, and one thread is all a pane needs.
pub fn run(ipc: OwnedFd) -> Result<(), WorkerError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build()?;
    match runtime.block_on(serve(ipc)) {
        // A write that finds the supervisor gone is the same event as reading EOF from it: the
        // supervisor owns the pane's fate, so leave quietly and let the program be.
        Err(WorkerError::Link(LinkError::Io(err)))
            if matches!(err.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset) =>
        {
            Ok(())
        }
        other => other,
    }
}

async fn serve(ipc: OwnedFd) -> Result<(), WorkerError> {
    let (mut reader, mut writer) = link::open(ipc)?;
    let Some(first) = reader.recv().await? else { return Ok(()) };
    let start = match first {
        SupervisorToWorker::Hello { version, start } if version == IPC_VERSION => start,
        SupervisorToWorker::Hello { version, .. } => {
            let reason = format!("worker speaks ipc version {IPC_VERSION}, supervisor sent {version}");
            return refuse(&mut writer, reason).await;
        }
        other => return refuse(&mut writer, format!("expected Hello first, got {other:?}")).await,
    };
    writer.send(
        &WorkerToSupervisor::Hello { version: IPC_VERSION, worker_pid: std::process::id().cast_signed() },
        None,
    )?;
    let pane = match start {
        Start::Spawn { argv, cwd, env, cols, rows } => {
            let spec = SpawnSpec { argv, cwd, env, cols, rows };
            spawn_pane(&spec, writer).await?
        }
        Start::Adopt { child_pid, cols, rows } => {
            let Some(master) = reader.take_fd() else {
                return refuse(&mut writer, "Adopt without a PTY master fd beside Hello".into()).await;
            };
            adopt_pane(master, child_pid, cols, rows, writer)?
        }
    };
    pane.run(&mut reader).await
}

async fn refuse(writer: &mut LinkWriter, reason: String) -> Result<(), WorkerError> {
    writer.send(&WorkerToSupervisor::Refused { reason: reason.clone() }, None)?;
    writer.flush_all().await?;
    Err(WorkerError::Refused(reason))
}

async fn spawn_pane(spec: &SpawnSpec, mut writer: LinkWriter) -> Result<Pane, WorkerError> {
    let prepared = Engine::new(spec.cols, spec.rows).map_err(WorkerError::from).and_then(|engine| {
        let spawned = pty::spawn(spec).map_err(|e| WorkerError::SpawnFailed(e.to_string()))?;
        Ok((engine, spawned))
    });
    let (engine, spawned) = match prepared {
        Ok(ok) => ok,
        Err(err) => {
            let message = match &err {
                WorkerError::SpawnFailed(message) => message.clone(),
                other => other.to_string(),
            };
            writer.send(&WorkerToSupervisor::SpawnFailed { message: message.clone() }, None)?;
            writer.flush_all().await?;
            return Err(WorkerError::SpawnFailed(message));
        }
    };
    // Watch before anything else can fail, so the program is never left unobserved.
    let program = Program::watch(spawned.pid, true)?;
    let handoff = pty::dup_cloexec(std::os::fd::AsRawFd::as_raw_fd(&spawned.master))?;
    writer.send(&WorkerToSupervisor::Spawned { child_pid: spawned.pid }, Some(handoff))?;
    let pty = Pty::new(spawned.master)?;
    Ok(Pane::new(engine, pty, program, writer))
}

fn adopt_pane(
    master: OwnedFd,
    child_pid: i32,
    cols: u16,
    rows: u16,
    writer: LinkWriter,
) -> Result<Pane, WorkerError> {
    let program = Program::watch(child_pid, false)?;
    let engine = Engine::new(cols, rows)?;
    let pty = Pty::new(master)?;
    let mut pane = Pane::new(engine, pty, program, writer);
    pane.nudge_redraw(cols, rows)?;
    Ok(pane)
}

/// Parses the worker's command line: exactly `--ipc-fd N` (or `--ipc-fd=N`).
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<i32, String> {
    let args: Vec<String> = args.into_iter().collect();
    let value = match args.as_slice() {
        [flag, value] if flag == "--ipc-fd" => value.as_str(),
        [flag] => flag.strip_prefix("--ipc-fd=").ok_or_else(usage)?,
        _ => return Err(usage()),
    };
    let fd: i32 =
        value.parse().map_err(|_| format!("--ipc-fd takes a file descriptor number, got {value:?}"))?;
    if fd < 3 {
        return Err(format!("--ipc-fd {fd} is a standard stream, not a socket"));
    }
    Ok(fd)
}

fn usage() -> String {
    "usage: herdr-pane-worker --ipc-fd N".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        let a = |v: &[&str]| parse_args(v.iter().map(|s| s.to_string()));
        assert_eq!(a(&["--ipc-fd", "5"]), Ok(5));
        assert_eq!(a(&["--ipc-fd=7"]), Ok(7));
        assert!(a(&[]).is_err());
        assert!(a(&["--ipc-fd", "x"]).is_err());
        assert!(a(&["--ipc-fd", "1"]).is_err());
        assert!(a(&["--ipc-fd", "5", "extra"]).is_err());
    }
}
