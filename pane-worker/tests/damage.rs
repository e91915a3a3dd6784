//! Screen damage from the real worker binary on a real PTY: nothing while hidden, a whole frame
//! when shown, then only what changed.

mod support;

use std::time::Duration;

use herdr_protocol::grid::GridCell;
use herdr_protocol::ipc::{
    GridDamage, Matcher, ReadSource, WorkerEvent, WorkerRequest, WorkerResponse, WorkerToSupervisor,
    encode_frame,
};
use support::{Worker, vm_rss_kib};

fn damage(w: &mut Worker, what: &str, pick: impl Fn(&GridDamage) -> bool) -> GridDamage {
    match w.event(what, |e| matches!(e, WorkerEvent::Damage(d) if pick(d))) {
        WorkerEvent::Damage(d) => d,
        other => panic!("expected damage, got {other:?}"),
    }
}

fn text(cells: &[GridCell]) -> String {
    cells.iter().map(|c| c.text.as_str()).collect::<String>().trim_end().to_string()
}

fn has_line(d: &GridDamage, needle: &str) -> bool {
    d.lines.iter().any(|(_, cells)| text(cells).contains(needle))
}

fn stashed_damage(w: &Worker) -> usize {
    w.stash.iter().filter(|f| matches!(f, WorkerToSupervisor::Event(WorkerEvent::Damage(_)))).count()
}

#[test]
fn visible_pane_sends_a_full_frame_then_changed_rows() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (40, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));

    // Hidden (the default): output is parsed, nothing is sent.
    w.run("echo hidden-$((1+2))");
    w.wait_for(ReadSource::Visible, Matcher::Substring("hidden-3".into()));
    assert_eq!(stashed_damage(&w), 0, "a hidden pane sends no damage");

    w.ok(WorkerRequest::SetVisible(true));
    let full = damage(&mut w, "the first frame", |d| d.full);
    assert_eq!((full.cols, full.rows, full.lines.len()), (40, 10, 10));
    assert!(full.lines.iter().all(|(_, cells)| cells.len() <= 40));
    assert!(has_line(&full, "hidden-3"), "{:?}", full.lines);

    w.run("echo shown-$((20+22))");
    let later = damage(&mut w, "the echoed line", |d| has_line(d, "shown-42"));
    assert!(!later.full);
    assert!(
        later.lines.len() < 10,
        "only changed rows: {:?}",
        later.lines.iter().map(|l| l.0).collect::<Vec<_>>()
    );

    // A resize gets a whole frame at the new size.
    w.ok(WorkerRequest::Resize { cols: 30, rows: 6 });
    let resized = damage(&mut w, "a full frame after resize", |d| d.full && d.rows == 6);
    assert_eq!((resized.cols, resized.lines.len()), (30, 6));

    // Bytes per spinner frame: one character rewritten in place.
    w.run("for c in a b c d; do printf '\\r%s' $c; sleep 0.05; done; echo");
    let spin = damage(&mut w, "a spinner frame", |d| d.lines.iter().any(|(_, cells)| text(cells) == "c"));
    let bytes = encode_frame(&WorkerToSupervisor::Event(WorkerEvent::Damage(spin.clone()))).expect("encode");
    eprintln!("spinner-style damage: {} rows, {} bytes on the link", spin.lines.len(), bytes.len());
    w.wait_for(ReadSource::Visible, Matcher::Regex("^d$".into()));

    // Hidden again: nothing more, and an idle visible pane does not wake.
    w.ok(WorkerRequest::SetVisible(false));
    w.stash.clear();
    w.run("echo after-$((1+1))-hide");
    w.wait_for(ReadSource::Visible, Matcher::Substring("after-2-hide".into()));
    assert_eq!(stashed_damage(&w), 0, "hidden again: no damage");
}

#[test]
fn idle_visible_pane_is_small_and_asleep() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (200, 50));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.ok(WorkerRequest::SetVisible(true));
    damage(&mut w, "the first frame", |d| d.full);
    let pid = w.child.id();
    // A visible pane paces its damage with a frame timer only while output arrives.
    support::asleep::assert_asleep_without_timers(pid, "an idle visible pane's worker");
    let rss = vm_rss_kib(pid);
    eprintln!("idle visible 200x50 worker VmRSS: {rss} KiB");
    let limit = if cfg!(debug_assertions) { 12 * 1024 } else { 8 * 1024 };
    assert!(rss < limit, "idle visible RSS {rss} KiB is over the {limit} KiB target");
}

#[test]
fn raw_client_bytes_reach_the_program_unchanged() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (60, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.run("head -c 3 | od -An -tx1 | tr -d ' ' | sed 's/^/bytes-/'");
    // The shell must not read the bytes as its next line: wait until `head` has the terminal.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let WorkerResponse::ProcessInfo(info) = w.request(WorkerRequest::ProcessInfo) else {
            panic!("process info answered something else")
        };
        if info.foreground_processes.iter().any(|p| p.name == "head") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "head never took the foreground: {info:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // An 8-bit meta key (0xe9 is not UTF-8 on its own) survives as the byte it is.
    w.ok(WorkerRequest::SendBytes(vec![0xe9, b'A', b'\n']));
    w.wait_for(ReadSource::Visible, Matcher::Substring("bytes-e9410a".into()));
}

/// Damages seen between sending `command` and the screen showing `done`, and how long that took.
fn damages_while(w: &mut Worker, command: &str, done: &str) -> (usize, Duration) {
    w.stash.clear();
    let start = std::time::Instant::now();
    w.run(command);
    damage(w, "the end of the output", |d| has_line(d, done));
    let took = start.elapsed();
    let count = 1 + stashed_damage(w);
    (count, took)
}

#[test]
fn a_background_pane_sends_at_most_thirty_damages_a_second() {
    use herdr_protocol::ipc::BACKGROUND_FRAME_INTERVAL_MS;
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (40, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.ok(WorkerRequest::SetVisible(true));
    damage(&mut w, "the first frame", |d| d.full);
    // A counter redrawn in place as fast as the shell can: far more changes than frames.
    let counter =
        "i=0; while [ $i -lt 300000 ]; do printf '\\r%d' $i; i=$((i+1)); done; echo; echo bg-$((1+1))-done";
    let (count, took) = damages_while(&mut w, counter, "bg-2-done");
    let most = took.as_millis() as usize / BACKGROUND_FRAME_INTERVAL_MS as usize + 2;
    eprintln!("background: {count} damages in {took:?}");
    assert!(
        count <= most,
        "{count} damages in {took:?}: more than one per {BACKGROUND_FRAME_INTERVAL_MS} ms"
    );

    // Focused, it still sends (and may send faster); the flag survives as a plain request.
    w.ok(WorkerRequest::SetFocused(true));
    let (count, _) = damages_while(&mut w, "echo focused-$((4+4))", "focused-8");
    assert!(count >= 1);
}
