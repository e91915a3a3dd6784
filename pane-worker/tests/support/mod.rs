//! Plays the supervisor for integration tests: a socketpair, the real worker binary with
//! `--ipc-fd`, frames and fds both ways, and waits with deadlines on named conditions.

#![allow(dead_code, reason = "each test binary uses a different part of the harness")]

use std::{
    io::{self, Write},
    os::{
        fd::{AsRawFd, FromRawFd, OwnedFd, RawFd},
        unix::{net::UnixStream, process::CommandExt},
    },
    process::{Child, Command, ExitStatus},
    sync::Once,
    time::{Duration, Instant},
};

use herdr_protocol::ipc::{
    FrameDecoder, IPC_VERSION, Matcher, ReadFormat, ReadOutput, ReadSource, ReadSpec, Start,
    SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor, encode_frame,
};
use sendfd::{RecvWithFd, SendWithFd};

pub const DEADLINE: Duration = Duration::from_secs(15);

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

pub struct Worker {
    pub child: Child,
    link: UnixStream,
    decoder: FrameDecoder,
    fds: Vec<OwnedFd>,
    /// Frames that arrived while waiting for something else (events, other responses).
    pub stash: Vec<WorkerToSupervisor>,
    next_id: u64,
}

impl Worker {
    /// Starts the worker binary with its end of a fresh socketpair as fd 3.
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    /// As `start`, with extra environment for the worker (e.g. its config dir).
    pub fn start_with_env(env: &[(&str, &str)]) -> Self {
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
        ours.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
        Self {
            child,
            link: ours,
            decoder: FrameDecoder::new(),
            fds: Vec::new(),
            stash: Vec::new(),
            next_id: 1,
        }
    }

    pub fn send(&mut self, msg: &SupervisorToWorker) {
        let bytes = encode_frame(msg).expect("encode");
        self.link.write_all(&bytes).expect("send frame");
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
                    // SAFETY: SCM_RIGHTS installed these fds for us.
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

    /// Handshake plus spawn; returns the program's pid and the PTY master dup.
    pub fn spawn(
        &mut self,
        argv: &[&str],
        env: &[(&str, &str)],
        cwd: Option<&str>,
        size: (u16, u16),
    ) -> (i32, OwnedFd) {
        self.send(&SupervisorToWorker::Hello {
            version: IPC_VERSION,
            start: Start::Spawn {
                argv: Some(argv.iter().map(|s| s.to_string()).collect()),
                cwd: cwd.map(str::to_string),
                env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                cols: size.0,
                rows: size.1,
            },
        });
        self.expect_hello();
        let pid = self.expect("Spawned", |f| match f {
            WorkerToSupervisor::Spawned { child_pid } => Some(*child_pid),
            WorkerToSupervisor::SpawnFailed { message } => panic!("spawn failed: {message}"),
            _ => None,
        });
        (pid, self.take_fd())
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
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
