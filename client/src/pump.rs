//! The attached loop: one thread forwards input to the server, the calling thread writes the
//! server's paints to the terminal until the connection ends and, when it ends without a
//! `Shutdown`, reconnects to the same socket (starting a server through the caller's hook when
//! nobody listens) while a notice on the bottom row says so.
//!
//! Threads meet in [`Shared`]: the welcomed connection's sending half (`None` while
//! reconnecting, when input is held for the next server for a moment) and the local events the
//! reconnect loop waits for. The terminal side is injected ([`TerminalIo`]) so the loop runs without a TTY.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use herdr_protocol::client::{ClientToServer, MAX_INPUT_CHUNK, NotifyVia, ServerToClient, ShutdownReason};

use crate::detach_chord::DetachChord;
use crate::input::{Input, InputThread, Watch, Woke};
use crate::link::{self, Link, Writer};
use crate::reconnect::{self, Backoff, HookThrottle, Phase, ReconnectPolicy};
use crate::{AttachError, AttachOptions, ExitReason, HookError, ServerMissingHook};
use crate::{clipboard, notify, terminal};

/// Reads the terminal's size as `(cols, rows)`.
pub type SizeFn = Box<dyn Fn() -> io::Result<(u16, u16)> + Send + Sync>;

/// The terminal an attached session drives: the real one in [`crate::attach_with`], anything
/// else in tests.
pub struct TerminalIo {
    /// The user's raw input; end of input means the terminal is gone.
    pub input: Box<dyn Read + Send>,
    /// The same terminal opened afresh (see `link::connect_offering`), offered to each server
    /// the session reconnects to; `None` offers nothing.
    pub terminal: Option<File>,
    /// Where paints and the reconnect notice are written.
    pub output: Box<dyn Write + Send>,
    /// The terminal's current size, read for each `Hello` and resize.
    pub size: SizeFn,
}

/// An attached session over a welcomed [`Link`], ready to [`run`](Session::run).
pub struct Session {
    client_socket: PathBuf,
    link: Link,
    /// The input while no thread reads it.
    input: Option<Input>,
    reader: Option<InputThread>,
    /// The terminal to offer each later connection ([`TerminalIo::terminal`]).
    terminal: Option<File>,
    output: Box<dyn Write + Send>,
    shared: Arc<Shared>,
    policy: ReconnectPolicy,
    /// The keys sent after each `Hello` ([`crate::AttachOptions::keys`]).
    keys: Option<String>,
    hook: Hook,
    throttle: HookThrottle,
    /// The last size read, for a `Hello` when reading it fails.
    size: (u16, u16),
}

/// Tells a running [`Session`] about terminal events it cannot read from its input (signals).
#[derive(Clone)]
pub struct Controls(Arc<Shared>);

enum Hook {
    Absent,
    Idle(ServerMissingHook),
    /// On its own thread; it comes back through [`State::hook_done`].
    Running,
}

/// How one connection ended.
enum Ended {
    Exit(ExitReason),
    /// Without a `Shutdown`: time to reconnect.
    Lost,
}

/// How a reconnect ended.
enum Reconnected {
    Link(Link),
    Exit(ExitReason),
}

struct Shared {
    state: Mutex<State>,
    /// Signalled whenever a field the reconnect loop waits for changes.
    news: Condvar,
    size: SizeFn,
}

#[derive(Default)]
struct State {
    /// The welcomed connection's sending half; `None` while reconnecting.
    outbox: Option<Writer>,
    terminal_closed: bool,
    /// `ctrl+b q` was typed while no server was connected.
    detach: bool,
    /// The terminal was resized while no server was connected.
    resized: bool,
    /// The hook, back from its thread, with what it returned.
    hook_done: Option<(ServerMissingHook, Result<(), HookError>)>,
    /// Keys typed while no server was connected, for the next one (see `HeldInput`).
    held: reconnect::HeldInput,
}

impl State {
    fn has_news(&self) -> bool {
        self.terminal_closed || self.detach || self.resized || self.hook_done.is_some()
    }
}

impl Session {
    /// A session over `link` (already welcomed by the server at `client_socket`, which is where
    /// reconnects go). Nothing runs until [`Session::run`].
    pub fn new(
        client_socket: &Path,
        link: Link,
        io: TerminalIo,
        options: AttachOptions,
    ) -> Result<Session, AttachError> {
        let writer = link.writer()?;
        let size = (io.size)().unwrap_or((80, 24));
        let state = State { outbox: Some(writer), ..State::default() };
        let shared = Arc::new(Shared { state: Mutex::new(state), news: Condvar::new(), size: io.size });
        Ok(Session {
            client_socket: client_socket.to_path_buf(),
            link,
            input: Some(io.input),
            reader: None,
            terminal: io.terminal,
            output: io.output,
            shared,
            policy: options.reconnect,
            keys: options.keys,
            hook: options.on_server_missing.map_or(Hook::Absent, Hook::Idle),
            throttle: HookThrottle::new(options.reconnect.hook_interval),
            size,
        })
    }

    /// A handle for whoever watches the terminal's signals; take it before `run`.
    pub fn controls(&self) -> Controls {
        Controls(self.shared.clone())
    }

    /// Runs until detach, the server stopping, the terminal closing, a refused reconnect, or no
    /// successful reconnect within the policy's give-up time.
    pub fn run(mut self) -> Result<ExitReason, AttachError> {
        // A terminal handed over with the `Hello` may be the supervisor's to read: input is
        // read here only once it is clear that it is not (the first paint sent over the socket)
        // or no longer (the connection ended).
        if !self.link.offered_terminal {
            self.read_input()?;
        }
        let result = self.serve();
        self.shared.disconnect();
        result
    }

    /// Starts forwarding the terminal's input, unless it already is forwarded.
    fn read_input(&mut self) -> io::Result<()> {
        if let Some(input) = self.input.take() {
            let shared = self.shared.clone();
            let body = move |input, watch| forward_input(&shared, input, watch);
            self.reader = Some(InputThread::spawn(input, self.terminal.as_ref(), body)?);
        }
        Ok(())
    }

    /// Stops forwarding the terminal's input before a supervisor reads the terminal itself. A
    /// thread that cannot be stopped goes on (the terminal was then not offered).
    fn stop_reading_input(&mut self) {
        if let Some(reader) = self.reader.take() {
            match reader.stop() {
                Ok(input) => self.input = input,
                Err(running) => self.reader = Some(running),
            }
        }
    }

    /// The terminal to send with a reconnect's `Hello`: only while no input thread that
    /// cannot be stopped reads it.
    fn terminal_to_offer(&self) -> Option<&File> {
        self.terminal.as_ref().filter(|_| self.reader.as_ref().is_none_or(InputThread::stoppable))
    }

    fn serve(&mut self) -> Result<ExitReason, AttachError> {
        loop {
            if let Ended::Exit(reason) = self.paint()? {
                return Ok(reason);
            }
            self.shared.disconnect();
            // The supervisor that read the terminal is gone: this client reads it again until
            // the next one takes it.
            self.read_input()?;
            if self.shared.lock().terminal_closed {
                return Ok(ExitReason::TerminalClosed);
            }
            match self.reconnect()? {
                Reconnected::Link(link) => self.link = link,
                Reconnected::Exit(reason) => return Ok(reason),
            }
        }
    }

    /// Writes paints until the connection ends.
    fn paint(&mut self) -> Result<Ended, AttachError> {
        loop {
            let msg = match self.link.recv() {
                Ok(Some(msg)) => msg,
                Ok(None) => return Ok(Ended::Lost),
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    return Err(AttachError::Protocol(e.to_string()));
                }
                Err(_) => return Ok(Ended::Lost),
            };
            let bytes = match msg {
                ServerToClient::Frame(update) => {
                    self.read_input()?;
                    update.to_ansi()
                }
                ServerToClient::Ansi(bytes) => {
                    self.read_input()?;
                    bytes
                }
                ServerToClient::TerminalTaken => {
                    // The terminal is in raw mode on the alternate screen by now (the caller
                    // entered it before `run`): the supervisor may paint into it, and read it
                    // once this client has stopped reading it (after a reconnect).
                    self.stop_reading_input();
                    if let Some(outbox) = self.shared.lock().outbox.as_mut() {
                        let _ = outbox.send(&ClientToServer::TerminalReady);
                    }
                    continue;
                }
                ServerToClient::Bell => b"\x07".to_vec(),
                ServerToClient::Clipboard(text) => clipboard::osc52(&text),
                ServerToClient::MouseCapture { enabled } => terminal::mouse_capture(enabled),
                ServerToClient::WindowTitle(title) => terminal::window_title(title.as_deref()),
                ServerToClient::Notify { title, body, via: NotifyVia::Terminal } => {
                    notify::osc9(&title, body.as_deref(), std::env::var_os("TMUX").is_some())
                }
                ServerToClient::Notify { title, body, via: NotifyVia::System } => {
                    notify::system(&title, body.as_deref());
                    continue;
                }
                ServerToClient::Shutdown { reason } => {
                    return match reason {
                        ShutdownReason::Detached => Ok(Ended::Exit(ExitReason::Detached)),
                        ShutdownReason::ServerStopping => Ok(Ended::Exit(ExitReason::ServerStopping)),
                        ShutdownReason::ProtocolError(text) => Err(AttachError::Protocol(text)),
                        // Only a direct terminal attach is sent these.
                        other @ (ShutdownReason::TakenOver | ShutdownReason::PaneEnded(_)) => {
                            Err(AttachError::Protocol(format!("unexpected shutdown: {other}")))
                        }
                    };
                }
                ServerToClient::Welcome { .. } => {
                    return Err(AttachError::Protocol("a second Welcome arrived".into()));
                }
                ServerToClient::Terminal(_) => {
                    return Err(AttachError::Protocol("a direct attach frame arrived".into()));
                }
            };
            if !self.write_out(&bytes) {
                return Ok(Ended::Exit(ExitReason::TerminalClosed));
            }
        }
    }

    /// Retries the client socket with backoff until a server welcomes this client again.
    fn reconnect(&mut self) -> Result<Reconnected, AttachError> {
        let deadline = Instant::now() + self.policy.give_up_after;
        let mut backoff = Backoff::new(&self.policy);
        let mut hook_error: Option<String> = None;
        if !self.show_notice() {
            return Ok(Reconnected::Exit(ExitReason::TerminalClosed));
        }
        loop {
            let wait = backoff.next_delay().min(deadline.saturating_duration_since(Instant::now()));
            let news = self.shared.wait(wait);
            if news.terminal_closed {
                return Ok(Reconnected::Exit(ExitReason::TerminalClosed));
            }
            if news.detach {
                return Ok(Reconnected::Exit(ExitReason::Detached));
            }
            let mut redraw = news.resized;
            if let Some((hook, result)) = news.hook_done {
                self.hook = Hook::Idle(hook);
                hook_error = result.err().map(|e| format!("cannot start a server: {e}"));
                redraw = true;
            }
            if redraw && !self.show_notice() {
                return Ok(Reconnected::Exit(ExitReason::TerminalClosed));
            }

            let (cols, rows) = self.current_size();
            let offer = self.terminal_to_offer();
            let connect_error =
                match link::connect_offering(&self.client_socket, cols, rows, self.keys.as_deref(), offer) {
                    Ok(link) => return self.resume(link),
                    Err(refused @ AttachError::Refused(_)) => return Err(refused),
                    Err(err) => {
                        if let AttachError::Connect { source, .. } = &err
                            && nobody_listens(source)
                            && self.start_server_if_due()
                            && !self.show_notice()
                        {
                            return Ok(Reconnected::Exit(ExitReason::TerminalClosed));
                        }
                        err.to_string()
                    }
                };
            if Instant::now() >= deadline {
                return Ok(Reconnected::Exit(ExitReason::ConnectionLost {
                    waited: self.policy.give_up_after,
                    last_error: hook_error.or(Some(connect_error)),
                }));
            }
        }
    }

    /// Goes on with a newly welcomed `link`, unless the user detached or the terminal closed
    /// meanwhile.
    fn resume(&mut self, link: Link) -> Result<Reconnected, AttachError> {
        let writer = link.writer()?;
        if !self.write_out(reconnect::RESET_SCREEN) {
            writer.close();
            return Ok(Reconnected::Exit(ExitReason::TerminalClosed));
        }
        match self.shared.connect(writer) {
            Ok(()) => Ok(Reconnected::Link(link)),
            Err((mut writer, reason)) => {
                if reason == ExitReason::Detached {
                    let _ = writer.send(&ClientToServer::Detach);
                }
                writer.close();
                Ok(Reconnected::Exit(reason))
            }
        }
    }

    /// Hands the hook to its own thread (so the loop keeps noticing `ctrl+b q`) when it is idle
    /// and due; `true` if it started.
    fn start_server_if_due(&mut self) -> bool {
        if !matches!(self.hook, Hook::Idle(_)) || !self.throttle.try_start(Instant::now()) {
            return false;
        }
        let Hook::Idle(mut hook) = std::mem::replace(&mut self.hook, Hook::Running) else {
            return false;
        };
        let shared = self.shared.clone();
        let started = thread::Builder::new().name("herdr-start-server".into()).spawn(move || {
            let result = hook();
            shared.hook_finished(hook, result);
        });
        if started.is_err() {
            // The hook went down with the closure; reconnecting goes on without it.
            self.hook = Hook::Absent;
            return false;
        }
        true
    }

    fn show_notice(&mut self) -> bool {
        let phase =
            if matches!(self.hook, Hook::Running) { Phase::StartingServer } else { Phase::Reconnecting };
        let (cols, rows) = self.current_size();
        self.write_out(&reconnect::notice(reconnect::notice_text(phase), cols, rows))
    }

    fn current_size(&mut self) -> (u16, u16) {
        if let Ok(size) = (self.shared.size)() {
            self.size = size;
        }
        self.size
    }

    /// Writes to the terminal; `false` when it is gone.
    fn write_out(&mut self, bytes: &[u8]) -> bool {
        self.output.write_all(bytes).and_then(|()| self.output.flush()).is_ok()
    }
}

/// Nothing accepts connections at the socket: no file, or a file left by a dead server.
fn nobody_listens(err: &io::Error) -> bool {
    matches!(err.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused)
}

impl Controls {
    /// The terminal changed size: tell the server, or redraw the notice while reconnecting.
    pub fn resized(&self) {
        let size = (self.0.size)();
        let mut state = self.0.lock();
        match (state.outbox.as_mut(), size) {
            (Some(outbox), Ok((cols, rows))) => {
                let _ = outbox.send(&ClientToServer::Resize { cols, rows });
            }
            (Some(_), Err(_)) => {}
            (None, _) => {
                state.resized = true;
                self.0.news.notify_all();
            }
        }
    }

    /// The terminal went away (SIGHUP, SIGTERM): the session ends as soon as it notices.
    pub fn terminal_closed(&self) {
        self.0.terminal_closed();
    }
}

/// What the reconnect loop woke up to.
struct News {
    terminal_closed: bool,
    detach: bool,
    resized: bool,
    hook_done: Option<(ServerMissingHook, Result<(), HookError>)>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits up to `timeout` for local news; the sticky ones (closed, detach) stay set.
    fn wait(&self, timeout: Duration) -> News {
        let state = self.lock();
        let (mut state, _) = self
            .news
            .wait_timeout_while(state, timeout, |state| !state.has_news())
            .unwrap_or_else(PoisonError::into_inner);
        News {
            terminal_closed: state.terminal_closed,
            detach: state.detach,
            resized: std::mem::take(&mut state.resized),
            hook_done: state.hook_done.take(),
        }
    }

    /// Drops the current connection's sending half, so input is held until [`Self::connect`].
    fn disconnect(&self) {
        if let Some(outbox) = self.lock().outbox.take() {
            outbox.close();
        }
    }

    /// Sends through `outbox` from now on, with a resize first if one was missed meanwhile.
    /// Checked under the same lock the input and signal threads take, so a `ctrl+b q` or a
    /// closed terminal seen while disconnected cannot be lost: the writer comes back with why.
    fn connect(&self, mut outbox: Writer) -> Result<(), (Writer, ExitReason)> {
        let mut state = self.lock();
        if state.terminal_closed {
            return Err((outbox, ExitReason::TerminalClosed));
        }
        if state.detach {
            return Err((outbox, ExitReason::Detached));
        }
        if std::mem::take(&mut state.resized)
            && let Ok((cols, rows)) = (self.size)()
        {
            let _ = outbox.send(&ClientToServer::Resize { cols, rows });
        }
        if let Some(bytes) = state.held.take(Instant::now()) {
            let _ = outbox.send(&ClientToServer::Input(bytes));
        }
        state.outbox = Some(outbox);
        Ok(())
    }

    fn terminal_closed(&self) {
        let mut state = self.lock();
        state.terminal_closed = true;
        // Shutting the socket down wakes the reader if a server is connected.
        if let Some(outbox) = &state.outbox {
            outbox.close();
        }
        self.news.notify_all();
    }

    fn hook_finished(&self, hook: ServerMissingHook, result: Result<(), HookError>) {
        self.lock().hook_done = Some((hook, result));
        self.news.notify_all();
    }
}

/// Input bytes to the server, as read; while no server is connected (or the send fails because
/// the connection just ended) they are held briefly for the next server, and `ctrl+b q`
/// detaches. End of input means the terminal is gone. With a `watch`, waits for input there
/// first and gives the input back when told to stop.
fn forward_input(shared: &Shared, mut input: Input, watch: Option<Watch>) -> Option<Input> {
    let mut buf = vec![0u8; MAX_INPUT_CHUNK];
    let mut chord = DetachChord::default();
    loop {
        if let Some(Woke::Stop) = watch.as_ref().map(Watch::wait) {
            return Some(input);
        }
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut state = shared.lock();
        match state.outbox.as_mut() {
            Some(outbox) => {
                // A failed send means the connection is ending; the reader notices and
                // reconnects, and this thread carries on with the next connection.
                if outbox.send(&ClientToServer::Input(buf[..n].to_vec())).is_err() {
                    state.held.hold(Instant::now(), &buf[..n]);
                }
                chord.reset();
            }
            None => {
                state.held.hold(Instant::now(), &buf[..n]);
                if chord.feed(&buf[..n]) {
                    state.detach = true;
                    shared.news.notify_all();
                }
            }
        }
    }
    shared.terminal_closed();
    None
}
