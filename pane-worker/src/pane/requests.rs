//! The pane's answers to supervisor requests: reads, input, output waits and watches, process
//! info and live facts (cwds, scrollback metrics), detection controls, resizes, mouse and scrolling.
//!
//! A held pane (its program never started or failed at once) answers reads, waits, resizes,
//! scrolling and copy mode from its terminal like any pane; input of every kind answers
//! `pane_send_failed` (the public input error code), since there is no program to receive it.

use herdr_protocol::ipc::{
    PaneFacts, ProcessInfo, ReadOutput, ReadSpec, ScrollTo, WorkerEvent, WorkerRequest, WorkerResponse,
    WorkerToSupervisor,
};

use super::{Life, Pane};
use crate::{
    WorkerError,
    engine::{Engine, MouseEffect},
    keys, procinfo,
    program::Program,
    waits::{LineMatcher, Matched},
};

/// Opening and closing bracketed-paste markers (DEC 2004).
const PASTE_START: &str = "\x1b[200~";
const PASTE_END: &str = "\x1b[201~";

impl Pane {
    pub(super) fn on_request(&mut self, id: u64, body: WorkerRequest) -> Result<(), WorkerError> {
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
            WorkerRequest::TextQuery { query, revision } => self.text_query(&query, revision),
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
            WorkerRequest::Facts => self.facts(),
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

    /// Answers the waits and watches that the new output made match.
    pub(super) fn recheck_waits(&mut self) -> Result<(), WorkerError> {
        if !self.waits.is_empty() {
            let engine = &self.engine;
            for m in self.waits.evaluate(|spec| read_or_log(engine, spec)) {
                let body = WorkerResponse::Matched { matched_line: m.matched_line, read: m.read };
                self.send(WorkerToSupervisor::Response { id: m.id, body })?;
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
        self.event(WorkerEvent::OutputMatched { watch: m.id, matched_line: m.matched_line, read: m.read })
    }

    /// Acknowledges a detection request, then lets detection publish what it changed.
    fn respond_then_detect(&mut self, id: u64) -> Result<(), WorkerError> {
        self.respond(id, WorkerResponse::Ok)?;
        self.drive_detection()
    }

    pub(super) fn respond(&mut self, id: u64, body: WorkerResponse) -> Result<(), WorkerError> {
        self.send(WorkerToSupervisor::Response { id, body })
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
    pub(super) fn scroll_to(&mut self, to: ScrollTo) -> Result<(), WorkerError> {
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

    /// Every kind of input ends here: written to the program, or refused on a held pane.
    pub(super) fn send_input(&mut self, bytes: &[u8]) -> WorkerResponse {
        if let Life::Held { message, .. } = &self.life {
            return error("pane_send_failed", format!("the pane's program is not running: {message}"));
        }
        match self.pty.write(bytes) {
            Ok(()) => {
                self.cwd_pace.input(tokio::time::Instant::now());
                WorkerResponse::Ok
            }
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
            Ok(()) => {
                // A width change brings archived history back to reflow it: the pause pass
                // archives it again even if the program prints nothing.
                self.compress.output(tokio::time::Instant::now());
                WorkerResponse::Ok
            }
            Err(err) => error("internal_error", format!("could not resize the terminal: {err}")),
        }
    }

    fn process_info(&self) -> ProcessInfo {
        let running = matches!(self.life, Life::Running(_));
        let foreground = self.pty.foreground_pgrp().filter(|_| running);
        ProcessInfo {
            shell_pid: u32::try_from(self.child_pid).ok().filter(|_| running),
            foreground_process_group_id: foreground.and_then(|g| u32::try_from(g).ok()),
            tty: self.pty.slave_path(),
            foreground_processes: foreground.map(procinfo::foreground_processes).unwrap_or_default(),
        }
    }

    fn facts(&self) -> WorkerResponse {
        let running = matches!(self.life, Life::Running(_));
        let (scroll, (_, rows)) = match (self.engine.scroll_position(), self.engine.size()) {
            (Ok(scroll), Ok(size)) => (scroll, size),
            (Err(err), _) | (_, Err(err)) => {
                return error("internal_error", format!("could not read the terminal: {err}"));
            }
        };
        WorkerResponse::Facts(PaneFacts {
            cwd: procinfo::live_cwd(self.child_pid).filter(|_| running),
            foreground_cwd: self.pty.foreground_pgrp().filter(|_| running).and_then(procinfo::live_cwd),
            scroll,
            viewport_rows: rows,
        })
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

pub(super) fn error(code: &str, message: String) -> WorkerResponse {
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
