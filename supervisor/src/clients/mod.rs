//! Terminal clients on `herdr-client.sock`: the listener, one connection task per attached
//! client (handshake, input through the keymap into session methods and pane input), and one
//! paint task per client that composes that client's frame at its own size, diffs it against
//! what the client last received and sends the difference.
//!
//! Not here: composition and diffing themselves (pure, in [`crate::render`]), key decoding and
//! modes ([`crate::keymap`]), the layout model ([`crate::session`]). The mouse (clicks, border and
//! sidebar drags, the wheel) is handled per connection (`conn::mouse`).
//!
//! Copy mode and mouse selection (`conn::copy`, `conn::select`, [`copy`]): keys and drags become
//! copy requests for the pane's worker, whose damage carries the overlay mirrored here
//! ([`Screens::copy_view`]); copied text goes to the client as `Clipboard` (OSC 52 there) with
//! a "copied" toast.
//!
//! Menus and dialogs (`conn::modal`, `menu`, `dialog`, `confirm`): a right-click opens a context
//! menu, rename bindings and menu items a rename dialog, closing (with `ui.confirm_close`) a
//! confirm question, a new tab (with `ui.prompt_new_tab_name`) its naming dialog; while one is
//! open it takes the client's keys, pastes and mouse. Navigate mode's workspace selection lives
//! in the client's view; `last_pane`'s history in the connection (`recent`).
//!
//! Notifications ([`notify`]): agent status changes become alerts the foreground client's paint
//! task delivers; a pane's bell rings the foreground client's terminal and marks its tab while
//! no client shows the pane ([`notify::pane_bell`]). The live config is kept on [`Screens`] so
//! the API can reload it ([`reload_config`]) and show toasts (`notification.show`) without
//! reaching into a connection.
//!
//! Pane contents: [`Screens`] mirrors each visible pane's grid keyed by [`PaneKey`], built from
//! the damage workers send ([`Screens::apply_damage`]), which wakes every paint task. Which panes
//! are visible (the focused tab's, or its zoomed pane, while any client is attached) is decided
//! here too ([`visibility`]): workers of hidden panes are told so and send nothing.
//!
//! Sizes: the foreground client (the last one to type, or the newest) decides the session's
//! layout area, which is its frame's pane area. When it leaves, the most recently active
//! remaining client takes over; with none left the area stays as it was (programs are not
//! resized behind a detached user's back).

mod attach;
mod commands;
use herdr_ui::{actions, alert_gate, calls, confirm, dialog, goto, help, menu, rows};
mod conn;
mod copy;
pub(crate) mod notify;
mod paint;
mod recent;
mod registry;
mod reload;
mod repaint;
mod visibility;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ui_fixtures;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use herdr_protocol::grid::{GridCell, PaneGrid};
use herdr_protocol::ipc::{CopyView, GridDamage, PaneModes, ScrollPosition};
use herdr_protocol::paths::{self, PathEnv};
use tokio::net::UnixListener;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinSet;

use crate::config::{self, Config};
use crate::session::PaneKey;
use crate::state::{ClientSide, Shared};

use notify::Alert;
use registry::{ClientId, Registry};

pub(crate) use commands::clear_stale_scrollback;
pub(crate) use conn::{CommandError, edit_scrollback, run_custom_command};
pub(crate) use reload::reload_config;

/// Mirrored pane grids and the "something on screen changed" signal, plus what every client
/// shows besides panes: the live config and the alerts for the foreground client.
#[derive(Debug)]
pub struct Screens {
    /// What each shown pane's damage has said, under one lock.
    mirrors: Mutex<HashMap<PaneKey, Mirror>>,
    /// Bumped by every change that is not a mirrored grid's rows (a pane gone, a config reload):
    /// while it stands still, a paint may repaint only changed rows.
    chrome: std::sync::atomic::AtomicU64,
    dirty: watch::Sender<u64>,
    /// The UI config in force; replaced by a reload, watched by connections (keymap, mouse).
    config: watch::Sender<Arc<Config>>,
    /// Each paint task subscribes, so the receiver count is the number of attached clients.
    alerts: broadcast::Sender<Alert>,
    /// Whether the foreground client's terminal has focus (its last focus report).
    terminal_focused: AtomicBool,
    /// Rate limits for agent alerts, and which panes alerted last (`prefix+o`).
    gate: Mutex<alert_gate::AlertGate>,
    /// Panes that rang the bell while no client showed them, until one does.
    bells: Mutex<HashSet<PaneKey>>,
    /// The window title set by `client.window_title.set`, shown by the foreground client.
    title: watch::Sender<Option<String>>,
}

impl Default for Screens {
    fn default() -> Self {
        Screens {
            mirrors: Mutex::new(HashMap::new()),
            chrome: std::sync::atomic::AtomicU64::new(0),
            dirty: watch::channel(0).0,
            config: watch::channel(Arc::new(Config::default())).0,
            alerts: broadcast::channel(16).0,
            terminal_focused: AtomicBool::new(false),
            gate: Mutex::new(alert_gate::AlertGate::new(paint::TOAST_DURATION)),
            bells: Mutex::new(HashSet::new()),
            title: watch::channel(None).0,
        }
    }
}

impl ClientSide for Screens {
    fn pane_damage(&self, key: PaneKey, damage: GridDamage) {
        self.apply_damage(key, damage);
    }

    fn pane_bell(&self, shared: &Shared, key: PaneKey) {
        notify::pane_bell(shared, key);
    }

    fn pane_gone(&self, key: PaneKey) {
        self.remove(key);
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Shared {
    /// The terminal clients' side this supervisor runs: the [`Screens`] it was made with. (The
    /// session core holds it as a [`ClientSide`] so that it never names the UI.)
    pub fn screens(&self) -> &Screens {
        // Only `Screens` is ever registered (the server makes the state with `Screens::shared()`),
        // so a mismatch is a construction bug, not a state to handle.
        self.clients().as_any().downcast_ref::<Screens>().expect("the clients' side is Screens")
    }

    /// A state for tests with a fresh [`Screens`]: an empty session, no runtime dir, nothing saved.
    #[cfg(test)]
    pub fn new(config: crate::ServerConfig) -> Arc<Self> {
        Shared::with_clients(config, Screens::shared())
    }
}

impl Screens {
    /// A fresh clients' side, to make the supervisor's state with.
    pub fn shared() -> Arc<dyn ClientSide> {
        Arc::new(Screens::default())
    }

    fn mirrors(&self) -> MutexGuard<'_, HashMap<PaneKey, Mirror>> {
        self.mirrors.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores a pane's current grid and wakes the paint tasks (tests; workers send damage).
    #[cfg(test)]
    pub fn set_grid(&self, key: PaneKey, grid: PaneGrid) {
        let mut mirrors = self.mirrors();
        let mirror = mirrors.entry(key).or_default();
        mirror.grid = Some(grid);
        mirror.changes = mirror.changes.wrapping_add(1);
        drop(mirrors);
        self.grid_changed();
    }

    /// Applies a worker's damage to the pane's mirrored grid: a full frame replaces it, changed
    /// rows are written over a grid of the same size. Rows for a grid of another size (a resize
    /// in flight) are dropped: the worker sends a full frame after every resize.
    pub fn apply_damage(&self, key: PaneKey, mut damage: GridDamage) {
        let mut mirrors = self.mirrors();
        let new = !mirrors.contains_key(&key);
        let mirror = mirrors.entry(key).or_default();
        let copy = damage.copy.take();
        // A copy overlay is drawn over the rows, so while one shows every paint is a full one.
        let other = new
            || mirror.scroll != damage.scroll
            || mirror.modes != damage.modes
            || mirror.copy.is_some()
            || copy.is_some();
        (mirror.scroll, mirror.modes, mirror.copy) = (damage.scroll, damage.modes, copy);
        let change = mirror.changes.wrapping_add(1);
        mirror.marks.note(change, &damage, other);
        if apply_damage(&mut mirror.grid, damage) {
            mirror.changes = change;
            drop(mirrors);
            self.grid_changed();
        }
    }

    fn grid_changed(&self) {
        self.dirty.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The rows of `key`'s grid changed after its change number `painted`, with the grid's
    /// change number now; `None` when only a full paint can show what changed.
    fn rows_since(&self, key: PaneKey, painted: u64) -> Option<(Vec<u16>, u64)> {
        let mirrors = self.mirrors();
        let mirror = mirrors.get(&key)?;
        Some((mirror.marks.rows_since(painted)?, mirror.changes))
    }

    /// Whether a full frame of `key`'s screen has come from its worker.
    fn has_grid(&self, key: PaneKey) -> bool {
        self.mirrors().get(&key).is_some_and(|m| m.grid.is_some())
    }

    /// Moves whenever something other than a mirrored grid's rows changed on screen.
    fn chrome(&self) -> u64 {
        self.chrome.load(Ordering::Relaxed)
    }

    /// A counter that moves whenever `key`'s mirrored grid changes.
    fn grid_changes(&self, key: PaneKey) -> u64 {
        self.mirrors().get(&key).map_or(0, |m| m.changes)
    }

    /// Forgets a closed pane's grid.
    pub fn remove(&self, key: PaneKey) {
        let had_grid = self.mirrors().remove(&key).is_some_and(|m| m.grid.is_some());
        if had_grid {
            self.mark_dirty();
        }
    }

    /// The copy-mode or mouse-selection overlay `key`'s last damage carried (`None`: nothing to
    /// draw, or the pane is not mirrored).
    pub(crate) fn copy_view(&self, key: PaneKey) -> Option<CopyView> {
        self.mirrors().get(&key).and_then(|m| m.copy.clone())
    }

    /// The terminal modes of a mirrored pane (`None` for a pane no client shows).
    pub(crate) fn modes(&self, key: PaneKey) -> Option<PaneModes> {
        self.mirrors().get(&key).map(|m| m.modes)
    }

    /// A mirrored (shown) pane's scroll position and its grid's rows; `None` for a pane no
    /// client shows (its worker reports nothing while hidden).
    pub(crate) fn scroll_info(&self, key: PaneKey) -> Option<(ScrollPosition, u16)> {
        let mirrors = self.mirrors();
        let mirror = mirrors.get(&key)?;
        Some((mirror.scroll, mirror.grid.as_ref()?.rows))
    }

    /// Wakes every paint task: something visible may have changed outside the event hub.
    pub fn mark_dirty(&self) {
        self.chrome.fetch_add(1, Ordering::Relaxed);
        self.dirty.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Changes whenever a mirrored grid (or anything else on screen) changed.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.dirty.subscribe()
    }

    /// The UI config in force.
    pub(crate) fn config(&self) -> Arc<Config> {
        self.config.borrow().clone()
    }

    fn set_config(&self, config: Config) {
        self.config.send_replace(Arc::new(config));
        self.mark_dirty();
    }

    fn watch_config(&self) -> watch::Receiver<Arc<Config>> {
        self.config.subscribe()
    }

    /// Sends `alert` to the foreground client; false when no client is attached.
    pub(crate) fn alert(&self, alert: Alert) -> bool {
        self.alerts.send(alert).is_ok()
    }

    /// Sets (or with `None` clears) the window title override; whether it changed.
    pub(crate) fn set_window_title(&self, title: Option<String>) -> bool {
        self.title.send_if_modified(|current| {
            let changed = *current != title;
            *current = title;
            changed
        })
    }

    fn watch_window_title(&self) -> watch::Receiver<Option<String>> {
        self.title.subscribe()
    }

    pub(crate) fn has_clients(&self) -> bool {
        self.alerts.receiver_count() > 0
    }

    fn subscribe_alerts(&self) -> broadcast::Receiver<Alert> {
        self.alerts.subscribe()
    }

    pub(crate) fn terminal_focused(&self) -> bool {
        self.terminal_focused.load(Ordering::Relaxed)
    }

    fn set_terminal_focused(&self, focused: bool) {
        self.terminal_focused.store(focused, Ordering::Relaxed);
    }

    /// Runs `f` with the mirrors locked (composition borrows the grids instead of copying).
    fn with_grids<T>(&self, f: impl FnOnce(&Mirrors<'_>) -> T) -> T {
        f(&Mirrors(&self.mirrors()))
    }
}

/// What a shown pane's damage has said: its grid (once a full frame came) and what is drawn
/// with it, and how often the grid changed with which rows, for in-place repaints.
#[derive(Debug, Default)]
struct Mirror {
    grid: Option<PaneGrid>,
    /// How far the pane is scrolled back (its scrollbar).
    scroll: ScrollPosition,
    modes: PaneModes,
    copy: Option<CopyView>,
    /// Bumped whenever the grid changes, so a paint task can tell whose grid moved.
    changes: u64,
    /// Which rows changed at which change number.
    marks: rows::RowMarks,
}

/// The mirrors as composition reads them, while [`Screens::with_grids`] holds the lock.
struct Mirrors<'a>(&'a HashMap<PaneKey, Mirror>);

impl Mirrors<'_> {
    fn get(&self, key: &PaneKey) -> Option<&PaneGrid> {
        self.0.get(key)?.grid.as_ref()
    }

    fn scroll(&self, key: &PaneKey) -> ScrollPosition {
        self.0.get(key).map(|m| m.scroll).unwrap_or_default()
    }

    fn copy(&self, key: &PaneKey) -> Option<&CopyView> {
        self.0.get(key)?.copy.as_ref()
    }

    /// No pane has a mirrored grid.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.0.values().all(|m| m.grid.is_none())
    }
}

impl std::ops::Index<&PaneKey> for Mirrors<'_> {
    type Output = PaneGrid;

    fn index(&self, key: &PaneKey) -> &PaneGrid {
        self.get(key).expect("a mirrored grid for this pane")
    }
}

/// The grid-mirroring rule of [`Screens::apply_damage`]; true when the grid changed.
fn apply_damage(slot: &mut Option<PaneGrid>, damage: GridDamage) -> bool {
    if damage.full {
        *slot = Some(PaneGrid::blank(damage.cols, damage.rows));
    }
    let grid = slot.as_mut().filter(|g| (g.cols, g.rows) == (damage.cols, damage.rows));
    let Some(grid) = grid else { return false };
    let cols = usize::from(grid.cols);
    for (y, cells) in damage.lines {
        let start = usize::from(y) * cols;
        let Some(row) = grid.cells.get_mut(start..start + cols) else { continue };
        let mut incoming = cells.into_iter();
        for slot in row {
            *slot = incoming.next().unwrap_or_else(GridCell::default);
        }
    }
    grid.cursor = damage.cursor;
    true
}

/// What every client connection shares: the supervisor, the client registry and the UI config.
#[derive(Debug)]
struct Hub {
    shared: Arc<Shared>,
    registry: Mutex<Registry>,
    /// Bumped when the foreground client changes, so the new one's paint task claims the area.
    foreground: watch::Sender<u64>,
    /// Panes whose workers were last told they are visible.
    visible: Mutex<visibility::Visible>,
    /// The copy-mode search prompt each client is typing, drawn on its mode bar.
    copy_prompts: Mutex<HashMap<ClientId, String>>,
    /// Direct terminal attaches: which pane each shows, and each pane's writable owner.
    attachments: Mutex<attach::owners::Attachments>,
}

impl Hub {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The UI config in force (it changes on a reload).
    fn config(&self) -> Arc<Config> {
        self.shared.screens().config()
    }

    fn foreground_changed(&self) {
        self.foreground.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// `config.toml` of the user's config dir with its problems (`None`: no config dir known).
fn load_config() -> Option<(Config, Vec<config::Diagnostic>)> {
    let env = PathEnv::from_process_env();
    let dir = paths::config_dir(
        env.xdg_config_home.as_deref().map(std::path::Path::new),
        env.home.as_deref().map(std::path::Path::new),
    );
    Some(config::load(&dir.ok()?.join("config.toml")))
}

/// Accepts terminal clients on `listener` until the supervisor shuts down, then returns once
/// every attached client has been told so.
pub async fn serve(shared: Arc<Shared>, listener: UnixListener) {
    // Problems are logged and never fatal.
    let (config, diagnostics) = load_config().unwrap_or_default();
    for diagnostic in diagnostics {
        log::warn!("config: {diagnostic}");
    }
    shared.screens().set_config(config);
    let hub = Arc::new(Hub {
        shared: shared.clone(),
        registry: Mutex::new(Registry::default()),
        foreground: watch::channel(0).0,
        visible: Mutex::new(visibility::Visible::default()),
        copy_prompts: Mutex::new(HashMap::new()),
        attachments: Mutex::new(attach::owners::Attachments::default()),
    });
    tokio::spawn(notify::watch_agents(shared.clone()));
    let mut stop = shared.shutdown_signal();
    let mut connections = JoinSet::new();
    let mut swapping = shared.handoff.swapping();
    loop {
        let paused = *swapping.borrow_and_update();
        tokio::select! {
            // A live handoff drops every terminal without `Shutdown`: each one sees its
            // connection close, shows "reconnecting…" and finds whoever serves next.
            _ = swapping.changed() => if *swapping.borrow() {
                connections.abort_all();
            },
            accepted = listener.accept(), if !paused => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(conn::serve(hub.clone(), stream));
                }
                Err(e) => log::warn!("client accept failed: {e}"),
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = stop.wait_for(|stopping| *stopping) => break,
        }
    }
    drop(listener);
    // Every paint task says goodbye (`Shutdown`) and ends; wait for them so the runtime is not
    // torn down mid-farewell.
    while connections.join_next().await.is_some() {}
}
