//! The herdr supervisor: one per session. Holds the layout model ([`session`]), the event hub, the
//! public API socket (`herdr.sock`) and the registry of pane-workers. It never parses VT output:
//! pane reads, waits and input are forwarded to the pane's worker.
//!
//! Entry points: [`run`] (bound [`Sockets`] and a shutdown future; returns when the server
//! stops) and [`serve_blocking`], which `herdr server` calls. A supervisor that dies without
//! stopping leaves its panes' workers running; the next one re-adopts them.

pub mod api;
mod autosave;
mod clients;
mod handoff;
mod hub;
#[cfg(test)]
mod inprocess_tests;
pub mod metadata;
mod pane_history;
mod plugins;
mod popups;
mod resumes;
mod server;
mod state;
mod workers;

use std::path::PathBuf;
use std::time::Duration;

pub use handoff::import_blocking;
/// The session model, `session.json` persistence and the per-pane agent core live in
/// `herdr-session`; re-exported under their old paths so call sites name them as before.
pub use herdr_session::{agents, persist, session};
/// The terminal UI's pure parts live in `herdr-ui`; re-exported under their old paths so the
/// supervisor's client side (and `herdr`'s config loading) name them as before.
pub use herdr_ui::config::DEFAULT_ORPHAN_TIMEOUT;
pub use herdr_ui::{commands, config, keymap, render};
pub use server::{Sockets, run, serve_blocking};

/// Everything `herdr server` resolves before starting a supervisor.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The JSON API socket (`herdr.sock`).
    pub api_socket: PathBuf,
    /// The binary client socket (`herdr-client.sock`) terminal clients attach through.
    pub client_socket: PathBuf,
    /// `None` for the default session.
    pub session_name: Option<String>,
    /// The `herdr-pane-worker` executable.
    pub worker_exe: PathBuf,
    /// Injected into panes as `HERDR_BIN_PATH`: the `herdr` executable.
    pub bin_path: PathBuf,
    /// The session's data dir: `session.json` and its recovery files live here.
    pub data_dir: PathBuf,
    /// False with `--no-session`: `session.json` is neither read nor written.
    pub persist: bool,
    /// How long workers wait for a new supervisor after this one dies
    /// ([`DEFAULT_ORPHAN_TIMEOUT`] unless configured).
    pub orphan_timeout: Duration,
    /// `[experimental] pane_history`: the stop writes `session-history.json` (each pane's recent
    /// screen) and the next start replays it into panes started again; when false the file is
    /// deleted at start.
    pub pane_history: bool,
    /// `[session] resume_agents_on_restore`: restored panes with a session ref from one of herdr's
    /// integrations start the agent's resume command once a client attaches.
    pub resume_agents: bool,
    /// `[advanced] scrollback_limit_bytes`: each new pane worker's scrollback budget.
    pub scrollback_limit_bytes: usize,
}

impl ServerConfig {
    /// The `HERDR_*` variables a pane's programs get (and commands started on a pane's behalf):
    /// how to reach this server and which pane they belong to.
    pub fn pane_env(&self, workspace: &str, tab: &str, pane: &str) -> Vec<(String, String)> {
        let socket = std::path::absolute(&self.api_socket).unwrap_or_else(|_| self.api_socket.clone());
        [
            ("HERDR_ENV", "1".to_owned()),
            ("HERDR_SOCKET_PATH", socket.display().to_string()),
            ("HERDR_BIN_PATH", self.bin_path.display().to_string()),
            ("HERDR_WORKSPACE_ID", workspace.to_owned()),
            ("HERDR_TAB_ID", tab.to_owned()),
            ("HERDR_PANE_ID", pane.to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

#[cfg(test)]
impl ServerConfig {
    /// A config for in-process tests: sockets and binaries that do not exist, nothing saved.
    pub(crate) fn for_tests() -> ServerConfig {
        let path = PathBuf::from;
        ServerConfig {
            api_socket: path("/nonexistent/herdr.sock"),
            client_socket: path("/nonexistent/herdr-client.sock"),
            session_name: None,
            worker_exe: path("/nonexistent/herdr-pane-worker"),
            bin_path: path("/nonexistent/herdr"),
            data_dir: path("/nonexistent/data"),
            persist: false,
            orphan_timeout: DEFAULT_ORPHAN_TIMEOUT,
            pane_history: false,
            resume_agents: true,
            scrollback_limit_bytes: config::DEFAULT_SCROLLBACK_LIMIT_BYTES,
        }
    }
}
