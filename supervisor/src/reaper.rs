//! The supervisor is a child subreaper: a pane program whose worker died is re-parented to us,
//! and we reap every child (workers and orphaned programs) so none lingers as a zombie.

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

fn reap_all() {
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
