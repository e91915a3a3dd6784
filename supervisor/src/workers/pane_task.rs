//! One pane's supervision task: gets the pane a worker (a fresh one, or one that outlived its
//! supervisor), forwards requests, restarts a dead worker by handing it the PTY master fd, and
//! reports the program's exit.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::time::Duration;

use herdr_protocol::ipc::{
    Start, SupervisorToWorker, WorkerEvent, WorkerIdentity, WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::awaiting::{self, Waited};
use super::launcher::{Ending, Launcher};
use super::start::{Incoming, Program, Worker, WorkerSpec};
use super::start_error::StartError;
use super::{Gone, Observer, PaneCmd, PaneHandle, WatchMatch};
use crate::session::PaneKey;

mod release;
mod upgrade;

/// How long a closing worker gets to hang up its program before both are killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// A worker that keeps dying is given up on after this many restarts inside the window.
const RESTART_LIMIT: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// How a pane gets its worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchMode {
    /// A new pane: start a worker that starts the program.
    Spawn,
    /// A pane restored from `session.json`: adopt its worker if one outlived the last
    /// supervisor, else start the program again, holding a failure on screen.
    AdoptOrSpawn,
    /// A restored pane with a native agent resume planned: adopt its worker if one outlived the
    /// last supervisor; else answer `Started { awaiting_resume: true }` at once, wait for
    /// [`PaneHandle::start_resume`] (a client has attached and sized the layout), then start
    /// `argv` (the agent's resume command), holding a failure on screen. Meanwhile the pane
    /// shows nothing: see `awaiting` for what its requests get.
    AdoptOrResume,
    /// A live worker the saved layout does not know: adopt it, or there is no pane.
    AdoptOnly,
}

/// What a pane runs.
#[derive(Debug, Clone)]
pub struct Launch {
    pub key: PaneKey,
    pub worker_exe: PathBuf,
    pub argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
    pub cols: u16,
    pub rows: u16,
    pub identity: WorkerIdentity,
    pub mode: LaunchMode,
    /// A saved screen for the terminal before the program starts (pane history), used only if
    /// the pane's program starts afresh: an adopted worker has its live screen.
    pub replay: Option<Vec<u8>>,
    /// What starts and reaches its workers ([`super::Processes`] but in tests).
    pub launcher: Arc<dyn Launcher>,
}

/// How a pane's worker came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    /// The program's pid (0: a held start failure runs none).
    pub pid: i32,
    /// The worker outlived the previous supervisor and was taken over.
    pub adopted: bool,
    /// Nothing runs yet: the pane waits for a client before starting its agent's resume.
    pub awaiting_resume: bool,
}

/// Starts a pane's task. Requests sent to the handle queue until the worker is there; the
/// receiver says how it started or why it could not.
pub fn launch(
    spec: Launch,
    observer: Observer,
) -> (PaneHandle, oneshot::Receiver<Result<Started, StartError>>) {
    let (cmd_tx, mut cmd_rx) = mpsc::unbounded_channel();
    let (started_tx, started_rx) = oneshot::channel();
    let link_version = Arc::new(AtomicU32::new(0));
    let program_pid = Arc::new(AtomicI32::new(0));
    let handle = PaneHandle { cmd: cmd_tx, link_version: link_version.clone(), program: program_pid.clone() };
    tokio::spawn(async move {
        // Starting (and the rare restart, release, upgrade and close paths below) is boxed, and
        // so is the task itself: a future's size is that of its largest state, with a task
        // moved in by value held twice, and every pane's task lives in the supervisor's heap
        // for the pane's life while starting is over in milliseconds.
        let (obtained, backlog) = match Box::pin(obtain(&spec, &observer)).await {
            Ok(obtained) => {
                let _ = started_tx.send(Ok(obtained.2));
                (obtained, Vec::new())
            }
            Err(NotStarted::AwaitingResume) => {
                let awaiting = Started { pid: 0, adopted: false, awaiting_resume: true };
                let _ = started_tx.send(Ok(awaiting));
                let mut size = (spec.cols, spec.rows);
                let backlog = match awaiting::until_resume(&mut cmd_rx, &mut size).await {
                    Waited::Resume(backlog) => backlog,
                    Waited::Closed(done) => {
                        if let Some(done) = done {
                            let _ = done.send(());
                        }
                        return;
                    }
                };
                log::info!("pane {:?}: starting its agent's resume ({}x{})", spec.key, size.0, size.1);
                match Box::pin(start_fresh(&spec, size, &observer)).await {
                    Ok(obtained) => (obtained, backlog),
                    Err(message) => {
                        log::warn!("pane {:?}: could not start its agent's resume: {message}", spec.key);
                        observer.pane_gone(spec.key, Gone::NeverStarted);
                        return;
                    }
                }
            }
            Err(NotStarted::Failed(message)) => {
                log::warn!("pane {:?}: could not start: {message}", spec.key);
                let _ = started_tx.send(Err(message));
                observer.pane_gone(spec.key, Gone::NeverStarted);
                return;
            }
        };
        let (worker, program, _, size) = obtained;
        link_version.store(worker.link_version, Ordering::SeqCst);
        program_pid.store(program.pid, Ordering::SeqCst);
        let task = Box::new(PaneTask {
            _program_pid: ProgramPid(program_pid),
            key: spec.key,
            worker_exe: spec.worker_exe,
            identity: spec.identity,
            launcher: spec.launcher,
            observer,
            size,
            program,
            worker,
            link_version,
            pending: HashMap::new(),
            watches: HashMap::new(),
            restarts: VecDeque::new(),
            scans_suspended: false,
            visible: false,
            focused: false,
        });
        task.serve(cmd_rx, backlog).await;
    });
    (handle, started_rx)
}

/// The pane's worker and program, how it started, and its terminal's size.
type Obtained = (Worker, Program, Started, (u16, u16));

/// Why [`obtain`] gave the pane no worker.
enum NotStarted {
    Failed(StartError),
    /// [`LaunchMode::AdoptOrResume`] found no worker to adopt: the program starts later.
    AwaitingResume,
}

async fn obtain(spec: &Launch, observer: &Observer) -> Result<Obtained, NotStarted> {
    let screen = (spec.key, observer.clone());
    if spec.mode != LaunchMode::Spawn {
        match adopt_when_released(&*spec.launcher, &spec.identity, screen.clone()).await {
            Ok((worker, program, size)) => {
                log::info!(
                    "pane {:?}: adopted worker {} (program {}, uid {})",
                    spec.key,
                    worker.pid,
                    program.pid,
                    spec.identity.uid
                );
                // Not resized to the restored layout's headless size: the terminal keeps the size
                // its program knows until a client attaches, so a user re-attaching from the same
                // terminal causes no resize at all.
                let pid = program.pid;
                return Ok((worker, program, Started { pid, adopted: true, awaiting_resume: false }, size));
            }
            Err(reason) if spec.mode == LaunchMode::AdoptOnly => return Err(NotStarted::Failed(reason)),
            Err(reason) if spec.mode == LaunchMode::AdoptOrResume => {
                log::info!("pane {:?}: {reason}; its agent resumes once a client attaches", spec.key);
                return Err(NotStarted::AwaitingResume);
            }
            Err(reason) => log::info!("pane {:?}: {reason}; starting its program again", spec.key),
        }
    }
    start_fresh(spec, (spec.cols, spec.rows), observer).await.map_err(NotStarted::Failed)
}

/// How long an adoption waits for a worker still linked to the supervisor that is handing the
/// session over (it closes its links just before the importer adopts them).
const RELEASE_WAIT: Duration = Duration::from_secs(3);

/// [`Worker::adopt`], tried again while the worker says a supervisor is still linked: during a
/// live handoff the old supervisor's hang-up may reach the worker just after our `Adopt`.
async fn adopt_when_released(
    launcher: &dyn Launcher,
    identity: &WorkerIdentity,
    screen: super::start::ScreenSink,
) -> Result<(Worker, Program, (u16, u16)), StartError> {
    let deadline = Instant::now() + RELEASE_WAIT;
    loop {
        match Worker::adopt(launcher, identity, screen.clone()).await {
            Err(reason) if reason.still_linked() && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            outcome => return outcome,
        }
    }
}

/// Starts a new worker that starts `spec`'s program at `size`.
async fn start_fresh(spec: &Launch, size: (u16, u16), observer: &Observer) -> Result<Obtained, StartError> {
    let start = Start::Spawn {
        argv: spec.argv.clone(),
        cwd: spec.cwd.clone(),
        env: spec.env.clone(),
        cols: size.0,
        rows: size.1,
        hold_failure: spec.mode != LaunchMode::Spawn,
        replay: spec.replay.clone(),
    };
    let worker_spec =
        WorkerSpec { exe: &spec.worker_exe, identity: &spec.identity, launcher: &*spec.launcher };
    let (worker, program) = Worker::start_fresh(&worker_spec, start, (spec.key, observer.clone())).await?;
    let pid = program.pid;
    Ok((worker, program, Started { pid, adopted: false, awaiting_resume: false }, size))
}

enum Step {
    Cmd(Option<PaneCmd>),
    Worker(Option<Incoming>),
}

struct PaneTask {
    key: PaneKey,
    worker_exe: PathBuf,
    identity: WorkerIdentity,
    launcher: Arc<dyn Launcher>,
    observer: Observer,
    size: (u16, u16),
    program: Program,
    worker: Worker,
    /// What the pane's handle reports as its worker's link version.
    link_version: Arc<AtomicU32>,
    _program_pid: ProgramPid,
    /// Requests the worker has not answered; resent to a replacement worker.
    pending: HashMap<u64, (WorkerRequest, oneshot::Sender<WorkerResponse>)>,
    /// Output watches and where their matches go; re-sent to a replacement worker.
    watches: HashMap<u64, (WorkerRequest, mpsc::UnboundedSender<WatchMatch>)>,
    /// When the worker was restarted, within the last [`RESTART_WINDOW`] (tokio's clock, so a
    /// paused test clock drives the budget).
    restarts: VecDeque<Instant>,
    /// The last `SetScansSuspended` sent: a replacement worker starts scanning, so it is told.
    scans_suspended: bool,
    /// The last `SetVisible` sent: a replacement worker starts hidden, so it is told.
    visible: bool,
    /// The last `SetFocused` sent, re-sent to a replacement worker likewise.
    focused: bool,
}

/// What the pane's handle reports as its program; the task's end (the program's exit, the
/// pane's close or hand-over) clears it.
struct ProgramPid(Arc<AtomicI32>);

impl Drop for ProgramPid {
    fn drop(&mut self) {
        self.0.store(0, Ordering::SeqCst);
    }
}

/// Request id for notices the task itself sends to a replacement worker; the supervisor's own
/// ids start at 1, and an answer to this id matches nothing pending.
const TASK_NOTICE_ID: u64 = 0;

/// What the task does after one command.
enum Flow {
    Continue,
    /// The pane went to the next supervisor: end the task without touching the worker.
    HandedOver,
    /// Close the pane, then tell `done` (a `Shutdown`) if anyone waits.
    Close(Option<oneshot::Sender<()>>),
}

impl PaneTask {
    /// Serves `backlog` (commands that arrived before the worker did), then `cmds` and the
    /// worker's frames until the pane closes or its program exits.
    async fn serve(mut self: Box<Self>, mut cmds: mpsc::UnboundedReceiver<PaneCmd>, backlog: Vec<PaneCmd>) {
        for cmd in backlog {
            match self.on_cmd(Some(cmd)).await {
                Flow::Close(done) => return Box::pin(self.close_then(done)).await,
                Flow::HandedOver => return,
                Flow::Continue => {}
            }
        }
        loop {
            // Its frames may wait for the background tick unless it has the focus or owes answers.
            self.worker.writer.set_background(!self.focused && self.pending.is_empty());
            let step = tokio::select! {
                cmd = cmds.recv() => Step::Cmd(cmd),
                incoming = self.worker.frames.recv() => Step::Worker(incoming),
            };
            match step {
                Step::Cmd(cmd) => match self.on_cmd(cmd).await {
                    Flow::Close(done) => return Box::pin(self.close_then(done)).await,
                    Flow::HandedOver => return,
                    Flow::Continue => {}
                },
                Step::Worker(Some(Incoming::Frame(frame, _))) => {
                    if let Some(gone) = self.on_frame(*frame) {
                        self.observer.pane_gone(self.key, gone);
                        return;
                    }
                }
                Step::Worker(Some(Incoming::Closed) | None) => {
                    self.worker.ensure_gone().await;
                    if !Box::pin(self.replace_worker()).await {
                        self.observer.pane_gone(self.key, Gone::Lost);
                        return;
                    }
                }
            }
        }
    }

    async fn on_cmd(&mut self, cmd: Option<PaneCmd>) -> Flow {
        match cmd {
            Some(PaneCmd::Request { id, body, reply }) => self.forward(id, *body, reply).await,
            Some(PaneCmd::Watch { id, body, reply }) => {
                let (body, matches) = *body;
                self.watches.insert(id, (body.clone(), matches));
                self.forward(id, body, reply).await;
            }
            Some(PaneCmd::Cancel(id)) => {
                let watched = self.watches.remove(&id).is_some();
                if self.pending.remove(&id).is_some() || watched {
                    let _ = self.worker.writer.send(&SupervisorToWorker::Cancel { id }, None).await;
                }
            }
            // Its worker was adopted (or its resume already started): nothing waits.
            Some(PaneCmd::Resume) => {}
            Some(PaneCmd::Shutdown { done }) => return Flow::Close(Some(done)),
            Some(PaneCmd::Release { released, verdict }) => {
                return Box::pin(self.release(released, verdict)).await;
            }
            Some(PaneCmd::Upgrade { done }) => {
                let (outcome, flow) = Box::pin(self.upgrade()).await;
                let _ = done.send(outcome);
                return flow;
            }
            None => return Flow::Close(None),
        }
        Flow::Continue
    }

    async fn close_then(self: Box<Self>, done: Option<oneshot::Sender<()>>) {
        self.close().await;
        if let Some(done) = done {
            let _ = done.send(());
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

    /// Handles one frame; `Some` when the program has exited.
    fn on_frame(&mut self, frame: WorkerToSupervisor) -> Option<Gone> {
        match frame {
            WorkerToSupervisor::Response { id, body } => {
                if let Some((_, reply)) = self.pending.remove(&id) {
                    let _ = reply.send(body);
                }
            }
            WorkerToSupervisor::Event(WorkerEvent::Exited { code, signal }) => {
                log::info!(
                    "pane {:?}: program {} exited (code {code:?}, signal {signal:?})",
                    self.key,
                    self.program.pid
                );
                return Some(Gone::Exited { code, signal });
            }
            WorkerToSupervisor::Event(WorkerEvent::OutputMatched { watch, matched_line, read }) => {
                if let Some((_, matches)) = self.watches.get(&watch) {
                    let _ = matches.send(WatchMatch { matched_line, read });
                }
            }
            WorkerToSupervisor::Event(event) => self.observer.worker_event(self.key, event),
            other => {
                log::warn!(
                    "pane {:?}: unexpected frame from worker {}: {other:?}",
                    self.key,
                    self.worker.pid
                );
            }
        }
        None
    }

    /// The worker died without reporting an exit. If the program still runs, a new worker adopts
    /// it; false when the pane is gone.
    async fn replace_worker(&mut self) -> bool {
        if !self.launcher.program_alive(self.program.pid) {
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
            self.launcher.end_program(self.program.pid, Ending::HangUp);
            return false;
        }
        self.restarts.push_back(now);
        let (cols, rows) = self.size;
        let start = Start::Adopt { child_pid: self.program.pid, cols, rows };
        let screen = (self.key, self.observer.clone());
        let spec = WorkerSpec { exe: &self.worker_exe, identity: &self.identity, launcher: &*self.launcher };
        match Box::pin(Worker::spawn_and_greet(&spec, start, Some(&self.program.master), None, screen)).await
        {
            Ok(worker) => {
                log::warn!(
                    "pane {:?}: worker {} died; worker {} adopted program {}",
                    self.key,
                    self.worker.pid,
                    worker.pid,
                    self.program.pid
                );
                self.set_worker(worker);
                self.resend_link_state().await;
                true
            }
            Err(message) => {
                log::error!("pane {:?}: could not restart its worker: {message}", self.key);
                // Try again on the next pass through the restart budget.
                Box::pin(self.replace_worker()).await
            }
        }
    }

    /// The pane's worker from now on.
    fn set_worker(&mut self, worker: Worker) {
        self.link_version.store(worker.link_version, Ordering::SeqCst);
        self.worker = worker;
    }

    /// Tells a new worker what its predecessor was asked: pending requests, watches, and the
    /// scan, visibility and focus notices (a new worker starts scanning, hidden, unfocused).
    async fn resend_link_state(&mut self) {
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
            // The adopted program redraws for the resize; the new worker's first frame is whole.
            self.visible.then_some(WorkerRequest::SetVisible(true)),
            self.focused.then_some(WorkerRequest::SetFocused(true)),
        ];
        for body in notices.into_iter().flatten() {
            let frame = SupervisorToWorker::Request { id: TASK_NOTICE_ID, body };
            let _ = self.worker.writer.send(&frame, None).await;
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
        if self.launcher.program_alive(self.program.pid) {
            self.launcher.end_program(self.program.pid, Ending::Kill);
        }
    }
}
