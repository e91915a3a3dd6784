//! Crash isolation: `kill -9` of one pane's worker leaves the pane's program running (same pid,
//! still counting, still readable through a fresh worker) and every other pane untouched.

use std::io::ErrorKind;
use std::time::Duration;

use herdr_e2e::panes::{self, Marker};
use herdr_e2e::procs::{self, ProcInfo};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use regex::Regex;
use serde_json::json;

/// The highest `tick-N` in the pane's recent output, if any.
fn last_tick(server: &TestServer, pane: &str) -> Option<u64> {
    let pattern = Regex::new(r"tick-(\d+)").expect("a valid regex");
    let text = panes::read(server, pane, "recent");
    pattern.captures_iter(&text).filter_map(|c| c[1].parse().ok()).max()
}

/// The pane-worker that is the parent of `shell_pid`.
fn worker_of(server: &TestServer, shell_pid: i32) -> ProcInfo {
    let shell = procs::read(shell_pid).unwrap_or_else(|| panic!("shell {shell_pid} is not running"));
    server.workers().into_iter().find(|worker| worker.pid == shell.ppid).unwrap_or_else(|| {
        panic!("no herdr-pane-worker is the parent of shell {shell_pid} (parent {})", shell.ppid)
    })
}

#[test]
fn killing_a_worker_keeps_its_program_running_and_other_panes_working() {
    let server = TestServer::start();
    let counting = panes::create_workspace(&server).pane_id;
    let other = panes::split(&server, &counting, "down");
    panes::settle(&server, &counting);
    panes::settle(&server, &other);

    panes::run(&server, &counting, "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done");
    let before = wait_until("the counter to reach 3", PATIENCE, || match last_tick(&server, &counting) {
        Some(n) if n >= 3 => Ok(n),
        seen => Err(format!("last tick {seen:?}")),
    });
    let shell_pid = panes::shell_pid(&server, &counting);
    let victim = worker_of(&server, shell_pid);
    assert!(victim.cmdline.iter().any(|arg| arg == "--ipc-fd"), "worker cmdline: {:?}", victim.cmdline);
    let other_worker = worker_of(&server, panes::shell_pid(&server, &other));
    assert_ne!(victim.pid, other_worker.pid);

    // A wait on the other pane is pending across the crash.
    let survivor = Marker::new("SURVIVOR");
    let request = json!({"id": "other-wait", "method": "pane.wait_for_output", "params": {"pane_id": other,
        "source": "recent", "match": {"type": "substring", "value": survivor.word}, "timeout_ms": 60000}});
    let mut pending = LineStream::open(server.socket(), &request.to_string()).expect("open a wait");

    kill(Pid::from_raw(victim.pid), Signal::SIGKILL).expect("kill -9 the worker");
    wait_until("the killed worker to be gone", PATIENCE, || match procs::read(victim.pid) {
        Some(p) if p.state != 'Z' => Err(format!("{p:?}")),
        _ => Ok(()),
    });

    // The counter keeps counting and is readable again through a fresh worker.
    let after = wait_until("ticks past the crash to be readable", PATIENCE, || {
        let answer = server.request("pane.read", json!({"pane_id": counting, "source": "recent"}));
        let Some(result) = answer.get("result") else { return Err(format!("read failed: {answer}")) };
        let text = result["read"]["text"].as_str().unwrap_or_default();
        let pattern = Regex::new(r"tick-(\d+)").expect("a valid regex");
        match pattern.captures_iter(text).filter_map(|c| c[1].parse::<u64>().ok()).max() {
            Some(n) if n > before + 2 => Ok(n),
            seen => Err(format!("last tick {seen:?} (before the crash: {before})")),
        }
    });
    assert_eq!(panes::shell_pid(&server, &counting), shell_pid, "the pane's program is the same process");
    assert!(procs::read(shell_pid).is_some_and(|p| p.state != 'Z'), "the shell still runs");
    let replacement = wait_until("a new worker to adopt the shell's pane", PATIENCE, || {
        server
            .workers()
            .into_iter()
            .find(|w| w.pid != victim.pid && w.pid != other_worker.pid)
            .ok_or_else(|| format!("workers: {:?}", server.workers()))
    });
    eprintln!("counter {before} -> {after}; worker {} replaced by {}", victim.pid, replacement.pid);

    // A wait on the counting pane through the new worker sees new output.
    let next = after + 3;
    panes::wait_output(&server, &counting, &format!("tick-{next}"), PATIENCE);

    // The other pane: its worker is the same, the pending wait is answered, reads work.
    assert!(
        procs::read(other_worker.pid).is_some_and(|p| p.state != 'Z'),
        "the other worker was not touched"
    );
    match pending.next_line(Duration::from_millis(300)) {
        Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        other => panic!("the other pane's wait must still be pending: {other:?}"),
    }
    panes::run(&server, &other, &survivor.command);
    let line = pending.next_line(Duration::from_secs(60)).expect("read the wait").expect("an answer");
    let answer = server.check_line(&line).expect("a valid line");
    assert_eq!(answer["result"]["type"], "output_matched", "{answer}");
    assert!(panes::read(&server, &other, "visible").contains(&survivor.word));

    // Crash the replacement too: the shell is now the supervisor's child, and is adopted again.
    kill(Pid::from_raw(replacement.pid), Signal::SIGKILL).expect("kill -9 the replacement worker");
    let resumed = wait_until("ticks past the second crash to be readable", PATIENCE, || {
        let answer = server.request("pane.read", json!({"pane_id": counting, "source": "recent"}));
        let Some(result) = answer.get("result") else { return Err(format!("read failed: {answer}")) };
        let text = result["read"]["text"].as_str().unwrap_or_default();
        let pattern = Regex::new(r"tick-(\d+)").expect("a valid regex");
        match pattern.captures_iter(text).filter_map(|c| c[1].parse::<u64>().ok()).max() {
            Some(n) if n > next + 2 => Ok(n),
            seen => Err(format!("last tick {seen:?} (before the second crash: {next})")),
        }
    });
    assert_eq!(panes::shell_pid(&server, &counting), shell_pid, "still the same program after two crashes");
    eprintln!("after the second crash the counter reached {resumed}");

    // Stop the counter: keys reach the adopted program too.
    server.call("pane.send_keys", json!({"pane_id": counting, "keys": ["ctrl+c"]}));
    let done = Marker::new("STOPPED");
    panes::run(&server, &counting, &done.command);
    panes::wait_output(&server, &counting, &done.word, PATIENCE);
    server.assert_alive();
}
