//! One attached client's connection: the handshake, then input. Bytes go through the client's
//! own decoder and keymap; keys the keymap passes through are written to the focused pane,
//! actions become session methods. Painting is the paint task's job ([`super::paint`]), which
//! owns the write half. A local client's terminal, when it hands it over with its `Hello`, is
//! read here too (its bytes are the same input) and painted by the paint task once the client
//! says it is ready (the client protocol's module doc).

use std::sync::Arc;
use std::time::Duration;

use herdr_host::socket::peer_is_same_user;
use herdr_host::stream::{self, ClientReader, ClientWriter, TerminalReader, TerminalWriter};
use herdr_protocol::api::{ApiResult, Request};
use herdr_protocol::client::{ClientToServer, Encoding, ServerToClient, ShutdownReason, check_hello_version};
use herdr_protocol::ipc::{FrameDecoder, WorkerRequest, encode_frame};
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::actions::{self, Step};
use super::paint::{self, View};
use super::recent::RecentPanes;
use super::registry::ClientId;
use super::visibility;
use super::{Hub, help, reload};
use crate::api::envelope::Failure;
use crate::keymap::{Action, InputDecoder, InputEvent, KeyInput, Keymap, Mode, Outcome, grammar_name};
use crate::render::ModeBadge;

mod copy;
mod keys;
mod launch;

pub(crate) use launch::{CommandError, edit_scrollback, run_custom_command};
mod modal;
mod mouse;
mod popup;
mod select;

/// The client's `Hello` must arrive within this long.
pub(super) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// A client that does not take a frame within this long is dropped.
pub(super) const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// A lone ESC with nothing after it for this long is the Esc key.
const ESCAPE_TIMEOUT: Duration = Duration::from_millis(25);
/// After the connection ends, how long the paint task may take to say goodbye.
const FAREWELL_TIMEOUT: Duration = Duration::from_secs(2);

pub(super) async fn serve(hub: Arc<Hub>, stream: UnixStream) {
    if !peer_is_same_user(&stream) {
        log::warn!("refused a terminal client from another user");
        return;
    }
    let Ok((mut reader, mut writer)) = stream::split(stream) else {
        log::warn!("could not set up a terminal client's socket");
        return;
    };
    let mut frames = FrameDecoder::new();
    let hello = tokio::time::timeout(HANDSHAKE_TIMEOUT, read_message(&mut reader, &mut frames)).await;
    if let Ok(Some(ClientToServer::AttachTerminal { version, cols, rows, target, role })) = hello {
        let request = super::attach::Request { version, cols, rows, target, role };
        return super::attach::serve(hub, reader, writer, frames, request).await;
    }
    let Ok(Some(ClientToServer::Hello { version, cols, rows, encoding })) = hello else {
        let error = "the first message of a terminal client must be Hello".to_owned();
        let _ = write_message(&mut writer, &ServerToClient::Welcome { version: 0, error: Some(error) }).await;
        return;
    };
    // The client's terminal, if it came with the `Hello` (only a client painted with cell
    // updates, a local one, sends it).
    let offered = reader.take_fd().filter(|_| encoding == Encoding::CellDiff);
    let welcome = match check_hello_version(version) {
        Ok(welcome) => welcome,
        Err(refusal) => {
            log::info!("refused a terminal client speaking client protocol {version}");
            let _ = write_message(&mut writer, &refusal).await;
            return;
        }
    };
    let mouse = ServerToClient::MouseCapture { enabled: hub.config().ui.mouse_capture };
    if write_message(&mut writer, &welcome).await.is_err()
        || write_message(&mut writer, &mouse).await.is_err()
    {
        return;
    }
    let terminal = offered.and_then(|fd| {
        stream::split_terminal(fd)
            .map_err(|e| log::info!("a terminal client's terminal is painted over the socket: {e}"))
            .ok()
    });
    if terminal.is_some() && write_message(&mut writer, &ServerToClient::TerminalTaken).await.is_err() {
        return;
    }
    ensure_workspace(&hub).await;
    let (id, attached) = {
        let mut registry = hub.registry();
        (registry.join(), registry.count())
    };
    // The panes this client shows start sending their screens now, while the rest of the
    // connection is set up and the client gets its terminal ready (the first frame waits for
    // them); the yield lets the pane tasks pass that on before this task goes on.
    let (snapshot, panes) = paint::capture(&hub.shared);
    visibility::sync(&hub, &snapshot, &panes);
    tokio::task::yield_now().await;
    hub.foreground_changed();
    set_client_focus(&hub, true);
    log::info!("terminal client {id} attached ({cols}x{rows}, {encoding:?}; {attached} attached)");
    let collapsed = hub.config().ui.sidebar_start_collapsed;
    let (view, view_rx) = watch::channel(View {
        cols,
        rows,
        mode: ModeBadge::Terminal,
        sidebar_collapsed: collapsed,
        sidebar_width: None,
        help: false,
        selected_workspace: None,
    });
    let (control, control_rx) = mpsc::unbounded_channel();
    let (typed, typed_rx) = watch::channel(None);
    let (modals, modal_rx) = modal::Modals::new();
    let (help_rows, help_rx) = watch::channel(Vec::new());
    let (terminal_tx, terminal_rx) = terminal.as_ref().map(|_| oneshot::channel()).unzip();
    let channels = paint::Channels {
        view: view_rx,
        control: control_rx,
        typed: typed_rx,
        modal: modal_rx,
        help: help_rx,
        terminal: terminal_rx,
    };
    let mut paint = tokio::spawn(paint::run(hub.clone(), id, encoding, channels, writer));
    let focused = hub.shared.session().snapshot().focused_pane_id;
    let mut conn = Connection {
        recent: RecentPanes::new(&hub.shared.hub, focused.as_deref()),
        hub_events: hub.shared.hub.watch(),
        hub: hub.clone(),
        id,
        view,
        keymap: Keymap::new(hub.config().bindings().clone()),
        client_keys: None,
        decoder: InputDecoder::new(),
        drag: None,
        modals,
        help_rows,
        copying: copy::Copying::new(&hub, id, control.clone()),
        control,
        typed,
        config: hub.shared.screens().watch_config(),
        terminal: terminal.zip(terminal_tx),
        tty: None,
    };
    let end = conn.read_loop(reader, frames, &mut paint).await;
    match &end {
        ReadEnd::Close(reason) => {
            // The client's terminal goes before the goodbye: the client gives it back to its
            // shell as soon as it hears it, and nothing typed then may reach this supervisor.
            conn.tty = None;
            conn.terminal = None;
            // The connection stays alive until the paint task has said goodbye: dropping it first
            // closes the view channel, and the paint task may see that before the queued farewell.
            let _ = conn.control.send(ServerToClient::Shutdown { reason: reason.clone() });
            let _ = tokio::time::timeout(FAREWELL_TIMEOUT, paint).await;
            drop(conn);
        }
        ReadEnd::PaintEnded => drop(conn),
        _ => {
            drop(conn);
            let _ = tokio::time::timeout(FAREWELL_TIMEOUT, paint).await;
        }
    }
    let (foreground_moved, last) = {
        let mut registry = hub.registry();
        (registry.leave(id), registry.count() == 0)
    };
    if foreground_moved {
        hub.foreground_changed();
    }
    if last && !hub.shared.is_shutting_down() {
        // Nobody looks any more: no focused terminal, and no pane needs to send damage.
        set_client_focus(&hub, false);
        let (snapshot, panes) = paint::capture(&hub.shared);
        visibility::sync(&hub, &snapshot, &panes);
    }
    log::info!("terminal client {id} left ({end:?})");
}

/// Whether a client shows the session in a focused terminal (agent completions are `done` only
/// while nobody is looking).
fn set_client_focus(hub: &Hub, focused: bool) {
    hub.shared.screens().set_terminal_focused(focused);
    let effects = hub.shared.session().set_client_focus(focused);
    hub.shared.apply(effects);
}

/// A client attaching to an empty session gets a first workspace, as a fresh `herdr` does.
async fn ensure_workspace(hub: &Hub) {
    let empty = hub.shared.session().snapshot().workspaces.is_empty();
    if empty && let Some(Err(e)) = hub.shared.session_call(super::calls::new_workspace()).await {
        log::warn!("could not create the first workspace for a client: {e:?}");
    }
}

#[derive(Debug)]
enum ReadEnd {
    /// The client hung up (or its socket failed).
    Gone,
    /// The paint task ended (server stopping, the client stopped reading).
    PaintEnded,
    /// Close with this reason (detach, protocol error).
    Close(ShutdownReason),
}

struct Connection {
    hub: Arc<Hub>,
    id: ClientId,
    view: watch::Sender<View>,
    keymap: Keymap,
    /// The client's own `[keys]` TOML when it sent them (`ClientToServer::Keys`); kept across
    /// reloads.
    client_keys: Option<String>,
    decoder: InputDecoder,
    /// Messages for the client that are not paints (mouse capture after a reload, goodbye).
    control: mpsc::UnboundedSender<ServerToClient>,
    /// When this client last sent input to the focused pane (its echo is painted at once).
    typed: watch::Sender<Option<tokio::time::Instant>>,
    /// The config in force: a reload swaps the keymap's bindings and mouse capture.
    config: watch::Receiver<Arc<crate::config::Config>>,
    /// What the held mouse button is dragging.
    drag: Option<mouse::Drag>,
    /// The context menu or rename dialog open over this client's frame.
    modals: modal::Modals,
    /// The help overlay's rows for the paint task, from this client's bindings.
    help_rows: watch::Sender<paint::HelpRows>,
    /// Copy mode and mouse selection.
    copying: copy::Copying,
    /// The panes this client saw focused, for `last_pane`, and the hub events that move it.
    recent: RecentPanes,
    hub_events: watch::Receiver<u64>,
    /// The client's terminal, taken but not yet ready, and where its writing half goes then.
    terminal: Option<((TerminalReader, TerminalWriter), oneshot::Sender<TerminalWriter>)>,
    /// The client's terminal, read as this client's input once it is ready.
    tty: Option<TerminalReader>,
}

impl Connection {
    async fn read_loop(
        &mut self,
        mut reader: ClientReader,
        mut frames: FrameDecoder,
        paint: &mut JoinHandle<()>,
    ) -> ReadEnd {
        let mut buf = vec![0u8; 16 * 1024];
        let mut typed = vec![0u8; 16 * 1024];
        loop {
            loop {
                match frames.next_frame::<ClientToServer>() {
                    Ok(Some(msg)) => {
                        if let Some(end) = self.handle(msg).await {
                            return end;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return ReadEnd::Close(ShutdownReason::ProtocolError(e.to_string())),
                }
            }
            let pending_escape = self.decoder.has_pending();
            tokio::select! {
                read = reader.read(&mut buf) => match read {
                    Ok(0) | Err(_) => return ReadEnd::Gone,
                    Ok(n) => frames.push(&buf[..n]),
                },
                read = read_terminal(&mut self.tty, &mut typed) => match read {
                    Ok(n) if n > 0 => {
                        if let Some(end) = self.input(&typed[..n]).await {
                            return end;
                        }
                    }
                    // The terminal is gone: the client hears of it too and leaves.
                    _ => self.tty = None,
                },
                () = tokio::time::sleep(ESCAPE_TIMEOUT), if pending_escape => {
                    let events = self.decoder.flush();
                    if let Some(end) = self.events(events).await {
                        return end;
                    }
                }
                _ = &mut *paint => return ReadEnd::PaintEnded,
                Ok(()) = self.config.changed() => self.config_changed(),
                // A session event may move the focus: this client's pane history, and copy mode
                // ending when its pane lost the focus or closed.
                Ok(()) = self.hub_events.changed() => {
                    self.track_focus();
                    self.check_copy();
                }
            }
        }
    }

    async fn handle(&mut self, msg: ClientToServer) -> Option<ReadEnd> {
        match msg {
            ClientToServer::Hello { .. } | ClientToServer::AttachTerminal { .. } => {
                Some(ReadEnd::Close(ShutdownReason::ProtocolError("Hello was sent twice".to_owned())))
            }
            ClientToServer::Input(bytes) => self.input(&bytes).await,
            ClientToServer::TerminalReady => {
                if let Some(((reader, writer), paint)) = self.terminal.take()
                    && paint.send(writer).is_ok()
                {
                    self.tty = Some(reader);
                }
                None
            }
            ClientToServer::Resize { cols, rows } => {
                self.view.send_if_modified(|v| {
                    let changed = (v.cols, v.rows) != (cols, rows);
                    (v.cols, v.rows) = (cols, rows);
                    changed
                });
                None
            }
            ClientToServer::Detach => Some(ReadEnd::Close(ShutdownReason::Detached)),
            ClientToServer::Keys(text) => {
                self.client_keys = Some(text);
                let config = self.config.borrow().clone();
                self.keymap.set_bindings(self.bindings(&config));
                log::info!("terminal client {} uses its own keys", self.id);
                None
            }
        }
    }

    /// Bytes typed in the client's terminal (sent over the socket, or read from the terminal).
    async fn input(&mut self, bytes: &[u8]) -> Option<ReadEnd> {
        if self.hub.registry().touch(self.id) {
            self.hub.foreground_changed();
        }
        let events = self.decoder.feed(bytes);
        self.events(events).await
    }

    /// The bindings this client uses under `config`: its own keys when it sent some.
    fn bindings(&self, config: &crate::config::Config) -> crate::keymap::Bindings {
        keys::client_bindings(config, self.client_keys.as_deref(), &self.id.to_string())
    }

    /// A reload put a new config in force: new bindings (back to terminal mode) and mouse
    /// capture as configured now.
    fn config_changed(&mut self) {
        let config = self.config.borrow_and_update().clone();
        self.leave_copy();
        self.keymap.set_bindings(self.bindings(&config));
        self.view
            .send_if_modified(|v| std::mem::replace(&mut v.mode, ModeBadge::Terminal) != ModeBadge::Terminal);
        let _ = self.control.send(ServerToClient::MouseCapture { enabled: config.ui.mouse_capture });
    }

    async fn events(&mut self, events: Vec<InputEvent>) -> Option<ReadEnd> {
        for event in events {
            let help_open = self.view.borrow().help;
            if help_open && help::closes(&event) {
                self.view.send_modify(|v| v.help = false);
                continue;
            }
            if self.modals.takes(&event) {
                self.modal_event(event).await;
                continue;
            }
            let Some(event) = self.copy_event(event) else { continue };
            let terminal = self.keymap.mode() == Mode::Terminal;
            match event {
                InputEvent::Key(key) => {
                    for outcome in self.keymap.handle_key(&key) {
                        if let Some(end) = self.outcome(outcome).await {
                            return Some(end);
                        }
                    }
                }
                InputEvent::Paste(bytes) if terminal => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    self.to_focused_pane(WorkerRequest::SendInput { text: Some(text), keys: Vec::new() });
                }
                InputEvent::Unknown(bytes) if terminal => self.forward(&bytes),
                InputEvent::FocusIn => set_client_focus(&self.hub, true),
                InputEvent::FocusOut => set_client_focus(&self.hub, false),
                // With mouse capture off the client never turns reporting on; a stray report is
                // dropped rather than acted on.
                InputEvent::Mouse(event) if terminal && self.hub.config().ui.mouse_capture => {
                    self.mouse(event).await;
                }
                // Input outside terminal mode: not built yet.
                _ => {}
            }
        }
        None
    }

    async fn outcome(&mut self, outcome: Outcome) -> Option<ReadEnd> {
        match outcome {
            Outcome::Forward(input) => self.type_key(&input),
            Outcome::Action(Action::CopyMode) => self.enter_copy(),
            Outcome::Action(Action::ModeChanged(mode)) => {
                self.navigate_mode(mode);
                let badge = match mode {
                    Mode::Terminal if self.in_copy_mode() => ModeBadge::Copy,
                    Mode::Terminal => ModeBadge::Terminal,
                    Mode::Prefix => ModeBadge::Prefix,
                    Mode::Navigate => ModeBadge::Navigate,
                    Mode::Resize => ModeBadge::Resize,
                };
                self.view.send_if_modified(|v| std::mem::replace(&mut v.mode, badge) != badge);
            }
            Outcome::Action(action) => return self.run(&action).await,
            Outcome::Ignored => {}
        }
        None
    }

    async fn run(&mut self, action: &Action) -> Option<ReadEnd> {
        let snapshot = self.hub.shared.session().snapshot();
        let step = actions::step_for(action, &snapshot, self.prompts());
        if step == Step::NotBuilt {
            // Say so rather than do nothing: the binding is listed in the help like any other.
            let what = action.config_name().unwrap_or("this binding");
            let body = format!("`{what}` is not available in this herdr yet");
            super::notify::toast(&self.hub.shared, "not available", Some(body));
        }
        self.carry_out(step).await
    }

    /// Carries out a planned step (a keymap action's or a menu item's).
    async fn carry_out(&mut self, step: Step) -> Option<ReadEnd> {
        match step {
            Step::Call(request) => {
                self.request(request).await;
            }
            Step::Detach => return Some(ReadEnd::Close(ShutdownReason::Detached)),
            Step::ToggleSidebar => self.view.send_modify(|v| v.sidebar_collapsed = !v.sidebar_collapsed),
            Step::Help => {
                let commands = self.config.borrow().keys.commands.clone();
                self.help_rows.send_replace(help::entries(self.keymap.bindings(), &commands));
                self.view.send_modify(|v| v.help = true);
            }
            Step::ReloadConfig => {
                let outcome = reload::reload_config(&self.hub.shared);
                reload::announce(&self.hub.shared, &outcome);
            }
            Step::Ui(step) => self.ui_step(step).await,
            Step::NotBuilt | Step::Nothing => {}
        }
        None
    }

    /// Runs a request a key, menu or dialog made: the session model's own methods directly,
    /// the others (`worktree.*`, which run git) through the API's dispatch. A refusal is shown
    /// as a toast on this client, so a key that did nothing says why.
    pub(super) async fn request(&self, request: Request) -> Option<ApiResult> {
        let method = request.method();
        let shared = &self.hub.shared;
        let outcome = match shared.session_call(request.clone()).await {
            Some(outcome) => outcome,
            None => crate::api::dispatch::dispatch(shared, request).await,
        };
        match outcome {
            Ok(result) => Some(result),
            Err(failure) => {
                log::debug!("{method} from a client failed: {failure:?}");
                let message = match failure {
                    Failure::BadRequest(message) => message,
                    Failure::Api(e) | Failure::Probe(e) => e.message,
                };
                super::notify::toast(shared, &format!("{method} failed"), Some(message));
                None
            }
        }
    }

    /// A typed key to the focused pane: its bytes as the client's terminal sent them, and the
    /// key by name so the pane can re-encode it for the program's keyboard mode.
    fn type_key(&self, input: &KeyInput) {
        match grammar_name(&input.key) {
            Some(key) => self.to_focused_pane(WorkerRequest::TypeKey { bytes: input.bytes.clone(), key }),
            None => self.forward(&input.bytes),
        }
    }

    /// Bytes to the focused pane's program, exactly as the client's terminal sent them.
    fn forward(&self, bytes: &[u8]) {
        self.to_focused_pane(WorkerRequest::SendBytes(bytes.to_vec()));
    }

    /// Input for the focused pane goes to the popup's program while one is open.
    fn to_focused_pane(&self, request: WorkerRequest) {
        let shared = &self.hub.shared;
        let popup = crate::popups::shown(shared).map(|p| p.key);
        let focused = popup.or_else(|| shared.session().focused_pane());
        if let Some(handle) = focused.and_then(|key| shared.pane_handle(key)) {
            self.typed.send_replace(Some(tokio::time::Instant::now()));
            handle.notify(shared.next_request_id(), request);
        }
    }
}

/// Reads the client's terminal, when this connection reads it; otherwise never resolves.
async fn read_terminal(tty: &mut Option<TerminalReader>, buf: &mut [u8]) -> std::io::Result<usize> {
    match tty {
        Some(tty) => tty.read(buf).await,
        None => std::future::pending().await,
    }
}

/// Reads until one whole message has arrived; `None` on EOF or garbage.
async fn read_message(reader: &mut ClientReader, frames: &mut FrameDecoder) -> Option<ClientToServer> {
    let mut buf = [0u8; 4096];
    loop {
        if let Some(msg) = frames.next_frame::<ClientToServer>().ok()? {
            return Some(msg);
        }
        let n = reader.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        frames.push(&buf[..n]);
    }
}

/// Writes one message, giving up on a client that does not read within [`WRITE_TIMEOUT`].
pub(super) async fn write_message(writer: &mut ClientWriter, msg: &ServerToClient) -> std::io::Result<()> {
    let bytes = encode_frame(msg).map_err(std::io::Error::other)?;
    writer.write_all_within(&bytes, WRITE_TIMEOUT, "the client stopped reading").await
}

/// Writes one paint into a client's terminal, giving up on one that takes nothing within
/// [`WRITE_TIMEOUT`] (a terminal stopped with XOFF, a hung emulator), as on the socket.
pub(super) async fn write_terminal(tty: &mut TerminalWriter, bytes: &[u8]) -> std::io::Result<()> {
    tty.write_all_within(bytes, WRITE_TIMEOUT, "the client's terminal stopped reading").await
}
