//! One running pane: the event loop that ties the PTY, the terminal, the program watch, the
//! supervisor link and the worker's own socket together.
//!
//! The loop sleeps in epoll until the PTY has output, the PTY can take queued input, the link has
//! a frame or room for queued frames, the program exits, or a connection reaches the worker's
//! socket. Timers: the SIGKILL grace period after `Shutdown` (or the orphan timeout), agent
//! detection's one deadline while it has something pending (`detection`), while the pane is
//! visible the end of the current frame interval when output came faster than one damage per
//! interval (armed only while damage is pending), while no supervisor is linked the orphan
//! deadline, a connection's first-frame deadline, and after output the steps of a history
//! compression pass (`compress`).
//!
//! The link can go away without a `Shutdown` (the supervisor died): the pane then carries on
//! unlinked — its program never notices — until a new supervisor adopts it (`adopt`) or the
//! orphan timeout hangs the program up. Request handlers live in `requests`, damage pacing in
//! `screen`, held start failures in `held`, the hand-over to a new worker binary in `handover`.

use std::{future, io, os::fd::OwnedFd, time::Duration};

use herdr_protocol::ipc::{SupervisorToWorker, WorkerEvent, WorkerToSupervisor};
use tokio::time::Instant;

use crate::{
    WorkerError,
    detection::PaneDetection,
    engine::{Engine, EngineEvent},
    link::{LinkError, LinkReader, LinkWriter},
    procinfo,
    program::{ExitStatus, Program},
    pty::{self, Pty, ReadOutcome},
    waits::{Waits, Watches},
};

mod adopt;
mod bell;
mod compress;
mod cwd_pace;
mod handover;
mod held;
mod requests;
mod screen;
mod typing;

pub use adopt::Home;
pub use held::HoldPolicy;

/// How long a program gets to exit after SIGHUP before SIGKILL.
const HANGUP_GRACE: Duration = Duration::from_secs(2);

/// Most output consumed in one turn of the loop before requests get a look-in (16 chunks).
const OUTPUT_TURN_BUDGET: usize = 16 * pty::READ_CHUNK;

/// What became of the pane's program.
#[derive(Debug)]
enum Life {
    /// It runs, watched through its pidfd.
    Running(Program),
    /// It ended while no supervisor was linked: the one that adopts the worker hears `Exited`.
    Ended(ExitStatus),
    /// A `hold_failure` pane whose program could not start (default status) or failed at once:
    /// the pane stays, showing `message`, until it is closed.
    Held { message: String, status: ExitStatus },
}

/// Whether the loop goes on after a handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Exit,
}

pub struct Pane {
    engine: Engine,
    pty: Pty,
    life: Life,
    /// The program's pid (0: none was ever started).
    child_pid: i32,
    waits: Waits,
    watches: Watches,
    detection: PaneDetection,
    /// The supervisor link; both halves are `None` while no supervisor is linked.
    reader: Option<LinkReader>,
    out: Option<LinkWriter>,
    /// A write found the link gone (`out` is already dropped); the loop drops the rest.
    link_broken: bool,
    /// The worker's own socket and what waits on it.
    home: Home,
    /// The pane is ending (`Shutdown`, orphan timeout): no adoption, no holding.
    ending: bool,
    kill_at: Option<Instant>,
    hold: Option<HoldPolicy>,
    /// The last `LiveCwd` sent, and from when one may be sent (later for a `hold_failure` pane).
    live_cwd: Option<String>,
    live_cwd_from: Instant,
    cwd_pace: cwd_pace::CwdPace,
    /// False once the master reported EOF/EIO: nothing more will come, stop polling it.
    pty_open: bool,
    buf: Box<[u8]>,
    /// Some client shows this pane: screen changes go to the supervisor as damage.
    visible: bool,
    /// The pane has the session's focus: its damage may go out at the focused frame rate.
    focused: bool,
    /// The next damage must carry every row (just became visible, or resized).
    full_pending: bool,
    /// When the pending damage goes out; set only while some is pending.
    damage_at: Option<Instant>,
    last_damage: Option<Instant>,
    /// A person typed since the last damage: the next screen change (the echo) goes out at
    /// once, not at the end of the frame interval.
    echo_pending: bool,
    bells: bell::BellLimit,
    compress: compress::CompressTimer,
}

impl Pane {
    /// A pane whose program runs (started by this worker, or taken over after a worker crash).
    pub fn new(
        engine: Engine,
        pty: Pty,
        program: Program,
        link: (LinkReader, LinkWriter),
        home: Home,
    ) -> Self {
        let child_pid = program.pid();
        Self::with_life(engine, pty, Life::Running(program), child_pid, link, home)
    }

    /// A `hold_failure` pane whose program could not be started at all; see [`Pane::hold`].
    pub fn without_program(engine: Engine, pty: Pty, link: (LinkReader, LinkWriter), home: Home) -> Self {
        let life = Life::Held { message: String::new(), status: ExitStatus::default() };
        Self::with_life(engine, pty, life, 0, link, home)
    }

    fn with_life(
        engine: Engine,
        pty: Pty,
        life: Life,
        child_pid: i32,
        (reader, out): (LinkReader, LinkWriter),
        home: Home,
    ) -> Self {
        Self {
            engine,
            pty,
            life,
            child_pid,
            waits: Waits::default(),
            watches: Watches::default(),
            detection: PaneDetection::new(std::time::Instant::now()),
            reader: Some(reader),
            out: Some(out),
            link_broken: false,
            home,
            ending: false,
            kill_at: None,
            hold: None,
            live_cwd: None,
            live_cwd_from: Instant::now(),
            cwd_pace: cwd_pace::CwdPace::default(),
            pty_open: true,
            buf: vec![0u8; pty::READ_CHUNK].into_boxed_slice(),
            visible: false,
            focused: false,
            full_pending: false,
            damage_at: None,
            last_damage: None,
            echo_pending: false,
            bells: bell::BellLimit::default(),
            compress: compress::CompressTimer::default(),
        }
    }

    /// Holds the program's failure to start (or to stay up) instead of exiting; see `held`.
    /// `LiveCwd` waits until the program has outlived the window: a held failure sends none.
    pub fn hold_failures(&mut self, policy: HoldPolicy) {
        self.live_cwd_from = policy.until();
        self.hold = Some(policy);
    }

    /// `Spawned` with a dup of the PTY master beside it, then the program's first `LiveCwd`.
    pub fn report_spawned(&mut self, handoff: OwnedFd) -> Result<(), WorkerError> {
        let child_pid = self.child_pid;
        self.send_fd(WorkerToSupervisor::Spawned { child_pid }, Some(handoff))?;
        self.report_live_cwd()
    }

    /// Runs until the program exits (after reporting it), `Shutdown` ends it, or the orphan
    /// timeout passes with no supervisor adopting the worker.
    pub async fn run(mut self) -> Result<(), WorkerError> {
        // The first identity probe: a pane started as an agent reports it even if nothing changes.
        self.drive_detection()?;
        loop {
            if std::mem::take(&mut self.link_broken) {
                self.link_lost();
            }
            let running = matches!(self.life, Life::Running(_));
            let detect_at = self.detection.wake_at().filter(|_| running).map(Instant::from_std);
            let flow = tokio::select! {
                frame = recv(self.reader.as_mut()), if self.reader.is_some() => match frame? {
                    None => {
                        self.link_lost();
                        Flow::Continue
                    }
                    Some(frame) => self.on_frame(frame).await?,
                },
                outcome = self.pty.read(&mut self.buf), if self.pty_open => {
                    self.on_output(outcome?)?;
                    Flow::Continue
                }
                ready = self.pty.writable(), if self.pty.has_pending_input() => {
                    ready?;
                    self.pty.flush_input()?;
                    Flow::Continue
                }
                ready = room(self.out.as_ref()), if self.out.as_ref().is_some_and(LinkWriter::has_pending) => {
                    ready?;
                    self.flush_link()?;
                    Flow::Continue
                }
                exited = exited(&self.life), if running => {
                    exited?;
                    self.on_program_exit().await?
                }
                () = sleep_until(self.kill_at), if self.kill_at.is_some() => {
                    self.kill_at = None;
                    if let Life::Running(program) = &self.life {
                        program.signal_groups(libc::SIGKILL, self.pty.foreground_pgrp());
                    }
                    Flow::Continue
                }
                () = sleep_until(detect_at), if detect_at.is_some() => {
                    self.drive_detection()?;
                    Flow::Continue
                }
                () = sleep_until(self.damage_at), if self.damage_at.is_some() => {
                    self.send_damage()?;
                    Flow::Continue
                }
                () = sleep_until(self.cwd_pace.at()), if self.cwd_pace.at().is_some() => {
                    self.cwd_pace.looked(Instant::now());
                    self.report_live_cwd()?;
                    Flow::Continue
                }
                () = sleep_until(self.compress.at()), if self.compress.at().is_some() => {
                    self.compress_step();
                    Flow::Continue
                }
                () = sleep_until(self.home.orphan_at), if self.home.orphan_at.is_some() => {
                    self.orphan_timeout().await?
                }
                conn = self.home.listener.accept() => {
                    self.home.handshakes.start(conn?);
                    Flow::Continue
                }
                done = self.home.handshakes.next(), if !self.home.handshakes.is_empty() => {
                    self.on_handshake(done).await?
                }
            };
            if flow == Flow::Exit {
                return Ok(());
            }
        }
    }

    /// Handles one frame from the linked supervisor.
    async fn on_frame(&mut self, frame: SupervisorToWorker) -> Result<Flow, WorkerError> {
        match frame {
            SupervisorToWorker::Request { id, body } => self.on_request(id, body)?,
            SupervisorToWorker::Cancel { id } => {
                self.waits.cancel(id);
                self.watches.cancel(id);
            }
            SupervisorToWorker::Shutdown => return self.end().await,
            SupervisorToWorker::Hello { .. } => log::warn!("ignoring a second Hello on the link"),
            SupervisorToWorker::Adopt { .. } => log::warn!("ignoring Adopt on a link already adopted"),
            SupervisorToWorker::HandOver => return self.hand_over().await,
            SupervisorToWorker::DumpChunk { .. } => log::warn!("ignoring a dump chunk outside a restore"),
        }
        Ok(Flow::Continue)
    }

    /// Closes the pane: hang up a running program (SIGKILL after the grace period) and exit once
    /// it is gone; a pane without one exits now.
    async fn end(&mut self) -> Result<Flow, WorkerError> {
        self.ending = true;
        match &self.life {
            Life::Running(program) => {
                program.signal_groups(libc::SIGHUP, self.pty.foreground_pgrp());
                self.kill_at.get_or_insert_with(|| Instant::now() + HANGUP_GRACE);
                Ok(Flow::Continue)
            }
            Life::Ended(_) | Life::Held { .. } => self.finish().await,
        }
    }

    /// Consumes the chunk just read and whatever else is ready (up to a budget), then answers the
    /// terminal's queries, reports title/cwd changes and bells and re-checks waits — once per turn.
    fn on_output(&mut self, first: ReadOutcome) -> Result<(), WorkerError> {
        let mut outcome = first;
        let mut consumed = 0;
        loop {
            let short = match outcome {
                ReadOutcome::Data(n) => {
                    self.engine.feed(&self.buf[..n]);
                    self.detection.feed(&self.buf[..n]);
                    consumed += n;
                    n < pty::SMALL_READ
                }
                ReadOutcome::WouldBlock => break,
                ReadOutcome::Closed => {
                    self.pty_open = false;
                    break;
                }
            };
            // A small chunk emptied the terminal (`Pty::read`): asking again would most likely be
            // told `EAGAIN`. Output that arrives meanwhile wakes the next turn.
            if short || consumed >= OUTPUT_TURN_BUDGET {
                break;
            }
            outcome = self.pty.try_read(&mut self.buf)?;
        }
        if consumed > 0 {
            self.detection.note_output(std::time::Instant::now());
            self.compress.output(Instant::now());
        }
        self.after_output()?;
        self.screen_changed()?;
        // One look at the terminal's foreground group per turn, for detection and the cwd.
        let foreground = self.pty.foreground_pgrp();
        self.detect_with(foreground)?;
        // A `cd` at a prompt shows once the prompt prints, paced (`cwd_pace`), and only while
        // the program itself has the terminal (while a job it started runs, a shell waits and
        // its directory cannot move; a spinner in that job paid a /proc lookup per frame).
        if foreground.is_none_or(|group| group == self.child_pid) && self.cwd_pace.output(Instant::now()) {
            self.report_live_cwd()?;
        }
        Ok(())
    }

    /// Runs one step of the history compression pass, if the history changed since the last
    /// one finished. Compression only saves memory: a terminal failing at it loses nothing else.
    fn compress_step(&mut self) {
        let more = self.engine.compression_due().and_then(|due| Ok(due && self.engine.compress_step()?));
        let more = more.unwrap_or_else(|err| {
            log::warn!("history compression failed, the history stays as it is: {err}");
            false
        });
        if !more {
            release_free_memory();
        }
        self.compress.stepped(more, Instant::now());
    }

    /// Runs whatever detection has due (a foreground change is checked here, once per output
    /// batch) and sends what it publishes. Nothing to detect once the program is gone.
    fn drive_detection(&mut self) -> Result<(), WorkerError> {
        let foreground = self.pty.foreground_pgrp();
        self.detect_with(foreground)
    }

    /// [`Self::drive_detection`] with the foreground group already read.
    fn detect_with(&mut self, foreground: Option<i32>) -> Result<(), WorkerError> {
        if !matches!(self.life, Life::Running(_)) {
            return Ok(());
        }
        let now = std::time::Instant::now();
        for event in self.detection.poll(now, &self.engine, foreground, self.child_pid) {
            self.event(event)?;
        }
        self.detection.prepare();
        Ok(())
    }

    fn after_output(&mut self) -> Result<(), WorkerError> {
        let replies = self.engine.take_replies();
        if !replies.is_empty() {
            self.pty.write(&replies)?;
        }
        for event in self.engine.take_events() {
            let event = match event {
                EngineEvent::Title(title) => WorkerEvent::Title(title),
                EngineEvent::Cwd(cwd) => WorkerEvent::Cwd(cwd),
                EngineEvent::Bell if self.bells.admit(std::time::Instant::now()) => WorkerEvent::Bell,
                EngineEvent::Bell => continue,
            };
            self.event(event)?;
        }
        self.recheck_waits()
    }

    /// Sends `LiveCwd` when the running program's directory differs from the last one sent.
    pub fn report_live_cwd(&mut self) -> Result<(), WorkerError> {
        if !matches!(self.life, Life::Running(_)) || Instant::now() < self.live_cwd_from {
            return Ok(());
        }
        let Some(cwd) = procinfo::live_cwd(self.child_pid) else { return Ok(()) };
        if self.live_cwd.as_ref() == Some(&cwd) {
            return Ok(());
        }
        self.live_cwd = Some(cwd.clone());
        self.event(WorkerEvent::LiveCwd(cwd))
    }

    /// The program exited: take in what it left in the PTY, then hold the failure, wait for a
    /// supervisor to tell (nobody is linked), or report it and exit.
    async fn on_program_exit(&mut self) -> Result<Flow, WorkerError> {
        self.drain_pty()?;
        let Life::Running(program) = &self.life else { return Ok(Flow::Continue) };
        let status = program.reap();
        let failed_at_once = self.hold.as_ref().filter(|_| !self.ending).and_then(|h| h.failure(status));
        if let Some(message) = failed_at_once {
            self.life = Life::Held { message: String::new(), status };
            self.hold(message)?;
            return Ok(Flow::Continue);
        }
        self.life = Life::Ended(status);
        if self.out.is_none() && !self.ending {
            return Ok(Flow::Continue);
        }
        self.finish().await
    }

    /// Reads what is left in the PTY right now (the program's last words).
    fn drain_pty(&mut self) -> Result<(), WorkerError> {
        while self.pty_open {
            match self.pty.try_read(&mut self.buf)? {
                ReadOutcome::Data(n) => self.engine.feed(&self.buf[..n]),
                ReadOutcome::WouldBlock => break,
                ReadOutcome::Closed => self.pty_open = false,
            }
        }
        self.after_output()
    }

    /// Reports how the program ended (a held pane: how it failed) and flushes the link.
    async fn finish(&mut self) -> Result<Flow, WorkerError> {
        if self.visible {
            self.send_damage()?;
        }
        let status = match &self.life {
            Life::Running(_) => ExitStatus::default(),
            Life::Ended(status) | Life::Held { status, .. } => *status,
        };
        self.event(WorkerEvent::Exited { code: status.code, signal: status.signal })?;
        if let Some(out) = &mut self.out {
            let flushed = out.flush_all().await;
            self.check_link(flushed)?;
        }
        if self.out.is_none() && !self.ending {
            // The supervisor died before it heard (its EOF was still unread when the exit was
            // seen): wait, as an orphan, to tell the one that adopts the pane.
            return Ok(Flow::Continue);
        }
        Ok(Flow::Exit)
    }

    fn event(&mut self, event: WorkerEvent) -> Result<(), WorkerError> {
        self.send(WorkerToSupervisor::Event(event))
    }

    fn send(&mut self, msg: WorkerToSupervisor) -> Result<(), WorkerError> {
        self.send_fd(msg, None)
    }

    /// Queues a frame for the linked supervisor; with none linked it is dropped (a new one
    /// gets the state re-sent on adoption). A link found gone ends the link, not the pane.
    fn send_fd(&mut self, msg: WorkerToSupervisor, fd: Option<OwnedFd>) -> Result<(), WorkerError> {
        let Some(out) = &mut self.out else { return Ok(()) };
        let sent = out.send(&msg, fd);
        self.check_link(sent)
    }

    fn flush_link(&mut self) -> Result<(), WorkerError> {
        let Some(out) = &mut self.out else { return Ok(()) };
        let flushed = out.flush();
        self.check_link(flushed)
    }

    fn check_link(&mut self, result: Result<(), LinkError>) -> Result<(), WorkerError> {
        match result {
            Err(err) if err.is_gone() => {
                self.out = None;
                self.link_broken = true;
                Ok(())
            }
            other => Ok(other?),
        }
    }
}

async fn recv(reader: Option<&mut LinkReader>) -> Result<Option<SupervisorToWorker>, LinkError> {
    match reader {
        Some(reader) => reader.recv().await,
        None => future::pending().await,
    }
}

async fn room(out: Option<&LinkWriter>) -> io::Result<()> {
    match out {
        Some(out) => out.writable().await,
        None => future::pending().await,
    }
}

async fn exited(life: &Life) -> io::Result<()> {
    match life {
        Life::Running(program) => program.exited().await,
        Life::Ended(_) | Life::Held { .. } => future::pending().await,
    }
}

/// Sleeps until `at` (guarded by `at.is_some()` at every call site).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => future::pending().await,
    }
}

/// Hands the heap's free pages back to the kernel. Packing the history frees its raw blocks in
/// the middle of the heap, where the allocator keeps them resident for reuse; a pane that went
/// quiet should cost what it holds, not what its last burst of output needed.
fn release_free_memory() {
    // SAFETY: malloc_trim only reads and adjusts the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
