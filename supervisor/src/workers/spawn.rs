//! Starting a `herdr-pane-worker` process with one end of a fresh socketpair as fd 3 and the
//! configured scrollback budget.

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The fd number the worker finds its link on (`--ipc-fd 3`).
const CHILD_LINK_FD: i32 = 3;

/// A started worker: its pid and our end of the link.
#[derive(Debug)]
pub struct Started {
    pub pid: i32,
    pub link: tokio::net::UnixStream,
}

/// Spawns the worker in a session of its own: a Ctrl+C aimed at a foreground `herdr server`, or
/// the hangup of the terminal it was started from, must not reach panes, which outlive this
/// supervisor. The supervisor reaps it through its SIGCHLD handler, never through the `Child`
/// handle.
pub fn start(worker_exe: &Path, scrollback_limit_bytes: usize) -> io::Result<Started> {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair()?;
    let child_fd = theirs.as_raw_fd();
    let mut cmd = Command::new(worker_exe);
    cmd.arg("--ipc-fd")
        .arg(CHILD_LINK_FD.to_string())
        .arg(format!("--scrollback-limit-bytes={scrollback_limit_bytes}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        // Ours as a systemd service: a pane program must not be able to notify systemd as the
        // supervisor, nor take the service's journal stream for its own.
        .env_remove(herdr_host::sd_notify::NOTIFY_SOCKET_ENV)
        .env_remove(herdr_host::logging::JOURNAL_STREAM_ENV);
    // SAFETY: only async-signal-safe calls (setsid, dup2, fcntl) run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            if child_fd == CHILD_LINK_FD {
                let flags = libc::fcntl(child_fd, libc::F_GETFD);
                if flags < 0 || libc::fcntl(child_fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(io::Error::last_os_error());
                }
            } else if libc::dup2(child_fd, CHILD_LINK_FD) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    drop(theirs);
    ours.set_nonblocking(true)?;
    let pid = i32::try_from(child.id()).map_err(|_| io::Error::other("worker pid out of range"))?;
    // The Child handle is dropped without waiting: reaping happens in `reaper`.
    drop(child);
    Ok(Started { pid, link: tokio::net::UnixStream::from_std(ours)? })
}
