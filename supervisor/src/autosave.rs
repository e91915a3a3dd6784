//! Keeping `session.json` current: every change to the session model wakes the saver, which
//! waits a moment for the burst to end, encodes the layout, and writes it (atomically, off the
//! runtime thread) only when it differs from what is on disk. A crash loses at most the last
//! [`COALESCE`] of layout changes.
//!
//! One rule protects users from the worst loss (upstream's emptied `session.json` after a
//! reboot): a pane that was killed rather than ended puts saving on [`HOLD`], remembering the
//! layout from before. If the supervisor is told to stop during the hold (a logout or shutdown
//! killing everything), the final save writes that earlier layout; otherwise the hold ends
//! and the current layout is saved as usual.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::persist;
use crate::state::Shared;

/// How long the saver waits after a change for more changes before it writes.
pub const COALESCE: Duration = Duration::from_millis(250);
/// How long saving waits after a pane was killed, to see whether everything is being killed.
pub const HOLD: Duration = Duration::from_secs(5);

#[derive(Debug)]
pub struct Autosave {
    /// `None`: persistence is off (`--no-session`, tests, or a file we must not overwrite).
    path: Option<PathBuf>,
    dirty: Notify,
    /// Shared with the blocking writer, which looks at `stopped` again once it holds the lock.
    state: Arc<Mutex<SaveState>>,
    /// Held while a file is being written: one writer at a time, the final save last.
    write_lock: Arc<Mutex<()>>,
}

#[derive(Debug, Default)]
struct SaveState {
    /// Saving is on hold until this instant; `before` is the layout from before the first kill.
    hold: Option<(Instant, Vec<u8>)>,
    /// What the file holds (as far as we wrote it).
    written: Option<Vec<u8>>,
    /// The final save is done: nothing may be written after it.
    stopped: bool,
    /// What the file is owed before it is first replaced (a backup, another look).
    owed: persist::Owed,
}

impl Autosave {
    /// Saves to `path`; `on_disk` is what the file holds now, so an unchanged layout is not
    /// rewritten at start-up.
    pub fn to(path: PathBuf, on_disk: Option<Vec<u8>>) -> Self {
        Self {
            path: Some(path),
            dirty: Notify::new(),
            state: Arc::new(Mutex::new(SaveState { written: on_disk, ..SaveState::default() })),
            write_lock: Arc::default(),
        }
    }

    /// Saves to `path` once `owed` is settled: until then (a backup that cannot be written, a
    /// file that appeared and cannot be read) every save leaves the file alone and tries again.
    pub fn owing(path: PathBuf, owed: persist::Owed) -> Self {
        let autosave = Self::to(path, None);
        autosave.state().owed = owed;
        autosave
    }

    /// Never saves.
    pub fn disabled() -> Self {
        Self { path: None, dirty: Notify::new(), state: Arc::default(), write_lock: Arc::default() }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, SaveState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session model may have changed.
    pub fn mark_dirty(&self) {
        if self.path.is_some() {
            self.dirty.notify_one();
        }
    }

    /// A pane was killed: keep the layout with it (`before`, encoded only when no hold already
    /// keeps an older one — a logout kills every pane, and only the first layout counts), and
    /// hold saving for [`HOLD`] from now.
    pub fn hold(&self, before: impl FnOnce() -> Vec<u8>) {
        if self.path.is_none() {
            return;
        }
        // `before` takes the session lock under ours: nothing takes ours under the session's
        // (a session guard only notifies), so the order is always this one.
        let mut state = self.state();
        let kept = match state.hold.take() {
            Some((_, older)) => older,
            None => before(),
        };
        state.hold = Some((Instant::now() + HOLD, kept));
        drop(state);
        self.dirty.notify_one();
    }

    /// Writes changes until the task is aborted (at shutdown, before [`Autosave::finish`]).
    pub async fn run(shared: Arc<Shared>) {
        let autosave = &shared.autosave;
        if autosave.path.is_none() {
            return;
        }
        loop {
            autosave.dirty.notified().await;
            tokio::time::sleep(COALESCE).await;
            loop {
                let until = autosave.state().hold.as_ref().map(|(until, _)| *until);
                match until {
                    Some(until) if Instant::now() < until => {
                        tokio::time::sleep_until(tokio::time::Instant::from_std(until)).await;
                    }
                    Some(_) => {
                        autosave.state().hold = None;
                        break;
                    }
                    None => break,
                }
            }
            autosave.write(shared.encoded_session()).await;
        }
    }

    async fn write(&self, bytes: Vec<u8>) {
        let Some(path) = self.path.clone() else { return };
        let previous = {
            let state = self.state();
            if state.stopped || state.written.as_deref() == Some(bytes.as_slice()) {
                return;
            }
            state.written.clone()
        };
        if !self.settle(&path) {
            return;
        }
        let lock = Arc::clone(&self.write_lock);
        let state = Arc::clone(&self.state);
        let written = tokio::task::spawn_blocking(move || {
            let _one_writer = lock.lock().unwrap_or_else(PoisonError::into_inner);
            // The final save may have been written while this one waited for the lock.
            if state.lock().unwrap_or_else(PoisonError::into_inner).stopped {
                return None;
            }
            timed_write(&path, previous.as_deref(), &bytes).ok().map(|()| bytes)
        })
        .await;
        if let Ok(Some(bytes)) = written {
            let mut state = self.state();
            if !state.stopped {
                state.written = Some(bytes);
            }
        }
    }

    /// The last save, at an orderly stop, before any pane is closed: the layout from before a
    /// hold if one is on (panes were being killed), else `current`. Nothing is written after.
    pub fn finish(&self, current: Vec<u8>) {
        let Some(path) = &self.path else { return };
        let bytes = {
            let mut state = self.state();
            // A shutdown notice saved first (`logind`): what the system kills after that, before
            // our SIGTERM, must not replace that save.
            if state.stopped {
                return;
            }
            state.stopped = true;
            match state.hold.take() {
                Some((_, before)) => {
                    log::warn!("stopping while panes were being killed: saving the layout from before");
                    before
                }
                None => current,
            }
        };
        // Waits for a save still being written, which must not land after this one.
        let _one_writer = self.write_lock.lock().unwrap_or_else(PoisonError::into_inner);
        let previous = self.state().written.clone();
        if previous.as_deref() != Some(bytes.as_slice())
            && self.settle(path)
            && timed_write(path, previous.as_deref(), &bytes).is_ok()
        {
            // Known for `resume`: after a cancelled shutdown this is what the file holds.
            self.state().written = Some(bytes);
        }
    }

    /// An announced shutdown that [`Autosave::finish`] saved for was cancelled: saving goes on,
    /// starting with whatever changed meanwhile.
    pub fn resume(&self) {
        self.state().stopped = false;
        self.mark_dirty();
    }
}

impl Autosave {
    /// Pays what the file is owed before it is replaced; false while that cannot be done.
    /// Runs on the caller's thread, not a blocking task: an abort must never lose the debt.
    fn settle(&self, path: &std::path::Path) -> bool {
        let owed = std::mem::take(&mut self.state().owed);
        match persist::settle(path, owed) {
            Ok(None) => true,
            Ok(Some(backup)) => {
                log::warn!("persist.backup path={}", backup.display());
                true
            }
            Err(unsettled) => {
                log::error!(
                    "persist.backup_failed path={}: {unsettled}; leaving it as it is",
                    path.display()
                );
                self.state().owed = unsettled.owed;
                false
            }
        }
    }
}

/// Writes `bytes` over `previous` (what the file held) and, once that worked, keeps the layout
/// snapshots; a snapshot that fails is logged and costs the save nothing.
fn timed_write(
    path: &std::path::Path,
    previous: Option<&[u8]>,
    bytes: &[u8],
) -> Result<(), persist::WriteError> {
    let started = Instant::now();
    let result = persist::write_atomic(path, bytes);
    match &result {
        Ok(()) => log::info!(
            "persist.save path={} bytes={} elapsed_us={}",
            path.display(),
            bytes.len(),
            started.elapsed().as_micros()
        ),
        Err(e) => log::warn!("persist.save_failed path={}: {e}", path.display()),
    }
    if result.is_ok() {
        match persist::keep_snapshots(path, previous, bytes, std::time::SystemTime::now()) {
            Ok(taken) => taken.iter().for_each(|p| log::info!("persist.snapshot path={}", p.display())),
            Err(e) => log::warn!("persist.snapshot_failed path={}: {e}", path.display()),
        }
    }
    result
}

#[cfg(test)]
#[path = "autosave_tests.rs"]
mod tests;
