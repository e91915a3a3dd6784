//! Handing a pane to a new worker binary: the old worker sends its terminal's dump and exits
//! without hanging the program up; a new worker started with `Start::Restore`, the kept PTY
//! master and the dump shows the same terminal and reads on where the old one stopped.

mod support;

use std::os::fd::AsRawFd;

use herdr_protocol::ipc::{
    Matcher, ReadFormat, ReadSource, Start, SupervisorToWorker, WorkerEvent, WorkerToSupervisor,
};
use support::{Worker, alive, spawn_start};

/// Sends `HandOver` and collects what comes back: the revision and the whole dump.
fn hand_over(w: &mut Worker) -> (u64, Vec<u8>) {
    w.send(&SupervisorToWorker::HandOver);
    let (revision, dump_len) = w.expect("HandingOver", |f| match f {
        WorkerToSupervisor::HandingOver { revision, dump_len } => Some((*revision, *dump_len)),
        WorkerToSupervisor::Refused { reason } => panic!("hand-over refused: {reason}"),
        _ => None,
    });
    let mut dump = Vec::new();
    while (dump.len() as u64) < dump_len {
        let chunk = w.expect("DumpChunk", |f| match f {
            WorkerToSupervisor::DumpChunk { bytes } => Some(bytes.clone()),
            _ => None,
        });
        dump.extend_from_slice(&chunk);
    }
    assert_eq!(dump.len() as u64, dump_len);
    (revision, dump)
}

/// The numbers the counter printed, in the order the terminal shows them.
fn counted(text: &str) -> Vec<u64> {
    text.lines().filter_map(|l| l.strip_prefix("n=")).filter_map(|n| n.parse().ok()).collect()
}

#[test]
fn a_handed_over_pane_keeps_its_terminal_and_its_program() {
    let mut w = Worker::start();
    let counter = "printf '\\033]2;counting\\007'; i=0; while :; do i=$((i+1)); echo n=$i; sleep 0.05; done";
    let (pid, master) = w.spawn(&["sh", "-c", counter], &[], None, (60, 8));
    w.event("title", |e| *e == WorkerEvent::Title(Some("counting".into())));
    w.wait_for(ReadSource::Recent, Matcher::Regex("^n=30$".into()));

    let (revision, dump) = hand_over(&mut w);
    let before = counted(&String::from_utf8_lossy(&dump));
    assert!(w.wait_exit().success(), "the old worker exits cleanly");
    assert!(alive(pid), "the program outlives its worker's hand-over");
    assert!(!w.socket.exists(), "the old worker gave up its socket");

    let mut w2 = Worker::start();
    w2.socket = w.socket.clone();
    let dump_len = dump.len() as u64;
    w2.hello_with_fd(
        Start::Restore { child_pid: pid, cols: 60, rows: 8, revision, dump_len },
        master.as_raw_fd(),
    );
    for chunk in dump.chunks(1000) {
        w2.send(&SupervisorToWorker::DumpChunk { bytes: chunk.to_vec() });
    }
    w2.expect_hello();
    // Re-reported as to an adopting supervisor.
    w2.event("title", |e| *e == WorkerEvent::Title(Some("counting".into())));
    let last = *before.last().expect("the dump shows the counter");
    w2.wait_for(ReadSource::Recent, Matcher::Regex(format!("^n={}$", last + 10)));
    let recent = w2.read(ReadSource::Recent, Some(1000), ReadFormat::Text).text;
    let numbers = counted(&recent);
    assert_eq!(numbers.first(), Some(&1), "the whole history came over: {recent}");
    let expected: Vec<u64> = (1..=*numbers.last().expect("numbers")).collect();
    assert_eq!(numbers, expected, "no number lost or repeated across the hand-over");
    let read = w2.read(ReadSource::Visible, None, ReadFormat::Text);
    assert!(read.revision > revision, "the revision counts on from the old worker's");
    drop(w2.connect());
}

#[test]
fn a_pane_without_a_program_refuses_to_hand_over_and_keeps_serving() {
    let mut w = Worker::start();
    w.hello(spawn_start(&["/bin/sh"], &[], Some("/gone/dir"), (60, 8), true));
    w.expect_hello();
    w.expect("Spawned", |f| matches!(f, WorkerToSupervisor::Spawned { .. }).then_some(()));
    drop(w.take_fd());
    w.event("StartFailed", |e| matches!(e, WorkerEvent::StartFailed { .. }));
    w.send(&SupervisorToWorker::HandOver);
    let reason = w.expect("Refused", |f| match f {
        WorkerToSupervisor::Refused { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.contains("no program"), "{reason}");
    assert!(w.running(), "a refused hand-over changes nothing");
    w.wait_for(ReadSource::Visible, Matcher::Substring("could not start".into()));
}
