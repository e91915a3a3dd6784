//! The pane-worker registry: one supervision task per pane, which starts the pane's worker,
//! forwards requests to it, restarts it (handing over the PTY master fd) when it dies, and
//! moves it to this supervisor's own worker binary when it runs another (`upgrade`).

mod awaiting;
#[cfg(test)]
#[path = "fake_tests.rs"]
pub(crate) mod fake;
mod launcher;
mod pane_task;
mod spawn;
mod start;
mod start_error;
mod upgrade;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

use herdr_protocol::ipc::{WorkerRequest, WorkerResponse};
use tokio::sync::{mpsc, oneshot};

use crate::session::PaneKey;

#[cfg(test)]
pub(crate) use launcher::Ending;
pub use launcher::{Launcher, LiveCwds, Processes};
pub use pane_task::{Launch, LaunchMode, Started, launch};
pub use start_error::StartError;
pub use upgrade::{Upgrade, upgrade_outdated};

#[derive(Debug)]
pub(crate) enum PaneCmd {
    /// The requests are boxed: a channel allocates its first block of 32 slots when it is made,
    /// and a request inline made that 2.6 KiB of every pane's supervisor heap.
    Request {
        id: u64,
        body: Box<WorkerRequest>,
        reply: oneshot::Sender<WorkerResponse>,
    },
    /// An output watch: the first answer goes to `reply`, every later match to the sender
    /// beside the request (boxed with it, so this is no larger than `Request`).
    Watch {
        id: u64,
        body: Box<(WorkerRequest, mpsc::UnboundedSender<WatchMatch>)>,
        reply: oneshot::Sender<WorkerResponse>,
    },
    Cancel(u64),
    /// A client has sized the layout: a pane waiting for its agent's resume starts it now
    /// (any other pane ignores this).
    Resume,
    Shutdown {
        done: oneshot::Sender<()>,
    },
    /// A live handoff: close the worker's link without `Shutdown`, say so on `released`, then
    /// take the worker back if `verdict` says `true` (the handoff failed), else end.
    Release {
        released: oneshot::Sender<()>,
        verdict: oneshot::Receiver<bool>,
    },
    /// Move the pane to this supervisor's worker binary if its worker is older or another
    /// executable; `done` hears how it went.
    Upgrade {
        done: oneshot::Sender<Upgrade>,
    },
}

/// A pane whose worker link a live handoff closed: decide what becomes of it.
#[derive(Debug)]
pub struct Released {
    verdict: oneshot::Sender<bool>,
}

impl Released {
    /// The handoff failed: the pane's task adopts its worker again.
    pub fn reclaim(self) {
        let _ = self.verdict.send(true);
    }

    /// The next supervisor has the worker: the pane's task ends without touching it.
    pub fn hand_over(self) {
        let _ = self.verdict.send(false);
    }
}

/// The supervisor's handle on one pane's supervision task.
#[derive(Debug, Clone)]
pub struct PaneHandle {
    cmd: mpsc::UnboundedSender<PaneCmd>,
    /// The link version of the pane's current worker (0 while it has none), kept by its task.
    link_version: Arc<AtomicU32>,
    /// The pane's program (0 while none runs), kept by its task.
    program: Arc<AtomicI32>,
}

/// One edge of an output watch: the line that matched and the read it matched in.
#[derive(Debug, Clone)]
pub struct WatchMatch {
    pub matched_line: String,
    pub read: herdr_protocol::ipc::ReadOutput,
}

/// A live output watch; dropping it stops the watch on the worker.
#[derive(Debug)]
pub struct OutputWatch {
    cmd: mpsc::UnboundedSender<PaneCmd>,
    id: u64,
    pub matches: mpsc::UnboundedReceiver<WatchMatch>,
}

impl Drop for OutputWatch {
    fn drop(&mut self) {
        let _ = self.cmd.send(PaneCmd::Cancel(self.id));
    }
}

/// Why a forwarded request produced no response.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error("pane has no running worker")]
    Gone,
}

impl PaneHandle {
    /// Sends `body` to the pane's worker and waits for its answer. Dropping the future cancels
    /// the request on the worker (used by timeouts and by clients that hang up).
    pub async fn request(&self, id: u64, body: WorkerRequest) -> Result<WorkerResponse, ForwardError> {
        let (reply, rx) = oneshot::channel();
        self.cmd
            .send(PaneCmd::Request { id, body: Box::new(body), reply })
            .map_err(|_| ForwardError::Gone)?;
        let guard = CancelOnDrop { cmd: &self.cmd, id, armed: true };
        let result = rx.await.map_err(|_| ForwardError::Gone);
        guard.disarm();
        result
    }

    /// Starts an edge-triggered output watch (`body` is a `WatchOutput` request). The worker's
    /// first answer says whether it was accepted.
    pub async fn watch(
        &self,
        id: u64,
        body: WorkerRequest,
    ) -> Result<(WorkerResponse, OutputWatch), ForwardError> {
        let (reply, rx) = oneshot::channel();
        let (matches_tx, matches) = mpsc::unbounded_channel();
        self.cmd
            .send(PaneCmd::Watch { id, body: Box::new((body, matches_tx)), reply })
            .map_err(|_| ForwardError::Gone)?;
        let watch = OutputWatch { cmd: self.cmd.clone(), id, matches };
        let first = rx.await.map_err(|_| ForwardError::Gone)?;
        Ok((first, watch))
    }

    /// Fire-and-forget (resizes after layout changes).
    pub fn notify(&self, id: u64, body: WorkerRequest) {
        let (reply, _rx) = oneshot::channel();
        let _ = self.cmd.send(PaneCmd::Request { id, body: Box::new(body), reply });
    }

    /// Starts the agent's resume of a pane launched with [`LaunchMode::AdoptOrResume`] that found
    /// no worker to adopt; after the resizes already sent, so it starts at the pane's size.
    pub fn start_resume(&self) {
        let _ = self.cmd.send(PaneCmd::Resume);
    }

    /// Closes the link to the pane's worker without ending it (a live handoff). `None` when
    /// the task is gone or did not answer within `limit`.
    pub async fn release(&self, limit: std::time::Duration) -> Option<Released> {
        let (released, released_rx) = oneshot::channel();
        let (verdict, verdict_rx) = oneshot::channel();
        self.cmd.send(PaneCmd::Release { released, verdict: verdict_rx }).ok()?;
        tokio::time::timeout(limit, released_rx).await.ok()?.ok()?;
        Some(Released { verdict })
    }

    /// The pane's program; `None` before it starts, for a held start failure and once its task
    /// ended.
    pub fn program_pid(&self) -> Option<i32> {
        Some(self.program.load(Ordering::SeqCst)).filter(|pid| *pid > 0)
    }

    /// The link version the pane's worker speaks; `None` while it has no worker.
    pub fn link_version(&self) -> Option<u32> {
        Some(self.link_version.load(Ordering::SeqCst)).filter(|v| *v != 0)
    }

    /// Moves the pane to this supervisor's worker binary when its worker needs it; `None` when
    /// the task is gone.
    pub async fn upgrade(&self) -> Option<Upgrade> {
        let (done, rx) = oneshot::channel();
        self.cmd.send(PaneCmd::Upgrade { done }).ok()?;
        rx.await.ok()
    }

    /// Closes the pane: the worker hangs up the program and exits. Resolves when it is gone.
    pub async fn shutdown(&self) {
        let (done, rx) = oneshot::channel();
        if self.cmd.send(PaneCmd::Shutdown { done }).is_ok() {
            let _ = rx.await;
        }
    }
}

struct CancelOnDrop<'a> {
    cmd: &'a mpsc::UnboundedSender<PaneCmd>,
    id: u64,
    armed: bool,
}

impl CancelOnDrop<'_> {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.cmd.send(PaneCmd::Cancel(self.id));
        }
    }
}

/// Live panes by their immutable key.
#[derive(Debug, Default)]
pub struct Registry {
    panes: HashMap<PaneKey, PaneHandle>,
}

impl Registry {
    pub fn insert(&mut self, key: PaneKey, handle: PaneHandle) {
        self.panes.insert(key, handle);
    }

    pub fn get(&self, key: PaneKey) -> Option<PaneHandle> {
        self.panes.get(&key).cloned()
    }

    pub fn remove(&mut self, key: PaneKey) -> Option<PaneHandle> {
        self.panes.remove(&key)
    }

    pub fn handles(&self) -> Vec<PaneHandle> {
        self.panes.values().cloned().collect()
    }

    pub fn drain(&mut self) -> Vec<PaneHandle> {
        self.panes.drain().map(|(_, h)| h).collect()
    }
}

/// How a pane's program went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// The worker saw it exit (`code`/`signal` known when the worker was its parent).
    Exited { code: Option<i32>, signal: Option<i32> },
    /// Its worker died with it, or the restart budget ran out.
    Lost,
    /// It never ran: the worker could not start it (or, for a recovered pane, adopt it).
    NeverStarted,
}

impl Gone {
    /// Whether the program ended on its own terms (`exit`, a finished command: an exit code)
    /// rather than being killed, lost, or ending in a way nobody could see: only such an ending is saved to `session.json` at once. A signal
    /// death may be the first sign of a logout or reboot killing everything.
    pub fn is_orderly(self) -> bool {
        matches!(self, Gone::Exited { code: Some(_), signal: None } | Gone::NeverStarted)
    }
}

/// What a pane task tells the rest of the supervisor.
pub trait PaneObserver: Send + Sync + 'static {
    fn worker_event(&self, key: PaneKey, event: herdr_protocol::ipc::WorkerEvent);
    /// The pane's program is gone (exited, or could not be started / kept alive).
    fn pane_gone(&self, key: PaneKey, how: Gone);
}

pub(crate) type Observer = Arc<dyn PaneObserver>;

#[cfg(test)]
mod size_tests {
    /// Every pane's command channel keeps two blocks of 32 slots for the pane's life, so a
    /// command stays three words and a tag: what does not fit is boxed.
    #[test]
    fn a_pane_command_is_no_larger_than_four_words() {
        assert!(std::mem::size_of::<super::PaneCmd>() <= 32, "{}", std::mem::size_of::<super::PaneCmd>());
    }
}
