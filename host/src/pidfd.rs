//! Watching a process by pidfd (the supervisor's workers, a handoff's importer). Workers are not
//! necessarily our children (one adopted from a supervisor that died belongs to whoever reaped
//! that one), so neither SIGCHLD nor waitpid can say when they are gone; a pidfd can, for any
//! process, and signals through it never hit a recycled pid.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

#[derive(Debug)]
pub struct PidFd {
    fd: AsyncFd<OwnedFd>,
}

impl PidFd {
    /// `None` when the process is already gone (or pidfds are unavailable).
    pub fn open(pid: i32) -> Option<Self> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new close-on-exec fd or -1.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let raw = i32::try_from(raw).ok().filter(|fd| *fd >= 0)?;
        // SAFETY: the kernel just gave us this descriptor; nothing else owns it.
        let owned = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: the AsyncFd owns the descriptor, which stays open and unchanged while it lives.
        unsafe { AsyncFd::register_with_interest(owned, Interest::READABLE) }.ok().map(|fd| Self { fd })
    }

    /// Resolves when the process has exited.
    pub async fn exited(&self) {
        if let Ok(mut guard) = self.fd.readable().await {
            guard.retain_ready();
        }
    }

    /// Sends SIGKILL to exactly this process.
    pub fn kill(&self) {
        // SAFETY: pidfd_send_signal on a pidfd we own, no siginfo, no flags.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.fd.get_ref().as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
    }

    /// Waits up to `grace` for the process to exit, then kills it and waits for that.
    pub async fn ensure_gone(&self, grace: Duration) {
        if tokio::time::timeout(grace, self.exited()).await.is_err() {
            self.kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), self.exited()).await;
        }
    }
}
