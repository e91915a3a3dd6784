//! A live handoff's release of one pane: the link to its worker is closed without a
//! `Shutdown` (the worker waits to be adopted, keeping its terminal and program), then the task
//! either ends (the next supervisor adopted the worker) or takes the worker back (the handoff
//! failed).

use std::time::Duration;

use tokio::sync::oneshot;

use super::{Flow, PaneTask, adopt_when_released};
use crate::workers::Gone;
use crate::workers::start::Incoming;

/// How long our side of a closed link may take to read its end.
const DRAIN: Duration = Duration::from_secs(1);

impl PaneTask {
    pub(super) async fn release(
        &mut self,
        released: oneshot::Sender<()>,
        verdict: oneshot::Receiver<bool>,
    ) -> Flow {
        // A release whose handoff already gave up waiting (the pane was still starting) is
        // stale: keep the worker.
        if released.is_closed() {
            return Flow::Continue;
        }
        self.worker.writer.hang_up();
        let _ = tokio::time::timeout(DRAIN, async {
            while let Some(Incoming::Frame(..)) = self.worker.frames.recv().await {}
        })
        .await;
        // Nothing the released worker was asked will be answered; its callers hear "gone".
        self.pending.clear();
        if released.send(()).is_err() {
            return self.reclaim().await;
        }
        match verdict.await {
            Ok(true) => self.reclaim().await,
            // Committed, or the old supervisor is going away anyway: the worker is not ours.
            Ok(false) | Err(_) => Flow::HandedOver,
        }
    }

    /// The handoff failed: adopt the worker again, as a new supervisor would.
    async fn reclaim(&mut self) -> Flow {
        let screen = (self.key, self.observer.clone());
        match adopt_when_released(&*self.launcher, &self.identity, screen).await {
            Ok((worker, _program, size)) => {
                log::info!("pane {:?}: took worker {} back after a failed handoff", self.key, worker.pid);
                self.set_worker(worker);
                self.size = size;
                self.resend_link_state().await;
                Flow::Continue
            }
            Err(reason) => {
                log::error!(
                    "pane {:?}: could not take its worker back after a failed handoff: {reason}",
                    self.key
                );
                self.observer.pane_gone(self.key, Gone::Lost);
                Flow::HandedOver
            }
        }
    }
}
