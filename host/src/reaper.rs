//! The supervisor is a child subreaper: a pane program whose worker died is re-parented to us,
//! and we reap every child (workers and orphaned programs) so none lingers as a zombie.
//!
//! Children whose exit status the supervisor itself waits for (`git` behind `worktree.*`) run
//! inside [`own_child`]: while one does, reaping waits, so `waitpid(-1)` cannot take that status
//! away from its caller; the last one to finish does the reaping that was put off. Children
//! waited for from async tasks (plugin commands) hold an [`Owned`] instead, which can cross an
//! `.await`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock, TryLockError};

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use tokio::signal::unix::{SignalKind, signal};

/// Marks this process as a child subreaper.
pub fn become_subreaper() -> nix::Result<()> {
    nix::sys::prctl::set_child_subreaper(true)
}

/// Reaps children as SIGCHLD arrives, until the runtime stops.
pub async fn reap_forever() {
    let Ok(mut sigchld) = signal(SignalKind::child()) else {
        log::error!("cannot watch SIGCHLD; exited children will linger as zombies");
        return;
    };
    loop {
        reap_all();
        if sigchld.recv().await.is_none() {
            return;
        }
    }
}

/// Held (shared) while a child the supervisor waits for itself runs; reaping takes it exclusively.
static OWN_CHILDREN: RwLock<()> = RwLock::new(());

/// Runs `start_and_wait`, which starts a child and waits for it, without the reaper taking
/// the child's exit status; then reaps whatever exited meanwhile.
pub fn own_child<T>(start_and_wait: impl FnOnce() -> T) -> T {
    let guard = OWN_CHILDREN.read().unwrap_or_else(PoisonError::into_inner);
    let result = start_and_wait();
    drop(guard);
    reap_all();
    result
}

/// Async-held children (plugin commands) whose exit status their task waits for.
static OWNED_ASYNC: AtomicUsize = AtomicUsize::new(0);

/// While alive, reaping waits (as inside [`own_child`]); taken before the child is started and
/// dropped once its status was collected, when the put-off reaping is done.
#[derive(Debug)]
pub struct Owned(());

impl Owned {
    pub fn hold() -> Owned {
        OWNED_ASYNC.fetch_add(1, Ordering::SeqCst);
        // A reaping pass already under way (it checked before the count went up) ends first.
        drop(OWN_CHILDREN.read().unwrap_or_else(PoisonError::into_inner));
        Owned(())
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if OWNED_ASYNC.fetch_sub(1, Ordering::SeqCst) == 1 {
            reap_all();
        }
    }
}

fn reap_all() {
    // A child someone waits for is running: its own caller reaps when it is done.
    let _exclusive = match OWN_CHILDREN.try_write() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    // Checked under the lock: `Owned::hold` counts first, then waits for the lock to be free.
    if OWNED_ASYNC.load(Ordering::SeqCst) > 0 {
        return;
    }
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(_) => return,
            Ok(status) => log::debug!("reaped {status:?}"),
        }
    }
}

/// At shutdown: reap the workers that are exiting, so none is left behind as a zombie of
/// whoever adopts it after we exit. Gives up after `limit`.
pub async fn reap_remaining(limit: std::time::Duration) {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Err(nix::errno::Errno::ECHILD) => return,
            Ok(WaitStatus::StillAlive) => {
                if tokio::time::Instant::now() >= deadline {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            Ok(_) => continue,
            Err(_) => return,
        }
    }
}
