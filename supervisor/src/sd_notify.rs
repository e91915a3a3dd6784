//! Telling systemd how the service is doing (`sd_notify(3)`): one datagram per state to the
//! socket named by `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without that
//! variable (not started as a `Type=notify` unit) every call is a no-op.
//!
//! The supervisor sends `READY=1` with its `MAINPID` once both sockets are bound and the adoption
//! phase is over (so `systemctl start` returns only when the session answers), and `STOPPING=1`
//! when an orderly stop begins. Pane workers never see the variable (`workers/spawn.rs` removes
//! it), so nothing a pane runs can speak for the service.

use std::ffi::OsStr;
use std::io;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};

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
    fn sends_to_an_abstract_socket() {
        let name = format!("herdr-sd-notify-test-{}", std::process::id());
        let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("addr");
        let listener = UnixDatagram::bind_addr(&addr).expect("bind");
        let parsed = NotifyAddress::parse(OsStr::new(&format!("@{name}"))).expect("parsed");
        parsed.send(State::Stopping).expect("sent");
        assert!(received(&listener).starts_with("STOPPING=1\n"));
    }
}
