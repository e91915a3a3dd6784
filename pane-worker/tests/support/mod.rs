//! Plays the supervisor for integration tests: a socketpair, the real worker binary with
//! `--ipc-fd`, frames and fds both ways, and waits with deadlines on named conditions. Each
//! worker gets an identity naming its own socket in a private temp dir, so a test can also play
//! the new supervisor that re-adopts it.

#![allow(dead_code, reason = "each test binary uses a different part of the harness")]

pub mod asleep;

use std::{
    io::{self, Write},
    ops::{Deref, DerefMut},
    os::{
        fd::{AsRawFd, FromRawFd, OwnedFd, RawFd},
        unix::{net::UnixStream, process::CommandExt},
    },
    path::PathBuf,
    process::{Child, Command, ExitStatus},
    sync::Once,
    time::{Duration, Instant},
};

use herdr_protocol::ipc::{
    FrameDecoder, IPC_VERSION, MIN_IPC_VERSION, Matcher, ReadFormat, ReadOutput, ReadSource, ReadSpec, Start,
    SupervisorToWorker, WorkerEvent, WorkerIdentity, WorkerRequest, WorkerResponse, WorkerToSupervisor,
    encode_frame,
};
use sendfd::{RecvWithFd, SendWithFd};

pub const DEADLINE: Duration = Duration::from_secs(15);

/// The session secret every test worker is given.
pub const SECRET: &str = "test-session-secret";

/// The pane uid of every test worker (each has its own socket directory).
pub const UID: &str = "00c0ffee00c0ffee";

/// Long enough that no worker gives up during a test unless the test asks for less.
pub const ORPHAN_TIMEOUT_MS: u64 = 120_000;

/// Makes the test process a child subreaper, as the supervisor is, so programs whose worker
/// died are reparented to us and can be reaped.
pub fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument.
        let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        assert_eq!(rc, 0, "prctl(PR_SET_CHILD_SUBREAPER)");
    });
}

/// No frame arrived before the deadline.
#[derive(Debug)]
pub struct Timeout;

/// A worker process, where its socket is, and the connection of the supervisor it is linked to
/// (whose frame methods are reached through the `Worker`).
pub struct Worker {
    pub child: Child,
    conn: Conn,
    /// The 0700 directory the socket lives in (the session's `workers/` dir).
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    pub orphan_timeout_ms: u64,
}

impl Deref for Worker {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        &self.conn
    }
}

impl DerefMut for Worker {
    fn deref_mut(&mut self) -> &mut Conn {
        &mut self.conn
    }
}

/// What `Adopted` said, and the PTY master fd that came beside it.
#[derive(Debug)]
pub struct Adopted {
    pub worker_pid: i32,
    pub child_pid: i32,
    pub size: (u16, u16),
    pub master: OwnedFd,
}

impl Worker {
    /// Starts the worker binary with its end of a fresh socketpair as fd 3.
    pub fn start() -> Self {
        Self::start_with(&[], ORPHAN_TIMEOUT_MS)
    }

    /// As `start`, with extra environment for the worker (e.g. its config dir).
    pub fn start_with_env(env: &[(&str, &str)]) -> Self {
        Self::start_with(env, ORPHAN_TIMEOUT_MS)
    }

    /// As `start`, with extra environment and the orphan timeout its identity will carry.
    pub fn start_with(env: &[(&str, &str)], orphan_timeout_ms: u64) -> Self {
        let dir = tempfile::tempdir().expect("socket dir");
        let socket = dir.path().join(format!("{UID}.sock"));
        Self::start_at(dir, socket, env, orphan_timeout_ms)
    }

    /// Starts a worker whose identity names `socket` (normally inside `dir`, which it keeps).
    pub fn start_at(
        dir: tempfile::TempDir,
        socket: PathBuf,
        env: &[(&str, &str)],
        orphan_timeout_ms: u64,
    ) -> Self {
        become_subreaper();
        let (ours, theirs) = UnixStream::pair().expect("socketpair");
        let raw = theirs.as_raw_fd();
        // HERDR_TEST_WORKER_BIN drives another build (e.g. release, to measure its footprint).
        let bin = std::env::var_os("HERDR_TEST_WORKER_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_herdr-pane-worker").into());
        let mut cmd = Command::new(bin);
        cmd.args(["--ipc-fd", "3"]);
        cmd.envs(env.iter().copied());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if raw == 3 {
                    // dup2 onto itself would keep close-on-exec; clear it instead.
                    if libc::fcntl(3, libc::F_SETFD, 0) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                } else if libc::dup2(raw, 3) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn worker");
        drop(theirs);
        Self { child, conn: Conn::new(ours), dir, socket, orphan_timeout_ms }
    }

    pub fn identity(&self) -> WorkerIdentity {
        WorkerIdentity {
            uid: UID.into(),
            socket: self.socket.to_str().expect("utf-8 socket path").into(),
            secret: SECRET.into(),
            orphan_timeout_ms: self.orphan_timeout_ms,
        }
    }

    /// The first frame on the inherited link, as the supervisor sends it.
    pub fn hello(&mut self, start: Start) {
        let identity = self.identity();
        self.send(&SupervisorToWorker::Hello {
            version: IPC_VERSION,
            min_version: MIN_IPC_VERSION,
            start,
            identity,
        });
    }

    /// As `hello`, with `fd` beside the frame (`Start::Adopt` carries the PTY master).
    pub fn hello_with_fd(&mut self, start: Start, fd: RawFd) {
        let identity = self.identity();
        let hello =
            SupervisorToWorker::Hello { version: IPC_VERSION, min_version: MIN_IPC_VERSION, start, identity };
        self.send_with_fd(&hello, fd);
    }

    /// Handshake plus spawn; returns the program's pid and the PTY master dup.
    pub fn spawn(
        &mut self,
        argv: &[&str],
        env: &[(&str, &str)],
        cwd: Option<&str>,
        size: (u16, u16),
    ) -> (i32, OwnedFd) {
        self.hello(spawn_start(argv, env, cwd, size, false));
        self.expect_hello();
        let pid = self.expect("Spawned", |f| match f {
            WorkerToSupervisor::Spawned { child_pid } => Some(*child_pid),
            WorkerToSupervisor::SpawnFailed { message } => panic!("spawn failed: {message}"),
            _ => None,
        });
        (pid, self.take_fd())
    }

    /// A new connection to the worker's socket, as a new supervisor makes it.
    pub fn connect(&self) -> Conn {
        Conn::new(UnixStream::connect(&self.socket).expect("connect to the worker socket"))
    }

    /// Plays a new supervisor: connects, adopts with the session secret, and talks on that
    /// connection from then on.
    pub fn adopt(&mut self) -> Adopted {
        let mut conn = self.connect();
        let adopted = conn.adopt(IPC_VERSION, SECRET).unwrap_or_else(|reason| panic!("refused: {reason}"));
        // Request ids go on from the old link's, so a test can tell whose answer is whose.
        conn.next_id = self.conn.next_id;
        self.conn = conn;
        adopted
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "worker did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the worker process is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `Start::Spawn` for `argv` with `env` (in order), `cwd` and `size`.
pub fn spawn_start(
    argv: &[&str],
    env: &[(&str, &str)],
    cwd: Option<&str>,
    size: (u16, u16),
    hold_failure: bool,
) -> Start {
    Start::Spawn {
        argv: Some(argv.iter().map(|s| s.to_string()).collect()),
        cwd: cwd.map(str::to_string),
        env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        cols: size.0,
        rows: size.1,
        hold_failure,
        replay: None,
    }
}

/// One supervisor-side connection to a worker: the inherited link, or one made to its socket.
pub struct Conn {
    link: UnixStream,
    decoder: FrameDecoder,
    fds: Vec<OwnedFd>,
    /// Frames that arrived while waiting for something else (events, other responses).
    pub stash: Vec<WorkerToSupervisor>,
    next_id: u64,
}

impl Conn {
    fn new(link: UnixStream) -> Self {
        link.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
        Self { link, decoder: FrameDecoder::new(), fds: Vec::new(), stash: Vec::new(), next_id: 1 }
    }

    /// Sends `Adopt` and waits for the answer: `Adopted` with its fd, or the refusal's reason.
    pub fn adopt(&mut self, version: u32, secret: &str) -> Result<Adopted, String> {
        self.send(&SupervisorToWorker::Adopt { version, min_version: version, secret: secret.into() });
        let answer = self.expect("Adopted or Refused", |f| match f {
            WorkerToSupervisor::Adopted { version: worker_version, worker_pid, child_pid, cols, rows } => {
                assert_eq!(*worker_version, IPC_VERSION, "Adopted carries the worker's own version");
                Some(Ok((*worker_pid, *child_pid, (*cols, *rows))))
            }
            WorkerToSupervisor::Refused { reason } => Some(Err(reason.clone())),
            _ => None,
        });
        let (worker_pid, child_pid, size) = answer?;
        Ok(Adopted { worker_pid, child_pid, size, master: self.take_fd() })
    }

    /// Waits until the worker closes this connection (frames on the way are stashed).
    pub fn expect_closed(&mut self, what: &str) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            match self.recv_until(deadline) {
                Ok(None) => return,
                Ok(Some(frame)) => self.stash.push(frame),
                Err(Timeout) => panic!("the worker did not close the connection ({what})"),
            }
        }
    }

    /// The frames received so far and whatever arrives until `quiet` passes without one (for
    /// checking what was NOT sent; never used to wait for something to happen).
    pub fn drain(&mut self, quiet: Duration) -> Vec<WorkerToSupervisor> {
        loop {
            match self.recv_until(Instant::now() + quiet) {
                Ok(Some(frame)) => self.stash.push(frame),
                Ok(None) | Err(Timeout) => return std::mem::take(&mut self.stash),
            }
        }
    }

    pub fn send(&mut self, msg: &SupervisorToWorker) {
        let bytes = encode_frame(msg).expect("encode");
        self.link.write_all(&bytes).expect("send frame");
    }

    /// Bytes as they are, e.g. a frame of another ipc version.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.link.write_all(bytes).expect("send bytes");
    }

    pub fn send_with_fd(&mut self, msg: &SupervisorToWorker, fd: RawFd) {
        let bytes = encode_frame(msg).expect("encode");
        let n = self.link.send_with_fd(&bytes, &[fd]).expect("sendmsg");
        self.link.write_all(&bytes[n..]).expect("rest of frame");
    }

    /// The next frame, or None at EOF; panics after the deadline.
    pub fn recv(&mut self, deadline: Instant) -> Option<WorkerToSupervisor> {
        match self.recv_until(deadline) {
            Ok(frame) => frame,
            Err(Timeout) => panic!("timed out waiting for a frame from the worker"),
        }
    }

    /// The next frame (None at EOF), or `Timeout` once `deadline` passes without one.
    pub fn recv_until(&mut self, deadline: Instant) -> Result<Option<WorkerToSupervisor>, Timeout> {
        loop {
            if let Some(frame) = self.decoder.next_frame().expect("decode") {
                return Ok(Some(frame));
            }
            if Instant::now() >= deadline {
                return Err(Timeout);
            }
            let mut buf = [0u8; 65536];
            let mut fds = [-1; 4];
            match self.link.recv_with_fd(&mut buf, &mut fds) {
                Ok((0, 0)) => return Ok(None),
                Ok((n, nfds)) => {
                    self.decoder.push(&buf[..n]);
                    // Close-on-exec, as the supervisor does: a master one test keeps must not leak
                    // into a worker another test starts. SAFETY: SCM_RIGHTS installed these fds for us.
                    for &fd in &fds[..nfds] {
                        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
                    }
                    self.fds.extend(fds[..nfds].iter().map(|&fd| unsafe { OwnedFd::from_raw_fd(fd) }));
                }
                // Interrupted: a signal (this test process reaps children as a subreaper).
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => panic!("recv from worker: {e}"),
            }
        }
    }

    /// Waits for a frame matching `pick`, stashing others.
    pub fn expect<T>(&mut self, what: &str, mut pick: impl FnMut(&WorkerToSupervisor) -> Option<T>) -> T {
        if let Some(i) = self.stash.iter().position(|f| pick(f).is_some()) {
            let frame = self.stash.remove(i);
            return pick(&frame).expect("picked");
        }
        let deadline = Instant::now() + DEADLINE;
        loop {
            let frame = self
                .recv_until(deadline)
                .unwrap_or_else(|Timeout| panic!("timed out waiting for {what}; stashed: {:?}", self.stash))
                .unwrap_or_else(|| panic!("link closed while waiting for {what}"));
            if let Some(v) = pick(&frame) {
                return v;
            }
            self.stash.push(frame);
        }
    }

    /// Closes the supervisor's end, as a supervisor crash would.
    pub fn close_link(&mut self) {
        self.link.shutdown(std::net::Shutdown::Both).expect("shutdown link");
    }

    pub fn take_fd(&mut self) -> OwnedFd {
        assert!(!self.fds.is_empty(), "no fd arrived");
        self.fds.remove(0)
    }

    pub fn expect_hello(&mut self) -> i32 {
        self.expect("Hello", |f| match f {
            WorkerToSupervisor::Hello { version, worker_pid } => {
                assert_eq!(*version, IPC_VERSION);
                Some(*worker_pid)
            }
            WorkerToSupervisor::Refused { reason } => panic!("refused: {reason}"),
            _ => None,
        })
    }

    /// Sends a request and returns its id without waiting.
    pub fn submit(&mut self, body: WorkerRequest) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&SupervisorToWorker::Request { id, body });
        id
    }

    pub fn response(&mut self, id: u64) -> WorkerResponse {
        self.expect(&format!("response {id}"), |f| match f {
            WorkerToSupervisor::Response { id: got, body } if *got == id => Some(body.clone()),
            _ => None,
        })
    }

    pub fn request(&mut self, body: WorkerRequest) -> WorkerResponse {
        let id = self.submit(body);
        self.response(id)
    }

    pub fn ok(&mut self, body: WorkerRequest) {
        let what = format!("{body:?}");
        assert_eq!(self.request(body), WorkerResponse::Ok, "{what}");
    }

    pub fn read(&mut self, source: ReadSource, lines: Option<u32>, format: ReadFormat) -> ReadOutput {
        match self.request(WorkerRequest::Read(ReadSpec { source, lines, format })) {
            WorkerResponse::Read(out) => out,
            other => panic!("read answered {other:?}"),
        }
    }

    pub fn text(&mut self, source: ReadSource) -> String {
        self.read(source, None, ReadFormat::Text).text
    }

    /// Waits (through the worker's own WaitOutput) for a line matching `matcher` in `source`.
    pub fn wait_for(&mut self, source: ReadSource, matcher: Matcher) -> (String, ReadOutput) {
        let read = ReadSpec { source, lines: None, format: ReadFormat::Text };
        match self.request(WorkerRequest::WaitOutput { read, matcher }) {
            WorkerResponse::Matched { matched_line, read } => (matched_line, read),
            other => panic!("wait answered {other:?}"),
        }
    }

    pub fn wait_substring(&mut self, needle: &str) -> String {
        self.wait_for(ReadSource::Recent, Matcher::Substring(needle.into())).0
    }

    pub fn run(&mut self, line: &str) {
        self.ok(WorkerRequest::SendInput { text: Some(line.into()), keys: vec!["Enter".into()] });
    }

    pub fn event(&mut self, what: &str, mut pick: impl FnMut(&WorkerEvent) -> bool) -> WorkerEvent {
        self.expect(what, |f| match f {
            WorkerToSupervisor::Event(e) if pick(e) => Some(e.clone()),
            _ => None,
        })
    }
}

/// Waits until `cond` holds, polling a local, cheap condition (process state) with a deadline.
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reaps `pid` (our child or, as subreaper, our orphaned grandchild); returns the raw status.
pub fn reap(pid: i32) -> i32 {
    let mut status = 0;
    let deadline = Instant::now() + DEADLINE;
    loop {
        // SAFETY: waitpid with a valid status pointer.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if got == pid {
            return status;
        }
        assert!(got == 0, "waitpid({pid}) failed: {}", io::Error::last_os_error());
        assert!(Instant::now() < deadline, "process {pid} did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence; a zombie still exists until reaped.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// How many times the process's main thread went to sleep voluntarily (each epoll wait that
/// blocked): a count that stays put means the worker did not wake up at all.
pub fn voluntary_switches(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("voluntary_ctxt_switches")
}

pub fn vm_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}
