//! The one timer that removes expired metadata tokens. It sleeps until the earliest expiry of
//! any pane or workspace ([`crate::session::Session::next_metadata_expiry`]), removes what ran
//! out and publishes the update events; while nothing can expire it only waits to be re-armed.
//! Nothing polls. A report that sets a ttl re-arms it ([`ExpiryTimer::rearm`]); the task starts
//! with the first such report and ends with the server.
//!
//! Clocks: expiries are `std::time::Instant`s taken from tokio's clock
//! ([`now`]), so tests that pause tokio's time drive expiry too.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tokio::sync::Notify;

use crate::state::Shared;

/// The current time on tokio's clock.
pub fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

#[derive(Debug, Default)]
pub struct ExpiryTimer {
    rearm: Notify,
    started: AtomicBool,
}

impl ExpiryTimer {
    /// Tells the timer that an expiry may have moved earlier (starting it the first time).
    pub fn rearm(&self, shared: &Shared) {
        if !self.started.swap(true, Ordering::AcqRel)
            && let Some(shared) = shared.arc()
        {
            tokio::spawn(run(shared));
        }
        // A stored permit if the task is busy: the next wait returns at once and re-reads.
        self.rearm.notify_one();
    }
}

async fn run(shared: Arc<Shared>) {
    let mut stop = shared.shutdown_signal();
    loop {
        let next = shared.session().next_metadata_expiry();
        let sleep = async {
            match next {
                Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = sleep => {
                let effects = shared.session().expire_metadata(now());
                shared.apply(effects);
            }
            () = shared.metadata_expiry.rearm.notified() => {}
            _ = stop.wait_for(|s| *s) => return,
        }
    }
}
