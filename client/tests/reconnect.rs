//! The attach loop against real servers on a Unix socket in a temp dir, speaking the client
//! protocol: a server goes away without `Shutdown` and the client comes back to the next one at
//! the same path. The terminal side is a socket pair for the keyboard and a buffer for the
//! screen, so no TTY is needed.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use herdr_client::{AttachError, AttachOptions, Controls, ExitReason, ReconnectPolicy, Session, TerminalIo};
use herdr_protocol::client::{
    CLIENT_PROTOCOL_VERSION, ClientToServer, Encoding, ServerToClient, ShutdownReason,
};
use herdr_protocol::ipc::{FrameDecoder, encode_frame};

const DEADLINE: Duration = Duration::from_secs(10);
const RECONNECTING: &str = "reconnecting…";
const RESET_SCREEN: &str = "\x1b[0m\x1b[H\x1b[2J";

/// Quick retries so the tests do not wait on the real schedule.
fn fast_policy() -> ReconnectPolicy {
    ReconnectPolicy {
        first_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        give_up_after: DEADLINE,
        hook_interval: Duration::from_secs(30),
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

/// The server's end of one client connection.
struct Peer {
    stream: UnixStream,
    frames: FrameDecoder,
}

impl Peer {
    /// Accepts a client and reads its `Hello`, without answering yet.
    fn accept(listener: &UnixListener) -> (Peer, ClientToServer) {
        let (stream, _) = listener.accept().expect("accept");
        stream.set_read_timeout(Some(DEADLINE)).expect("read timeout");
        let mut peer = Peer { stream, frames: FrameDecoder::new() };
        let hello = peer.recv();
        (peer, hello)
    }

    fn recv(&mut self) -> ClientToServer {
        let mut buf = [0u8; 4096];
        loop {
            if let Some(msg) = self.frames.next_frame().expect("a valid frame") {
                return msg;
            }
            let n = self.stream.read(&mut buf).expect("the client sends before the deadline");
            assert_ne!(n, 0, "the client closed the connection");
            self.frames.push(&buf[..n]);
        }
    }

    fn send(&mut self, msg: &ServerToClient) {
        self.stream.write_all(&encode_frame(msg).expect("encode")).expect("send to the client");
    }

    fn welcome(&mut self) {
        self.send(&ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None });
    }
}

fn hello(cols: u16, rows: u16) -> ClientToServer {
    ClientToServer::Hello { version: CLIENT_PROTOCOL_VERSION, cols, rows, encoding: Encoding::CellDiff }
}

fn socket_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("herdr-client.sock")
}

/// A new server at `path`, as a restarted supervisor does it: the dead one's socket file goes.
fn bind_again(path: &Path) -> UnixListener {
    let _ = std::fs::remove_file(path);
    UnixListener::bind(path).expect("bind the second server")
}

/// What the client wrote to its terminal.
#[derive(Clone, Default)]
struct Screen(Arc<Mutex<Vec<u8>>>);

impl Screen {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("screen lock")).into_owned()
    }

    fn shows(&self, needle: &str) -> bool {
        self.text().contains(needle)
    }
}

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("screen lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The client's input: reports each read it starts, which means the chunk before was handled.
struct Keys {
    inner: UnixStream,
    reads: Sender<()>,
}

impl Read for Keys {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let _ = self.reads.send(());
        self.inner.read(buf)
    }
}

/// One attached client and the first server it is attached to.
struct Harness {
    path: PathBuf,
    listener: Option<UnixListener>,
    peer: Option<Peer>,
    screen: Screen,
    keyboard: UnixStream,
    reads: Receiver<()>,
    size: Arc<Mutex<(u16, u16)>>,
    controls: Controls,
    run: JoinHandle<Result<ExitReason, AttachError>>,
    _dir: tempfile::TempDir,
}

impl Harness {
    fn start(options: AttachOptions) -> Harness {
        Harness::start_in(tempfile::tempdir().expect("temp dir"), options)
    }

    fn start_in(dir: tempfile::TempDir, options: AttachOptions) -> Harness {
        Harness::start_full(dir, options, false)
    }

    /// With the keyboard socket's client end also given as the terminal to offer on reconnects
    /// (readable when the keyboard is typed into, as a terminal is).
    fn start_offering(options: AttachOptions) -> Harness {
        Harness::start_full(tempfile::tempdir().expect("temp dir"), options, true)
    }

    fn start_full(dir: tempfile::TempDir, options: AttachOptions, offer: bool) -> Harness {
        let path = socket_path(&dir);
        let listener = UnixListener::bind(&path).expect("bind the first server");
        let server = thread::spawn(move || {
            let (mut peer, hello) = Peer::accept(&listener);
            peer.welcome();
            (listener, peer, hello)
        });
        let link = herdr_client::connect(&path, 80, 24).expect("the first server welcomes");
        let (listener, peer, first_hello) = server.join().expect("first server");
        assert_eq!(first_hello, hello(80, 24));

        let (keyboard, keys) = UnixStream::pair().expect("socket pair");
        let terminal =
            offer.then(|| File::from(OwnedFd::from(keys.try_clone().expect("dup the keys socket"))));
        let (reads_tx, reads) = mpsc::channel();
        let screen = Screen::default();
        let size = Arc::new(Mutex::new((80, 24)));
        let read_size = size.clone();
        let io = TerminalIo {
            input: Box::new(Keys { inner: keys, reads: reads_tx }),
            terminal,
            output: Box::new(screen.clone()),
            size: Box::new(move || Ok(*read_size.lock().expect("size lock"))),
        };
        let session = Session::new(&path, link, io, options).expect("session");
        let controls = session.controls();
        let run = thread::spawn(move || session.run());
        // A thread watching a terminal starts a read only once there is input.
        if !offer {
            reads.recv_timeout(DEADLINE).expect("the input thread starts reading");
        }
        Harness {
            path,
            listener: Some(listener),
            peer: Some(peer),
            screen,
            keyboard,
            reads,
            size,
            controls,
            run,
            _dir: dir,
        }
    }

    fn peer(&mut self) -> &mut Peer {
        self.peer.as_mut().expect("the first server is up")
    }

    /// The first server dies without a word, as under `kill -9`: its socket file stays behind.
    fn kill_server(&mut self) {
        self.peer = None;
        self.listener = None;
        wait_until("the client says it is reconnecting", || self.screen.shows(RECONNECTING));
    }

    /// Types `bytes` and waits until the client has handled them.
    fn type_keys(&mut self, bytes: &[u8]) {
        while self.reads.try_recv().is_ok() {}
        self.keyboard.write_all(bytes).expect("type");
        self.reads.recv_timeout(DEADLINE).expect("the client handles the keys");
    }

    fn outcome(self) -> Result<ExitReason, AttachError> {
        let deadline = Instant::now() + DEADLINE;
        while !self.run.is_finished() {
            assert!(Instant::now() < deadline, "the attach did not end");
            thread::sleep(Duration::from_millis(5));
        }
        self.run.join().expect("the attach loop does not panic")
    }
}

#[test]
fn a_lost_connection_resumes_on_the_next_server_at_the_same_path() {
    let mut h = Harness::start(AttachOptions { reconnect: fast_policy(), ..AttachOptions::default() });
    h.peer().send(&ServerToClient::Ansi(b"first picture".to_vec()));
    wait_until("the first paint is shown", || h.screen.shows("first picture"));

    h.kill_server();
    assert!(h.screen.shows("first picture"), "the last picture stays");
    assert!(h.screen.text().contains("\x1b[24;1H\x1b[0;7mherdr: connection to the server lost"));
    h.type_keys(b"typed while away");
    *h.size.lock().expect("size lock") = (100, 30);
    h.controls.resized();
    wait_until("the notice moves to the new bottom row", || h.screen.shows("\x1b[30;1H\x1b[0;7m"));

    let listener = bind_again(&h.path);
    let (mut peer, second_hello) = Peer::accept(&listener);
    assert_eq!(second_hello, hello(100, 30), "the new Hello carries the current size");
    peer.welcome();
    peer.send(&ServerToClient::Ansi(b"second picture".to_vec()));
    wait_until("the second paint is shown", || h.screen.shows("second picture"));
    let text = h.screen.text();
    let notice = text.rfind(RECONNECTING).expect("notice");
    let reset = notice + text[notice..].find(RESET_SCREEN).expect("the screen is reset after the notice");
    assert!(text[reset..].contains("second picture"), "the reset comes before the new paint");

    // Keys typed during a short outage (a live handoff takes well under a second) reach the
    // next server before anything typed after.
    assert_eq!(peer.recv(), ClientToServer::Input(b"typed while away".to_vec()), "held for the next server");
    h.type_keys(b"hello");
    assert_eq!(peer.recv(), ClientToServer::Input(b"hello".to_vec()));
    *h.size.lock().expect("size lock") = (90, 20);
    h.controls.resized();
    assert_eq!(peer.recv(), ClientToServer::Resize { cols: 90, rows: 20 });

    peer.send(&ServerToClient::Shutdown { reason: ShutdownReason::Detached });
    assert_eq!(h.outcome().expect("attach"), ExitReason::Detached);
}

#[test]
fn a_reconnect_offers_the_terminal_again_and_stops_reading_it_once_taken() {
    let mut h =
        Harness::start_offering(AttachOptions { reconnect: fast_policy(), ..AttachOptions::default() });
    h.type_keys(b"read by the client");
    assert_eq!(h.peer().recv(), ClientToServer::Input(b"read by the client".to_vec()));
    h.kill_server();

    // The next Hello carries the terminal.
    let listener = bind_again(&h.path);
    let (stream, _) = listener.accept().expect("accept");
    stream.set_read_timeout(Some(DEADLINE)).expect("read timeout");
    let mut buf = [0u8; 4096];
    let mut fds: [RawFd; 2] = [-1; 2];
    let (n, count) = sendfd::RecvWithFd::recv_with_fd(&stream, &mut buf, &mut fds).expect("the Hello");
    assert_eq!(count, 1, "one descriptor came with the Hello");
    // SAFETY: the kernel just installed it for this test.
    let terminal = unsafe { OwnedFd::from_raw_fd(fds[0]) };
    let mut peer = Peer { stream, frames: FrameDecoder::new() };
    peer.frames.push(&buf[..n]);
    assert_eq!(peer.recv(), hello(80, 24));
    peer.welcome();
    peer.send(&ServerToClient::TerminalTaken);
    assert_eq!(peer.recv(), ClientToServer::TerminalReady);

    // From now on the keys are the server's to read from the terminal; the client reads none
    // (an input thread still watching would start a read within microseconds of the keys).
    while h.reads.try_recv().is_ok() {}
    h.keyboard.write_all(b"for the server").expect("type");
    let read = h.reads.recv_timeout(Duration::from_millis(300));
    assert!(read.is_err(), "the client read its terminal after the server took it");
    let mut taken = UnixStream::from(terminal);
    taken.set_read_timeout(Some(DEADLINE)).expect("read timeout");
    let mut got = [0u8; 32];
    let n = taken.read(&mut got).expect("the keys are still there for the server to read");
    assert_eq!(&got[..n], b"for the server");

    peer.send(&ServerToClient::Shutdown { reason: ShutdownReason::Detached });
    assert_eq!(h.outcome().expect("attach"), ExitReason::Detached);
}

fn counting_hook(
    calls: &Arc<AtomicUsize>,
    mut then: impl FnMut() -> Result<(), herdr_client::HookError> + Send + 'static,
) -> AttachOptions {
    let calls = calls.clone();
    AttachOptions {
        on_server_missing: Some(Box::new(move || {
            calls.fetch_add(1, Ordering::SeqCst);
            then()
        })),
        reconnect: fast_policy(),
        keys: None,
    }
}

#[test]
fn a_stopping_server_ends_the_attach_without_a_reconnect() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut h = Harness::start(counting_hook(&calls, || Ok(())));
    h.peer().send(&ServerToClient::Shutdown { reason: ShutdownReason::ServerStopping });
    h.peer = None;
    let listener = h.listener.take().expect("listener");
    let screen = h.screen.clone();
    assert_eq!(h.outcome().expect("attach"), ExitReason::ServerStopping);

    listener.set_nonblocking(true).expect("nonblocking");
    let again = listener.accept().map(drop);
    assert_eq!(again.map_err(|e| e.kind()), Err(io::ErrorKind::WouldBlock), "no reconnect attempt");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no server was started");
    assert!(!screen.shows(RECONNECTING));
}

#[test]
fn the_hook_starts_a_server_when_nobody_listens() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (started_tx, started) = mpsc::channel();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = socket_path(&dir);
    let options = counting_hook(&calls, move || {
        let listener = bind_again(&path);
        started_tx.send(listener).map_err(|e| e.to_string().into())
    });
    let mut h = Harness::start_in(dir, options);

    // Gone with its socket file this time: connecting finds nothing at the path.
    std::fs::remove_file(&h.path).expect("remove the socket file");
    h.peer = None;
    h.listener = None;
    let listener = started.recv_timeout(DEADLINE).expect("the hook runs");
    let (mut peer, second_hello) = Peer::accept(&listener);
    assert_eq!(second_hello, hello(80, 24));
    wait_until("the notice says a server is starting", || h.screen.shows("starting a new server…"));
    peer.welcome();
    peer.send(&ServerToClient::Shutdown { reason: ShutdownReason::Detached });
    assert_eq!(h.outcome().expect("attach"), ExitReason::Detached);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn ctrl_b_q_detaches_while_disconnected() {
    let mut h = Harness::start(AttachOptions { reconnect: fast_policy(), ..AttachOptions::default() });
    h.kill_server();
    h.type_keys(b"\x02");
    h.type_keys(b"q");
    assert_eq!(h.outcome().expect("attach"), ExitReason::Detached);
}

#[test]
fn the_terminal_closing_while_disconnected_ends_the_attach() {
    let mut h = Harness::start(AttachOptions { reconnect: fast_policy(), ..AttachOptions::default() });
    h.kill_server();
    h.keyboard.shutdown(std::net::Shutdown::Write).expect("end of input");
    assert_eq!(h.outcome().expect("attach"), ExitReason::TerminalClosed);
}

#[test]
fn without_a_server_the_attach_gives_up_with_the_last_error() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut options = counting_hook(&calls, || Err("the server exited before answering".into()));
    options.reconnect.give_up_after = Duration::from_millis(300);
    let mut h = Harness::start(options);
    h.kill_server();
    let outcome = h.outcome().expect("attach");
    let ExitReason::ConnectionLost { waited, last_error } = outcome else {
        panic!("expected ConnectionLost, got {outcome:?}");
    };
    assert_eq!(waited, Duration::from_millis(300));
    let last_error = last_error.expect("a last error");
    assert!(last_error.contains("the server exited before answering"), "{last_error}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "throttled to one start per interval");
}

#[test]
fn a_server_refusing_the_new_hello_ends_the_attach_with_its_reason() {
    let mut h = Harness::start(AttachOptions { reconnect: fast_policy(), ..AttachOptions::default() });
    h.kill_server();
    let listener = bind_again(&h.path);
    let (mut peer, _) = Peer::accept(&listener);
    peer.send(&ServerToClient::Welcome {
        version: CLIENT_PROTOCOL_VERSION + 1,
        error: Some("protocol mismatch".into()),
    });
    let outcome = h.outcome();
    assert!(
        matches!(&outcome, Err(AttachError::Refused(reason)) if reason == "protocol mismatch"),
        "{outcome:?}"
    );
}

#[test]
fn the_clients_own_keys_follow_every_hello_including_after_a_reconnect() {
    let keys = "[keys]\nprefix = \"ctrl+a\"\n".to_owned();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = socket_path(&dir);
    let listener = UnixListener::bind(&path).expect("bind");
    let server = thread::spawn(move || {
        let (mut peer, hello) = Peer::accept(&listener);
        let next = peer.recv();
        peer.welcome();
        (hello, next)
    });
    herdr_client::connect_with_keys(&path, 80, 24, Some(&keys)).expect("welcomed");
    let (first, next) = server.join().expect("server");
    assert_eq!(first, hello(80, 24));
    assert_eq!(next, ClientToServer::Keys(keys.clone()), "the keys come right after Hello");

    let options =
        AttachOptions { reconnect: fast_policy(), keys: Some(keys.clone()), ..AttachOptions::default() };
    let mut h = Harness::start(options);
    h.kill_server();
    let listener = bind_again(&h.path);
    let (mut peer, second_hello) = Peer::accept(&listener);
    assert_eq!(second_hello, hello(80, 24));
    assert_eq!(peer.recv(), ClientToServer::Keys(keys), "a reconnect sends the keys again");
    peer.welcome();
    peer.send(&ServerToClient::Shutdown { reason: ShutdownReason::Detached });
    assert_eq!(h.outcome().expect("attach"), ExitReason::Detached);
}
