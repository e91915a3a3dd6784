//! Terminal clients on `herdr-client.sock`: the listener, one connection task per attached
//! client (handshake, input through the keymap into session methods and pane input), and one
//! paint task per client that composes that client's frame at its own size, diffs it against
//! what the client last received and sends the difference.
//!
//! Not here: composition and diffing themselves (pure, in [`crate::render`]), key decoding and
//! modes ([`crate::keymap`]), the layout model ([`crate::session`]). Mouse, copy mode, dialogs and
//! notifications are not built yet: those inputs are dropped.
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

mod actions;
mod conn;
mod paint;
mod registry;
mod visibility;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use herdr_protocol::grid::{GridCell, PaneGrid};
use herdr_protocol::ipc::GridDamage;
use herdr_protocol::paths::{self, PathEnv};
use tokio::net::UnixListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::config::{self, Config};
use crate::session::PaneKey;
use crate::state::Shared;

use registry::Registry;

/// Mirrored pane grids and the "something on screen changed" signal.
#[derive(Debug)]
pub struct Screens {
    grids: Mutex<HashMap<PaneKey, PaneGrid>>,
    dirty: watch::Sender<u64>,
}

impl Default for Screens {
    fn default() -> Self {
        Screens { grids: Mutex::new(HashMap::new()), dirty: watch::channel(0).0 }
    }
}

impl Screens {
    fn grids(&self) -> MutexGuard<'_, HashMap<PaneKey, PaneGrid>> {
        self.grids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores a pane's current grid and wakes the paint tasks.
    pub fn set_grid(&self, key: PaneKey, grid: PaneGrid) {
        self.grids().insert(key, grid);
        self.mark_dirty();
    }

    /// Applies a worker's damage to the pane's mirrored grid: a full frame replaces it, changed
    /// rows are written over a grid of the same size. Rows for a grid of another size (a resize
    /// in flight) are dropped: the worker sends a full frame after every resize.
    pub fn apply_damage(&self, key: PaneKey, damage: GridDamage) {
        if apply_damage(&mut self.grids(), key, damage) {
            self.mark_dirty();
        }
    }

    /// Forgets a closed pane's grid.
    pub fn remove(&self, key: PaneKey) {
        if self.grids().remove(&key).is_some() {
            self.mark_dirty();
        }
    }

    /// Wakes every paint task: something visible may have changed outside the event hub.
    pub fn mark_dirty(&self) {
        self.dirty.send_modify(|n| *n = n.wrapping_add(1));
    }

    fn watch(&self) -> watch::Receiver<u64> {
        self.dirty.subscribe()
    }

    /// Runs `f` with the grids locked (composition borrows them instead of copying).
    fn with_grids<T>(&self, f: impl FnOnce(&HashMap<PaneKey, PaneGrid>) -> T) -> T {
        f(&self.grids())
    }
}

/// The grid-mirroring rule of [`Screens::apply_damage`]; true when a grid changed.
fn apply_damage(grids: &mut HashMap<PaneKey, PaneGrid>, key: PaneKey, damage: GridDamage) -> bool {
    let grid = if damage.full {
        grids.insert(key, PaneGrid::blank(damage.cols, damage.rows));
        grids.get_mut(&key)
    } else {
        grids.get_mut(&key).filter(|g| (g.cols, g.rows) == (damage.cols, damage.rows))
    };
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
    config: Config,
    /// Panes whose workers were last told they are visible.
    visible: Mutex<visibility::Visible>,
}

impl Hub {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn foreground_changed(&self) {
        self.foreground.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// `config.toml` of the user's config dir; problems are logged and never fatal.
fn load_config() -> Config {
    let env = PathEnv::from_process_env();
    let dir = paths::config_dir(
        env.xdg_config_home.as_deref().map(std::path::Path::new),
        env.home.as_deref().map(std::path::Path::new),
    );
    let Ok(dir) = dir else { return Config::default() };
    let (config, diagnostics) = config::load(&dir.join("config.toml"));
    for diagnostic in diagnostics {
        log::warn!("config: {diagnostic}");
    }
    config
}

/// Accepts terminal clients on `listener` until the supervisor shuts down, then returns once
/// every attached client has been told so.
pub async fn serve(shared: Arc<Shared>, listener: UnixListener) {
    let hub = Arc::new(Hub {
        shared: shared.clone(),
        registry: Mutex::new(Registry::default()),
        foreground: watch::channel(0).0,
        config: load_config(),
        visible: Mutex::new(visibility::Visible::default()),
    });
    let mut stop = shared.shutdown_signal();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
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
