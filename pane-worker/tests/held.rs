//! Restored panes (`hold_failure`) whose program cannot start or fails at once stay, showing why.

mod support;

use herdr_protocol::ipc::{
    Matcher, ReadSource, SupervisorToWorker, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor,
};
use support::{Worker, spawn_start};

/// Handshake for a `hold_failure` spawn; returns the `Spawned` pid (0: nothing started).
fn start_held(w: &mut Worker, argv: &[&str], cwd: Option<&str>) -> i32 {
    w.hello(spawn_start(argv, &[], cwd, (100, 10), true));
    w.expect_hello();
    let pid = w.expect("Spawned", |f| match f {
        WorkerToSupervisor::Spawned { child_pid } => Some(*child_pid),
        WorkerToSupervisor::SpawnFailed { message } => panic!("a held pane must not give up: {message}"),
        _ => None,
    });
    drop(w.take_fd());
    pid
}

fn start_failed(w: &mut Worker) -> String {
    match w.event("StartFailed", |e| matches!(e, WorkerEvent::StartFailed { .. })) {
        WorkerEvent::StartFailed { message } => message,
        other => panic!("{other:?}"),
    }
}

fn no_live_cwd(w: &Worker) -> bool {
    !w.stash.iter().any(|f| matches!(f, WorkerToSupervisor::Event(WorkerEvent::LiveCwd(_))))
}

#[test]
fn a_missing_directory_is_held_with_the_error_on_screen_until_shutdown() {
    let mut w = Worker::start();
    assert_eq!(start_held(&mut w, &["/bin/sh"], Some("/gone/dir")), 0, "no program was started");
    let message = start_failed(&mut w);
    assert_eq!(message, "could not start /bin/sh in /gone/dir: No such file or directory");
    let (line, _) = w.wait_for(ReadSource::Visible, Matcher::Substring("herdr: could not start".into()));
    assert!(line.starts_with("herdr: could not start /bin/sh in /gone/dir: No such file or"), "{line:?}");
    let screen = w.text(ReadSource::Visible);
    assert!(screen.contains("close the pane)"), "{screen:?}");

    // A pane like any other for reading, showing and resizing; input has nowhere to go.
    match w.request(WorkerRequest::SendText("ls\r".into())) {
        WorkerResponse::Error { code, message } => {
            assert_eq!(code, "pane_send_failed");
            assert!(message.contains("not running"), "{message}");
        }
        other => panic!("input to a held pane answered {other:?}"),
    }
    w.ok(WorkerRequest::Resize { cols: 60, rows: 12 });
    w.ok(WorkerRequest::SetVisible(true));
    let damage = w.event("damage", |e| matches!(e, WorkerEvent::Damage(d) if d.full));
    let WorkerEvent::Damage(damage) = damage else { unreachable!() };
    assert_eq!((damage.cols, damage.rows), (60, 12));
    let WorkerResponse::ProcessInfo(info) = w.request(WorkerRequest::ProcessInfo) else { panic!("info") };
    assert_eq!(info.shell_pid, None);

    // Adoptable like any pane, with no program to name.
    w.close_link();
    let adopted = w.adopt();
    assert_eq!((adopted.child_pid, adopted.size), (0, (60, 12)));
    assert_eq!(start_failed(&mut w), message, "a new supervisor learns why the pane is held");
    assert!(w.text(ReadSource::Visible).contains("herdr: could not start /bin/sh"));

    w.send(&SupervisorToWorker::Shutdown);
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: None, signal: None });
    assert!(w.wait_exit().success());
    assert!(no_live_cwd(&w), "a held pane never reports a live cwd: {:?}", w.stash);
    assert!(!w.socket.exists());
}

#[test]
fn a_missing_program_is_held() {
    let mut w = Worker::start();
    assert_eq!(start_held(&mut w, &["/no/such/program"], Some("/")), 0);
    let message = start_failed(&mut w);
    assert!(message.starts_with("could not start /no/such/program in /: "), "{message}");
    w.wait_for(ReadSource::Visible, Matcher::Substring("herdr: could not start /no/such/program".into()));
}

#[test]
fn a_program_failing_at_once_is_held_with_its_output() {
    let mut w = Worker::start();
    let pid = start_held(&mut w, &["sh", "-c", "echo about-to-fail; exit 1"], Some("/"));
    assert!(pid > 0, "the program did start");
    let message = start_failed(&mut w);
    assert_eq!(message, "sh in / exited with status 1 right after starting");
    let (line, _) = w.wait_for(ReadSource::Visible, Matcher::Substring("herdr: sh in /".into()));
    assert!(line.starts_with("herdr: sh in / exited with status 1 right after starting"), "{line:?}");
    let screen = w.text(ReadSource::Visible);
    let printed = screen.find("about-to-fail").expect("the program's output stays");
    assert!(printed < screen.find("herdr:").expect("error line"), "output first, then the error: {screen:?}");
    assert!(w.running(), "the worker holds the pane");
    assert!(
        !w.stash.iter().any(|f| matches!(f, WorkerToSupervisor::Event(WorkerEvent::Exited { .. }))),
        "a held failure is not an exit"
    );

    w.close_link();
    assert_eq!(w.adopt().child_pid, 0, "its program is gone and reaped");
    assert_eq!(start_failed(&mut w), message);
    w.send(&SupervisorToWorker::Shutdown);
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: Some(1), signal: None });
    assert!(w.wait_exit().success());
    assert!(no_live_cwd(&w), "{:?}", w.stash);
}

#[test]
fn without_hold_failure_a_failing_program_just_exits() {
    let mut w = Worker::start();
    w.hello(spawn_start(&["sh", "-c", "exit 1"], &[], None, (80, 24), false));
    w.expect_hello();
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: Some(1), signal: None });
    assert!(w.wait_exit().success());
    assert!(!w.stash.iter().any(|f| matches!(f, WorkerToSupervisor::Event(WorkerEvent::StartFailed { .. }))));
}

#[test]
fn a_held_pane_that_succeeds_exits_normally() {
    let mut w = Worker::start();
    let pid = start_held(&mut w, &["sh", "-c", "echo fine; exit 0"], None);
    assert!(pid > 0);
    let exited = w.event("exit", |e| matches!(e, WorkerEvent::Exited { .. }));
    assert_eq!(exited, WorkerEvent::Exited { code: Some(0), signal: None });
    assert!(w.wait_exit().success());
}
