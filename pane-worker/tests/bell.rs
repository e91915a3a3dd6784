//! Bells from the real worker binary on a real PTY: a program's BEL becomes one `Bell` event,
//! visible or hidden; a burst is limited to one per 100 ms; a BEL ending an escape sequence is
//! not a bell.

mod support;

use std::time::Instant;

use herdr_protocol::ipc::{Matcher, ReadSource, WorkerEvent, WorkerRequest, WorkerToSupervisor};
use support::Worker;

/// The limit the worker promises on the link.
const BELL_INTERVAL_MS: u128 = 100;

fn shell() -> Worker {
    let mut w = Worker::start();
    w.spawn(&["sh"], &[("PS1", "$ ")], None, (60, 10));
    w.wait_for(ReadSource::Visible, Matcher::Substring("$".into()));
    w
}

/// Runs `command` followed by an echo of a marker the command line itself does not contain, and
/// waits until the marker is on the screen: every bell the command rang has been reported by
/// then (events go out before the answer to the wait). Returns how long that took.
fn run_then_mark(w: &mut Worker, command: &str, marker: &str) -> std::time::Duration {
    let started = Instant::now();
    w.run(&format!("{command}; echo {marker}-$((40+2))"));
    w.wait_for(ReadSource::Recent, Matcher::Substring(format!("{marker}-42")));
    started.elapsed()
}

/// Takes the bells stashed so far.
fn take_bells(w: &mut Worker) -> usize {
    let before = w.stash.len();
    w.stash.retain(|f| !matches!(f, WorkerToSupervisor::Event(WorkerEvent::Bell)));
    before - w.stash.len()
}

#[test]
fn a_hidden_pane_reports_one_bell_for_one_bel() {
    let mut w = shell();
    run_then_mark(&mut w, "printf 'ding\\a\\n'", "rang");
    assert_eq!(take_bells(&mut w), 1);
    // Nothing rings without a BEL.
    run_then_mark(&mut w, "printf 'quiet\\n'", "silent");
    assert_eq!(take_bells(&mut w), 0);
}

#[test]
fn a_visible_pane_reports_its_bell_too() {
    let mut w = shell();
    w.ok(WorkerRequest::SetVisible(true));
    run_then_mark(&mut w, "printf '\\a'", "shown");
    assert_eq!(take_bells(&mut w), 1);
}

#[test]
fn fifty_bels_in_one_write_are_limited_on_the_link() {
    let mut w = shell();
    let took = run_then_mark(&mut w, "printf '\\a%.0s' $(seq 50)", "burst");
    assert_limited(take_bells(&mut w), took);
}

#[test]
fn fifty_bels_in_separate_writes_are_limited_on_the_link() {
    let mut w = shell();
    let took = run_then_mark(&mut w, "i=0; while [ $i -lt 50 ]; do printf '\\a'; i=$((i+1)); done", "loop");
    assert_limited(take_bells(&mut w), took);
}

/// `bells` for fifty BELs rung within `took`: at least one, and at most one per interval of
/// that time (one on an idle machine, where they take a few milliseconds).
fn assert_limited(bells: usize, took: std::time::Duration) {
    let most = 1 + took.as_millis() / BELL_INTERVAL_MS;
    eprintln!("50 BELs in {took:?}: {bells} bell events");
    assert!(bells >= 1 && bells as u128 <= most, "{bells} bells in {took:?}");
}

#[test]
fn a_bel_that_ends_a_title_or_hyperlink_is_not_a_bell() {
    let mut w = shell();
    run_then_mark(&mut w, "printf '\\033]2;build\\007\\033]8;;http://x\\007link\\033]8;;\\007\\n'", "osc");
    let title = w.event("the title", |e| matches!(e, WorkerEvent::Title(_)));
    assert_eq!(title, WorkerEvent::Title(Some("build".into())));
    assert_eq!(take_bells(&mut w), 0);
}
