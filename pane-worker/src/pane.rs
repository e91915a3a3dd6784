//! One running pane: the event loop that ties the PTY, the terminal, the program watch and the
//! supervisor link together, and the handlers for supervisor requests.
//!
//! The loop sleeps in epoll until the PTY has output, the PTY can take queued input, the link has
//! a frame or room for queued frames, or the program exits. Timers: the SIGKILL grace period after
//! `Shutdown`, agent detection's one deadline while it has something pending (`detection`), and
//! while the pane is visible, the end of the current frame interval when output came faster than
//! one damage per interval (armed only while damage is pending).

use std::time::Duration;

use herdr_protocol::ipc::{
    BACKGROUND_FRAME_INTERVAL_MS, FOCUSED_FRAME_INTERVAL_MS, ProcessInfo, ReadOutput, ReadSpec, ScrollTo,
    SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use tokio::time::Instant;

use crate::{
    WorkerError,
    detection::PaneDetection,
    engine::{Engine, EngineEvent, MouseEffect},
    keys,
    link::{LinkReader, LinkWriter},
    procinfo,
    program::Program,
    pty::{self, Pty, ReadOutcome},
    waits::{LineMatcher, Matched, Waits, Watches},
};

mod bell;
mod typing;

/// How long a program gets to exit after SIGHUP before SIGKILL.
const HANGUP_GRACE: Duration = Duration::from_secs(2);

/// Most output consumed in one turn of the loop before requests get a look-in (16 chunks).
const OUTPUT_TURN_BUDGET: usize = 16 * pty::READ_CHUNK;

/// How long past its frame interval a pane without the focus holds back its last change
/// waiting for more output (a 60 Hz frame).
const BACKGROUND_TRAILING_GRACE: Duration = Duration::from_millis(17);

/// Opening and closing bracketed-paste markers (DEC 2004).
const PASTE_START: &str = "\x1b[200~";
const PASTE_END: &str = "\x1b[201~";

pub struct Pane {
    engine: Engine,
    pty: Pty,
    program: Program,
    waits: Waits,
    watches: Watches,
    detection: PaneDetection,
    out: LinkWriter,
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
    bells: bell::BellLimit,
}

impl Pane {
    pub fn new(engine: Engine, pty: Pty, program: Program, out: LinkWriter) -> Self {
        Self {
            engine,
            pty,
            program,
            waits: Waits::default(),
            watches: Watches::default(),
            detection: PaneDetection::new(std::time::Instant::now()),
            out,
            pty_open: true,
            buf: vec![0u8; pty::READ_CHUNK].into_boxed_slice(),
            visible: false,
            focused: false,
            full_pending: false,
            damage_at: None,
            last_damage: None,
            bells: bell::BellLimit::default(),
        }
    }

    /// Runs until the program exits (after reporting it) or the supervisor closes the link
    /// (leaving the program running: the supervisor holds the PTY and may hand it to a new worker).
    pub async fn run(mut self, link: &mut LinkReader) -> Result<(), WorkerError> {
        let mut kill_at: Option<Instant> = None;
        // The first identity probe: a pane started as an agent reports it even if nothing changes.
        self.drive_detection()?;
        loop {
            let detect_at = self.detection.wake_at().map(Instant::from_std);
            tokio::select! {
                frame = link.recv() => match frame? {
                    None => return Ok(()),
                    Some(frame) => {
                        if self.on_frame(frame)? {
                            kill_at.get_or_insert_with(|| Instant::now() + HANGUP_GRACE);
                        }
                    }
                },
                outcome = self.pty.read(&mut self.buf), if self.pty_open => {
                    self.on_output(outcome?)?;
                }
                ready = self.pty.writable(), if self.pty.has_pending_input() => {
                    ready?;
                    self.pty.flush_input()?;
                }
                ready = self.out.writable(), if self.out.has_pending() => {
                    ready?;
                    self.out.flush()?;
                }
                exited = self.program.exited() => {
                    exited?;
                    return self.finish().await;
                }
                () = tokio::time::sleep_until(kill_at.unwrap_or_else(Instant::now)), if kill_at.is_some() => {
                    kill_at = None;
                    self.program.signal_groups(libc::SIGKILL, self.pty.foreground_pgrp());
                }
                () = tokio::time::sleep_until(detect_at.unwrap_or_else(Instant::now)), if detect_at.is_some() => {
                    self.drive_detection()?;
                }
                () = tokio::time::sleep_until(self.damage_at.unwrap_or_else(Instant::now)), if self.damage_at.is_some() => {
                    self.send_damage()?;
                }
            }
        }
    }

    /// Handles one frame; true when it asked the pane to shut down.
    fn on_frame(&mut self, frame: SupervisorToWorker) -> Result<bool, WorkerError> {
        match frame {
            SupervisorToWorker::Request { id, body } => self.on_request(id, body)?,
            SupervisorToWorker::Cancel { id } => {
                self.waits.cancel(id);
                self.watches.cancel(id);
            }
            SupervisorToWorker::Shutdown => {
                self.program.signal_groups(libc::SIGHUP, self.pty.foreground_pgrp());
                return Ok(true);
            }
            SupervisorToWorker::Hello { .. } => log::warn!("ignoring a second Hello on the link"),
        }
        Ok(false)
    }

    /// Consumes the chunk just read and whatever else is ready (up to a budget), then answers the
    /// terminal's queries, reports title/cwd changes and bells and re-checks waits — once per turn.
    fn on_output(&mut self, first: ReadOutcome) -> Result<(), WorkerError> {
        let mut outcome = first;
        let mut consumed = 0;
        loop {
            match outcome {
                ReadOutcome::Data(n) => {
                    self.engine.feed(&self.buf[..n]);
                    self.detection.feed(&self.buf[..n]);
                    consumed += n;
                }
                ReadOutcome::WouldBlock => break,
                ReadOutcome::Closed => {
                    self.pty_open = false;
                    break;
                }
            }
            if consumed >= OUTPUT_TURN_BUDGET {
                break;
            }
            outcome = self.pty.try_read(&mut self.buf)?;
        }
        if consumed > 0 {
            self.detection.note_output(std::time::Instant::now());
        }
        self.after_output()?;
        self.screen_changed()?;
        self.drive_detection()
    }

    /// The screen may have changed: a visible pane sends damage now, or at the end of the frame
    /// interval when the last damage went out less than an interval ago.
    fn screen_changed(&mut self) -> Result<(), WorkerError> {
        if !self.visible {
            return Ok(());
        }
        let interval = self.frame_interval();
        match self.last_damage {
            Some(last) if Instant::now() < last + interval => {
                // A pane without the focus waits a little past its interval: output that keeps
                // coming (a spinner) sends the damage itself, so no timer wakes the worker too.
                let grace = if self.focused { Duration::ZERO } else { BACKGROUND_TRAILING_GRACE };
                self.damage_at.get_or_insert(last + interval + grace);
                Ok(())
            }
            _ => self.send_damage(),
        }
    }

    /// At most one damage per this long.
    fn frame_interval(&self) -> Duration {
        Duration::from_millis(if self.focused {
            FOCUSED_FRAME_INTERVAL_MS
        } else {
            BACKGROUND_FRAME_INTERVAL_MS
        })
    }

    fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
        // A damage held back for the background rate may go out sooner now.
        if let (Some(at), Some(last)) = (self.damage_at, self.last_damage) {
            self.damage_at = Some(at.min(last + self.frame_interval()));
        }
    }

    fn send_damage(&mut self) -> Result<(), WorkerError> {
        self.damage_at = None;
        let full = std::mem::take(&mut self.full_pending);
        match self.engine.damage(full) {
            Ok(Some(damage)) => {
                self.out.send(&WorkerToSupervisor::Event(WorkerEvent::Damage(damage)), None)?;
                self.last_damage = Some(Instant::now());
            }
            Ok(None) => {}
            Err(err) => {
                // Try again with a whole frame next time rather than leave a torn mirror.
                log::warn!("could not read the screen back: {err}");
                self.full_pending = true;
            }
        }
        Ok(())
    }

    fn set_visible(&mut self, visible: bool) -> Result<(), WorkerError> {
        if visible == self.visible {
            return Ok(());
        }
        self.visible = visible;
        if visible {
            self.full_pending = true;
            return self.send_damage();
        }
        self.damage_at = None;
        self.engine.stop_damage();
        Ok(())
    }

    /// Runs whatever detection has due (a foreground change is checked here, once per output
    /// batch) and sends what it publishes.
    fn drive_detection(&mut self) -> Result<(), WorkerError> {
        let now = std::time::Instant::now();
        let foreground = self.pty.foreground_pgrp();
        for event in self.detection.poll(now, &self.engine, foreground, self.program.pid()) {
            self.out.send(&WorkerToSupervisor::Event(event), None)?;
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
            self.out.send(&WorkerToSupervisor::Event(event), None)?;
        }
        if !self.waits.is_empty() {
            let engine = &self.engine;
            for m in self.waits.evaluate(|spec| read_or_log(engine, spec)) {
                let body = WorkerResponse::Matched { matched_line: m.matched_line, read: m.read };
                self.out.send(&WorkerToSupervisor::Response { id: m.id, body }, None)?;
            }
        }
        if !self.watches.is_empty() {
            let engine = &self.engine;
            for m in self.watches.evaluate(|spec| read_or_log(engine, spec)) {
                self.send_watch_match(m)?;
            }
        }
        Ok(())
    }

    fn send_watch_match(&mut self, m: Matched) -> Result<(), WorkerError> {
        let event = WorkerEvent::OutputMatched { watch: m.id, matched_line: m.matched_line, read: m.read };
        self.out.send(&WorkerToSupervisor::Event(event), None)?;
        Ok(())
    }

    /// The program exited: take in what it left in the PTY, report, and flush the link.
    async fn finish(&mut self) -> Result<(), WorkerError> {
        while self.pty_open {
            match self.pty.try_read(&mut self.buf)? {
                ReadOutcome::Data(n) => self.engine.feed(&self.buf[..n]),
                ReadOutcome::WouldBlock => break,
                ReadOutcome::Closed => self.pty_open = false,
            }
        }
        self.after_output()?;
        if self.visible {
            self.send_damage()?;
        }
        let status = self.program.reap();
        let event = WorkerEvent::Exited { code: status.code, signal: status.signal };
        self.out.send(&WorkerToSupervisor::Event(event), None)?;
        self.out.flush_all().await?;
        Ok(())
    }

    fn on_request(&mut self, id: u64, body: WorkerRequest) -> Result<(), WorkerError> {
        let response = match body {
            WorkerRequest::Read(spec) => match self.engine.read(&spec) {
                Ok(read) => WorkerResponse::Read(read),
                Err(err) => error("internal_error", format!("could not read the pane: {err}")),
            },
            WorkerRequest::SendText(text) => self.send_input(text.as_bytes()),
            WorkerRequest::SendBytes(bytes) => {
                self.typing_started()?;
                self.send_input(&bytes)
            }
            WorkerRequest::Mouse(event) => match self.engine.mouse(&event) {
                Ok(MouseEffect::Input(bytes)) if !bytes.is_empty() => self.send_input(&bytes),
                Ok(MouseEffect::Scrolled) => {
                    self.respond(id, WorkerResponse::Ok)?;
                    self.full_pending = true;
                    return self.screen_changed();
                }
                Ok(_) => WorkerResponse::Ok,
                Err(err) => error("internal_error", format!("could not handle the mouse: {err}")),
            },
            WorkerRequest::Copy(req) => return self.on_copy(id, &req),
            WorkerRequest::TypeKey { bytes, key } => self.type_key(&bytes, &key)?,
            WorkerRequest::Scroll(to) => {
                self.respond(id, WorkerResponse::Ok)?;
                return self.scroll_to(to);
            }
            WorkerRequest::SetFocused(focused) => {
                self.set_focused(focused);
                WorkerResponse::Ok
            }
            WorkerRequest::SetVisible(visible) => {
                self.respond(id, WorkerResponse::Ok)?;
                return self.set_visible(visible);
            }
            WorkerRequest::SendKeys(keys) => match self.encode_keys(&keys) {
                Ok(bytes) => self.send_input(&bytes),
                Err(response) => response,
            },
            WorkerRequest::SendInput { text, keys } => self.send_text_and_keys(text.as_deref(), &keys),
            WorkerRequest::WaitOutput { read, matcher } => {
                let matcher = match LineMatcher::compile(&matcher) {
                    Ok(m) => m,
                    Err(err) => {
                        return self.respond(id, error("invalid_regex", format!("invalid regex: {err}")));
                    }
                };
                let engine = &self.engine;
                match self.waits.add(id, &read, matcher, |spec| read_or_log(engine, spec)) {
                    Some(m) => WorkerResponse::Matched { matched_line: m.matched_line, read: m.read },
                    None => return Ok(()),
                }
            }
            WorkerRequest::WatchOutput { read, matcher } => {
                let matcher = match LineMatcher::compile(&matcher) {
                    Ok(m) => m,
                    Err(err) => {
                        return self.respond(id, error("invalid_regex", format!("invalid regex: {err}")));
                    }
                };
                let engine = &self.engine;
                let first = self.watches.add(id, &read, matcher, |spec| read_or_log(engine, spec));
                self.respond(id, WorkerResponse::Ok)?;
                return match first {
                    Some(m) => self.send_watch_match(m),
                    None => Ok(()),
                };
            }
            WorkerRequest::ProcessInfo => WorkerResponse::ProcessInfo(self.process_info()),
            WorkerRequest::Explain => WorkerResponse::Explain(self.detection.explain(&self.engine)),
            WorkerRequest::SetScansSuspended(suspended) => {
                self.detection.set_scans_suspended(suspended, std::time::Instant::now());
                return self.respond_then_detect(id);
            }
            WorkerRequest::ReleaseAgent => {
                self.detection.release(std::time::Instant::now());
                return self.respond_then_detect(id);
            }
            WorkerRequest::ReloadManifests => {
                self.detection.reload(std::time::Instant::now());
                return self.respond_then_detect(id);
            }
            WorkerRequest::Resize { cols, rows } => {
                let response = self.resize(cols, rows);
                if response == WorkerResponse::Ok {
                    // The program redraws for the new size; judge the screen again meanwhile.
                    self.detection.note_output(std::time::Instant::now());
                    self.respond(id, response)?;
                    self.full_pending = true;
                    self.screen_changed()?;
                    return self.drive_detection();
                }
                response
            }
        };
        self.respond(id, response)
    }

    /// Acknowledges a detection request, then lets detection publish what it changed.
    fn respond_then_detect(&mut self, id: u64) -> Result<(), WorkerError> {
        self.respond(id, WorkerResponse::Ok)?;
        self.drive_detection()
    }

    fn respond(&mut self, id: u64, body: WorkerResponse) -> Result<(), WorkerError> {
        self.out.send(&WorkerToSupervisor::Response { id, body }, None)?;
        Ok(())
    }

    fn encode_keys(&mut self, keys: &[String]) -> Result<Vec<u8>, WorkerResponse> {
        let combos = keys::parse_keys(keys).map_err(|err| error("invalid_key", err.to_string()))?;
        self.engine
            .encode_keys(&combos)
            .map_err(|err| error("pane_send_failed", format!("could not encode keys: {err}")))
    }

    fn send_text_and_keys(&mut self, text: Option<&str>, keys: &[String]) -> WorkerResponse {
        // Keys are validated before the text goes out, so a bad key sends nothing at all.
        let key_bytes = match self.encode_keys(keys) {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let mut bytes = Vec::new();
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            match self.engine.bracketed_paste() {
                Ok(true) => {
                    // A pasted end marker would let the text escape the paste; drop it.
                    let inner = text.replace(PASTE_END, "");
                    bytes.extend_from_slice(format!("{PASTE_START}{inner}{PASTE_END}").as_bytes());
                }
                Ok(false) => bytes.extend_from_slice(text.as_bytes()),
                Err(err) => return error("pane_send_failed", format!("could not read paste mode: {err}")),
            }
        }
        bytes.extend_from_slice(&key_bytes);
        self.send_input(&bytes)
    }

    /// Moves the viewport; a visible pane then sends the whole screen it shows now.
    fn scroll_to(&mut self, to: ScrollTo) -> Result<(), WorkerError> {
        match self.engine.scroll_to(to) {
            Ok(true) => {
                self.full_pending = true;
                self.screen_changed()
            }
            Ok(false) => Ok(()),
            Err(err) => {
                log::warn!("could not scroll the viewport: {err}");
                Ok(())
            }
        }
    }

    fn send_input(&mut self, bytes: &[u8]) -> WorkerResponse {
        match self.pty.write(bytes) {
            Ok(()) => WorkerResponse::Ok,
            Err(err) => error("pane_send_failed", format!("could not write to the pane: {err}")),
        }
    }

    fn resize(&mut self, cols: u16, rows: u16) -> WorkerResponse {
        if cols == 0 || rows == 0 {
            return error("invalid_params", format!("pane size {cols}x{rows} is not usable"));
        }
        if let Err(err) = self.pty.set_size(cols, rows) {
            return error("internal_error", format!("could not resize the pty: {err}"));
        }
        match self.engine.resize(cols, rows) {
            Ok(()) => WorkerResponse::Ok,
            Err(err) => error("internal_error", format!("could not resize the terminal: {err}")),
        }
    }

    fn process_info(&self) -> ProcessInfo {
        let foreground = self.pty.foreground_pgrp();
        ProcessInfo {
            shell_pid: u32::try_from(self.program.pid()).ok(),
            foreground_process_group_id: foreground.and_then(|g| u32::try_from(g).ok()),
            tty: self.pty.slave_path(),
            foreground_processes: foreground.map(procinfo::foreground_processes).unwrap_or_default(),
        }
    }

    /// Makes an adopted program redraw: resize the PTY, and if the size did not change (so the
    /// kernel sends no SIGWINCH), signal the foreground group ourselves.
    pub fn nudge_redraw(&mut self, cols: u16, rows: u16) -> Result<(), WorkerError> {
        let unchanged = self.pty.size().ok() == Some((cols, rows));
        self.pty.set_size(cols, rows)?;
        if unchanged {
            Program::send_winch(self.pty.foreground_pgrp());
        }
        Ok(())
    }
}

fn error(code: &str, message: String) -> WorkerResponse {
    WorkerResponse::Error { code: code.to_string(), message }
}

/// A read for a wait; a failed read leaves the wait pending rather than answering it wrongly.
fn read_or_log(engine: &Engine, spec: &ReadSpec) -> Option<ReadOutput> {
    match engine.read(spec) {
        Ok(out) => Some(out),
        Err(err) => {
            log::warn!("wait read failed: {err}");
            None
        }
    }
}
