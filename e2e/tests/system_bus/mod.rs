//! A private system bus and a stand-in systemd-logind on it, for `tests/logind.rs`.
//!
//! [`SystemBus`] runs `dbus-daemon` on a socket in a temp dir (never the machine's bus); the
//! server under test finds it through `DBUS_SYSTEM_BUS_ADDRESS`. [`FakeLogind`] owns
//! `org.freedesktop.login1` there and answers `Manager.Inhibit` the way logind does: with a
//! descriptor whose other end it keeps, so EOF on that end means the inhibitor was released.
//! It announces shutdowns with `PrepareForShutdown`, as logind does before it waits.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use futures_core::Stream;
use zbus::message::Type as MessageType;
use zbus::{Connection, MessageStream};

const SERVICE: &str = "org.freedesktop.login1";
const PATH: &str = "/org/freedesktop/login1";
const MANAGER: &str = "org.freedesktop.login1.Manager";

/// How long the daemon may take to say where it listens.
const STARTUP: Duration = Duration::from_secs(10);

/// Everyone may own, send and receive anything: the bus exists for one test.
const CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=SOCKET</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"#;

/// A `dbus-daemon` serving as the system bus for one test; killed on drop.
pub struct SystemBus {
    daemon: Child,
    address: String,
}

impl SystemBus {
    /// Starts the daemon with its socket and config in `dir`, and waits for its address.
    pub fn start(dir: &Path) -> Self {
        let socket = dir.join("system_bus_socket");
        let config = dir.join("system-bus.conf");
        std::fs::write(&config, CONFIG.replace("SOCKET", &socket.display().to_string()))
            .expect("write the bus config");
        // Its complaints (it cannot raise the fd limit unprivileged) stay out of the test output.
        let log_path = dir.join("dbus-daemon.log");
        let log = File::create(&log_path).expect("create the bus log");
        let mut daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start dbus-daemon (scripts/install-test-deps.sh installs it)");
        let stdout = daemon.stdout.take().expect("the daemon's stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        // The daemon prints its address once it listens; EOF (an empty line) means it failed.
        let address = match rx.recv_timeout(STARTUP) {
            Ok(line) if !line.trim().is_empty() => line.trim().to_owned(),
            outcome => {
                let _ = daemon.kill();
                let status = daemon.wait();
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("dbus-daemon did not start ({outcome:?}, {status:?}):\n{log}");
            }
        };
        Self { daemon, address }
    }

    /// What `DBUS_SYSTEM_BUS_ADDRESS` must say to reach this bus.
    pub fn address(&self) -> &str {
        &self.address
    }
}

impl Drop for SystemBus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// One `Inhibit` call as logind received it, and our end of the descriptor it answered with.
pub struct Inhibitor {
    pub what: String,
    pub who: String,
    pub why: String,
    pub mode: String,
    held: UnixStream,
}

impl Inhibitor {
    /// Whether the caller closed its descriptor: logind's sign that the inhibitor is released.
    pub fn released(&self) -> bool {
        let mut byte = [0u8; 1];
        match (&self.held).read(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(error) if error.kind() == ErrorKind::WouldBlock => false,
            Err(error) => panic!("reading our end of an inhibitor: {error}"),
        }
    }
}

/// `org.freedesktop.login1` on a [`SystemBus`], served from the test process.
pub struct FakeLogind {
    runtime: tokio::runtime::Runtime,
    connection: Connection,
    inhibitors: Arc<Mutex<Vec<Inhibitor>>>,
}

impl FakeLogind {
    /// Owns the login1 name on `bus` (before returning, so a server started next finds it).
    pub fn start(bus: &SystemBus) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime for the stand-in logind");
        let connection = runtime
            .block_on(zbus::connection::Builder::address(bus.address()).name(SERVICE).build())
            .expect("own org.freedesktop.login1 on the private bus");
        let inhibitors = Arc::new(Mutex::new(Vec::new()));
        runtime.spawn(serve(connection.clone(), Arc::clone(&inhibitors)));
        Self { runtime, connection, inhibitors }
    }

    /// `PrepareForShutdown(shutting_down)`, broadcast as logind does.
    pub fn announce(&self, shutting_down: bool) {
        self.runtime
            .block_on(self.connection.emit_signal(
                None::<&str>,
                PATH,
                MANAGER,
                "PrepareForShutdown",
                &shutting_down,
            ))
            .expect("emit PrepareForShutdown");
    }

    /// Runs `look` on the inhibitors taken so far, oldest first.
    pub fn inhibitors<T>(&self, look: impl FnOnce(&[Inhibitor]) -> T) -> T {
        look(&self.inhibitors.lock().expect("the inhibitor list"))
    }
}

/// Answers `Manager.Inhibit` with one end of a fresh socketpair; every other call is refused.
async fn serve(connection: Connection, inhibitors: Arc<Mutex<Vec<Inhibitor>>>) {
    let mut messages = MessageStream::from(&connection);
    while let Some(Ok(message)) = std::future::poll_fn(|cx| Pin::new(&mut messages).poll_next(cx)).await {
        if message.message_type() != MessageType::MethodCall {
            continue;
        }
        let header = message.header();
        let is_inhibit = header.interface().is_some_and(|i| i.as_str() == MANAGER)
            && header.member().is_some_and(|m| m.as_str() == "Inhibit");
        let body = message.body();
        let args: Option<(String, String, String, String)> =
            if is_inhibit { body.deserialize().ok() } else { None };
        let Some((what, who, why, mode)) = args else {
            let _ = connection
                .reply_error(&header, "org.freedesktop.DBus.Error.UnknownMethod", &"not in this stand-in")
                .await;
            continue;
        };
        let (held, given) = UnixStream::pair().expect("a socketpair");
        held.set_nonblocking(true).expect("non-blocking");
        connection.reply(&header, &zbus::Fd::from(&given)).await.expect("answer Inhibit");
        // The reply carried a duplicate; from now on only the caller holds the other end.
        drop(given);
        inhibitors.lock().expect("the inhibitor list").push(Inhibitor { what, who, why, mode, held });
    }
}
