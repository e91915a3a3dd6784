//! The supervisor's entry point in-process: `run(config, sockets, shutdown)` on a runtime of the
//! test's own, with the real `herdr-pane-worker`. A supervisor whose runtime is dropped (the
//! closest an in-process test gets to `kill -9`: every socket it held closes at once, nothing is
//! saved or stopped) leaves its workers running, and the next `run` re-adopts them before it
//! answers; a `shutdown` that resolves saves `session.json` and ends every pane.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use herdr_supervisor::{DEFAULT_ORPHAN_TIMEOUT, ServerConfig, Sockets};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// `target/<profile>/herdr-pane-worker`, built by `cargo build --workspace --bins`.
fn worker_exe() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps dir");
    let dir = if deps.ends_with("deps") { deps.parent().expect("profile dir") } else { deps };
    let worker = dir.join("herdr-pane-worker");
    assert!(worker.is_file(), "{} is missing: run `cargo build --workspace --bins` first", worker.display());
    worker
}

/// The environment every pane of this binary starts with, set once before any supervisor runs:
/// a private `HOME`, so the shells read none of the machine user's rc files (a `~/.bashrc` that
/// runs `pyenv init` takes a lock file, and a shell stopped while it held it made the next test's
/// shells wait for it far past a test's patience), and no system bus, so a supervisor under test
/// never takes a real logind inhibitor.
///
/// The guard it returns runs the tests one at a time. Two supervisors in one process are
/// something only these tests do, and they share every descriptor: a worker the one forks holds
/// copies of all the other's open files (its session lock, its worker links) from its fork until
/// its exec, so the other's next start could find its own lock still taken, or its worker keep a
/// link open that its stop had closed.
fn isolated() -> std::sync::MutexGuard<'static, ()> {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let guard = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    HOME.get_or_init(|| {
        let home = tempfile::tempdir().expect("tempdir for HOME");
        // SAFETY: every test of this binary calls `isolated` first, and `get_or_init` holds the
        // others there until this returns, so no thread of ours reads the environment meanwhile.
        unsafe {
            std::env::set_var("HOME", home.path());
            std::env::set_var(
                "DBUS_SYSTEM_BUS_ADDRESS",
                format!("unix:path={}/no-bus", home.path().display()),
            );
        }
        home
    });
    guard
}

fn config(root: &Path) -> ServerConfig {
    ServerConfig {
        api_socket: root.join("sock").join("herdr.sock"),
        client_socket: root.join("sock").join("herdr-client.sock"),
        session_name: None,
        worker_exe: worker_exe(),
        bin_path: PathBuf::from("/nonexistent/herdr"),
        data_dir: root.join("data"),
        persist: true,
        orphan_timeout: DEFAULT_ORPHAN_TIMEOUT,
        pane_history: false,
        resume_agents: true,
        scrollback_limit_bytes: herdr_supervisor::config::DEFAULT_SCROLLBACK_LIMIT_BYTES,
    }
}

/// A supervisor on a runtime of its own thread; `stop` resolves its shutdown future.
struct Running {
    thread: Option<std::thread::JoinHandle<()>>,
    stop: Option<oneshot::Sender<()>>,
    /// Dropping the runtime from outside: the "crash".
    crash: Option<oneshot::Sender<()>>,
}

fn start(config: ServerConfig) -> Running {
    let sockets = Sockets::bind(&config).expect("bind the sockets");
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (crash_tx, crash_rx) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let shutdown = async move {
                let _ = stop_rx.await;
            };
            tokio::select! {
                result = herdr_supervisor::run(config, sockets, shutdown) => result.expect("run"),
                _ = crash_rx => {}
            }
        });
        // Whatever `run` had spawned (pane tasks, links) dies with the runtime, unannounced.
        runtime.shutdown_background();
    });
    Running { thread: Some(thread), stop: Some(stop_tx), crash: Some(crash_tx) }
}

impl Running {
    fn crash(mut self) {
        let _ = self.crash.take().map(|tx| tx.send(()));
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
    }

    fn stop(mut self) {
        let _ = self.stop.take().map(|tx| tx.send(()));
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.take().map(|tx| tx.send(()));
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
    }
}

fn call(config: &ServerConfig, method: &str, params: Value) -> Value {
    let mut stream = UnixStream::connect(&config.api_socket).expect("connect to the API socket");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let request = json!({"id": "t", "method": method, "params": params});
    stream.write_all(format!("{request}\n").as_bytes()).expect("send");
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).expect("answer");
    let reply: Value = serde_json::from_str(&line).expect("JSON answer");
    assert!(reply.get("error").is_none(), "{method} failed: {reply}");
    reply["result"].clone()
}

/// Polls `check` until it gives a value; its `Err` says what it saw instead, which the panic
/// after 30 s shows.
fn wait_until<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match check() {
            Ok(value) => return value,
            Err(seen) => {
                assert!(Instant::now() < deadline, "timed out waiting for {what}; last seen: {seen}")
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `Ok` when `found`, else the text it was looked for in.
fn found_in(text: String, found: impl FnOnce(&str) -> bool) -> Result<(), String> {
    if found(&text) { Ok(()) } else { Err(format!("{text:?}")) }
}

fn recent(config: &ServerConfig, pane: &str) -> String {
    let read = call(config, "pane.read", json!({"pane_id": pane, "source": "recent"}));
    read["read"]["text"].as_str().unwrap_or_default().to_owned()
}

/// Whether `word` was printed: a line ending in it that is not the command echoing it (the output
/// may share its line with a prompt printed after the command was typed ahead).
fn printed(text: &str, word: &str) -> bool {
    text.lines().any(|line| line.trim_end().ends_with(word) && !line.contains("echo "))
}

fn shell_pid(config: &ServerConfig, pane: &str) -> u64 {
    let info = call(config, "pane.process_info", json!({"pane_id": pane}));
    info["process_info"]["shell_pid"].as_u64().expect("a shell pid")
}

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
}

#[test]
fn a_crashed_supervisors_panes_are_adopted_and_a_stopped_ones_layout_restored() {
    let _one_at_a_time = isolated();
    let root = tempfile::tempdir().expect("tempdir");
    let config = config(root.path());

    let first = start(config.clone());
    let created = call(&config, "workspace.create", json!({"label": "durable"}));
    let pane = created["root_pane"]["pane_id"].as_str().expect("pane id").to_owned();
    call(&config, "pane.send_text", json!({"pane_id": pane, "text": "echo before-the-crash\n"}));
    wait_until("the echo", || found_in(recent(&config, &pane), |t| printed(t, "before-the-crash")));
    let pid = shell_pid(&config, &pane);
    let session_file = config.data_dir.join("session.json");
    wait_until("session.json", || {
        found_in(std::fs::read_to_string(&session_file).unwrap_or_default(), |t| t.contains("durable"))
    });
    first.crash();

    assert!(alive(pid), "the shell outlives its supervisor");
    let second = start(config.clone());
    // Answered only after adoption: the same pane, the same shell, the old screen.
    let panes = call(&config, "pane.list", json!({}));
    assert_eq!(panes["panes"][0]["pane_id"], json!(pane), "{panes}");
    assert_eq!(shell_pid(&config, &pane), pid, "the adopted pane runs the same shell");
    assert!(printed(&recent(&config, &pane), "before-the-crash"), "scrollback kept");
    call(&config, "pane.send_text", json!({"pane_id": pane, "text": "echo after-adoption\n"}));
    wait_until("input after adoption", || found_in(recent(&config, &pane), |t| printed(t, "after-adoption")));
    second.stop();

    wait_until("the stopped server's shell to end", || {
        if alive(pid) { Err(format!("pid {pid} alive")) } else { Ok(()) }
    });
    let saved = std::fs::read_to_string(&session_file).expect("session.json after stop");
    assert!(saved.contains("\"custom_name\": \"durable\""), "{saved}");
    let third = start(config.clone());
    let workspaces = call(&config, "workspace.list", json!({}));
    assert_eq!(workspaces["workspaces"][0]["label"], json!("durable"), "{workspaces}");
    let panes = call(&config, "pane.list", json!({}));
    assert_eq!(panes["panes"][0]["pane_id"], json!(pane), "ids survive a restart");
    assert_ne!(shell_pid(&config, &pane), pid, "after a stop the pane runs a new shell");
    third.stop();
}

/// Types `echo <word>` and waits for the shell to print it: the shell is past its rc files (a
/// shell killed while still reading them can leave their locks behind). Typed ahead of the first
/// prompt, the word shares its line with that prompt.
fn echo(config: &ServerConfig, pane: &str, word: &str) {
    call(config, "pane.send_text", json!({"pane_id": pane, "text": format!("echo {word}\n")}));
    wait_until(word, || found_in(recent(config, pane), |t| printed(t, word)));
}

#[test]
fn with_pane_history_a_stopped_servers_screens_come_back_only_onto_their_own_layout() {
    let _one_at_a_time = isolated();
    let root = tempfile::tempdir().expect("tempdir");
    let config = ServerConfig { pane_history: true, ..config(root.path()) };
    let history_file = config.data_dir.join("session-history.json");
    let session_file = config.data_dir.join("session.json");

    let first = start(config.clone());
    let created = call(&config, "workspace.create", json!({"label": "remembered"}));
    let pane = created["root_pane"]["pane_id"].as_str().expect("pane id").to_owned();
    echo(&config, &pane, "printed-before-the-stop");
    first.stop();
    let saved = std::fs::read_to_string(&history_file).expect("session-history.json after stop");
    assert!(saved.contains("printed-before-the-stop"), "{saved}");
    let mode = std::fs::metadata(&history_file).expect("metadata").permissions();
    assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o600);

    // Started afresh, the pane shows its old screen above the new shell's output.
    let second = start(config.clone());
    let replayed = recent(&config, &pane);
    assert!(printed(&replayed, "printed-before-the-stop"), "the old screen is replayed: {replayed:?}");
    echo(&config, &pane, "typed-after-the-restart");
    second.stop();

    // The same layout, one byte different: another session.json, whose panes get nothing.
    let mut other = std::fs::read(&session_file).expect("session.json");
    other.extend_from_slice(b" \n");
    std::fs::write(&session_file, other).expect("write session.json");
    let third = start(config.clone());
    let fresh = recent(&config, &pane);
    assert!(!fresh.contains("typed-after-the-restart"), "history of another layout is ignored: {fresh:?}");
    echo(&config, &pane, "third-run");
    third.stop();

    // Off: the file goes at start.
    assert!(history_file.exists());
    let fourth = start(ServerConfig { pane_history: false, ..config.clone() });
    echo(&config, &pane, "fourth-run");
    assert!(!history_file.exists(), "pane_history off deletes session-history.json");
    fourth.stop();
}
