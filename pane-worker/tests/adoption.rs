//! Workers outlive their supervisor: losing the link keeps the pane, a new supervisor adopts it
//! through the worker's own socket, and nobody else can. Real worker, real PTYs.

mod support;

use std::{fs, os::fd::AsRawFd, os::unix::net::UnixListener, path::Path};

use herdr_protocol::ipc::{
    IPC_VERSION, IdentityReason, Matcher, ReadFormat, ReadSource, ReadSpec, SupervisorToWorker, WorkerEvent,
    WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use support::{Adopted, SECRET, Worker, alive, spawn_start, wait_until};

/// A counter (also written to `count`) that would tell if it ever got a hang-up, and that
/// writes `BURST_LINES` long lines (about 145 KB, more than a PTY buffers) when `burst` appears
/// in its directory, then says so in `burst-done`.
fn counter_script() -> String {
    let line = format!("burst-{}", "x".repeat(234));
    format!(
        r#"trap 'echo GOT-HUP' HUP
i=0
while :; do
  i=$((i+1)); echo "tick-$i"; echo "$i" > count
  if [ -e burst ]; then rm burst; yes '{line}' | head -n {BURST_LINES}; touch burst-done; fi
  sleep 0.05
done"#
    )
}

const BURST_LINES: usize = 600;
/// Wide enough that a burst line is one row, so the whole run fits one 1000-row read.
const WIDE: (u16, u16) = (250, 24);

fn count(dir: &Path) -> u64 {
    fs::read_to_string(dir.join("count")).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0)
}

/// The frames right after `Adopted`, up to and including the agent identity.
fn state_events(w: &mut Worker) -> Vec<WorkerEvent> {
    let mut events = Vec::new();
    loop {
        let event = w.event("state after adoption", |_| true);
        let last = matches!(event, WorkerEvent::AgentIdentity { .. });
        events.push(event);
        if last {
            return events;
        }
    }
}

fn is_ptmx(master: &Adopted) -> bool {
    let link = fs::read_link(format!("/proc/self/fd/{}", master.master.as_raw_fd())).expect("fd link");
    link.to_string_lossy().ends_with("ptmx")
}

#[test]
fn link_loss_keeps_the_program_and_a_new_supervisor_adopts_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().to_str().expect("utf-8 path");
    let mut w = Worker::start();
    let (pid, master) = w.spawn(&["sh", "-c", &counter_script()], &[], Some(cwd), WIDE);
    w.wait_for(ReadSource::Recent, Matcher::Regex("^tick-3$".into()));
    w.ok(WorkerRequest::SetVisible(true));
    w.ok(WorkerRequest::SetFocused(true));
    let worker_pid = w.child.id();

    // The supervisor dies: its end of the link and its dup of the master close.
    w.close_link();
    drop(master);

    // The program keeps running and writing, far more than a PTY buffer holds: the worker
    // drains it while nobody is linked.
    fs::write(dir.path().join("burst"), "").expect("trigger the burst");
    wait_until("the burst is written with nobody linked", || dir.path().join("burst-done").exists());
    let after_burst = count(dir.path());
    wait_until("the counter goes on after the burst", || count(dir.path()) > after_burst + 3);
    assert!(alive(pid) && w.running(), "program and worker both live on");

    let adopted = w.adopt();
    assert_eq!((adopted.worker_pid, adopted.child_pid, adopted.size), (worker_pid.cast_signed(), pid, WIDE));
    assert!(is_ptmx(&adopted), "the PTY master travels beside Adopted");
    let state = state_events(&mut w);
    let canonical = fs::canonicalize(dir.path()).expect("canonical").display().to_string();
    assert!(state.contains(&WorkerEvent::LiveCwd(canonical)), "{state:?}");
    assert_eq!(
        state.last(),
        Some(&WorkerEvent::AgentIdentity { agent: None, previous: None, reason: IdentityReason::Detected })
    );

    // Same program, still counting; the scrollback kept what came before the loss.
    let seen = count(dir.path());
    w.wait_for(ReadSource::Recent, Matcher::Regex(format!("^tick-{}$", seen + 2)));
    let recent = w.read(ReadSource::Recent, Some(1000), ReadFormat::Text).text;
    let lines: Vec<&str> = recent.lines().collect();
    assert!(lines.contains(&"tick-1"), "the scrollback kept what came before the link loss");
    assert_eq!(lines.iter().filter(|l| l.starts_with("burst-x")).count(), BURST_LINES);
    assert!(lines.contains(&format!("tick-{}", seen + 2).as_str()));
    assert!(!recent.contains("GOT-HUP"), "the program never saw a hang-up");

    // Visibility belonged to the dead supervisor: showing the pane again sends a whole frame.
    w.ok(WorkerRequest::SetVisible(true));
    w.event("full damage", |e| matches!(e, WorkerEvent::Damage(d) if d.full));

    w.send(&SupervisorToWorker::Shutdown);
    w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert!(w.wait_exit().success());
    assert!(!w.socket.exists(), "Shutdown removes the socket");
}

#[test]
fn wrong_secret_version_or_first_frame_is_refused_and_the_worker_stays_adoptable() {
    let mut w = Worker::start();
    let (pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (80, 24));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.close_link();

    let mut c = w.connect();
    let reason = c.adopt(IPC_VERSION, "not-the-secret").expect_err("wrong secret");
    assert!(reason.contains("secret"), "{reason}");
    c.expect_closed("after a wrong secret");

    let mut c = w.connect();
    let reason = c.adopt(IPC_VERSION + 1, SECRET).expect_err("wrong version");
    assert!(reason.contains("version"), "{reason}");
    c.expect_closed("after a version mismatch");

    // A Shutdown from a stranger is not a first frame that ends anything.
    let mut c = w.connect();
    c.send(&SupervisorToWorker::Shutdown);
    let reason = c.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.contains("expected Adopt"), "{reason}");
    c.expect_closed("after a frame that is not Adopt");

    // A frame this worker cannot decode (another ipc version's shapes): refused, saying ours.
    let mut c = w.connect();
    c.send_raw(&[3, 0, 0, 0, 0xff, 0xff, 0xff]);
    let reason = c.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.contains(&format!("ipc version {IPC_VERSION}")), "{reason}");
    c.expect_closed("after an undecodable frame");

    // A silent connection waits for its first frame without holding up a real supervisor.
    let _silent = w.connect();
    let adopted = w.adopt();
    assert_eq!(adopted.child_pid, pid);
    w.run("echo still-$((40+2))");
    w.wait_substring("still-42");
}

#[test]
fn a_second_supervisor_is_refused_while_one_is_linked_and_adoption_repeats() {
    let mut w = Worker::start();
    let (pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (80, 24));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));

    let mut c = w.connect();
    let reason = c.adopt(IPC_VERSION, SECRET).expect_err("linked");
    assert!(reason.contains("is linked to a running supervisor"), "{reason}");
    c.expect_closed("a refused second supervisor");
    w.run("echo first-link-$((1+1))");
    w.wait_substring("first-link-2");

    for round in 1..=2 {
        w.close_link();
        let adopted = w.adopt();
        assert_eq!(adopted.child_pid, pid, "round {round}");
        state_events(&mut w);
        w.run(&format!("echo adopted-{round}-$((2*{round}))"));
        w.wait_substring(&format!("adopted-{round}-{}", 2 * round));
        let mut c = w.connect();
        let reason = c.adopt(IPC_VERSION, SECRET).expect_err("linked again");
        assert!(reason.contains("is linked"), "{reason}");
    }
    // Substrings: typed ahead of sh's prompt, a command's output can share the prompt's line.
    let recent = w.text(ReadSource::Recent);
    for output in ["first-link-2", "adopted-1-2", "adopted-2-4"] {
        assert!(recent.contains(output), "{output} in {recent:?}");
    }
}

#[test]
fn orphan_timeout_hangs_up_the_program_and_removes_the_socket() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().to_str().expect("utf-8 path");
    let mut w = Worker::start_with(&[], 300);
    let script = "trap 'echo hup > got-hup; exit 7' HUP; echo ready; while :; do sleep 0.05; done";
    let (pid, master) = w.spawn(&["sh", "-c", script], &[], Some(cwd), (80, 24));
    w.wait_substring("ready");
    w.close_link();
    drop(master);
    assert!(w.wait_exit().success(), "the worker exits cleanly after the orphan timeout");
    assert!(dir.path().join("got-hup").exists(), "the program was hung up");
    assert!(!alive(pid), "the worker reaped its program");
    assert!(!w.socket.exists(), "the socket is removed");
}

#[test]
fn program_exit_while_orphaned_is_reported_after_adoption() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().to_str().expect("utf-8 path");
    let mut w = Worker::start();
    let script = "echo waiting; while [ ! -e go ]; do sleep 0.05; done; echo bye-orphan; exit 5";
    let (pid, _master) = w.spawn(&["sh", "-c", script], &[], Some(cwd), (80, 24));
    w.wait_substring("waiting");
    w.close_link();
    fs::write(dir.path().join("go"), "").expect("let it end");
    wait_until("the program has exited and been reaped", || !alive(pid));
    assert!(w.running(), "the worker waits to tell a supervisor");

    let adopted = w.adopt();
    assert_eq!(adopted.child_pid, pid);
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: Some(5), signal: None });
    assert!(
        !w.stash.iter().any(|f| matches!(f, WorkerToSupervisor::Event(WorkerEvent::LiveCwd(_)))),
        "no live cwd for a program that is gone"
    );
    w.expect_closed("after Exited");
    assert!(w.wait_exit().success());
    assert!(!w.socket.exists());
}

/// Whether `pid` has ended and waits to be reaped.
fn zombie(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')))
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill has no memory effects; the worker is our child, not yet reaped.
    let sent = unsafe { libc::kill(pid, sig) };
    assert_eq!(sent, 0, "kill({pid}, {sig}): {}", std::io::Error::last_os_error());
}

#[test]
fn an_exit_seen_before_the_supervisors_eof_still_waits_for_adoption() {
    // The supervisor dies and the program ends while the worker is not running (stopped here,
    // descheduled in life): it wakes to both at once, in either order. Whichever it takes
    // first, the exit must reach the supervisor that adopts the pane. Rounds, since the
    // worker's loop picks between ready events at random.
    for round in 0..8 {
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().to_str().expect("utf-8 path");
        let mut w = Worker::start();
        let script = "echo waiting; while [ ! -e go ]; do sleep 0.02; done; exit 3";
        let (pid, _master) = w.spawn(&["sh", "-c", script], &[], Some(cwd), (80, 24));
        w.wait_substring("waiting");
        let worker = w.child.id().cast_signed();
        signal(worker, libc::SIGSTOP);
        w.close_link();
        fs::write(dir.path().join("go"), "").expect("let it end");
        wait_until("the program has ended", || zombie(pid));
        signal(worker, libc::SIGCONT);
        wait_until("the worker has reaped its program", || !alive(pid));
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(w.running(), "round {round}: the worker waits to tell a supervisor");

        let adopted = w.adopt();
        assert_eq!(adopted.child_pid, pid, "round {round}");
        let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
        assert_eq!(exited, WorkerEvent::Exited { code: Some(3), signal: None }, "round {round}");
        w.expect_closed("after Exited");
        assert!(w.wait_exit().success(), "round {round}");
    }
}

#[test]
fn the_socket_path_is_never_taken_from_something_else() {
    // A regular file is never removed, and the worker refuses to start.
    let mut w = Worker::start();
    fs::write(&w.socket, "not a socket").expect("write");
    w.hello(spawn_start(&["sh"], &[], None, (80, 24), false));
    let reason = w.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.contains("regular file") && reason.contains("left alone"), "{reason}");
    assert!(!w.wait_exit().success());
    assert_eq!(fs::read_to_string(&w.socket).expect("still there"), "not a socket");

    // A socket someone listens on belongs to someone.
    let mut w = Worker::start();
    let owner = UnixListener::bind(&w.socket).expect("live socket");
    w.hello(spawn_start(&["sh"], &[], None, (80, 24), false));
    let reason = w.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.contains("another worker owns"), "{reason}");
    assert!(!w.wait_exit().success());
    drop(owner);

    // A missing directory is the supervisor's mistake, not something to create.
    let mut w = Worker::start();
    w.socket = w.dir.path().join("missing").join("w.sock");
    w.hello(spawn_start(&["sh"], &[], None, (80, 24), false));
    w.expect("Refused", |f| matches!(f, WorkerToSupervisor::Refused { .. }).then_some(()));
    assert!(!w.wait_exit().success());

    // A stale socket (nobody listens) is replaced.
    let mut w = Worker::start();
    drop(UnixListener::bind(&w.socket).expect("stale socket"));
    let (_pid, _master) = w.spawn(&["sh"], &[], None, (80, 24));
    let _conn = w.connect();
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&w.socket).expect("socket").permissions());
    assert_eq!(mode & 0o777, 0o600);
    w.send(&SupervisorToWorker::Shutdown);
    w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert!(w.wait_exit().success());
    assert!(!w.socket.exists());
}

#[test]
fn requests_from_the_dead_supervisor_are_forgotten() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (80, 24));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    let read = ReadSpec { source: ReadSource::Recent, lines: None, format: ReadFormat::Text };
    let wait = w.submit(WorkerRequest::WaitOutput {
        read: read.clone(),
        matcher: Matcher::Substring("later-9".into()),
    });
    let watch = w.submit(WorkerRequest::WatchOutput { read, matcher: Matcher::Substring("later-9".into()) });
    assert_eq!(w.response(watch), WorkerResponse::Ok);
    w.close_link();
    w.adopt();
    state_events(&mut w);
    w.run("echo later-$((3*3))");
    w.wait_substring("later-9");
    // One more round trip: whatever the worker sent for that output is stashed before its answer.
    w.text(ReadSource::Visible);
    // The wait above answered on this link; the dead supervisor's wait and watch did not.
    assert!(
        !w.stash.iter().any(|f| matches!(f,
            WorkerToSupervisor::Response { id, .. } if *id == wait)
            || matches!(f, WorkerToSupervisor::Event(WorkerEvent::OutputMatched { watch: id, .. }) if *id == watch)),
        "{:?}",
        w.stash
    );
}
