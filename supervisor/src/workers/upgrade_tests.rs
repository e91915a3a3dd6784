//! A pane task upgrading a real `herdr-pane-worker` (`target/<profile>/`, built by `cargo build
//! --workspace --bins`) whose executable an "install" replaced, when the old worker dies before
//! sending its dump: the per-pane restart takes over and the pane stays served.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use herdr_protocol::ipc::{
    ReadFormat, ReadSource, ReadSpec, WorkerEvent, WorkerIdentity, WorkerRequest, WorkerResponse,
};

use super::*;
use crate::session::PaneKey;
use crate::workers::{Gone, Launch, LaunchMode, PaneObserver, launch};

const PATIENCE: Duration = Duration::from_secs(20);

/// `target/<profile>/herdr-pane-worker`.
fn built_worker() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps dir");
    let dir = if deps.ends_with("deps") { deps.parent().expect("profile dir") } else { deps };
    let worker = dir.join("herdr-pane-worker");
    assert!(worker.is_file(), "{} is missing: run `cargo build --workspace --bins` first", worker.display());
    worker
}

#[derive(Default)]
struct Seen {
    gone: Mutex<Vec<Gone>>,
}

impl PaneObserver for Seen {
    fn worker_event(&self, _key: PaneKey, _event: WorkerEvent) {}
    fn pane_gone(&self, _key: PaneKey, how: Gone) {
        self.gone.lock().expect("lock").push(how);
    }
}

/// Copies the built worker to `path`, replacing (not overwriting) whatever is there, as an
/// install does: a worker running the old file now runs a deleted executable.
fn install(path: &Path) {
    let staged = path.with_extension("new");
    std::fs::copy(built_worker(), &staged).expect("copy the worker");
    std::fs::rename(&staged, path).expect("install the worker");
}

fn syscall_fd(result: libc::c_long) -> OwnedFd {
    assert!(result >= 0, "syscall: {}", std::io::Error::last_os_error());
    // SAFETY: the kernel just returned this new descriptor to us.
    unsafe { OwnedFd::from_raw_fd(i32::try_from(result).expect("fd")) }
}

/// Bytes waiting unread on the worker's link (its fd 3), seen through a duplicate of it.
fn unread_on_link(worker: i32) -> i32 {
    // SAFETY: pidfd_open(pid, 0) and pidfd_getfd(pidfd, fd, 0) take plain integers.
    let pidfd = syscall_fd(unsafe { libc::syscall(libc::SYS_pidfd_open, worker, 0) });
    let link = syscall_fd(unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), 3, 0) });
    let mut unread: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the valid pointer.
    let rc = unsafe { libc::ioctl(link.as_raw_fd(), libc::FIONREAD, &mut unread) };
    assert_eq!(rc, 0, "FIONREAD: {}", std::io::Error::last_os_error());
    unread
}

fn parent_of(pid: i32) -> i32 {
    let mut stat = String::new();
    std::fs::File::open(format!("/proc/{pid}/stat"))
        .and_then(|mut f| f.read_to_string(&mut stat))
        .expect("stat");
    let (_, rest) = stat.rsplit_once(") ").expect("stat format");
    rest.split(' ').nth(1).and_then(|p| p.parse().ok()).expect("ppid")
}

async fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn recent(handle: &PaneHandle) -> String {
    let read = ReadSpec { source: ReadSource::Recent, lines: None, format: ReadFormat::Text };
    match handle.request(1, WorkerRequest::Read(read)).await {
        Ok(WorkerResponse::Read(out)) => out.text,
        other => panic!("read: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_worker_that_dies_before_its_dump_leaves_the_pane_to_the_per_pane_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = dir.path().join("herdr-pane-worker");
    install(&exe);
    let sockets = dir.path().join("workers");
    std::fs::create_dir(&sockets).expect("socket dir");
    let identity = WorkerIdentity {
        uid: "00c0ffee00c0ffee".into(),
        socket: sockets.join("00c0ffee00c0ffee.sock").display().to_string(),
        secret: "s3cret".into(),
        orphan_timeout_ms: 60_000,
    };
    let counter = "i=0; while :; do i=$((i+1)); echo n=$i; sleep 0.05; done";
    let spec = Launch {
        key: PaneKey(1),
        worker_exe: exe.clone(),
        argv: Some(vec!["sh".into(), "-c".into(), counter.into()]),
        cwd: None,
        env: Vec::new(),
        cols: 80,
        rows: 24,
        identity,
        mode: LaunchMode::Spawn,
        replay: None,
        launcher: Arc::new(crate::workers::Processes::default()),
    };
    let seen = Arc::new(Seen::default());
    let (handle, started) = launch(spec, seen.clone());
    let program = started.await.expect("task").expect("started").pid;
    let old_worker = parent_of(program);
    assert_eq!(handle.upgrade().await, Some(Upgrade::NotNeeded), "a worker of our own binary stays");

    // An install replaces the binary: the running worker's executable is deleted.
    install(&exe);
    // SAFETY: signalling the worker this test started.
    unsafe { libc::kill(old_worker, libc::SIGSTOP) };
    let upgrading = {
        let handle = handle.clone();
        tokio::spawn(async move { handle.upgrade().await })
    };
    // The HandOver waits, unread, on the stopped worker's link: the upgrade is under way.
    until("the HandOver to reach the worker", || (unread_on_link(old_worker) > 0).then_some(())).await;
    // SAFETY: as above; it dies before it could send anything.
    unsafe { libc::kill(old_worker, libc::SIGKILL) };
    let outcome = tokio::time::timeout(PATIENCE, upgrading).await.expect("upgrade ends").expect("task");
    assert!(
        matches!(&outcome, Some(Upgrade::Restarted(why)) if why.contains("died before its dump")),
        "{outcome:?}"
    );

    // The per-pane restart: a new worker (of the installed binary) runs the same program.
    let new_worker = until("a new worker", || {
        std::fs::read_dir("/proc")
            .ok()?
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .find(|pid| {
                *pid != old_worker && std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe)
            })
    })
    .await;
    assert_ne!(new_worker, old_worker);
    // The new worker's terminal starts blank: count from the first number it shows.
    let numbers = |text: &str| -> Vec<u64> {
        text.lines().filter_map(|l| l.strip_prefix("n=")?.parse().ok()).collect()
    };
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut from: Option<u64> = None;
    loop {
        let text = recent(&handle).await;
        let shown = numbers(&text);
        from = from.or_else(|| shown.first().copied());
        if from.is_some_and(|from| shown.contains(&(from + 3))) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the pane is served and the program counts on: {text}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(seen.gone.lock().expect("lock").is_empty(), "the pane was never given up");
    handle.shutdown().await;
}
