//! The pane without and with a supervisor: what losing the link does (orphan mode), how a
//! connection to the worker's own socket becomes the new link, and what a new supervisor is told
//! so it knows the pane without waiting for a change.
//!
//! Orphan mode keeps everything the pane is — program, PTY, terminal, scrollback, detector — and
//! forgets only what belonged to the dead supervisor: its waits and watches, visibility, focus,
//! copy mode, and a hook authority's scan suspension.
//!
//! Not here: the socket and handshake I/O (`listener`), the accept rules (`adoption`).

use std::time::Duration;

use herdr_protocol::ipc::{
    CopyRequest, IPC_VERSION, ScrollTo, WorkerEvent, WorkerIdentity, WorkerToSupervisor,
};
use tokio::time::Instant;

use super::{Flow, Life, Pane};
use crate::{
    WorkerError,
    adoption::{self, Standing},
    listener::{Candidate, HandshakeError, Handshakes, Listener},
    pty,
    waits::{Waits, Watches},
};

/// The worker's own socket, the connections waiting on it, and the orphan deadline.
#[derive(Debug)]
pub struct Home {
    pub(super) listener: Listener,
    pub(super) handshakes: Handshakes,
    pub(super) identity: WorkerIdentity,
    /// When an unlinked worker gives up; `None` while a supervisor is linked.
    pub(super) orphan_at: Option<Instant>,
}

impl Home {
    pub fn new(listener: Listener, identity: WorkerIdentity) -> Self {
        Self { listener, handshakes: Handshakes::default(), identity, orphan_at: None }
    }
}

impl Pane {
    /// The supervisor is gone (EOF, or a write found it gone) without a `Shutdown`: keep the pane
    /// and wait for a new one, at most the orphan timeout.
    pub(super) fn link_lost(&mut self) {
        self.reader = None;
        self.out = None;
        if self.ending {
            // It asked us to end before it went: carry on ending.
            return;
        }
        log::warn!("the supervisor link closed; waiting to be adopted (worker {})", self.home.identity.uid);
        self.waits = Waits::default();
        self.watches = Watches::default();
        self.visible = false;
        self.focused = false;
        self.full_pending = false;
        self.damage_at = None;
        self.last_damage = None;
        self.engine.stop_damage();
        // A new supervisor knows nothing of a copy mode or scrolled view; show the live screen.
        if let Err(err) = self.engine.copy(&CopyRequest::Leave) {
            log::warn!("could not leave copy mode: {err}");
        }
        if let Err(err) = self.engine.scroll_to(ScrollTo::Bottom) {
            log::warn!("could not scroll to the live screen: {err}");
        }
        // The hook authority that paused screen scans lived in the dead supervisor.
        self.detection.set_scans_suspended(false, std::time::Instant::now());
        let timeout = Duration::from_millis(self.home.identity.orphan_timeout_ms);
        self.home.orphan_at = Some(Instant::now() + timeout);
    }

    /// No supervisor came in time: end the pane as `Shutdown` would.
    pub(super) async fn orphan_timeout(&mut self) -> Result<Flow, WorkerError> {
        self.home.orphan_at = None;
        log::warn!(
            "no supervisor adopted worker {} within {} ms; closing the pane",
            self.home.identity.uid,
            self.home.identity.orphan_timeout_ms
        );
        self.end().await
    }

    /// A connection sent its first frame: adopt the worker, or refuse and close it.
    pub(super) async fn on_handshake(
        &mut self,
        done: Result<Candidate, HandshakeError>,
    ) -> Result<Flow, WorkerError> {
        let mut candidate = match done {
            Ok(candidate) => candidate,
            Err(err) => {
                log::warn!("dropped a worker socket connection: {err}");
                return Ok(Flow::Continue);
            }
        };
        let standing = if self.ending {
            Standing::Ending
        } else if self.out.is_some() {
            Standing::Linked
        } else {
            Standing::Orphan
        };
        let identity = &self.home.identity;
        if let Err(refusal) = adoption::judge(&candidate.first, &identity.secret, &identity.uid, standing) {
            log::warn!("refused a supervisor on the worker socket: {refusal}");
            // A fresh connection has room for one small frame; if not, closing says enough.
            let refused = WorkerToSupervisor::Refused { reason: refusal.to_string() };
            if let Err(err) = candidate.writer.send(&refused, None) {
                log::warn!("could not send Refused: {err}");
            }
            return Ok(Flow::Continue);
        }
        self.adopt(candidate).await
    }

    /// The connection becomes the link: `Adopted` with a dup of the PTY master, then the pane's
    /// state as ordinary events, and `Exited` if the program ended while nobody was linked.
    async fn adopt(&mut self, candidate: Candidate) -> Result<Flow, WorkerError> {
        self.reader = Some(candidate.reader);
        self.out = Some(candidate.writer);
        self.home.orphan_at = None;
        let (cols, rows) = self.engine.size()?;
        // A held pane has no program for the supervisor to watch (one that failed is reaped).
        let child_pid = if matches!(self.life, Life::Held { .. }) { 0 } else { self.child_pid };
        let worker_pid = std::process::id().cast_signed();
        let handoff = pty::dup_cloexec(self.pty.raw_fd())?;
        self.send_fd(
            WorkerToSupervisor::Adopted { version: IPC_VERSION, worker_pid, child_pid, cols, rows },
            Some(handoff),
        )?;
        self.resend_state()?;
        if matches!(self.life, Life::Ended(_)) {
            return self.finish().await;
        }
        Ok(Flow::Continue)
    }

    /// Title, OSC 7 cwd, then for a running program its live cwd, agent and screen verdict, or
    /// for a held pane why it is held.
    pub(crate) fn resend_state(&mut self) -> Result<(), WorkerError> {
        let (title, cwd) = self.engine.reported();
        let (title, cwd) = (title.map(str::to_string), cwd.map(str::to_string));
        if let Some(title) = title {
            self.event(WorkerEvent::Title(Some(title)))?;
        }
        if let Some(cwd) = cwd {
            self.event(WorkerEvent::Cwd(cwd))?;
        }
        match &self.life {
            Life::Running(_) => {
                self.live_cwd = None;
                self.report_live_cwd()?;
                for event in self.detection.current() {
                    self.event(event)?;
                }
                Ok(())
            }
            Life::Held { message, .. } => {
                let message = message.clone();
                self.event(WorkerEvent::StartFailed { message })
            }
            Life::Ended(_) => Ok(()),
        }
    }
}
