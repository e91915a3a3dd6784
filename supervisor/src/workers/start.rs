//! Getting a pane a worker: starting a fresh one (`Hello` with `Start::Spawn`, `Start::Adopt` or
//! `Start::Restore` over an inherited socketpair), or taking over one that outlived its
//! supervisor (`Adopt` over the worker's own socket). Either way the result is a [`Worker`] link
//! plus the [`Program`], and the link version the two sides agreed on.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::time::Duration;

use herdr_host::pidfd::PidFd;
use herdr_protocol::ipc::{
    DUMP_CHUNK_LEN, IPC_VERSION, MIN_IPC_VERSION, Start, SupervisorToWorker, VersionRange, WorkerEvent,
    WorkerIdentity, WorkerToSupervisor,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::sync::mpsc;

use super::Observer;
use super::launcher::{Launcher, Linked};
use super::start_error::StartError;
use crate::session::PaneKey;
use herdr_host::link::{self, LinkReader, LinkWriter};

/// How long a worker may take to answer the handshake and start the program.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a worker that outlived its supervisor may take to answer `Adopt`.
const ADOPT_TIMEOUT: Duration = Duration::from_secs(5);

/// The pane's program: its pid (0 for a held start failure, which runs nothing) and the
/// supervisor's own dup of the PTY master, which keeps the terminal alive while no worker runs.
#[derive(Debug)]
pub struct Program {
    pub pid: i32,
    pub master: OwnedFd,
}

/// Frames from the current worker, read by a task of their own. The frame is boxed: a channel
/// allocates its first block of 32 slots when it is made, and an inline frame made that 3.9 KiB
/// of every pane's supervisor heap (damage, the bulk of the traffic, does not come this way).
#[derive(Debug)]
pub enum Incoming {
    Frame(Box<WorkerToSupervisor>, Option<OwnedFd>),
    Closed,
}

/// Where a worker's screen damage goes straight from the link reader: damage is most of the
/// traffic of a visible pane, and handing each frame through the pane task first cost a task
/// wake-up per frame. Everything else still goes through the pane task, in order.
pub type ScreenSink = (PaneKey, Observer);

#[derive(Debug)]
pub struct Worker {
    pub pid: i32,
    /// The link version both sides speak (the older of their newest versions): nothing newer
    /// is ever sent to this worker.
    pub link_version: u32,
    pub writer: LinkWriter,
    pub frames: mpsc::UnboundedReceiver<Incoming>,
    /// `None` if the worker was gone before we could watch it (or is no process: pid 0).
    pidfd: Option<PidFd>,
}

/// What a pane needs to start a worker: the executable, the identity it is given, and what
/// starts it.
#[derive(Debug, Clone)]
pub struct WorkerSpec<'a> {
    pub exe: &'a Path,
    pub identity: &'a WorkerIdentity,
    pub launcher: &'a dyn Launcher,
}

impl Worker {
    fn over(pid: i32, stream: tokio::net::UnixStream, screen: ScreenSink) -> Result<Worker, StartError> {
        let (writer, reader) = link::split(stream).map_err(StartError::Link)?;
        let (tx, frames) = mpsc::unbounded_channel();
        tokio::spawn(read_frames(reader, tx, screen));
        let pidfd = if pid > 0 { PidFd::open(pid) } else { None };
        Ok(Worker { pid, link_version: IPC_VERSION, writer, frames, pidfd })
    }

    /// Starts a new worker process and completes the `Hello` handshake; `dump` (a
    /// `Start::Restore`'s) is sent in chunks right after the `Hello`.
    pub async fn spawn_and_greet(
        spec: &WorkerSpec<'_>,
        start: Start,
        fd: Option<&OwnedFd>,
        dump: Option<&[u8]>,
        screen: ScreenSink,
    ) -> Result<Worker, StartError> {
        let started = spec
            .launcher
            .start(spec.exe)
            .map_err(|source| StartError::Exec { exe: spec.exe.to_path_buf(), source })?;
        let mut worker = Worker::over(started.pid, started.link, screen)?;
        let hello = SupervisorToWorker::Hello {
            version: IPC_VERSION,
            min_version: MIN_IPC_VERSION,
            start,
            identity: spec.identity.clone(),
        };
        let mut sent = worker.writer.send(&hello, fd.map(|f| f.as_fd())).await;
        for chunk in dump.unwrap_or_default().chunks(DUMP_CHUNK_LEN) {
            if sent.is_err() {
                break;
            }
            sent = worker.writer.send(&SupervisorToWorker::DumpChunk { bytes: chunk.to_vec() }, None).await;
        }
        let answer = worker.next_frame_within(HANDSHAKE_TIMEOUT).await;
        if let Err(e) = sent {
            worker.kill();
            return Err(match answer {
                Some((WorkerToSupervisor::Refused { reason }, _)) => StartError::Refused(reason),
                _ => StartError::Link(e),
            });
        }
        match answer {
            Some((WorkerToSupervisor::Hello { version, .. }, _)) => match VersionRange::OURS.link_to(version)
            {
                Some(link) => {
                    worker.link_version = link;
                    Ok(worker)
                }
                None => {
                    worker.kill();
                    Err(StartError::LinkVersion(version))
                }
            },
            Some((WorkerToSupervisor::Refused { reason }, _)) => Err(StartError::Refused(reason)),
            other => {
                worker.kill();
                Err(StartError::NoHandshake(format!("{other:?}")))
            }
        }
    }

    /// Starts a worker that opens a PTY and starts the pane's program.
    pub async fn start_fresh(
        spec: &WorkerSpec<'_>,
        start: Start,
        screen: ScreenSink,
    ) -> Result<(Worker, Program), StartError> {
        let mut worker = Self::spawn_and_greet(spec, start, None, None, screen).await?;
        match worker.next_frame_within(HANDSHAKE_TIMEOUT).await {
            Some((WorkerToSupervisor::Spawned { child_pid }, Some(master))) => {
                Ok((worker, Program { pid: child_pid, master }))
            }
            Some((WorkerToSupervisor::SpawnFailed { message }, _)) => Err(StartError::SpawnFailed(message)),
            other => {
                worker.kill();
                Err(StartError::NoProgram(format!("{other:?}")))
            }
        }
    }

    /// Takes over the worker listening at `identity.socket`, which outlived its supervisor.
    /// Returns it with its program and the size its terminal has.
    pub async fn adopt(
        launcher: &dyn Launcher,
        identity: &WorkerIdentity,
        screen: ScreenSink,
    ) -> Result<(Worker, Program, (u16, u16)), StartError> {
        let Linked { pid, link } = launcher.connect(&identity.socket).await?;
        let mut worker = Worker::over(pid, link, screen)?;
        let adopt = SupervisorToWorker::Adopt {
            version: IPC_VERSION,
            min_version: MIN_IPC_VERSION,
            secret: identity.secret.clone(),
        };
        worker.writer.send(&adopt, None).await.map_err(StartError::Link)?;
        match worker.next_frame_within(ADOPT_TIMEOUT).await {
            Some((
                WorkerToSupervisor::Adopted { version, worker_pid, child_pid, cols, rows },
                Some(master),
            )) => {
                // The worker checked that it speaks a version we do; this only guards a worker
                // that answered anyway.
                worker.link_version =
                    VersionRange::OURS.link_to(version).ok_or(StartError::AdoptLinkVersion(version))?;
                if worker_pid != pid {
                    worker.pid = worker_pid;
                    worker.pidfd = PidFd::open(worker_pid);
                }
                Ok((worker, Program { pid: child_pid, master }, (cols, rows)))
            }
            Some((WorkerToSupervisor::Refused { reason }, _)) => Err(StartError::AdoptRefused(reason)),
            other => Err(StartError::NoAdoptAnswer(format!("{other:?}"))),
        }
    }

    pub async fn next_frame_within(
        &mut self,
        limit: Duration,
    ) -> Option<(WorkerToSupervisor, Option<OwnedFd>)> {
        match tokio::time::timeout(limit, self.frames.recv()).await {
            Ok(Some(Incoming::Frame(frame, fd))) => Some((*frame, fd)),
            _ => None,
        }
    }

    pub fn kill(&self) {
        match &self.pidfd {
            Some(pidfd) => pidfd.kill(),
            None if self.pid > 0 => {
                let _ = kill(Pid::from_raw(self.pid), Signal::SIGKILL);
            }
            None => {}
        }
    }

    /// After its link closed: waits (briefly) until the worker process is really gone, killing
    /// it if it lingers, so a replacement never shares the PTY with it.
    pub async fn ensure_gone(&self) {
        if let Some(pidfd) = &self.pidfd {
            pidfd.ensure_gone(Duration::from_millis(500)).await;
        }
    }
}

/// Hands the worker's frames on until its link closes. After damage from a pane that may wait
/// (no focus, nothing asked of its worker: `LinkWriter::set_background`), the link is read at
/// the background tick with every other such link instead of waking the supervisor per frame.
async fn read_frames(mut reader: LinkReader, tx: mpsc::UnboundedSender<Incoming>, screen: ScreenSink) {
    loop {
        let Ok(Some(frame)) = reader.recv().await else {
            let _ = tx.send(Incoming::Closed);
            return;
        };
        let Some(damage) = deliver(frame, &mut reader, &tx, &screen) else { return };
        // Ticks come faster than the worker's own pace, so one tick without damage is normal:
        // the link is watched again after QUIET_TICKS such ticks in a row (a pane that went
        // quiet), or at once after a send.
        let mut quiet = if damage { 0 } else { QUIET_TICKS };
        while quiet < QUIET_TICKS && reader.background() {
            let ticked = reader.until_tick().await;
            quiet = if ticked { quiet + 1 } else { QUIET_TICKS };
            loop {
                match reader.recv_now() {
                    Ok(Some(frame)) => match deliver(frame, &mut reader, &tx, &screen) {
                        Some(true) if ticked => quiet = 0,
                        Some(_) => {}
                        None => return,
                    },
                    Ok(None) => break,
                    Err(_) => {
                        let _ = tx.send(Incoming::Closed);
                        return;
                    }
                }
            }
        }
    }
}

/// Background ticks in a row without damage after which a link is watched again.
const QUIET_TICKS: u32 = 2;

/// Damage to the screens, the rest to the pane task: `Some(true)` for damage, `None` once the
/// pane task is gone.
fn deliver(
    frame: WorkerToSupervisor,
    reader: &mut LinkReader,
    tx: &mpsc::UnboundedSender<Incoming>,
    (key, observer): &ScreenSink,
) -> Option<bool> {
    if let WorkerToSupervisor::Event(event @ WorkerEvent::Damage(_)) = frame {
        observer.worker_event(*key, event);
        return Some(true);
    }
    let carries_fd = matches!(frame, WorkerToSupervisor::Spawned { .. } | WorkerToSupervisor::Adopted { .. });
    let fd = carries_fd.then(|| reader.take_fd()).flatten();
    tx.send(Incoming::Frame(Box::new(frame), fd)).ok().map(|()| false)
}

#[cfg(test)]
#[path = "start_tests.rs"]
mod tests;
