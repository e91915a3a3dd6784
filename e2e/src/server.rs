//! [`TestServer`]: one hermetic `herdr server` for one test.
//!
//! It owns a temp dir holding HOME, the XDG dirs and the API socket (`<tmp>/sock/herdr.sock`,
//! whose folder the server must create itself), starts `herdr server` in the foreground as a
//! child in its own process group, waits for `ping`, and on drop kills the whole tree: the
//! server, its pane-workers, the panes' programs, and anything else that carries this test's
//! marker in its environment (a detached server, a second server, workers that outlived a killed
//! server and were re-parented to the test process). Nothing here touches the user's real
//! sockets, config or system bus: the child environment is cleared and rebuilt.
//!
//! Durability drills: [`TestServer::kill9`] kills only the supervisor (its workers and their
//! programs keep running), [`TestServer::restart`] starts the next supervisor of the same
//! session with the same environment, appending to the same log, and [`TestServer::stop`] is
//! `herdr server stop`. Workers and supervisors are found by the marker, not by parentage:
//! after a crash a worker is nobody's child but the test process's.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::binaries;
use crate::cli::{self, CliOutput};
use crate::procs::{self, ProcInfo};
use crate::schema;
use crate::wait::{PATIENCE, wait_until};
use crate::wire::{self, Reply};

/// The environment variable whose value marks every process started for one test server.
const MARKER_VAR: &str = "HERDR_E2E_MARKER";

/// How long an ordinary request or CLI call may take before the test fails.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A hermetic herdr server and the means to talk to it.
#[derive(Debug)]
pub struct TestServer {
    root: TempDir,
    socket: PathBuf,
    /// The default session's data dir (`session.json`).
    data_dir: PathBuf,
    env: Vec<(String, String)>,
    child: Option<Child>,
    log: PathBuf,
    next_id: AtomicUsize,
    validated: AtomicUsize,
    /// Every process ever seen belonging to this test, so drop can reap the ones that were
    /// orphaned to us (see [`become_subreaper`]).
    seen: Mutex<BTreeSet<i32>>,
}

/// Makes the test process the reaper of its orphaned descendants. Without it, processes that
/// outlive their parent (a detached server, workers whose supervisor was killed first) are
/// orphaned to PID 1, which in some sandboxes never reaps them: they stay as zombies.
fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(error) = nix::sys::prctl::set_child_subreaper(true) {
            eprintln!("herdr-e2e: cannot become a child subreaper ({error}); orphans may linger as zombies");
        }
    });
}

impl TestServer {
    /// Prepares the temp dirs and environment and starts `herdr server`, waiting for `ping`.
    pub fn start() -> Self {
        let mut server = Self::prepare();
        server.start_server();
        server
    }

    /// Prepares the temp dirs and environment without starting anything (for tests that put
    /// something at the socket path first).
    pub fn prepare() -> Self {
        become_subreaper();
        let root = tempfile::Builder::new().prefix("herdr-e2e-").tempdir().expect("create a temp dir");
        let base = root.path().to_path_buf();
        for dir in ["home", "config", "runtime", "state", "data", "cache"] {
            fs::create_dir_all(base.join(dir)).expect("create a hermetic dir");
        }
        fs::set_permissions(base.join("runtime"), fs::Permissions::from_mode(0o700))
            .expect("chmod runtime dir");
        let socket = base.join("sock").join("herdr.sock");
        let path_var = format!(
            "{}:{}",
            binaries::bin_dir().display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".to_owned())
        );
        let dir = |name: &str| base.join(name).display().to_string();
        let mut env = vec![
            (MARKER_VAR.to_owned(), base.display().to_string()),
            ("PATH".to_owned(), path_var),
            ("HOME".to_owned(), dir("home")),
            ("XDG_CONFIG_HOME".to_owned(), dir("config")),
            ("XDG_RUNTIME_DIR".to_owned(), dir("runtime")),
            ("XDG_STATE_HOME".to_owned(), dir("state")),
            ("XDG_DATA_HOME".to_owned(), dir("data")),
            ("XDG_CACHE_HOME".to_owned(), dir("cache")),
            ("HERDR_SOCKET_PATH".to_owned(), socket.display().to_string()),
            ("SHELL".to_owned(), "/bin/sh".to_owned()),
            ("PS1".to_owned(), "e2e$ ".to_owned()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("LC_ALL".to_owned(), "C.UTF-8".to_owned()),
            ("TERM".to_owned(), "xterm-256color".to_owned()),
            ("RUST_BACKTRACE".to_owned(), "1".to_owned()),
            // Not the machine's system bus: a server under test must not take real logind
            // inhibitors. The logind suite points this at a private bus with `set_env`.
            (
                "DBUS_SYSTEM_BUS_ADDRESS".to_owned(),
                format!("unix:path={}", base.join("no-system-bus").display()),
            ),
        ];
        // The worker may link libghostty-vt dynamically from a non-system folder.
        for inherited in ["LD_LIBRARY_PATH", "HERDR_LOG"] {
            if let Ok(value) = std::env::var(inherited) {
                env.push((inherited.to_owned(), value));
            }
        }
        let log = base.join("server.log");
        let data_dir = base.join("config").join(herdr_protocol::paths::APP_DIR_NAME);
        Self {
            root,
            socket,
            data_dir,
            env,
            child: None,
            log,
            next_id: AtomicUsize::new(1),
            validated: AtomicUsize::new(0),
            seen: Mutex::new(BTreeSet::new()),
        }
    }

    /// The temp dir everything lives in.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The API socket path (`HERDR_SOCKET_PATH`).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The environment every process of this test gets.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// Sets one variable of this test's environment (replacing an earlier value), for every
    /// process started after: e.g. `DBUS_SYSTEM_BUS_ADDRESS` before [`Self::start_server`].
    pub fn set_env(&mut self, key: &str, value: impl Into<String>) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_owned(), value.into()));
    }

    /// A command for `program` with this test's environment only.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_clear().envs(self.env.iter().map(|(k, v)| (k, v))).current_dir(self.root.path());
        command
    }

    /// `herdr server` with this test's environment, in its own process group, appending to `log`.
    pub fn server_command(&self, log: &Path) -> Command {
        self.server_command_with(log, &[])
    }

    /// [`Self::server_command`] with extra arguments after `server` (e.g. `--no-session`). The
    /// log is opened for appending: a worker that outlives its server still holds the same log
    /// open, and the next server's lines must not overwrite it.
    pub fn server_command_with(&self, log: &Path, args: &[&str]) -> Command {
        let mut command = self.command(binaries::binary("herdr"));
        let out = OpenOptions::new().create(true).append(true).open(log).expect("open the server log");
        let err = out.try_clone().expect("dup the server log");
        command.arg("server").args(args).stdin(Stdio::null()).stdout(out).stderr(err).process_group(0);
        command
    }

    /// Starts the foreground server and waits until it answers `ping`.
    pub fn start_server(&mut self) {
        assert!(self.child.is_none(), "the server is already started");
        fs::write(&self.log, b"").expect("truncate the server log");
        self.launch(&[]);
    }

    /// Starts the foreground server with extra arguments (e.g. `--no-session`), appending to
    /// the log, and waits until it answers `ping`.
    pub fn start_server_with(&mut self, args: &[&str]) {
        assert!(self.child.is_none(), "the server is already started");
        self.launch(args);
    }

    /// Starts the next foreground server of the same session, with the same environment and
    /// the log appended, and waits until it answers `ping`. The previous foreground server must
    /// be gone (killed with [`Self::kill9`], or exited after [`Self::stop`]).
    pub fn restart(&mut self) {
        self.restart_with(&[]);
    }

    /// [`Self::restart`] with extra arguments after `server`.
    pub fn restart_with(&mut self, args: &[&str]) {
        if let Some(mut previous) = self.child.take() {
            match previous.try_wait() {
                Ok(Some(_)) => {}
                _ => panic!("restart: the previous server (pid {}) still runs", previous.id()),
            }
        }
        self.launch(args);
    }

    fn launch(&mut self, args: &[&str]) {
        let child = self.server_command_with(&self.log, args).spawn().expect("start `herdr server`");
        self.child = Some(child);
        self.track_processes();
        wait_until("the server to answer ping", PATIENCE, || {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("`herdr server` exited early with {status}; log:\n{}", self.log_text());
            }
            self.answers_ping()
        });
    }

    /// `kill -9` of the foreground server alone (not its process group: its workers and their
    /// programs are left running), reaped. Returns the killed pid.
    pub fn kill9(&mut self) -> i32 {
        self.track_processes();
        let mut child = self.child.take().expect("the server is started");
        let pid = i32::try_from(child.id()).expect("pids fit in i32");
        kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill -9 the server");
        child.wait().expect("reap the killed server");
        pid
    }

    /// `herdr server stop`, asserted to succeed, then waits until the foreground server exited;
    /// returns its exit status.
    pub fn stop(&mut self) -> ExitStatus {
        let stop = self.cli(&["server", "stop"]);
        assert!(stop.status.success(), "`herdr server stop` failed: {stop:?}\nlog:\n{}", self.log_tail());
        wait_until("the server process to exit after `server stop`", PATIENCE, || {
            self.server_exited().ok_or_else(|| "still running".to_owned())
        })
    }

    /// Sends `signal` to the foreground server (e.g. SIGTERM).
    pub fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.server_pid()), signal).expect("signal the server");
    }

    /// Drops `HERDR_SOCKET_PATH` and `XDG_CONFIG_HOME` from this test's environment, so the
    /// session's sockets and data dir are the defaults every client resolves from `HOME` alone
    /// (`$HOME/.config/herdr/`), as for a server started by systemd with the user's environment.
    pub fn use_default_paths(&mut self) {
        self.env.retain(|(k, _)| k != "HERDR_SOCKET_PATH" && k != "XDG_CONFIG_HOME");
        self.data_dir =
            self.root.path().join("home").join(".config").join(herdr_protocol::paths::APP_DIR_NAME);
        self.socket = self.data_dir.join(herdr_protocol::paths::API_SOCKET_NAME);
    }

    /// The session's saved layout: `session.json` in the default session's data dir
    /// (`$XDG_CONFIG_HOME/herdr/`).
    pub fn session_json_path(&self) -> PathBuf {
        self.data_dir().join("session.json")
    }

    /// The default session's data dir (`$XDG_CONFIG_HOME/herdr/`).
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone()
    }

    /// The session's runtime dir beside the API socket (`<tmp>/sock/herdr-run/`): the secret and
    /// the workers' own sockets.
    pub fn runtime_dir(&self) -> PathBuf {
        herdr_protocol::paths::runtime_dir(&self.socket)
    }

    /// The pid of the foreground server (the one [`Self::start_server`] or [`Self::restart`]
    /// started).
    pub fn server_pid(&self) -> i32 {
        let child = self.child.as_ref().expect("the server is started");
        i32::try_from(child.id()).expect("pids fit in i32")
    }

    /// Whether the foreground server process has exited (reaping it if so).
    pub fn server_exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.as_mut().and_then(|child| child.try_wait().ok().flatten())
    }

    /// What the server printed so far.
    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The server and everything below it.
    pub fn process_tree(&self) -> Vec<ProcInfo> {
        procs::tree(self.server_pid())
    }

    /// The `KEY=VALUE` environment entry every process started for this test carries.
    pub fn marker_entry(&self) -> String {
        format!("{MARKER_VAR}={}", self.root.path().display())
    }

    /// The live (not zombie) processes carrying this test's marker, wherever they are in the
    /// process tree: servers (foreground or started by a client), workers, pane programs.
    pub fn marked_processes(&self) -> Vec<ProcInfo> {
        let marker = self.marker_entry();
        let me = i32::try_from(std::process::id()).expect("pids fit in i32");
        procs::all()
            .into_iter()
            .filter(|p| p.pid != me && p.state != 'Z' && procs::environ_has(p.pid, &marker))
            .collect()
    }

    /// The live `herdr-pane-worker` processes of this test, found by the marker: after a
    /// supervisor crash they are re-parented to the test process, not below any server.
    pub fn workers(&self) -> Vec<ProcInfo> {
        self.marked_processes().into_iter().filter(|p| p.is_program("herdr-pane-worker")).collect()
    }

    /// The pids of this test's live workers, sorted.
    pub fn worker_pids(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self.workers().iter().map(|w| w.pid).collect();
        pids.sort_unstable();
        pids
    }

    /// The sockets in the session's `workers/` dir (one per live worker).
    pub fn worker_sockets(&self) -> Vec<PathBuf> {
        let dir = self.runtime_dir().join(herdr_protocol::paths::WORKERS_DIR_NAME);
        let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
        let mut sockets: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "sock"))
            .collect();
        sockets.sort();
        sockets
    }

    /// Whether the session's API socket answers `ping` now: `Err` says what happened instead
    /// (nothing listening, no answer), for waits across a supervisor's absence.
    pub fn answers_ping(&self) -> Result<(), String> {
        match wire::exchange(
            &self.socket,
            b"{\"id\":\"e2e:ping\",\"method\":\"ping\",\"params\":{}}\n",
            PATIENCE,
        ) {
            Ok(Reply::Line(line)) => self.check_line(&line).map(|_| ()),
            Ok(other) => Err(format!("{other:?}")),
            Err(error) => Err(error.to_string()),
        }
    }

    /// A folder `work/<name>` under the test's temp dir, created (a pane's cwd).
    pub fn work_dir(&self, name: &str) -> PathBuf {
        let dir = self.root.path().join("work").join(name);
        fs::create_dir_all(&dir).expect("create a work dir");
        dir
    }

    /// A second build to hand over to: the built `herdr` copied to `work/second-build/`, with
    /// the worker linked beside it (a handed-over server starts new panes' workers from next to
    /// its own binary).
    pub fn second_build(&self) -> PathBuf {
        let dir = self.work_dir("second-build");
        let copy = dir.join("herdr");
        fs::copy(crate::binaries::binary("herdr"), &copy).expect("copy herdr");
        std::os::unix::fs::symlink(
            crate::binaries::binary("herdr-pane-worker"),
            dir.join("herdr-pane-worker"),
        )
        .expect("link the worker");
        copy
    }

    /// The live supervisors of this test (`herdr server [--flags]`, foreground or started by an
    /// attached client), found by the marker.
    pub fn supervisors(&self) -> Vec<ProcInfo> {
        self.marked_processes()
            .into_iter()
            .filter(|p| {
                p.is_program("herdr")
                    && p.cmdline.get(1).is_some_and(|arg| arg == "server")
                    && p.cmdline.iter().skip(2).all(|arg| arg.starts_with('-'))
            })
            .collect()
    }

    /// How many lines this server's responses and events have been schema-checked.
    pub fn validated_count(&self) -> usize {
        self.validated.load(Ordering::Relaxed)
    }

    /// Parses and schema-checks one line received from the server.
    pub fn check_line(&self, line: &str) -> Result<Value, String> {
        let value: Value =
            serde_json::from_str(line).map_err(|error| format!("server sent non-JSON ({error}): {line}"))?;
        schema::assert_valid_line(line, &value);
        self.validated.fetch_add(1, Ordering::Relaxed);
        Ok(value)
    }

    /// Sends raw bytes on a fresh connection; any line that comes back is schema-checked.
    pub fn raw(&self, bytes: &[u8], timeout: Duration) -> Reply {
        let reply = wire::exchange(&self.socket, bytes, timeout)
            .unwrap_or_else(|error| panic!("cannot talk to {}: {error}", self.socket.display()));
        if let Reply::Line(line) = &reply {
            self.check_line(line).unwrap_or_else(|error| panic!("{error}"));
        }
        reply
    }

    /// Sends one JSON value as a request line and returns the parsed, schema-checked answer.
    pub fn request_value(&self, request: &Value, timeout: Duration) -> Value {
        let mut line = request.to_string();
        line.push('\n');
        match self.raw(line.as_bytes(), timeout) {
            Reply::Line(text) => self.check_line(&text).unwrap_or_else(|error| panic!("{error}")),
            other => panic!("no answer to {request}: {other:?}\nserver log:\n{}", self.log_tail()),
        }
    }

    /// Sends `{"id", "method", "params"}` (checked against the request schema first) and returns
    /// the whole answer envelope. The answer must echo our id unless it is a parse failure.
    pub fn request_with_timeout(&self, method: &str, params: Value, timeout: Duration) -> Value {
        let id = format!("e2e:{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let request = json!({"id": id, "method": method, "params": params});
        if let Err(violation) = schema::validate_request(&request) {
            panic!("the test built a request the schema rejects: {violation}\n  request: {request}");
        }
        let answer = self.request_value(&request, timeout);
        let echoed = answer["id"].as_str().unwrap_or_default();
        let parse_failure = answer["error"]["code"] == "invalid_request" && echoed.is_empty();
        assert!(echoed == id || parse_failure, "answer to {request} does not echo the id: {answer}");
        answer
    }

    /// [`Self::request_with_timeout`] with [`REQUEST_TIMEOUT`].
    pub fn request(&self, method: &str, params: Value) -> Value {
        self.request_with_timeout(method, params, REQUEST_TIMEOUT)
    }

    /// A request that must succeed; returns its `result`.
    pub fn call(&self, method: &str, params: Value) -> Value {
        let answer = self.request(method, params.clone());
        match answer.get("result") {
            Some(result) => result.clone(),
            None => panic!("{method} {params} failed: {answer}{}", self.pane_screen_for(method, &params)),
        }
    }

    /// For a failed output wait: what the pane showed, so a timeout says what was there instead.
    fn pane_screen_for(&self, method: &str, params: &Value) -> String {
        if method != "pane.wait_for_output" {
            return String::new();
        }
        let read =
            self.request("pane.read", json!({"pane_id": params["pane_id"], "source": "recent", "lines": 40}));
        format!(
            "\n--- the pane's last 40 rows ---\n{}\n--- end ---",
            read["result"]["read"]["text"].as_str().unwrap_or("(unreadable)")
        )
    }

    /// A request that must fail; returns `(code, message)`.
    pub fn call_error(&self, method: &str, params: Value) -> (String, String) {
        let answer = self.request(method, params.clone());
        let error = answer.get("error").unwrap_or_else(|| panic!("{method} {params} should fail: {answer}"));
        (
            error["code"].as_str().unwrap_or_default().to_owned(),
            error["message"].as_str().unwrap_or_default().to_owned(),
        )
    }

    /// Asserts the server is still up and answering.
    pub fn assert_alive(&self) {
        let pong = self.call("ping", json!({}));
        assert_eq!(pong["type"], "pong", "ping answered {pong}");
    }

    /// Runs `herdr ARGS…` with this test's environment and a deadline.
    pub fn cli(&self, args: &[&str]) -> CliOutput {
        let output = cli::run(self.command(binaries::binary("herdr")), args, REQUEST_TIMEOUT);
        for text in [&output.stdout, &output.stderr] {
            if cli::envelope(text).is_some() {
                self.validated.fetch_add(1, Ordering::Relaxed);
            }
        }
        output
    }

    /// The last 80 lines of the server log (and of `herdr-server.log` in the data dir, where a
    /// server started by an attached client logs).
    pub fn log_tail(&self) -> String {
        let mut text = self.log_text();
        let detached = self.data_dir().join("herdr-server.log");
        if let Ok(more) = fs::read_to_string(&detached) {
            text.push_str(&format!("--- {} ---\n{more}", detached.display()));
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(80)..].join("\n")
    }

    /// Every process that belongs to this test: the server's tree plus anything carrying the
    /// marker (a detached or second server started from this environment, and their trees).
    fn owned_processes(&self) -> Vec<i32> {
        let marker = self.marker_entry();
        let me = i32::try_from(std::process::id()).expect("pids fit in i32");
        let mut pids: Vec<i32> = self
            .child
            .as_ref()
            .map(|_| self.process_tree())
            .unwrap_or_default()
            .iter()
            .map(|p| p.pid)
            .collect();
        for process in procs::all() {
            if process.pid != me && procs::environ_has(process.pid, &marker) {
                pids.extend(procs::tree(process.pid).iter().map(|p| p.pid));
            }
        }
        pids.sort_unstable();
        pids.dedup();
        pids.retain(|&pid| pid != me);
        if let Ok(mut seen) = self.seen.lock() {
            seen.extend(pids.iter().copied());
        }
        pids
    }

    /// Records every process that currently belongs to this test (the server tree and anything
    /// carrying the marker), so drop reaps it even if it has exited on its own by then. Tests
    /// that start servers outside [`Self::start_server`] (e.g. `herdr server --detach`) call it
    /// once the server is up.
    pub fn track_processes(&self) -> Vec<i32> {
        self.owned_processes()
    }

    /// Reaps the given processes if they became our children (orphans of a killed parent);
    /// processes that are not ours are left alone.
    fn reap(pids: &BTreeSet<i32>) {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut pending: Vec<i32> = pids.iter().copied().collect();
        while !pending.is_empty() && Instant::now() < deadline {
            pending.retain(|&pid| match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => true,
                Ok(_) | Err(Errno::ECHILD) => false,
                Err(_) => false,
            });
            if !pending.is_empty() {
                thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if thread::panicking() {
            eprintln!("--- herdr server log ({}) ---\n{}\n--- end ---", self.log.display(), self.log_tail());
        }
        // Freeze first so nothing forks or respawns between listing and killing, then list again.
        let first = self.owned_processes();
        for &pid in &first {
            let _ = kill(Pid::from_raw(pid), Signal::SIGSTOP);
        }
        let mut all = self.owned_processes();
        all.extend(first);
        all.sort_unstable();
        all.dedup();
        if let Some(child) = self.child.as_ref()
            && let Ok(pid) = i32::try_from(child.id())
        {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        for &pid in &all {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let server = self.child.as_ref().and_then(|child| i32::try_from(child.id()).ok());
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
        // The server is reaped, so its orphans are now ours (we are a subreaper).
        let mut reapable = self.seen.lock().map(|seen| seen.clone()).unwrap_or_default();
        reapable.extend(all);
        reapable.retain(|&pid| Some(pid) != server);
        Self::reap(&reapable);
    }
}
