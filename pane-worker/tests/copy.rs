//! Copy mode, mouse selection and typed keys through the real worker binary on a real PTY: the
//! requests' answers, and the copy overlay riding on the damage a visible pane sends.

mod support;

use std::time::{Duration, Instant};

use herdr_protocol::grid::GridCell;
use herdr_protocol::ipc::{
    CopyMotion, CopyRequest, GridDamage, Matcher, ReadSource, WorkerEvent, WorkerRequest, WorkerResponse,
};
use support::{DEADLINE, Worker};

fn text(cells: &[GridCell]) -> String {
    cells.iter().map(|c| c.text.as_str()).collect::<String>().trim_end().to_string()
}

/// Waits for a damage matching `pick`; every damage before it is applied to `rows`, the mirror
/// of the pane's grid the supervisor would keep.
fn damage(
    w: &mut Worker,
    rows: &mut Vec<String>,
    what: &str,
    pick: impl Fn(&GridDamage) -> bool,
) -> GridDamage {
    loop {
        let WorkerEvent::Damage(d) = w.event(what, |e| matches!(e, WorkerEvent::Damage(_))) else {
            unreachable!("picked a damage event")
        };
        if d.full || rows.len() != usize::from(d.rows) {
            *rows = vec![String::new(); usize::from(d.rows)];
        }
        for (y, cells) in &d.lines {
            rows[usize::from(*y)] = text(cells);
        }
        if pick(&d) {
            return d;
        }
    }
}

fn copy(w: &mut Worker, req: CopyRequest) -> WorkerResponse {
    w.request(WorkerRequest::Copy(req))
}

fn wait_foreground(w: &mut Worker, name: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let WorkerResponse::ProcessInfo(info) = w.request(WorkerRequest::ProcessInfo) else {
            panic!("process info answered something else")
        };
        if info.foreground_processes.iter().any(|p| p.name == name) {
            return;
        }
        assert!(Instant::now() < deadline, "{name} never took the foreground: {info:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls the screen until it shows `needle`; the failure names what the screen showed instead.
fn wait_screen(w: &mut Worker, needle: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let screen = w.text(ReadSource::Visible);
        if screen.contains(needle) {
            return;
        }
        assert!(Instant::now() < deadline, "the screen never showed {needle:?}:\n{screen}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn copy_mode_round_trip_on_a_visible_pane() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (40, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.run("i=0; while [ $i -lt 300 ]; do printf 'row-%03d\\n' $i; i=$((i+1)); done");
    w.wait_for(ReadSource::Visible, Matcher::Regex("^row-299$".into()));
    w.ok(WorkerRequest::SetVisible(true));
    let mut rows = Vec::new();
    damage(&mut w, &mut rows, "the first frame", |d| d.full && d.copy.is_none());

    assert_eq!(copy(&mut w, CopyRequest::Enter), WorkerResponse::Ok);
    let entered = damage(&mut w, &mut rows, "the copy overlay", |d| d.copy.is_some());
    let view = entered.copy.expect("overlay");
    assert!(view.active && view.cursor.is_some(), "{view:?}");

    let search = CopyRequest::Search { query: "row-042".into(), backward: true };
    assert_eq!(copy(&mut w, search), WorkerResponse::Ok);
    let found = damage(&mut w, &mut rows, "the view at the match", |d| {
        d.copy.as_ref().is_some_and(|c| c.search.as_ref().is_some_and(|s| s.found))
    });
    assert!(found.scroll.offset_from_bottom > 200, "{:?}", found.scroll);
    let (col, y) = found.copy.as_ref().and_then(|c| c.cursor).expect("cursor in view");
    assert_eq!((col, rows[usize::from(y)].as_str()), (0, "row-042"), "{rows:?}");

    for req in [
        CopyRequest::ToggleSelection,
        CopyRequest::Motion(CopyMotion::Down),
        CopyRequest::Motion(CopyMotion::LineEnd),
    ] {
        assert_eq!(copy(&mut w, req), WorkerResponse::Ok);
    }
    damage(&mut w, &mut rows, "the selection", |d| {
        d.copy.as_ref().is_some_and(|c| c.selection == Some(((0, y), (6, y + 1))))
    });
    assert_eq!(copy(&mut w, CopyRequest::Yank), WorkerResponse::Copied("row-042\nrow-043".into()));
    let left = damage(&mut w, &mut rows, "copy mode gone", |d| d.copy.is_none());
    assert_eq!(left.scroll.offset_from_bottom, 0, "back on the live screen");

    // A mouse drag over two rows of the live screen.
    let at = rows.iter().position(|r| r == "row-298").expect("row-298 shown") as u16;
    assert_eq!(copy(&mut w, CopyRequest::SelectStart { col: 4, row: at }), WorkerResponse::Ok);
    assert_eq!(
        copy(&mut w, CopyRequest::SelectExtend { col: 2, row: i32::from(at) + 1 }),
        WorkerResponse::Ok
    );
    assert_eq!(copy(&mut w, CopyRequest::SelectFinish), WorkerResponse::Copied("298\nrow".into()));
    let shown = damage(&mut w, &mut rows, "the mouse selection", |d| {
        d.copy.as_ref().is_some_and(|c| c.selection == Some(((4, at), (2, at + 1))))
    });
    assert!(shown.copy.is_some_and(|c| !c.active && c.cursor.is_none()));
    assert_eq!(
        copy(&mut w, CopyRequest::SelectWord { col: 5, row: at }),
        WorkerResponse::Ok,
        "a word alone is copied at the release"
    );
    assert_eq!(copy(&mut w, CopyRequest::SelectFinish), WorkerResponse::Copied("298".into()));

    // Typing drops a mouse selection.
    w.ok(WorkerRequest::TypeKey { bytes: b"x".to_vec(), key: "x".into() });
    damage(&mut w, &mut rows, "the selection cleared by typing", |d| d.copy.is_none());
}

#[test]
fn copy_requests_on_a_hidden_pane_are_answered() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (30, 5));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w.run("echo copy-me");
    w.wait_for(ReadSource::Visible, Matcher::Regex("^copy-me$".into()));
    assert_eq!(copy(&mut w, CopyRequest::Enter), WorkerResponse::Ok);
    let search = CopyRequest::Search { query: "copy-me".into(), backward: true };
    assert_eq!(copy(&mut w, search), WorkerResponse::Ok);
    assert_eq!(copy(&mut w, CopyRequest::Yank), WorkerResponse::Copied("copy-me".into()));
    assert_eq!(copy(&mut w, CopyRequest::Leave), WorkerResponse::Ok);
    assert!(
        !w.stash
            .iter()
            .any(|f| matches!(f, herdr_protocol::ipc::WorkerToSupervisor::Event(WorkerEvent::Damage(_))))
    );
}

#[test]
fn typed_escape_reaches_a_kitty_keyboard_program_in_its_encoding() {
    let mut w = Worker::start();
    let (_pid, _master) = w.spawn(&["sh"], &[("PS1", "$ ")], None, (60, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    // Without keyboard flags the user's bytes go through exactly: ctrl+i is a tab.
    w.run("head -c 2 | od -An -tx1 | tr -d ' ' | sed 's/^/plain-/'");
    wait_foreground(&mut w, "head");
    w.ok(WorkerRequest::TypeKey { bytes: b"\t".to_vec(), key: "ctrl+i".into() });
    w.ok(WorkerRequest::SendBytes(b"\n".to_vec()));
    wait_screen(&mut w, "plain-090a");

    // The program pushes kitty flags (disambiguate): escape must arrive as CSI 27 u.
    // The marker line comes after the push, so once the worker shows it, it has the flags.
    w.run("printf '\\033[>1u'; echo flags-pushed; head -c 5 | od -An -tx1 | tr -d ' ' | sed 's/^/kitty-/'");
    w.wait_for(ReadSource::Visible, Matcher::Regex("^flags-pushed$".into()));
    wait_foreground(&mut w, "head");
    w.ok(WorkerRequest::TypeKey { bytes: vec![0x1b], key: "escape".into() });
    // The tty is in canonical mode: a newline hands the line to `head`.
    w.ok(WorkerRequest::SendBytes(b"\n".to_vec()));
    wait_screen(&mut w, "kitty-1b5b323775");
}
