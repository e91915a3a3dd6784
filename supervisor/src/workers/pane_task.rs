//! One pane's supervision task: starts the worker, forwards requests, restarts a dead worker by
//! handing it the PTY master fd, and reports the program's exit.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use herdr_protocol::ipc::{
    IPC_VERSION, Start, SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use tokio::sync::{mpsc, oneshot};

use super::link::{self, LinkReader, LinkWriter};
use super::{Observer, PaneCmd, PaneHandle, WatchMatch, spawn};
use crate::session::PaneKey;

/// How long a new worker may take to answer the handshake and start the program.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a closing worker gets to hang up its program before both are killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// A worker that keeps dying is given up on after this many restarts inside the window.
const RESTART_LIMIT: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// What a new pane runs.
#[derive(Debug, Clone)]
pub struct Launch {
    pub key: PaneKey,
    pub worker_exe: PathBuf,
    pub argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
    pub cols: u16,
    pub rows: u16,
}

/// Starts a pane's task. Requests sent to the handle queue until the program runs; the receiver
/// says whether it started (the program's pid) or why not.
pub fn launch(spec: Launch, observer: Observer) -> (PaneHandle, oneshot::Receiver<Result<i32, String>>) {
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let (started_tx, started_rx) = oneshot::channel();
    tokio::spawn(async move {
        match Worker::start_fresh(&spec, (spec.key, observer.clone())).await {
            Ok((worker, program)) => {
                let _ = started_tx.send(Ok(program.pid));
                let task = PaneTask {
                    key: spec.key,
                    worker_exe: spec.worker_exe,
                    observer,
                    size: (spec.cols, spec.rows),
                    program,
                    worker,
                    pending: HashMap::new(),
                    watches: HashMap::new(),
                    restarts: VecDeque::new(),
                    scans_suspended: false,
                    visible: false,
                    focused: false,
                };
                task.serve(cmd_rx).await;
            }
            Err(message) => {
                log::warn!("pane {:?}: could not start: {message}", spec.key);
                let _ = started_tx.send(Err(message));
                observer.pane_gone(spec.key);
            }
        }
    });
    (PaneHandle { cmd: cmd_tx }, started_rx)
}

/// The pane's program: its pid and the supervisor's own dup of the PTY master, which keeps the
/// terminal alive while no worker runs.
#[derive(Debug)]
struct Program {
    pid: i32,
    master: OwnedFd,
}

/// Frames from the current worker, read by a task of their own.
#[derive(Debug)]
enum Incoming {
    Frame(WorkerToSupervisor, Option<OwnedFd>),
    Closed,
}

#[derive(Debug)]
struct Worker {
    pid: i32,
    writer: LinkWriter,
    frames: mpsc::UnboundedReceiver<Incoming>,
}

impl Worker {
    async fn spawn_and_greet(
        exe: &std::path::Path,
        start: Start,
        fd: Option<&OwnedFd>,
        screen: ScreenSink,
    ) -> Result<Worker, String> {
        let started = spawn::start(exe).map_err(|e| format!("could not start {}: {e}", exe.display()))?;
        let (writer, reader) = link::split(started.link);
        let (tx, frames) = mpsc::unbounded_channel();
        tokio::spawn(read_frames(reader, tx, screen));
        let mut worker = Worker { pid: started.pid, writer, frames };
        let hello = SupervisorToWorker::Hello { version: IPC_VERSION, start };
        if let Err(e) = worker.writer.send(&hello, fd.map(|f| f.as_fd())).await {
            worker.kill();
            return Err(format!("worker link failed: {e}"));
        }
        match worker.next_frame_within(HANDSHAKE_TIMEOUT).await {
            Some((WorkerToSupervisor::Hello { version, .. }, _)) if version == IPC_VERSION => Ok(worker),
            Some((WorkerToSupervisor::Hello { version, .. }, _)) => {
                worker.kill();
                Err(format!("worker speaks link version {version}, supervisor {IPC_VERSION}"))
            }
            Some((WorkerToSupervisor::Refused { reason }, _)) => Err(format!("worker refused: {reason}")),
            other => {
                worker.kill();
                Err(format!("worker did not complete the handshake ({other:?})"))
            }
        }
    }

    async fn start_fresh(spec: &Launch, screen: ScreenSink) -> Result<(Worker, Program), String> {
        let start = Start::Spawn {
            argv: spec.argv.clone(),
            cwd: spec.cwd.clone(),
            env: spec.env.clone(),
            cols: spec.cols,
            rows: spec.rows,
        };
        let mut worker = Self::spawn_and_greet(&spec.worker_exe, start, None, screen).await?;
        match worker.next_frame_within(HANDSHAKE_TIMEOUT).await {
            Some((WorkerToSupervisor::Spawned { child_pid }, Some(master))) => {
                Ok((worker, Program { pid: child_pid, master }))
            }
            Some((WorkerToSupervisor::SpawnFailed { message }, _)) => Err(message),
            other => {
                worker.kill();
                Err(format!("worker did not start the program ({other:?})"))
            }
        }
    }

    async fn next_frame_within(&mut self, limit: Duration) -> Option<(WorkerToSupervisor, Option<OwnedFd>)> {
        match tokio::time::timeout(limit, self.frames.recv()).await {
            Ok(Some(Incoming::Frame(frame, fd))) => Some((frame, fd)),
            _ => None,
        }
    }

    fn kill(&self) {
        let _ = kill(Pid::from_raw(self.pid), Signal::SIGKILL);
    }
}

/// Where a worker's screen damage goes straight from the link reader: damage is most of the
/// traffic of a visible pane, and handing each frame through the pane task first cost a task
/// wake-up per frame. Everything else still goes through the pane task, in order.
type ScreenSink = (PaneKey, Observer);

async fn read_frames(mut reader: LinkReader, tx: mpsc::UnboundedSender<Incoming>, screen: ScreenSink) {
    let (key, observer) = screen;
    loop {
        match reader.recv().await {
            Ok(Some(WorkerToSupervisor::Event(event @ WorkerEvent::Damage(_)))) => {
                observer.worker_event(key, event);
            }
            Ok(Some(frame)) => {
                let fd =
                    matches!(frame, WorkerToSupervisor::Spawned { .. }).then(|| reader.take_fd()).flatten();
                if tx.send(Incoming::Frame(frame, fd)).is_err() {
                    return;
                }
            }
            Ok(None) | Err(_) => {
                let _ = tx.send(Incoming::Closed);
                return;
            }
        }
    }
}

enum Step {
    Cmd(Option<PaneCmd>),
    Worker(Option<Incoming>),
}

struct PaneTask {
    key: PaneKey,
    worker_exe: PathBuf,
    observer: Observer,
    size: (u16, u16),
    program: Program,
    worker: Worker,
    /// Requests the worker has not answered; resent to a replacement worker.
    pending: HashMap<u64, (WorkerRequest, oneshot::Sender<WorkerResponse>)>,
    /// Output watches and where their matches go; re-sent to a replacement worker.
    watches: HashMap<u64, (WorkerRequest, mpsc::UnboundedSender<WatchMatch>)>,
    restarts: VecDeque<Instant>,
    /// The last `SetScansSuspended` sent: a replacement worker starts scanning, so it is told.
    scans_suspended: bool,
    /// The last `SetVisible` sent: a replacement worker starts hidden, so it is told.
    visible: bool,
    /// The last `SetFocused` sent, re-sent to a replacement worker likewise.
    focused: bool,
}

/// Request id for notices the task itself sends to a replacement worker; the supervisor's own
/// ids start at 1, and an answer to this id matches nothing pending.
const TASK_NOTICE_ID: u64 = 0;

impl PaneTask {
    async fn serve(mut self, mut cmds: mpsc::UnboundedReceiver<PaneCmd>) {
        loop {
            let step = tokio::select! {
                cmd = cmds.recv() => Step::Cmd(cmd),
                incoming = self.worker.frames.recv() => Step::Worker(incoming),
            };
            match step {
                Step::Cmd(Some(PaneCmd::Request { id, body, reply })) => self.forward(id, body, reply).await,
                Step::Cmd(Some(PaneCmd::Watch { id, body, reply, matches })) => {
                    self.watches.insert(id, (body.clone(), matches));
                    self.forward(id, body, reply).await;
                }
                Step::Cmd(Some(PaneCmd::Cancel(id))) => {
                    let watched = self.watches.remove(&id).is_some();
                    if self.pending.remove(&id).is_some() || watched {
                        let _ = self.worker.writer.send(&SupervisorToWorker::Cancel { id }, None).await;
                    }
                }
                Step::Cmd(Some(PaneCmd::Shutdown { done })) => {
                    self.close().await;
                    let _ = done.send(());
                    return;
                }
                Step::Cmd(None) => {
                    self.close().await;
                    return;
                }
                Step::Worker(Some(Incoming::Frame(frame, _))) => {
                    if self.on_frame(frame) {
                        self.observer.pane_gone(self.key);
                        return;
                    }
                }
                Step::Worker(Some(Incoming::Closed) | None) => {
                    if !self.replace_worker().await {
                        self.observer.pane_gone(self.key);
                        return;
                    }
                }
            }
        }
    }

    async fn forward(&mut self, id: u64, body: WorkerRequest, reply: oneshot::Sender<WorkerResponse>) {
        match body {
            WorkerRequest::Resize { cols, rows } => self.size = (cols, rows),
            WorkerRequest::SetScansSuspended(suspended) => self.scans_suspended = suspended,
            WorkerRequest::SetVisible(visible) => self.visible = visible,
            WorkerRequest::SetFocused(focused) => self.focused = focused,
            _ => {}
        }
        let frame = SupervisorToWorker::Request { id, body: body.clone() };
        // A failed write means the worker is dying; the request stays pending and is resent to
        // its replacement.
        let _ = self.worker.writer.send(&frame, None).await;
        self.pending.insert(id, (body, reply));
    }

    /// Handles one frame; true when the program has exited.
    fn on_frame(&mut self, frame: WorkerToSupervisor) -> bool {
        match frame {
            WorkerToSupervisor::Response { id, body } => {
                if let Some((_, reply)) = self.pending.remove(&id) {
                    let _ = reply.send(body);
                }
                false
            }
            WorkerToSupervisor::Event(WorkerEvent::Exited { code, signal }) => {
                log::info!(
                    "pane {:?}: program {} exited (code {code:?}, signal {signal:?})",
                    self.key,
                    self.program.pid
                );
                true
            }
            WorkerToSupervisor::Event(WorkerEvent::OutputMatched { watch, matched_line, read }) => {
                if let Some((_, matches)) = self.watches.get(&watch) {
                    let _ = matches.send(WatchMatch { matched_line, read });
                }
                false
            }
            WorkerToSupervisor::Event(event) => {
                self.observer.worker_event(self.key, event);
                false
            }
            other => {
                log::warn!(
                    "pane {:?}: unexpected frame from worker {}: {other:?}",
                    self.key,
                    self.worker.pid
                );
                false
            }
        }
    }

    /// The worker died without reporting an exit. If the program still runs, a new worker adopts
    /// it; false when the pane is gone.
    async fn replace_worker(&mut self) -> bool {
        if !process_alive(self.program.pid) {
            log::info!(
                "pane {:?}: worker {} and program {} are gone",
                self.key,
                self.worker.pid,
                self.program.pid
            );
            return false;
        }
        let now = Instant::now();
        while self.restarts.front().is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW) {
            self.restarts.pop_front();
        }
        if self.restarts.len() >= RESTART_LIMIT {
            log::error!(
                "pane {:?}: worker died {RESTART_LIMIT} times within {RESTART_WINDOW:?}; closing the pane",
                self.key
            );
            hang_up(self.program.pid);
            return false;
        }
        self.restarts.push_back(now);
        let (cols, rows) = self.size;
        let start = Start::Adopt { child_pid: self.program.pid, cols, rows };
        let screen = (self.key, self.observer.clone());
        match Worker::spawn_and_greet(&self.worker_exe, start, Some(&self.program.master), screen).await {
            Ok(worker) => {
                log::warn!(
                    "pane {:?}: worker {} died; worker {} adopted program {}",
                    self.key,
                    self.worker.pid,
                    worker.pid,
                    self.program.pid
                );
                self.worker = worker;
                let resend = self.pending.iter().map(|(id, (body, _))| (id, body));
                // A watch still waiting for its first answer is in `pending` already.
                let rewatch = self
                    .watches
                    .iter()
                    .filter(|(id, _)| !self.pending.contains_key(*id))
                    .map(|(id, (body, _))| (id, body));
                for (id, body) in resend.chain(rewatch) {
                    let frame = SupervisorToWorker::Request { id: *id, body: body.clone() };
                    let _ = self.worker.writer.send(&frame, None).await;
                }
                let notices = [
                    self.scans_suspended.then_some(WorkerRequest::SetScansSuspended(true)),
                    // The adopted program redraws for the resize; the new worker's first frame
                    // is whole.
                    self.visible.then_some(WorkerRequest::SetVisible(true)),
                    self.focused.then_some(WorkerRequest::SetFocused(true)),
                ];
                for body in notices.into_iter().flatten() {
                    let frame = SupervisorToWorker::Request { id: TASK_NOTICE_ID, body };
                    let _ = self.worker.writer.send(&frame, None).await;
                }
                true
            }
            Err(message) => {
                log::error!("pane {:?}: could not restart its worker: {message}", self.key);
                // Try again on the next pass through the restart budget.
                Box::pin(self.replace_worker()).await
            }
        }
    }

    /// Closes the pane for good: the worker hangs up its program; whatever is left is killed.
    async fn close(mut self) {
        let _ = self.worker.writer.send(&SupervisorToWorker::Shutdown, None).await;
        let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
        loop {
            match tokio::time::timeout_at(deadline, self.worker.frames.recv()).await {
                Ok(Some(Incoming::Frame(..))) => continue,
                Ok(Some(Incoming::Closed) | None) => break,
                Err(_) => {
                    self.worker.kill();
                    break;
                }
            }
        }
        if process_alive(self.program.pid) {
            let _ = killpg(Pid::from_raw(self.program.pid), Signal::SIGKILL);
            let _ = kill(Pid::from_raw(self.program.pid), Signal::SIGKILL);
        }
    }
}

fn hang_up(pid: i32) {
    let _ = killpg(Pid::from_raw(pid), Signal::SIGHUP);
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
}

/// True while `pid` exists and is not a zombie.
fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
        }
        Err(_) => false,
    }
}
