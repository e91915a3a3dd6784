//! The real worker binary on real PTYs, driven the way the supervisor drives it.

mod support;

use std::{fs, os::fd::AsRawFd};

use herdr_protocol::ipc::{
    IPC_VERSION, MIN_IPC_VERSION, Matcher, ReadFormat, ReadSource, Start, SupervisorToWorker, WorkerEvent,
    WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use support::{Worker, alive, reap, spawn_start, vm_rss_kib, wait_until};

const BASH: &[&str] = &["bash", "--norc", "--noprofile", "-i"];

fn prompt_env() -> Vec<(&'static str, &'static str)> {
    vec![("PS1", "$ "), ("HERDR_TEST", "yes"), ("CODEX_THREAD_ID", "leak"), ("HISTFILE", "/dev/null")]
}

#[test]
fn shell_session_end_to_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().to_str().expect("utf-8 path");
    let mut w = Worker::start();
    let (shell_pid, _master) = w.spawn(BASH, &prompt_env(), Some(cwd), (80, 24));
    w.wait_for(ReadSource::Visible, Matcher::Regex(r"^\$$".into()));

    // A prompt reads as the prompt, not as a screen of blank rows.
    assert_eq!(w.text(ReadSource::Visible), "$");

    // Text plus Enter; env order, TERM default and CODEX_THREAD_ID scrubbing.
    w.run("echo hello-$HERDR_TEST $TERM $COLORTERM [${CODEX_THREAD_ID:-none}] $PWD");
    let line = w.wait_substring("hello-yes");
    assert_eq!(line, format!("hello-yes xterm-256color truecolor [none] {cwd}"));
    wait_prompt(&mut w);

    // Every source.
    let visible = w.text(ReadSource::Visible);
    assert!(visible.starts_with("$ echo hello-$HERDR_TEST"), "{visible:?}");
    assert!(visible.ends_with("\n$"), "{visible:?}");
    let recent = w.read(ReadSource::Recent, Some(2), ReadFormat::Text);
    assert!(recent.truncated);
    assert_eq!(recent.text, format!("hello-yes xterm-256color truecolor [none] {cwd}\n$"));
    let detection = w.read(ReadSource::Detection, Some(1), ReadFormat::Text);
    assert_eq!((detection.text.as_str(), detection.truncated), ("$", true));
    assert!(recent.revision > 0);

    // Styled output keeps SGR in ansi reads only.
    w.run(r"printf '\033[31mRED\033[0m-done\n'");
    w.wait_substring("RED-done");
    wait_prompt(&mut w);
    let ansi = w.read(ReadSource::Visible, None, ReadFormat::Ansi).text;
    assert!(ansi.contains("RED") && ansi.contains("\x1b["), "{ansi:?}");
    assert!(!w.text(ReadSource::Visible).contains('\x1b'));

    // Soft wraps: recent shows rendered rows, recent_unwrapped and waits join them.
    let long = "x".repeat(100);
    w.run(&format!("echo {long}-tail"));
    let (matched, _) = w.wait_for(ReadSource::Recent, Matcher::Regex(format!("^{long}-tail$")));
    assert_eq!(matched, format!("{long}-tail"));
    wait_prompt(&mut w);
    let rows = w.read(ReadSource::Recent, Some(3), ReadFormat::Text).text;
    assert_eq!(rows, format!("{}\n{}-tail\n$", "x".repeat(80), "x".repeat(20)));

    // A wait that is pending until output arrives, and a cancelled one that never answers.
    let never = w.submit(WorkerRequest::WaitOutput {
        read: spec(ReadSource::Recent),
        matcher: Matcher::Substring("never-printed".into()),
    });
    w.send(&SupervisorToWorker::Cancel { id: never });
    let later = w.submit(WorkerRequest::WaitOutput {
        read: spec(ReadSource::Visible),
        matcher: Matcher::Regex(r"^later-\d$".into()),
    });
    w.run("echo later-$((1+1))");
    assert!(
        matches!(w.response(later), WorkerResponse::Matched { matched_line, .. } if matched_line == "later-2")
    );
    assert!(
        !w.stash.iter().any(|f| matches!(f, WorkerToSupervisor::Response { id, .. } if *id == never)),
        "a cancelled wait must not be answered"
    );

    // Bad key: nothing is sent, the whole request fails.
    assert_eq!(
        w.request(WorkerRequest::SendKeys(vec!["a".into(), "pageup".into()])),
        WorkerResponse::Error { code: "invalid_key".into(), message: "unsupported key pageup".into() }
    );
    assert_eq!(
        w.request(WorkerRequest::WaitOutput {
            read: spec(ReadSource::Recent),
            matcher: Matcher::Regex("(".into())
        })
        .error_code(),
        Some("invalid_regex")
    );

    // Line editing with arrows, and history with up.
    w.ok(WorkerRequest::SendText("echo abc".into()));
    w.ok(WorkerRequest::SendKeys(vec!["left".into(), "left".into(), "X".into(), "Enter".into()]));
    w.wait_for(ReadSource::Recent, Matcher::Regex("^aXbc$".into()));
    // Recall it, go to the start, step over "echo" and insert a word.
    let keys = ["up", "ctrl+a", "right", "right", "right", "right"];
    w.ok(WorkerRequest::SendKeys(keys.iter().map(|k| k.to_string()).collect()));
    w.ok(WorkerRequest::SendText(" again".into()));
    w.ok(WorkerRequest::SendKeys(vec!["C-e".into(), "enter".into()]));
    w.wait_for(ReadSource::Recent, Matcher::Regex("^again aXbc$".into()));

    // ctrl+c interrupts the foreground job; process info sees it while it runs.
    w.run("sleep 30");
    let info = wait_for_foreground(&mut w, "sleep");
    assert_eq!(info.shell_pid, Some(shell_pid.cast_unsigned()));
    assert!(info.tty.as_deref().is_some_and(|t| t.starts_with("/dev/pts/")), "{info:?}");
    let sleep = info.foreground_processes.iter().find(|p| p.name == "sleep").expect("sleep listed");
    assert_eq!(sleep.argv.as_deref(), Some(&["sleep".to_string(), "30".to_string()][..]));
    assert_eq!(sleep.cmdline.as_deref(), Some("sleep 30"));
    assert_eq!(sleep.cwd.as_deref(), Some(cwd));
    assert_ne!(info.foreground_process_group_id, Some(shell_pid.cast_unsigned()));
    w.ok(WorkerRequest::SendKeys(vec!["ctrl+c".into()]));
    wait_prompt(&mut w);
    w.run("echo after-int-$((2+3))");
    w.wait_substring("after-int-5");
    let info = w.request(WorkerRequest::ProcessInfo);
    let WorkerResponse::ProcessInfo(info) = info else { panic!("{info:?}") };
    assert_eq!(
        info.foreground_process_group_id,
        Some(shell_pid.cast_unsigned()),
        "the shell is back in front"
    );

    // Resize reaches the program and the terminal.
    w.ok(WorkerRequest::Resize { cols: 100, rows: 30 });
    w.run("echo size=$(stty size)");
    w.wait_substring("size=30 100");
    assert!(matches!(
        w.request(WorkerRequest::Resize { cols: 0, rows: 5 }).error_code(),
        Some("invalid_params")
    ));

    // A full-screen program: the visible read is what it draws, not the shell's history.
    let file = dir.path().join("lines.txt");
    fs::write(&file, (1..=200).map(|i| format!("row {i}\n")).collect::<String>()).expect("write file");
    w.run("less lines.txt");
    w.wait_for(ReadSource::Visible, Matcher::Regex("^row 29$".into()));
    let screen = w.text(ReadSource::Visible);
    assert!(screen.starts_with("row 1\n"), "{screen:?}");
    assert!(!screen.contains("echo"), "{screen:?}");
    w.ok(WorkerRequest::SendKeys(vec!["q".into()]));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$ less lines.txt".into()));

    // Bracketed paste iff the program enabled it: `cat -v` shows exactly what arrived.
    // The marker line proves the worker has consumed the mode change before input is sent.
    w.run(r"printf '\033[?2004h'; echo mode-on; cat -v");
    w.wait_for(ReadSource::Recent, Matcher::Regex("^mode-on$".into()));
    wait_for_foreground(&mut w, "cat");
    w.ok(WorkerRequest::SendInput { text: Some("pasted".into()), keys: vec!["Enter".into()] });
    w.wait_for(ReadSource::Recent, Matcher::Regex(r"^\^\[\[200~pasted\^\[\[201~$".into()));
    w.ok(WorkerRequest::SendKeys(vec!["ctrl+c".into()]));
    // Typing before the shell is back would feed the dying `cat`.
    wait_prompt(&mut w);
    w.run(r"printf '\033[?2004l'; echo mode-off; cat -v");
    w.wait_for(ReadSource::Recent, Matcher::Regex("^mode-off$".into()));
    wait_for_foreground(&mut w, "cat");
    w.ok(WorkerRequest::SendInput { text: Some("raw-text".into()), keys: vec!["Enter".into()] });
    w.wait_for(ReadSource::Recent, Matcher::Regex("^raw-text$".into()));
    w.ok(WorkerRequest::SendKeys(vec!["ctrl+c".into()]));
    wait_prompt(&mut w);

    // Title and OSC 7 cwd become events.
    w.run(r"printf '\033]0;my-title\007\033]7;file://host/tmp/here%%20dir\033\\'");
    w.event("title", |e| *e == WorkerEvent::Title(Some("my-title".into())));
    w.event("cwd", |e| *e == WorkerEvent::Cwd("/tmp/here dir".into()));

    // A flood is consumed in big chunks and the screen keeps up.
    w.run("seq 1 200000");
    w.wait_for(ReadSource::Recent, Matcher::Regex("^200000$".into()));

    // Exit: remaining output is drained, status reported, worker exits 0.
    w.run("echo bye; exit 3");
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: Some(3), signal: None });
    assert!(w.wait_exit().success());
}

#[test]
fn a_replayed_screen_comes_before_the_program_output() {
    let mut w = Worker::start();
    let mut start = spawn_start(BASH, &prompt_env(), None, (40, 10), true);
    if let Start::Spawn { replay, .. } = &mut start {
        *replay = Some(b"\x1b[32mbefore-restart\x1b[0m\r\nsecond saved line\r\n".to_vec());
    }
    w.hello(start);
    w.expect_hello();
    w.expect("Spawned", |f| matches!(f, WorkerToSupervisor::Spawned { .. }).then_some(()));
    let _master = w.take_fd();
    w.wait_for(ReadSource::Visible, Matcher::Regex(r"^\$$".into()));
    assert_eq!(w.text(ReadSource::Visible), "before-restart\nsecond saved line\n$");
    let ansi = w.read(ReadSource::Visible, None, ReadFormat::Ansi).text;
    assert!(ansi.contains("\x1b[") && ansi.contains("before-restart"), "colours replay too: {ansi:?}");
}

#[test]
fn adopted_program_keeps_running_after_worker_crash() {
    let mut w = Worker::start();
    let counter = "i=0; while :; do i=$((i+1)); echo $i; sleep 0.05; done";
    let (pid, master) = w.spawn(&["sh", "-c", counter], &[], None, (80, 24));
    w.wait_for(ReadSource::Recent, Matcher::Regex("^3$".into()));

    // kill -9 the worker; the program survives because we hold a dup of the master.
    w.child.kill().expect("kill worker");
    w.child.wait().expect("reap worker");
    assert!(alive(pid), "program survives its worker");

    // The replacement worker binds the same socket: the dead worker's is stale, so it goes.
    let mut w2 = Worker::start();
    w2.socket = w.socket.clone();
    assert!(w2.socket.exists(), "a killed worker leaves its socket behind");
    w2.hello_with_fd(Start::Adopt { child_pid: pid, cols: 80, rows: 24 }, master.as_raw_fd());
    w2.expect_hello();
    let (line, _) = w2.wait_for(ReadSource::Recent, Matcher::Regex(r"^\d+$".into()));
    let seen: u64 = line.parse().expect("number");
    let (next, _) = w2.wait_for(ReadSource::Recent, Matcher::Regex(format!("^{}$", seen + 5)));
    assert_eq!(next, (seen + 5).to_string(), "the counter keeps counting under the new worker");
    let WorkerResponse::ProcessInfo(info) = w2.request(WorkerRequest::ProcessInfo) else {
        panic!("process info")
    };
    assert_eq!(info.shell_pid, Some(pid.cast_unsigned()));
    let cwd = std::env::current_dir().expect("cwd").display().to_string();
    w2.event("live cwd", |e| *e == WorkerEvent::LiveCwd(cwd.clone()));
    // The replacement listens there: a connection goes through.
    drop(w2.connect());

    // Shutdown hangs the program up; an adopted program's status belongs to its reaper (us).
    w2.send(&SupervisorToWorker::Shutdown);
    let exited = w2.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: None, signal: None });
    assert!(w2.wait_exit().success());
    let status = reap(pid);
    assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGHUP, "status {status:#x}");
    assert!(!w2.socket.exists(), "the socket goes with the worker");
}

#[test]
fn live_cwd_follows_the_program() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = fs::canonicalize(dir.path()).expect("canonical").display().to_string();
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(BASH, &prompt_env(), Some(dir.path().to_str().expect("utf-8")), (80, 24));
    let live = |e: &WorkerEvent| matches!(e, WorkerEvent::LiveCwd(_));
    assert_eq!(w.event("live cwd at start", live), WorkerEvent::LiveCwd(start));
    wait_prompt(&mut w);
    w.run("cd /tmp");
    assert_eq!(w.event("live cwd after cd", live), WorkerEvent::LiveCwd("/tmp".into()));
    // Output in the same directory sends nothing; the next change is the next event.
    w.run("echo still-in-tmp");
    w.wait_substring("still-in-tmp");
    w.run("cd /");
    assert_eq!(w.event("live cwd after the second cd", live), WorkerEvent::LiveCwd("/".into()));
}

#[test]
fn a_cd_right_after_output_still_shows_once_the_output_stops() {
    // Output looks at the directory at most once per interval: the `cd` here comes just after
    // the first look, and nothing prints after the last line, so only the owed look sees it.
    let mut w = Worker::start();
    let live = |e: &WorkerEvent| matches!(e, WorkerEvent::LiveCwd(_));
    let script = "echo one; sleep 0.05; cd /tmp; echo two; exec sleep 30";
    let (_pid, _master) = w.spawn(&["sh", "-c", script], &[], Some("/"), (80, 24));
    assert_eq!(w.event("live cwd at start", live), WorkerEvent::LiveCwd("/".into()));
    w.wait_substring("two");
    assert_eq!(w.event("live cwd after the cd", live), WorkerEvent::LiveCwd("/tmp".into()));
}

#[test]
fn input_the_pty_cannot_take_yet_waits_and_arrives_whole() {
    // The program reads nothing for a while: 300,000 bytes do not fit in the PTY, the rest
    // waits in the worker (the worker keeps answering) and goes in once the program reads.
    let mut w = Worker::start();
    let script = "stty raw -echo; echo ready; sleep 1; head -c 300000 | wc -c | sed 's/^ */got-/'";
    let (_pid, _master) = w.spawn(&["sh", "-c", script], &[], None, (80, 24));
    w.wait_substring("ready");
    let chunk = "x".repeat(60_000);
    for _ in 0..5 {
        w.ok(WorkerRequest::SendText(chunk.clone()));
    }
    let info = w.request(WorkerRequest::ProcessInfo);
    assert!(matches!(info, WorkerResponse::ProcessInfo(_)), "the worker answers while input waits: {info:?}");
    w.wait_substring("got-300000");
}

#[test]
fn shutdown_escalates_to_sigkill() {
    let mut w = Worker::start();
    let (_pid, _master) =
        w.spawn(&["sh", "-c", "trap '' HUP; echo ready; while :; do sleep 1; done"], &[], None, (80, 24));
    w.wait_substring("ready");
    w.send(&SupervisorToWorker::Shutdown);
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: None, signal: Some(libc::SIGKILL) });
    assert!(w.wait_exit().success());
}

#[test]
fn spawn_failures_and_refusals() {
    let mut w = Worker::start();
    w.hello(spawn_start(&["sh"], &[], Some("/no/such/dir"), (80, 24), false));
    w.expect_hello();
    let message = w.expect("SpawnFailed", |f| match f {
        WorkerToSupervisor::SpawnFailed { message } => Some(message.clone()),
        _ => None,
    });
    assert!(message.contains("/no/such/dir"), "{message}");
    assert!(!w.wait_exit().success());
    assert!(!w.socket.exists(), "a worker that gave up leaves no socket");

    let mut w = Worker::start();
    w.hello(spawn_start(&["/no/such/program"], &[], None, (80, 24), false));
    w.expect_hello();
    w.expect("SpawnFailed", |f| matches!(f, WorkerToSupervisor::SpawnFailed { .. }).then_some(()));
    assert!(!w.wait_exit().success());

    let mut w = Worker::start();
    let identity = w.identity();
    // A supervisor that no longer speaks this worker's version.
    w.send(&SupervisorToWorker::Hello {
        version: IPC_VERSION + 2,
        min_version: IPC_VERSION + 1,
        start: Start::Adopt { child_pid: 1, cols: 80, rows: 24 },
        identity,
    });
    let reason = w.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    let supervisor = format!("supervisor speaks {}..={}", IPC_VERSION + 1, IPC_VERSION + 2);
    assert!(reason.contains(&supervisor), "both versions are named: {reason}");
    assert!(reason.contains(&format!("worker speaks {MIN_IPC_VERSION}..={IPC_VERSION}")), "{reason}");
    assert!(!w.wait_exit().success());
}

#[test]
fn idle_shell_is_small_and_asleep() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (200, 50));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    let pid = w.child.id();
    // Once startup settles the worker must not run at all while nothing happens: it sleeps in
    // epoll with no timeout and no timer armed (agent detection arms none for a shell in front),
    // so only the PTY, the link or its program's exit can wake it.
    support::asleep::assert_asleep_without_timers(pid, "an idle shell's worker");
    let rss = vm_rss_kib(pid);
    let anon = status_kib(pid, "RssAnon:");
    eprintln!("idle worker VmRSS: {rss} KiB (RssAnon {anon} KiB)");
    // The worker's own memory: agent manifests are not compiled for a shell (they would add ~3 MiB).
    assert!(anon < 2 * 1024, "idle RssAnon {anon} KiB: something big was built for a plain shell");
    // The 8 MiB target is for the optimized worker; an unoptimized binary's larger text alone adds
    // ~3 MiB of file-backed pages (fault-around), so debug builds get the looser bound.
    let limit = if cfg!(debug_assertions) { 12 * 1024 } else { 8 * 1024 };
    assert!(rss < limit, "idle RSS {rss} KiB is over the {limit} KiB target");
    // The worker holds the master only: a slave fd kept open here would hide the program's
    // hang-up (no EIO) and keep its terminal alive after it exits.
    let fds: Vec<String> = fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("fd dir")
        .filter_map(|e| fs::read_link(e.ok()?.path()).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    assert!(!fds.iter().any(|f| f.starts_with("/dev/pts/")), "worker holds a slave: {fds:?}");
    let count = |name: &str| fds.iter().filter(|f| *f == name).count();
    assert_eq!(count("/dev/ptmx"), 1, "one master: {fds:?}");
    assert_eq!(count("anon_inode:[pidfd]"), 1, "one program watch: {fds:?}");
}

/// A bare prompt line exists only while the shell waits for input (typed lines read `$ cmd`).
fn wait_prompt(w: &mut Worker) {
    w.wait_for(ReadSource::Visible, Matcher::Regex(r"^\$$".into()));
}

fn spec(source: ReadSource) -> herdr_protocol::ipc::ReadSpec {
    herdr_protocol::ipc::ReadSpec { source, lines: None, format: ReadFormat::Text }
}

fn wait_for_foreground(w: &mut Worker, name: &str) -> herdr_protocol::ipc::ProcessInfo {
    let mut found = None;
    wait_until(&format!("{name} is in the foreground"), || {
        let WorkerResponse::ProcessInfo(info) = w.request(WorkerRequest::ProcessInfo) else { return false };
        let hit = info.foreground_processes.iter().any(|p| p.name == name);
        if hit {
            found = Some(info);
        }
        hit
    });
    found.expect("found")
}

/// A `kB` field of `/proc/<pid>/status`.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{field} in status"))
}

trait ErrorCode {
    fn error_code(&self) -> Option<&str>;
}

impl ErrorCode for WorkerResponse {
    fn error_code(&self) -> Option<&str> {
        match self {
            WorkerResponse::Error { code, .. } => Some(code),
            _ => None,
        }
    }
}
