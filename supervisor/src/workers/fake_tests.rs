//! A stand-in for `herdr-pane-worker` in in-process tests. [`FakeWorkers`] is a [`Launcher`]
//! whose workers are tasks at the far end of a socketpair: they read the supervisor's real link
//! frames (`Hello`, requests, `Cancel`, `Shutdown`) and answer with real ones, the PTY master
//! travelling beside `Spawned` by SCM_RIGHTS as the real worker sends it. Nothing is started and
//! nothing is signalled: a "program" is a record here (alive or not, its screen text), kept
//! across the workers that serve it, so a restarted worker adopts the same one.
//!
//! The test drives each worker through its [`FakeWorker`] handle: what the supervisor asked it,
//! and what it does next (print output, report an event, exit, hold its answers, or die).

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use herdr_protocol::ipc::{
    FrameDecoder, IPC_VERSION, Matcher, PaneFacts, ProcessInfo, ReadOutput, ScrollPosition, Start,
    SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor, encode_frame,
};
use sendfd::{RecvWithFd, SendWithFd};
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot};

use super::StartError;
use super::launcher::{Connecting, Ending, Launcher, Linked, LiveCwds};

/// How long a test waits for something the supervisor should do at once (on a paused clock this
/// only passes when nothing else can happen).
const PATIENCE: Duration = Duration::from_secs(30);
/// Fake program pids start here: never a real process's, and never signalled anyway.
const FIRST_PID: i32 = 7_000_001;

/// Where every fake program runs.
const FAKE_CWD: &str = "/fake/cwd";

/// One fake program: what it has printed, and whether it still runs.
#[derive(Debug)]
struct Program {
    alive: bool,
    screen: String,
    revision: u64,
    /// The inode of the "PTY master" its first worker sent beside `Spawned`.
    master: u64,
    ended: Option<Ending>,
}

#[derive(Debug, Default)]
struct Programs {
    next_pid: i32,
    by_pid: HashMap<i32, Program>,
    /// Workers started (fresh ones and restarts alike).
    starts: usize,
}

/// The launcher the tests hand the supervisor.
#[derive(Debug)]
pub(crate) struct FakeWorkers {
    programs: Arc<Mutex<Programs>>,
    started_tx: mpsc::UnboundedSender<FakeWorker>,
    started: tokio::sync::Mutex<mpsc::UnboundedReceiver<FakeWorker>>,
}

impl FakeWorkers {
    pub(crate) fn new() -> Arc<Self> {
        let (started_tx, started) = mpsc::unbounded_channel();
        let programs = Programs { next_pid: FIRST_PID, ..Programs::default() };
        Arc::new(Self {
            programs: Arc::new(Mutex::new(programs)),
            started_tx,
            started: tokio::sync::Mutex::new(started),
        })
    }

    /// The next worker that completed its handshake (in the order they were started).
    pub(crate) async fn next_worker(&self) -> FakeWorker {
        let mut started = self.started.lock().await;
        match tokio::time::timeout(PATIENCE, started.recv()).await {
            Ok(Some(worker)) => worker,
            _ => panic!("no fake worker started within {PATIENCE:?}"),
        }
    }

    /// How many workers were started so far.
    pub(crate) fn starts(&self) -> usize {
        lock(&self.programs).starts
    }

    /// How the supervisor ended program `pid`, if it did.
    pub(crate) fn ended(&self, pid: i32) -> Option<Ending> {
        lock(&self.programs).by_pid.get(&pid).and_then(|p| p.ended)
    }
}

fn lock(programs: &Mutex<Programs>) -> std::sync::MutexGuard<'_, Programs> {
    programs.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Launcher for FakeWorkers {
    fn start(&self, _exe: &Path) -> io::Result<Linked> {
        let (ours, theirs) = UnixStream::pair()?;
        lock(&self.programs).starts += 1;
        tokio::spawn(serve(FakeLink::new(theirs), self.programs.clone(), self.started_tx.clone()));
        Ok(Linked { pid: 0, link: ours })
    }

    fn connect<'a>(&'a self, socket: &'a str) -> Connecting<'a> {
        // No fake worker outlives a supervisor: there is never one to adopt.
        let source = io::Error::from(io::ErrorKind::NotFound);
        Box::pin(async move { Err(StartError::NoWorkerAt { socket: socket.to_owned(), source }) })
    }

    fn program_alive(&self, pid: i32) -> bool {
        lock(&self.programs).by_pid.get(&pid).is_some_and(|p| p.alive)
    }

    fn live_cwds(&self, pid: i32) -> LiveCwds {
        // What a fake worker's `Facts` say, while its program runs.
        let cwd = self.program_alive(pid).then(|| FAKE_CWD.to_owned());
        LiveCwds { cwd, foreground_cwd: None }
    }

    fn end_program(&self, pid: i32, how: Ending) {
        if let Some(program) = lock(&self.programs).by_pid.get_mut(&pid) {
            program.alive = false;
            program.ended = Some(how);
        }
    }
}

/// What a test tells a fake worker to do.
#[derive(Debug)]
enum Ctl {
    /// The program printed a line (already on its screen): waits and watches on it match.
    Printed(String),
    Event(WorkerEvent),
    /// The program exits with `code`; the worker reports it and ends.
    Exit(i32),
    /// The worker crashes: its link closes, its program runs on.
    Die,
}

/// How a fake worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The supervisor sent `Shutdown` (the pane closed); the program was hung up.
    Shutdown,
    /// The supervisor closed the link without a `Shutdown`.
    HungUp,
    /// Its program exited ([`FakeWorker::exit`]).
    Exited,
    /// It crashed ([`FakeWorker::die`]).
    Died,
}

/// A test's handle on one fake worker.
#[derive(Debug)]
pub(crate) struct FakeWorker {
    /// The program it serves.
    pub program: i32,
    /// The start its `Hello` asked for.
    pub start: Start,
    /// Whether the fd beside its `Hello` (a restart's kept PTY master) is its program's.
    pub got_the_master: bool,
    requests: mpsc::UnboundedReceiver<(u64, WorkerRequest)>,
    cancels: mpsc::UnboundedReceiver<u64>,
    ctl: mpsc::UnboundedSender<Ctl>,
    /// Set: requests are recorded but not answered (they stay pending in the supervisor).
    holding: Arc<AtomicBool>,
    programs: Arc<Mutex<Programs>>,
    finished: Option<oneshot::Receiver<Finish>>,
}

impl FakeWorker {
    /// The next request the supervisor sent that `wanted` picks (earlier ones are skipped).
    pub(crate) async fn next_request(
        &mut self,
        wanted: impl Fn(&WorkerRequest) -> bool,
    ) -> (u64, WorkerRequest) {
        let found = tokio::time::timeout(PATIENCE, async {
            while let Some((id, body)) = self.requests.recv().await {
                if wanted(&body) {
                    return Some((id, body));
                }
            }
            None
        });
        match found.await {
            Ok(Some(request)) => request,
            _ => panic!("fake worker of program {}: no such request within {PATIENCE:?}", self.program),
        }
    }

    /// The id of the next `Cancel` the supervisor sent.
    pub(crate) async fn next_cancel(&mut self) -> u64 {
        match tokio::time::timeout(PATIENCE, self.cancels.recv()).await {
            Ok(Some(id)) => id,
            _ => panic!("fake worker of program {}: no cancel within {PATIENCE:?}", self.program),
        }
    }

    /// The program prints `line`: a read from now on shows it, and waits on it match.
    pub(crate) fn print(&self, line: &str) {
        if let Some(program) = lock(&self.programs).by_pid.get_mut(&self.program) {
            program.screen.push_str(line);
            program.screen.push('\n');
            program.revision += 1;
        }
        let _ = self.ctl.send(Ctl::Printed(line.to_owned()));
    }

    pub(crate) fn event(&self, event: WorkerEvent) {
        let _ = self.ctl.send(Ctl::Event(event));
    }

    pub(crate) fn exit(&self, code: i32) {
        let _ = self.ctl.send(Ctl::Exit(code));
    }

    /// Waits until the worker has ended, and says how.
    pub(crate) async fn finished(&mut self) -> Finish {
        let finished = self.finished.take().expect("finished() is asked once");
        match tokio::time::timeout(PATIENCE, finished).await {
            Ok(Ok(how)) => how,
            _ => panic!("fake worker of program {} did not end within {PATIENCE:?}", self.program),
        }
    }

    /// From now on, leaves the supervisor's requests unanswered (`true`) or answers them.
    pub(crate) fn hold(&self, holding: bool) {
        self.holding.store(holding, Ordering::SeqCst);
    }

    pub(crate) fn die(&self) {
        let _ = self.ctl.send(Ctl::Die);
    }
}

/// A worker's end of the link: frames the other way round from `link.rs`.
struct FakeLink {
    stream: UnixStream,
    decoder: FrameDecoder,
    fds: Vec<OwnedFd>,
}

impl FakeLink {
    fn new(stream: UnixStream) -> Self {
        Self { stream, decoder: FrameDecoder::new(), fds: Vec::new() }
    }

    /// The next frame and the fd that came with it; `None` when the supervisor hung up.
    async fn recv(&mut self) -> Option<(SupervisorToWorker, Option<OwnedFd>)> {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            if let Some(frame) = self.decoder.next_frame().expect("a frame the fake can decode") {
                let fd = (!self.fds.is_empty()).then(|| self.fds.remove(0));
                return Some((frame, fd));
            }
            self.stream.readable().await.ok()?;
            let mut fds: [RawFd; 4] = [-1; 4];
            match self.stream.recv_with_fd(&mut buf, &mut fds) {
                Ok((0, 0)) => return None,
                Ok((n, nfds)) => {
                    // SAFETY: the kernel just installed these descriptors for us.
                    self.fds.extend(fds[..nfds].iter().map(|&raw| unsafe { OwnedFd::from_raw_fd(raw) }));
                    self.decoder.push(&buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(_) => return None,
            }
        }
    }

    async fn send(&self, frame: &WorkerToSupervisor, fd: Option<&OwnedFd>) -> io::Result<()> {
        let bytes = encode_frame(frame).map_err(io::Error::other)?;
        let mut sent = 0;
        let mut fds: Vec<RawFd> = fd.map(AsRawFd::as_raw_fd).into_iter().collect();
        while sent < bytes.len() {
            self.stream.writable().await?;
            match self.stream.send_with_fd(&bytes[sent..], &fds) {
                Ok(n) => {
                    sent += n;
                    fds.clear();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn inode(fd: &OwnedFd) -> u64 {
    let file = std::fs::File::from(fd.try_clone().expect("dup"));
    file.metadata().expect("fstat").ino()
}

/// One fake worker: the handshake, then requests and the test's orders until it ends.
async fn serve(
    mut link: FakeLink,
    programs: Arc<Mutex<Programs>>,
    started: mpsc::UnboundedSender<FakeWorker>,
) {
    let Some((SupervisorToWorker::Hello { start, .. }, fd)) = link.recv().await else { return };
    let hello = WorkerToSupervisor::Hello { version: IPC_VERSION, worker_pid: 0 };
    let (program, got_the_master) = match &start {
        Start::Spawn { .. } => {
            let (master, _other_end) = nix::unistd::pipe().expect("a pipe for the PTY master");
            let pid = {
                let mut programs = lock(&programs);
                let pid = programs.next_pid;
                programs.next_pid += 1;
                let program = Program {
                    alive: true,
                    screen: String::new(),
                    revision: 0,
                    master: inode(&master),
                    ended: None,
                };
                programs.by_pid.insert(pid, program);
                pid
            };
            let _ = link.send(&hello, None).await;
            let _ = link.send(&WorkerToSupervisor::Spawned { child_pid: pid }, Some(&master)).await;
            (pid, false)
        }
        Start::Adopt { child_pid, .. } | Start::Restore { child_pid, .. } => {
            let kept = lock(&programs).by_pid.get(child_pid).map(|p| p.master);
            let got = fd.as_ref().map(inode).is_some_and(|ino| Some(ino) == kept);
            let _ = link.send(&hello, None).await;
            (*child_pid, got)
        }
    };
    let (requests_tx, requests) = mpsc::unbounded_channel();
    let (cancels_tx, cancels) = mpsc::unbounded_channel();
    let (ctl, mut orders) = mpsc::unbounded_channel();
    let holding = Arc::new(AtomicBool::new(false));
    let (finish, finished) = oneshot::channel();
    let handle = FakeWorker {
        program,
        start,
        got_the_master,
        requests,
        cancels,
        ctl,
        holding: holding.clone(),
        programs: programs.clone(),
        finished: Some(finished),
    };
    let _ = started.send(handle);
    let mut worker =
        Serving { link, programs, program, waits: HashMap::new(), holding, requests_tx, cancels_tx };
    let how = loop {
        let ended = tokio::select! {
            frame = worker.link.recv() => match frame {
                Some((frame, _)) => worker.on_frame(frame).await,
                None => Some(Finish::HungUp),
            },
            order = orders.recv() => match order {
                Some(order) => worker.on_order(order).await,
                None => Some(Finish::Died),
            },
        };
        if let Some(how) = ended {
            break how;
        }
    };
    drop(worker);
    let _ = finish.send(how);
}

/// An output wait or watch the fake has not answered yet.
struct Wait {
    matcher: Matcher,
    /// A watch reports every match as an event; a wait answers once.
    watch: bool,
}

struct Serving {
    link: FakeLink,
    programs: Arc<Mutex<Programs>>,
    program: i32,
    waits: HashMap<u64, Wait>,
    holding: Arc<AtomicBool>,
    requests_tx: mpsc::UnboundedSender<(u64, WorkerRequest)>,
    cancels_tx: mpsc::UnboundedSender<u64>,
}

impl Serving {
    /// `Some` once the worker ends.
    async fn on_frame(&mut self, frame: SupervisorToWorker) -> Option<Finish> {
        match frame {
            SupervisorToWorker::Request { id, body } => {
                let _ = self.requests_tx.send((id, body.clone()));
                if !self.holding.load(Ordering::SeqCst) {
                    self.answer(id, body).await;
                }
                None
            }
            SupervisorToWorker::Cancel { id } => {
                self.waits.remove(&id);
                let _ = self.cancels_tx.send(id);
                None
            }
            SupervisorToWorker::Shutdown => {
                self.program_ended();
                Some(Finish::Shutdown)
            }
            SupervisorToWorker::HandOver => {
                let reason = "a fake worker does not hand over".to_owned();
                self.link
                    .send(&WorkerToSupervisor::Refused { reason }, None)
                    .await
                    .err()
                    .map(|_| Finish::HungUp)
            }
            SupervisorToWorker::Hello { .. }
            | SupervisorToWorker::Adopt { .. }
            | SupervisorToWorker::DumpChunk { .. } => None,
        }
    }

    /// `Some` once the worker ends.
    async fn on_order(&mut self, order: Ctl) -> Option<Finish> {
        match order {
            Ctl::Printed(line) => {
                self.recheck(&line).await;
                None
            }
            Ctl::Event(event) => {
                self.link.send(&WorkerToSupervisor::Event(event), None).await.err().map(|_| Finish::HungUp)
            }
            Ctl::Exit(code) => {
                self.program_ended();
                let exited = WorkerEvent::Exited { code: Some(code), signal: None };
                let _ = self.link.send(&WorkerToSupervisor::Event(exited), None).await;
                Some(Finish::Exited)
            }
            Ctl::Die => Some(Finish::Died),
        }
    }

    fn program_ended(&self) {
        if let Some(program) = lock(&self.programs).by_pid.get_mut(&self.program) {
            program.alive = false;
        }
    }

    fn read(&self) -> ReadOutput {
        let programs = lock(&self.programs);
        let program = programs.by_pid.get(&self.program).expect("its program");
        ReadOutput { text: program.screen.clone(), truncated: false, revision: program.revision }
    }

    async fn answer(&mut self, id: u64, body: WorkerRequest) {
        let response = match body {
            WorkerRequest::Read(_) => WorkerResponse::Read(self.read()),
            WorkerRequest::WaitOutput { matcher, .. } => match self.matching_line(&matcher) {
                Some(matched_line) => WorkerResponse::Matched { matched_line, read: self.read() },
                None => {
                    self.waits.insert(id, Wait { matcher, watch: false });
                    return;
                }
            },
            WorkerRequest::WatchOutput { matcher, .. } => {
                self.waits.insert(id, Wait { matcher, watch: true });
                WorkerResponse::Ok
            }
            WorkerRequest::ProcessInfo => WorkerResponse::ProcessInfo(ProcessInfo {
                shell_pid: u32::try_from(self.program).ok(),
                foreground_process_group_id: u32::try_from(self.program).ok(),
                tty: Some("/dev/pts/fake".into()),
                foreground_processes: Vec::new(),
            }),
            WorkerRequest::Facts => WorkerResponse::Facts(PaneFacts {
                cwd: Some(FAKE_CWD.into()),
                foreground_cwd: None,
                scroll: ScrollPosition::default(),
                viewport_rows: 24,
            }),
            WorkerRequest::Explain => WorkerResponse::Explain("a fake worker detects nothing".into()),
            _ => WorkerResponse::Ok,
        };
        let _ = self.link.send(&WorkerToSupervisor::Response { id, body: response }, None).await;
    }

    /// The last line of the screen `matcher` matches.
    fn matching_line(&self, matcher: &Matcher) -> Option<String> {
        let text = self.read().text;
        text.lines().rev().find(|line| matches(matcher, line)).map(str::to_owned)
    }

    /// Answers the waits and watches that `line` matches.
    async fn recheck(&mut self, line: &str) {
        let hits: Vec<(u64, bool)> = self
            .waits
            .iter()
            .filter(|(_, w)| matches(&w.matcher, line))
            .map(|(id, w)| (*id, w.watch))
            .collect();
        for (id, watch) in hits {
            let (matched_line, read) = (line.to_owned(), self.read());
            let frame = if watch {
                WorkerToSupervisor::Event(WorkerEvent::OutputMatched { watch: id, matched_line, read })
            } else {
                self.waits.remove(&id);
                WorkerToSupervisor::Response { id, body: WorkerResponse::Matched { matched_line, read } }
            };
            let _ = self.link.send(&frame, None).await;
        }
    }
}

fn matches(matcher: &Matcher, line: &str) -> bool {
    match matcher {
        Matcher::Substring(s) => line.contains(s.as_str()),
        Matcher::Regex(r) => regex::Regex::new(r).is_ok_and(|re| re.is_match(line)),
    }
}
