//! One client's paint task: composes the client's frame whenever something it shows may have
//! changed (a hub event, a pane grid, its own size or mode, the foreground moving), at most one
//! paint per [`FRAME_INTERVAL`], diffs it against the frame the client last received and writes
//! the difference. Only the latest state is ever composed, so a slow client skips intermediate
//! frames instead of queueing them; an unchanged frame sends nothing at all.
//!
//! The foreground client's task also keeps the session sized to its frame: the layout area is
//! its pane area and the content inset is its pane borders' width, so the session model sizes
//! each program to the content inside its box. Every paint also brings the workers' visibility
//! up to date ([`super::visibility`]).
//!
//! Alerts ([`super::notify`]) reach every paint task; only the foreground client's delivers them:
//! a toast drawn over its frame for [`TOAST_DURATION`], or a `Notify` for its terminal or
//! desktop, and a bell when the alert has a sound. The help overlay is this client's own.

use std::sync::Arc;
use std::time::Duration;

use herdr_host::link::BACKGROUND_TICK;
use herdr_host::stream::{ClientWriter, TerminalWriter};
use herdr_protocol::api::SessionSnapshot;
use herdr_protocol::client::{Encoding, NotifyVia, ServerToClient, ShutdownReason};
use ratatui_core::buffer::Buffer;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::Hub;
use super::conn::{write_message, write_terminal};
use super::notify::{Alert, Delivery};
use super::registry::ClientId;
use super::repaint::{Before, Repaint};
use super::visibility;
use crate::render::{
    Frame, FrameLayout, ModalView, ModeBadge, RenderOptions, ToastView, ViewModel, compose_reusing,
    diff_frames, draw_help, draw_modal, draw_popup, draw_toast,
};
use crate::session::{Effects, PaneKey};
use crate::state::Shared;

/// At most one paint per this long (about 120 per second).
pub(super) const FRAME_INTERVAL: Duration = Duration::from_millis(8);
/// At most one paint per this long when only panes without the focus changed: a little under the
/// tick their links are read at (`herdr_host::link::BACKGROUND_TICK`, three quarters of the interval
/// their workers send at), so the paint after each tick, and one such pane's frames read as they
/// come (at least 33 ms apart), find the slot open and never wait on a timer, which would be a
/// second wake-up per frame.
const BACKGROUND_FRAME_INTERVAL: Duration = BACKGROUND_TICK.saturating_sub(Duration::from_millis(2));
/// How long after a keystroke a change of the focused pane still counts as its echo.
const ECHO_WINDOW: Duration = Duration::from_millis(250);
/// How long an attaching client's first frame waits for the screens of the panes it shows (their
/// workers answer within a millisecond; one that is restarting is drawn empty, then filled in).
const FIRST_FRAME_PATIENCE: Duration = Duration::from_millis(100);
/// How long a toast stays on screen.
pub(super) const TOAST_DURATION: Duration = Duration::from_secs(4);

/// What one client looks at: its terminal size and its own presentation state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct View {
    pub cols: u16,
    pub rows: u16,
    pub mode: ModeBadge,
    pub sidebar_collapsed: bool,
    /// The keybinding help overlay is open.
    pub help: bool,
    /// The expanded sidebar's width after the user dragged its edge (None: the configured one).
    pub sidebar_width: Option<u16>,
    /// Navigate mode's workspace selection (an index into the session's workspaces).
    pub selected_workspace: Option<usize>,
}

/// A toast on this client's screen and when it goes away.
#[derive(Debug, Clone)]
struct Toast {
    view: ToastView,
    position: String,
    until: Instant,
}

/// What the client's connection tells its paint task.
pub(super) struct Channels {
    pub view: watch::Receiver<View>,
    /// Messages that are not paints, sent in order.
    pub control: mpsc::UnboundedReceiver<ServerToClient>,
    /// When the client last sent input to the focused pane.
    pub typed: watch::Receiver<Option<Instant>>,
    /// The context menu or rename dialog open over the frame.
    pub modal: watch::Receiver<Option<ModalView>>,
    /// The help overlay's rows, from this client's own bindings (they may be the client's keys,
    /// not the server config's): set by the connection when it opens the overlay.
    pub help: watch::Receiver<HelpRows>,
    /// The client's terminal, when this supervisor took it: it arrives once the client is ready,
    /// and paints are written into it instead of being sent.
    pub terminal: Option<oneshot::Receiver<TerminalWriter>>,
}

/// The help overlay's rows: (keys, what they do).
pub(super) type HelpRows = Vec<(String, String)>;

/// Tells a keystroke's echo apart from other screen changes: the first change of the focused
/// pane after this client's input is painted at once instead of waiting for the next frame slot,
/// so a flooding neighbour pane does not delay typing; every other change keeps the coalescing.
#[derive(Debug, Default)]
struct Echo {
    /// The input whose echo has been painted.
    answered: Option<Instant>,
    /// The focused pane and its grid's change count as of the last paint.
    painted: Option<(PaneKey, u64)>,
}

impl Echo {
    /// The focused pane and its grid's change count now.
    fn focus(shared: &Shared) -> Option<(PaneKey, u64)> {
        let key = shared.session().focused_pane()?;
        Some((key, shared.screens().grid_changes(key)))
    }

    /// The focused pane changed since the last paint, after input whose echo is not painted yet.
    fn due(&self, typed: Option<Instant>, focus: Option<(PaneKey, u64)>) -> bool {
        let Some(at) = typed else { return false };
        self.answered != Some(at) && at.elapsed() < ECHO_WINDOW && focus.is_some() && focus != self.painted
    }

    /// A paint showed the focused pane as `focus`; a change in it answers the latest input.
    fn painted(&mut self, typed: Option<Instant>, focus: Option<(PaneKey, u64)>) {
        if focus != self.painted {
            self.answered = typed;
        }
        self.painted = focus;
    }
}

pub(super) async fn run(
    hub: Arc<Hub>,
    id: ClientId,
    encoding: Encoding,
    channels: Channels,
    mut writer: ClientWriter,
) {
    let Channels { mut view, mut control, typed, mut modal, help, terminal } = channels;
    let shared = hub.shared.clone();
    let mut stop = shared.shutdown_signal();
    // A terminal that was taken is painted only once the client has it in raw mode on the
    // alternate screen; until then nothing is painted at all (the client would write a paint
    // it was sent itself, and take that for a supervisor that paints over the socket).
    let mut tty = match terminal {
        Some(ready) => tokio::select! {
            tty = ready => tty.ok(),
            () = stopped(&mut stop) => {
                let bye = ServerToClient::Shutdown { reason: ShutdownReason::ServerStopping };
                let _ = write_message(&mut writer, &bye).await;
                return;
            }
        },
        None => None,
    };
    let mut events = shared.hub.watch();
    let mut dirty = shared.screens().watch();
    let mut foreground = hub.foreground.subscribe();
    let mut alerts = shared.screens().subscribe_alerts();
    let mut title = shared.screens().watch_window_title();
    // The title this client's terminal was last told to show (`None`: its own), and the one
    // `ui.window_title` makes of the session at the last whole paint.
    let mut title_shown: Option<String> = None;
    let mut session_title: Option<String> = None;
    let mut toast: Option<Toast> = None;
    let mut last: Option<Frame> = None;
    // The frame before `last`, whose buffer the next paint draws into.
    let mut spare: Option<Buffer> = None;
    let mut last_paint: Option<Instant> = None;
    // The first paint makes the panes visible, and their workers only then send their screens:
    // the first frame waits for them (up to FIRST_FRAME_PATIENCE) instead of showing empty
    // panes first, and it opens no frame slot, so whatever follows is not held back either.
    let mut first_frame = true;
    let patience_until = Instant::now() + FIRST_FRAME_PATIENCE;
    let mut needs_paint = true;
    // Something besides pane rows woke the loop since the last paint: compose the whole frame.
    let mut whole = true;
    let mut echo = Echo::default();
    let mut repaint = Repaint::default();
    loop {
        if needs_paint {
            // Wait for the frame slot, unless a keystroke's echo shows up meanwhile. A slot already
            // open (output slower than the frame rate, a spinner) needs no timer at all. When only
            // other panes' rows moved, the slot is the background one: their workers send about
            // that often anyway, and twenty busy panes then share a paint instead of each
            // waking one (measured: 125 paints a second for 20 spinners at 30 Hz).
            while let Some(at) = last_paint {
                let focus = Echo::focus(&shared);
                if echo.due(*typed.borrow(), focus) {
                    break;
                }
                let slot = if whole || toast.is_some() || focus != echo.painted {
                    FRAME_INTERVAL
                } else {
                    BACKGROUND_FRAME_INTERVAL
                };
                if Instant::now() >= at + slot {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep_until(at + slot) => break,
                    changed = dirty.changed() => if changed.is_err() { break },
                    // Anything but pane rows takes the full frame rate (and a whole paint); a
                    // closed channel is the main loop's to handle.
                    Ok(()) = view.changed() => whole = true,
                    Ok(()) = events.changed() => whole = true,
                    Ok(()) = foreground.changed() => whole = true,
                    Ok(()) = modal.changed() => whole = true,
                }
            }
            let typed_at = *typed.borrow();
            let focus = Echo::focus(&shared);
            // Only pane rows can have moved: no event, view, modal or foreground change, no toast.
            let quiet = !whole
                && toast.is_none()
                && !(moved(&events) || moved(&foreground) || moved(&view) || moved(&modal));
            whole = false;
            // Everything up to here is in this paint; later changes wake the loop again.
            events.borrow_and_update();
            dirty.borrow_and_update();
            foreground.borrow_and_update();
            let current = *view.borrow_and_update();
            toast = toast.filter(|t| t.until > Instant::now());
            let shown_modal = modal.borrow_and_update().clone();
            let quick = match last.as_mut() {
                Some(last) if quiet => repaint.rows(shared.screens(), last),
                _ => None,
            };
            let mut held = false;
            let update = match quick {
                Some(update) => update,
                None => {
                    let before = Before::read(&shared);
                    let popup = crate::popups::shown(&shared);
                    let overlays = Overlays {
                        toast: toast.as_ref(),
                        modal: shown_modal.as_ref(),
                        help: &help.borrow(),
                        popup: popup.as_ref(),
                    };
                    let (frame, title) = paint_frame(&hub, id, current, overlays, spare.take());
                    session_title = title;
                    if first_frame && Instant::now() < patience_until && !visibility::all_mirrored(&hub) {
                        spare = Some(frame.buffer);
                        held = true;
                        None
                    } else {
                        // Must name everything paint_frame draws over the panes after composing.
                        let plain = current.mode == ModeBadge::Terminal
                            && !current.help
                            && toast.is_none()
                            && shown_modal.is_none()
                            && popup.is_none();
                        repaint.full_painted(before, &frame, plain);
                        let update = diff_frames(last.as_ref(), &frame);
                        spare = last.replace(frame).map(|old| old.buffer);
                        update
                    }
                }
            };
            if held {
                tokio::select! {
                    _ = dirty.changed() => {}
                    () = tokio::time::sleep_until(patience_until) => {}
                }
                whole = true;
                continue;
            }
            if let Some(update) = update {
                let written = match (&mut tty, encoding) {
                    (Some(tty), _) => write_terminal(tty, &update.to_ansi()).await,
                    (None, Encoding::CellDiff) => {
                        write_message(&mut writer, &ServerToClient::Frame(update)).await
                    }
                    (None, Encoding::Ansi) => {
                        write_message(&mut writer, &ServerToClient::Ansi(update.to_ansi())).await
                    }
                };
                if written.is_err() {
                    return;
                }
                if !std::mem::take(&mut first_frame) {
                    last_paint = Some(Instant::now());
                }
            }
            echo.painted(typed_at, focus);
            needs_paint = false;
        }
        // The foreground client shows the override, else the session's title; any other gives
        // its terminal its own title back.
        let wanted = if hub.registry().is_foreground(id) {
            title.borrow_and_update().clone().or_else(|| session_title.clone())
        } else {
            None
        };
        if wanted != title_shown {
            if write_message(&mut writer, &ServerToClient::WindowTitle(wanted.clone())).await.is_err() {
                return;
            }
            title_shown = wanted;
        }
        tokio::select! {
            Ok(()) = title.changed() => {}
            msg = control.recv() => {
                let Some(msg) = msg else { return };
                let closing = matches!(msg, ServerToClient::Shutdown { .. });
                if closing {
                    // Let go of the client's terminal before the client hears the goodbye.
                    tty = None;
                }
                if write_message(&mut writer, &msg).await.is_err() || closing {
                    return;
                }
            }
            changed = view.changed() => {
                if changed.is_err() {
                    return;
                }
                (needs_paint, whole) = (true, true);
            }
            _ = events.changed() => (needs_paint, whole) = (true, true),
            // Only this one may be nothing but pane rows.
            _ = dirty.changed() => needs_paint = true,
            _ = foreground.changed() => (needs_paint, whole) = (true, true),
            Ok(()) = modal.changed() => (needs_paint, whole) = (true, true),
            alert = alerts.recv() => match alert {
                Ok(alert) if hub.registry().is_foreground(id) => {
                    let (messages, shown) = deliver(alert);
                    if let Some(shown) = shown {
                        toast = Some(shown);
                        needs_paint = true;
                    }
                    for msg in messages {
                        if write_message(&mut writer, &msg).await.is_err() {
                            return;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
                // Another client's alert, or some were skipped under load: nothing to show.
                _ => {}
            },
            () = expiry(toast.as_ref()) => (needs_paint, whole) = (true, true),
            () = stopped(&mut stop) => {
                drop(tty);
                let bye = ServerToClient::Shutdown { reason: ShutdownReason::ServerStopping };
                let _ = write_message(&mut writer, &bye).await;
                return;
            }
        }
    }
}

/// What the foreground client does with `alert`: messages to send (a desktop notification, a
/// bell) and a toast to draw.
fn deliver(alert: Alert) -> (Vec<ServerToClient>, Option<Toast>) {
    let mut messages = Vec::new();
    let mut toast = None;
    let (title, body) = (alert.title, alert.body);
    match alert.delivery {
        Some(Delivery::Herdr) => {
            let until = Instant::now() + TOAST_DURATION;
            toast = Some(Toast { view: ToastView { title, body }, position: alert.position, until });
        }
        Some(Delivery::Terminal) => {
            messages.push(ServerToClient::Notify { title, body, via: NotifyVia::Terminal });
        }
        Some(Delivery::System) => {
            messages.push(ServerToClient::Notify { title, body, via: NotifyVia::System });
        }
        None => {}
    }
    if alert.sound {
        messages.push(ServerToClient::Bell);
    }
    (messages, toast)
}

/// Whether `rx` has a value this task has not painted yet (a closed channel counts as moved).
fn moved<T>(rx: &watch::Receiver<T>) -> bool {
    rx.has_changed().unwrap_or(true)
}

/// Resolves when the toast on screen should go (never while there is none).
async fn expiry(toast: Option<&Toast>) {
    match toast {
        Some(toast) => tokio::time::sleep_until(toast.until).await,
        None => std::future::pending().await,
    }
}

/// Resolves once the supervisor is shutting down (the guard `wait_for` returns is not `Send`).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopping| *stopping).await;
}

/// Composes the client's frame; for the foreground client, first makes the session's area and
/// content inset match it. Then syncs which panes' workers send damage. Whatever this draws
/// over the panes after composing must also clear `plain` in [`run`], or in-place row repaints
/// would paint over it.
///
/// What is drawn over the panes, besides the copy-mode bar.
struct Overlays<'a> {
    toast: Option<&'a Toast>,
    modal: Option<&'a ModalView>,
    help: &'a [(String, String)],
    /// The session's popup, over the panes and under the rest.
    popup: Option<&'a crate::popups::Popup>,
}

/// The frame and the session's window title (see `paint_panes`).
fn paint_frame(
    hub: &Hub,
    id: ClientId,
    view: View,
    overlays: Overlays<'_>,
    spare: Option<Buffer>,
) -> (Frame, Option<String>) {
    let Overlays { toast, modal, help: help_rows, popup } = overlays;
    let (mut frame, title) = paint_panes(hub, id, view, spare);
    let config = hub.config();
    let colors = &config.theme().colors;
    let screen = frame.buffer.area;
    super::copy::draw_bar(hub, id, view.mode, &mut frame.buffer);
    if let Some(popup) = popup {
        let (buffer, area) = (&mut frame.buffer, frame.layout.pane_area);
        let drawn = hub
            .shared
            .screens()
            .with_grids(|grids| draw_popup(buffer, area, &popup.view, grids.get(&popup.key), colors));
        frame.cursor = drawn.and_then(|(_, cursor)| cursor);
    }
    if let Some(toast) = toast {
        draw_toast(&mut frame.buffer, screen, &toast.view, &toast.position, colors);
    }
    if let Some(modal) = modal {
        frame.cursor = draw_modal(&mut frame.buffer, screen, modal, colors);
    }
    if view.help {
        draw_help(&mut frame.buffer, screen, help_rows, colors);
        frame.cursor = None;
    }
    (frame, title)
}

/// The supervisor's host name, for `{hostname}` in `ui.window_title`.
fn hostname() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname").map(|n| n.trim().to_owned()).unwrap_or_default()
    })
}

/// The frame, and for the foreground client the window title `ui.window_title` makes of this
/// session (`None` for another client, or when the format comes out empty).
fn paint_panes(hub: &Hub, id: ClientId, view: View, spare: Option<Buffer>) -> (Frame, Option<String>) {
    let shared = &hub.shared;
    let (snapshot, panes) = capture(shared);
    let frame = compose_view(hub, view, &snapshot, &panes, spare);
    if !hub.registry().is_foreground(id) {
        visibility::sync(hub, &snapshot, &panes);
        return (frame, None);
    }
    let area = frame.layout.pane_area;
    let inset = content_inset(&frame.layout);
    let resized = {
        let mut session = shared.session();
        let mut effects: Option<Effects> = None;
        if session.content_inset() != inset {
            effects.get_or_insert_with(Default::default).merge(session.set_content_inset(inset));
        }
        if session.single_view() != frame.layout.mobile {
            effects.get_or_insert_with(Default::default).merge(session.set_single_view(frame.layout.mobile));
        }
        let usable = area.width >= 2 && area.height >= 2;
        if usable && session.area() != (area.width, area.height) {
            effects.get_or_insert_with(Default::default).merge(session.set_area(area.width, area.height));
        }
        effects
    };
    let (frame, snapshot, panes) = match resized {
        Some(effects) => {
            shared.apply(effects);
            crate::popups::fit(shared);
            let (snapshot, panes) = capture(shared);
            (compose_view(hub, view, &snapshot, &panes, None), snapshot, panes)
        }
        None => (frame, snapshot, panes),
    };
    visibility::sync(hub, &snapshot, &panes);
    // The layout has this client's size now: agents waiting to resume start at their real size.
    crate::resumes::client_sized(shared);
    let title = herdr_ui::title::window_title(&hub.config().ui.window_title, &snapshot, hostname());
    (frame, Some(title).filter(|t| !t.is_empty()))
}

/// Cells a pane box takes on each side in this frame layout (the mobile layout draws no boxes).
fn content_inset(layout: &FrameLayout) -> u16 {
    u16::from(layout.pane_borders && !layout.mobile)
}

/// The session as it is now, and each placed pane's key with its public id.
pub(super) fn capture(shared: &Shared) -> (SessionSnapshot, Vec<(PaneKey, String)>) {
    let session = shared.session();
    let panes = session
        .pane_keys()
        .into_iter()
        .filter_map(|key| session.pane_ids(key).map(|(_, _, pane)| (key, pane)))
        .collect();
    (session.snapshot(), panes)
}

/// The configured presentation with this client's own sidebar state.
pub(super) fn render_options(hub: &Hub, view: &View) -> RenderOptions {
    let mut options = hub.config().ui.render_options(view.sidebar_collapsed);
    if let Some(width) = view.sidebar_width {
        options.sidebar_width = width;
    }
    options
}

fn compose_view(
    hub: &Hub,
    view: View,
    snapshot: &SessionSnapshot,
    panes: &[(PaneKey, String)],
    spare: Option<Buffer>,
) -> Frame {
    let config = hub.config();
    let options = render_options(hub, &view);
    let belled = hub.shared.screens().belled_panes();
    hub.shared.screens().with_grids(|grids| {
        let grid = |pane_id: &str| {
            let key = panes.iter().find(|(_, id)| id == pane_id).map(|(key, _)| key)?;
            grids.get(key)
        };
        let mut model = ViewModel::from_snapshot_with(snapshot, grid, view.mode);
        if !belled.is_empty() {
            model.mark_bells(snapshot, |id| panes.iter().any(|(key, p)| p == id && belled.contains(key)));
        }
        if let Some(selected) = view.selected_workspace.and_then(|i| model.workspaces.get_mut(i)) {
            selected.selected = true;
        }
        for (key, pane_id) in panes {
            if let Some(pane) = model.panes.get_mut(pane_id) {
                pane.scroll = grids.scroll(key);
                pane.copy = grids.copy(key).cloned();
            }
        }
        compose_reusing(spare, &model, &options, config.theme(), view.cols, view.rows)
    })
}
