//! Telling systemd how the service is doing (`sd_notify(3)`): one datagram per state to the
//! socket named by `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without that
//! variable (not started as a `Type=notify` unit) every call is a no-op.
//!
//! The supervisor sends `READY=1` with its `MAINPID` once both sockets are bound and the adoption
//! phase is over (so `systemctl start` returns only when the session answers), and `STOPPING=1`
//! when an orderly stop begins. Pane workers never see the variable (the supervisor's `workers/spawn.rs` removes
//! it), so nothing a pane runs can speak for the service.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use sendfd::SendWithFd;

/// The variable systemd sets for `Type=notify` services.
pub const NOTIFY_SOCKET_ENV: &str = "NOTIFY_SOCKET";

/// One state to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Start-up is finished: the sockets answer. Carries our pid as `MAINPID`.
    Ready { main_pid: u32 },
    /// An orderly stop has begun.
    Stopping,
    /// A live handoff committed: `pid` (the importer) is the service's main process now. Sent by
    /// the old main process, the only one `NotifyAccess=main` listens to, before it exits.
    MainPid(u32),
}

impl State {
    /// The datagram's text: newline-separated `KEY=value` assignments.
    pub fn message(self) -> String {
        match self {
            State::Ready { main_pid } => format!("READY=1\nMAINPID={main_pid}\nSTATUS=listening\n"),
            State::Stopping => {
                "STOPPING=1\nSTATUS=stopping: saving the session, ending every pane\n".to_owned()
            }
            State::MainPid(pid) => format!("MAINPID={pid}\nSTATUS=handed over to {pid}\n"),
        }
    }
}

/// Where `$NOTIFY_SOCKET` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifyAddress {
    Path(std::path::PathBuf),
    /// `@name`: the abstract socket `name` (without the `@`).
    Abstract(Vec<u8>),
}

impl NotifyAddress {
    /// Parses the variable's value; `None` for an empty or unusable one (systemd only ever sets
    /// absolute paths or `@` names).
    pub fn parse(value: &OsStr) -> Option<Self> {
        let bytes = value.as_bytes();
        match bytes.first()? {
            b'@' => Some(NotifyAddress::Abstract(bytes[1..].to_vec())),
            b'/' => Some(NotifyAddress::Path(value.into())),
            _ => None,
        }
    }

    fn socket_addr(&self) -> io::Result<SocketAddr> {
        match self {
            NotifyAddress::Path(path) => SocketAddr::from_pathname(path),
            NotifyAddress::Abstract(name) => SocketAddr::from_abstract_name(name),
        }
    }

    /// Sends `state` here.
    pub fn send(&self, state: State) -> io::Result<()> {
        let socket = UnixDatagram::unbound()?;
        socket.send_to_addr(state.message().as_bytes(), &self.socket_addr()?)?;
        Ok(())
    }

    /// `sd_notify_barrier(3)`: sends `BARRIER=1` with the write end of a pipe and waits until the
    /// manager closes it, which it does once every earlier datagram from us has been processed.
    /// Returns whether that happened within `timeout`.
    pub fn barrier(&self, timeout: Duration) -> io::Result<bool> {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let socket = UnixDatagram::unbound()?;
        socket.connect_addr(&self.socket_addr()?)?;
        socket.send_with_fd(b"BARRIER=1\n", &[write.as_raw_fd()])?;
        drop(write);
        let mut fds = [PollFd::new(read.as_fd(), PollFlags::POLLHUP)];
        let millis = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
        Ok(poll(&mut fds, PollTimeout::from(millis))? > 0)
    }
}

/// Reports `state` and waits (at most `timeout`) until systemd has processed it. For the last
/// word of a process that is about to exit: a `MAINPID=` that systemd read only after it saw
/// this process exit would come too late (the unit would already have ended with its main
/// process). Without `$NOTIFY_SOCKET` this does nothing.
pub fn notify_and_wait(state: State, timeout: Duration) {
    notify(state);
    let Some(address) = std::env::var_os(NOTIFY_SOCKET_ENV).and_then(|v| NotifyAddress::parse(&v)) else {
        return;
    };
    match address.barrier(timeout) {
        Ok(true) => log::debug!("sd_notify: the manager has processed {state:?}"),
        Ok(false) => log::warn!("sd_notify: no barrier answer within {timeout:?} after {state:?}"),
        Err(e) => log::warn!("sd_notify: barrier failed: {e}"),
    }
}

/// Reports `state` to systemd when it started us; a failure is logged, never fatal.
pub fn notify(state: State) {
    let Some(value) = std::env::var_os(NOTIFY_SOCKET_ENV) else {
        return;
    };
    let Some(address) = NotifyAddress::parse(&value) else {
        log::warn!("sd_notify: ignoring {NOTIFY_SOCKET_ENV}={}", value.to_string_lossy());
        return;
    };
    match address.send(state) {
        Ok(()) => log::debug!("sd_notify: {:?}", state),
        Err(e) => log::warn!("sd_notify: cannot reach {}: {e}", value.to_string_lossy()),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn received(socket: &UnixDatagram) -> String {
        socket.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        let mut buf = [0u8; 512];
        let n = socket.recv(&mut buf).expect("a datagram");
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[test]
    fn parses_paths_and_abstract_names_only() {
        assert_eq!(
            NotifyAddress::parse(OsStr::new("/run/user/1000/systemd/notify")),
            Some(NotifyAddress::Path("/run/user/1000/systemd/notify".into()))
        );
        assert_eq!(
            NotifyAddress::parse(OsStr::new("@/org/freedesktop/systemd1/notify/123")),
            Some(NotifyAddress::Abstract(b"/org/freedesktop/systemd1/notify/123".to_vec()))
        );
        assert_eq!(NotifyAddress::parse(OsStr::new("")), None);
        assert_eq!(NotifyAddress::parse(OsStr::new("relative/notify")), None);
    }

    #[test]
    fn ready_carries_the_main_pid() {
        assert_eq!(State::Ready { main_pid: 42 }.message(), "READY=1\nMAINPID=42\nSTATUS=listening\n");
        assert!(State::Stopping.message().starts_with("STOPPING=1\n"));
    }

    #[test]
    fn sends_to_a_path_socket() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("notify");
        let listener = UnixDatagram::bind(&path).expect("bind");
        NotifyAddress::Path(path).send(State::Ready { main_pid: 7 }).expect("sent");
        assert_eq!(received(&listener), "READY=1\nMAINPID=7\nSTATUS=listening\n");
    }

    #[test]
    fn a_barrier_returns_once_the_manager_closes_its_fd() {
        use sendfd::RecvWithFd;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("notify");
        let listener = UnixDatagram::bind(&path).expect("bind");
        let manager = std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            let mut fds = [0; 2];
            let (n, nfds) = listener.recv_with_fd(&mut buf, &mut fds).expect("a datagram with an fd");
            assert_eq!((&buf[..n], nfds), (&b"BARRIER=1\n"[..], 1));
            // A manager that has processed everything closes the fd.
            // SAFETY: the fd was just received and is owned by nothing else.
            drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) });
        });
        assert!(NotifyAddress::Path(path.clone()).barrier(Duration::from_secs(5)).expect("barrier"));
        manager.join().expect("manager");

        // One that never answers: the wait ends at the timeout.
        let silent = dir.path().join("silent");
        let _held = UnixDatagram::bind(&silent).expect("bind");
        let answered = NotifyAddress::Path(silent).barrier(Duration::from_millis(50)).expect("barrier");
        assert!(!answered);
    }

    #[test]
    fn sends_to_an_abstract_socket() {
        let name = format!("herdr-sd-notify-test-{}", std::process::id());
        let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("addr");
        let listener = UnixDatagram::bind_addr(&addr).expect("bind");
        let parsed = NotifyAddress::parse(OsStr::new(&format!("@{name}"))).expect("parsed");
        parsed.send(State::Stopping).expect("sent");
        assert!(received(&listener).starts_with("STOPPING=1\n"));
    }
}
