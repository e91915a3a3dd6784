//! Watching the pane's program: a pidfd tells when it exits (whether the worker started it or
//! adopted it after a worker crash), and reaping yields its status when the worker is the parent.
//! Also the hang-up used by `Shutdown`. No polling: the pidfd sleeps in epoll.

use std::{
    io,
    os::fd::{AsRawFd, FromRawFd, OwnedFd},
};

use tokio::io::{Interest, unix::AsyncFd};

/// How the program ended, as far as the worker can know.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExitStatus {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// The pane's program.
#[derive(Debug)]
pub struct Program {
    pid: i32,
    /// Only a parent may reap; an adopted program belongs to the supervisor (a subreaper).
    is_parent: bool,
    /// `None` when the process was already gone when we started watching.
    pidfd: Option<AsyncFd<OwnedFd>>,
}

impl Program {
    pub fn watch(pid: i32, is_parent: bool) -> io::Result<Self> {
        let pidfd = match pidfd_open(pid) {
            // SAFETY: the AsyncFd owns the OwnedFd, so the fd stays open and unchanged for its
            // whole life.
            Ok(fd) => Some(
                unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
                    .map_err(|e| e.into_parts().1)?,
            ),
            Err(err) if err.raw_os_error() == Some(libc::ESRCH) => None,
            Err(err) => return Err(err),
        };
        Ok(Self { pid, is_parent, pidfd })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Resolves once the program has exited (the pidfd turns readable).
    pub async fn exited(&self) -> io::Result<()> {
        match &self.pidfd {
            Some(fd) => fd.readable().await.map(|mut guard| guard.retain_ready()),
            None => Ok(()),
        }
    }

    /// Reaps the exited program when the worker is its parent; otherwise the status is unknown.
    pub fn reap(&self) -> ExitStatus {
        if !self.is_parent {
            return ExitStatus::default();
        }
        let mut status = 0;
        // SAFETY: waitpid on our own child with a valid status pointer.
        let got = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        if got != self.pid {
            return ExitStatus::default();
        }
        if libc::WIFEXITED(status) {
            ExitStatus { code: Some(libc::WEXITSTATUS(status)), signal: None }
        } else if libc::WIFSIGNALED(status) {
            ExitStatus { code: None, signal: Some(libc::WTERMSIG(status)) }
        } else {
            ExitStatus::default()
        }
    }

    /// Whether the program is still running (exited-but-unreaped counts as gone).
    pub fn is_running(&self) -> bool {
        let Some(fd) = &self.pidfd else { return false };
        let mut pfd = libc::pollfd { fd: fd.get_ref().as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: poll on one valid pollfd with a zero timeout.
        let ready = unsafe { libc::poll(&mut pfd, 1, 0) };
        ready == 0
    }

    /// Sends `signal` to the program's process group (it is a session and group leader) and to
    /// the terminal's foreground group, which may be a job the program started.
    pub fn signal_groups(&self, signal: i32, foreground: Option<i32>) {
        if !self.is_running() {
            return;
        }
        // SAFETY: kill(2) with negative pids addresses process groups; errors (already gone)
        // are harmless here.
        unsafe {
            libc::kill(-self.pid, signal);
            if let Some(pgrp) = foreground.filter(|&g| g != self.pid) {
                libc::kill(-pgrp, signal);
            }
        }
    }

    /// Nudges the foreground group to redraw, for when a resize to the same size sends nothing.
    pub fn send_winch(foreground: Option<i32>) {
        if let Some(pgrp) = foreground {
            // SAFETY: signalling a process group; failure means there is nobody to redraw.
            unsafe { libc::kill(-pgrp, libc::SIGWINCH) };
        }
    }
}

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd (close-on-exec by default).
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(|_| io::Error::other("pidfd out of range"))?;
    // SAFETY: the kernel just gave us this fd.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
