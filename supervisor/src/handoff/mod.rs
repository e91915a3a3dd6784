//! Live handoff: the running supervisor hands its session to another `herdr` binary without
//! ending a single program. The old one passes its listening sockets and the session lock; the
//! new one adopts every worker exactly as after a crash, so each pane keeps its whole terminal.
//! `export.rs` is the old side, `import.rs` the new one, `wire.rs` the conversation between them.

mod export;
mod import;
pub mod wire;

use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use tokio::sync::watch;

pub use export::export;
pub use import::{announce_ready, import_blocking};

/// `server.live_handoff`'s parameters.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Params {
    /// The binary to hand over to; the running one when absent.
    pub import_exe: Option<PathBuf>,
    pub expected_protocol: Option<u32>,
    pub expected_version: Option<String>,
}

/// Why a handoff did not happen (the old supervisor goes on serving).
#[derive(Debug, thiserror::Error)]
pub enum HandoffError {
    #[error("a live handoff is already in progress")]
    Busy,
    #[error("this supervisor cannot hand over yet (it is still starting)")]
    NotServing,
    #[error("cannot prepare the handoff: {0}")]
    Prepare(std::io::Error),
    #[error("cannot start the importer {}: {source}", .exe.display())]
    Spawn { exe: PathBuf, source: std::io::Error },
    #[error("the importer exited before taking over")]
    ImporterExited,
    #[error("the importer gave the wrong token")]
    BadToken,
    #[error("the importer refused: {0}")]
    Refused(String),
    #[error("the importer answered {0} out of turn")]
    OutOfTurn(String),
    #[error("handoff failed: {0}")]
    Wire(#[from] wire::WireError),
}

/// The descriptors a handoff passes: dups of the session lock and the two listeners, taken
/// before the listeners are served.
#[derive(Debug)]
pub struct Passable {
    pub lock: OwnedFd,
    pub api: OwnedFd,
    pub client: OwnedFd,
}

/// A supervisor's handoff state, shared by the API method, the accept loops and the waits.
#[derive(Debug)]
pub struct Handoff {
    /// True while a handoff is under way: nothing new is accepted (connections wait in the
    /// backlog for whoever serves next), terminal clients are dropped (they reconnect), waits
    /// and subscriptions end with an error.
    swapping: watch::Sender<bool>,
    /// The importer took over: the stop that follows ends nothing.
    committed: AtomicBool,
    /// The importer's pid once committed (0 before): the service's main process from then on.
    successor: std::sync::atomic::AtomicU32,
    passable: Mutex<Option<Passable>>,
    busy: tokio::sync::Mutex<()>,
}

impl Default for Handoff {
    fn default() -> Self {
        Self {
            swapping: watch::channel(false).0,
            committed: AtomicBool::new(false),
            successor: std::sync::atomic::AtomicU32::new(0),
            passable: Mutex::new(None),
            busy: tokio::sync::Mutex::new(()),
        }
    }
}

impl Handoff {
    /// Called by `run` once it serves: what a handoff will pass.
    pub fn offer(&self, passable: Passable) {
        *self.passable.lock().unwrap_or_else(PoisonError::into_inner) = Some(passable);
    }

    pub fn swapping(&self) -> watch::Receiver<bool> {
        self.swapping.subscribe()
    }

    pub fn committed(&self) -> bool {
        self.committed.load(Ordering::SeqCst)
    }

    /// The pid of the supervisor this one handed over to (0 before a commit).
    pub fn successor(&self) -> u32 {
        self.successor.load(Ordering::SeqCst)
    }

    /// Dups of the passable descriptors (`None` before `run` offered them).
    fn passable(&self) -> Option<std::io::Result<Passable>> {
        let guard = self.passable.lock().unwrap_or_else(PoisonError::into_inner);
        guard.as_ref().map(|p| {
            Ok(Passable { lock: p.lock.try_clone()?, api: p.api.try_clone()?, client: p.client.try_clone()? })
        })
    }

    fn set_swapping(&self, on: bool) {
        self.swapping.send_replace(on);
    }

    fn commit(&self, successor: u32) {
        self.successor.store(successor, Ordering::SeqCst);
        self.committed.store(true, Ordering::SeqCst);
    }
}

/// Resolves once a handoff begins (for waits and subscriptions to end).
pub async fn began(swapping: &mut watch::Receiver<bool>) {
    let began = swapping.wait_for(|on| *on).await.is_ok();
    if !began {
        std::future::pending::<()>().await;
    }
}

/// The error a wait or subscription ends with when the supervisor hands over.
pub fn ended_error() -> herdr_protocol::api::ApiError {
    herdr_protocol::api::ApiError::new(
        "server_unavailable",
        "herdr server is handing over to a new binary (live handoff); reconnect and ask again",
    )
}

/// Raw descriptors for one `sendmsg`.
fn borrowed(passable: &Passable) -> [BorrowedFd<'_>; 3] {
    use std::os::fd::AsFd;
    [passable.lock.as_fd(), passable.api.as_fd(), passable.client.as_fd()]
}
