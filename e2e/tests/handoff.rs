//! Live handoff (`herdr server live-handoff`): the running supervisor passes its sockets and
//! session lock to another binary, which re-adopts every worker. Nothing a pane runs notices:
//! same programs, same workers, whole terminals, same ids; the API answers throughout.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use herdr_e2e::panes::{self, Program};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, binaries, procs, wait_until};
use serde_json::{Value, json};

/// `panes_per_workspace` panes in each of `workspaces` workspaces.
fn make_panes(server: &TestServer, workspaces: usize, panes_per_workspace: usize) -> Vec<String> {
    let mut all = Vec::new();
    for _ in 0..workspaces {
        let root = panes::create_workspace(server).pane_id;
        let mut ws = vec![root];
        for i in 1..panes_per_workspace {
            let direction = if i % 2 == 1 { "right" } else { "down" };
            let target = ws[i / 2].clone();
            ws.push(panes::split(server, &target, direction));
        }
        all.extend(ws);
    }
    for pane in &all {
        panes::settle(server, pane);
    }
    all
}

fn start_counter(server: &TestServer, pane: &str, tag: &str) {
    panes::run(
        server,
        pane,
        &format!("echo start-{tag}; i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.3; done"),
    );
}

fn ids(server: &TestServer) -> Vec<String> {
    let list = server.call("pane.list", json!({}));
    let mut ids: Vec<String> = list["panes"]
        .as_array()
        .expect("panes")
        .iter()
        .map(|p| p["pane_id"].as_str().expect("id").to_owned())
        .collect();
    ids.sort();
    ids
}

/// A copy of the built `herdr` at another path: "a second build" to hand over to.
fn second_binary(server: &TestServer) -> PathBuf {
    let dir = server.work_dir("second-build");
    let copy = dir.join("herdr");
    std::fs::copy(binaries::binary("herdr"), &copy).expect("copy herdr");
    copy
}

/// Keeps pinging on fresh connections until stopped; counts answers and failures.
struct Pinger {
    stop: Arc<AtomicBool>,
    failures: Arc<AtomicUsize>,
    answers: Arc<AtomicUsize>,
    thread: std::thread::JoinHandle<Vec<String>>,
}

impl Pinger {
    fn start(server: &TestServer) -> Self {
        let (stop, failures, answers) = (Arc::default(), Arc::default(), Arc::default());
        let socket = server.socket().to_owned();
        let (s, f, a): (Arc<AtomicBool>, Arc<AtomicUsize>, Arc<AtomicUsize>) =
            (Arc::clone(&stop), Arc::clone(&failures), Arc::clone(&answers));
        let thread = std::thread::spawn(move || {
            let mut errors = Vec::new();
            while !s.load(Ordering::SeqCst) {
                let outcome = LineStream::open(&socket, r#"{"id":"p","method":"ping","params":{}}"#)
                    .and_then(|mut line| line.next_line(Duration::from_secs(20)));
                match outcome {
                    Ok(Some(line)) if line.contains("\"pong\"") => {
                        a.fetch_add(1, Ordering::SeqCst);
                    }
                    other => {
                        f.fetch_add(1, Ordering::SeqCst);
                        errors.push(format!("{other:?}"));
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            errors
        });
        Self { stop, failures, answers, thread }
    }

    fn finish(self) -> (usize, usize, Vec<String>) {
        self.stop.store(true, Ordering::SeqCst);
        let errors = self.thread.join().expect("pinger");
        (self.answers.load(Ordering::SeqCst), self.failures.load(Ordering::SeqCst), errors)
    }
}

#[test]
fn live_handoff_keeps_every_program_and_terminal() {
    let mut server = TestServer::start();
    let all = make_panes(&server, 4, 5);
    let (top_pane, counters) = all.split_last().expect("panes");
    for (i, pane) in counters.iter().enumerate() {
        start_counter(&server, pane, &i.to_string());
    }
    panes::run(&server, top_pane, "top -d 0.5");
    panes::wait_foreground(&server, top_pane, "top");
    let top_screen = |server: &TestServer| panes::read(server, top_pane, "visible");
    wait_until("top to draw its header", PATIENCE, || {
        let screen = top_screen(&server);
        if screen.contains("load average") { Ok(()) } else { Err(screen) }
    });
    let mut before_ticks = BTreeMap::new();
    for pane in counters {
        before_ticks.insert(pane.clone(), panes::wait_tick_past(&server, pane, 2));
    }
    let programs_before: Vec<Program> = panes::programs(&server, &all);
    let ids_before = ids(&server);
    let old_pid = server.server_pid();
    let mut events = LineStream::open(
        server.socket(),
        &json!({"id": "sub", "method": "events.subscribe", "params": {"subscriptions": [{"type": "pane.created"}]}})
            .to_string(),
    )
    .expect("subscribe");
    let ack = events.next_line(Duration::from_secs(10)).expect("ack").expect("an ack line");
    assert!(ack.contains("subscription_started"), "{ack}");

    let pinger = Pinger::start(&server);
    std::thread::sleep(Duration::from_millis(200));
    let exe = second_binary(&server);
    let started = Instant::now();
    let handoff = server.cli(&["server", "live-handoff", "--import-exe", exe.to_str().expect("utf-8")]);
    let took = started.elapsed();
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", server.log_tail());
    std::thread::sleep(Duration::from_millis(300));
    let (answers, failures, errors) = pinger.finish();
    assert_eq!(failures, 0, "pings failed during the handoff ({answers} answered): {errors:?}");
    eprintln!("handoff took {took:?}; {answers} pings answered meanwhile");

    wait_until("the old supervisor to exit", PATIENCE, || {
        server.server_exited().map(drop).ok_or_else(|| "still running".to_owned())
    });
    assert!(!procs::alive(old_pid), "the old supervisor {old_pid} still runs");
    let importers: Vec<_> = server
        .marked_processes()
        .into_iter()
        .filter(|p| p.cmdline.iter().any(|a| a == "--handoff-import"))
        .collect();
    assert!(
        importers.iter().any(|p| p.cmdline.first().is_some_and(|a| a.ends_with("second-build/herdr"))),
        "the second build serves: {importers:?}"
    );

    // The subscription ended (an error line, then EOF), and a new one works.
    let mut tail = Vec::new();
    while let Ok(Some(line)) = events.next_line(Duration::from_secs(10)) {
        tail.push(line);
    }
    assert!(tail.iter().all(|l| l.contains("server_unavailable")), "the stream ended with {tail:?}");
    let mut again = LineStream::open(
        server.socket(),
        &json!({"id": "sub2", "method": "events.subscribe", "params": {"subscriptions": [{"type": "pane.created"}]}})
            .to_string(),
    )
    .expect("resubscribe");
    let ack = again.next_line(Duration::from_secs(10)).expect("ack").expect("an ack line");
    assert!(ack.contains("subscription_started"), "{ack}");

    assert_eq!(ids(&server), ids_before, "pane ids are unchanged");
    assert_eq!(panes::programs(&server, &all), programs_before, "same programs, same workers");
    for pane in counters {
        let recent = panes::read(&server, pane, "recent");
        let floor = before_ticks[pane];
        assert!(recent.contains(&format!("tick-{floor}")), "{pane} kept its pre-handoff lines: {recent}");
        panes::wait_tick_past(&server, pane, floor + 2);
    }
    wait_until("top to keep drawing", PATIENCE, || {
        let screen = top_screen(&server);
        if screen.contains("load average") { Ok(()) } else { Err(screen) }
    });
    let status = server.cli(&["status", "--json"]);
    let status: Value = serde_json::from_str(status.text()).expect("status json");
    assert_eq!(status["server"]["capabilities"]["live_handoff"], true);
}

/// Speaks the importer's side up to the `fds` step, then exits without adopting anything.
const DYING_IMPORTER: &str = r#"#!/usr/bin/env python3
import json, socket, sys
sock, token = sys.argv[-2], sys.argv[-1]
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
f = s.makefile("rwb", buffering=0)
f.write((json.dumps({"step": "hello", "token": token}) + "\n").encode())
f.readline()
f.write(b'{"step":"validated"}\n')
msg, fds, _, _ = socket.recv_fds(s, 4096, 8)
sys.exit(1)
"#;

#[test]
fn a_failed_handoff_leaves_the_old_supervisor_serving() {
    let mut server = TestServer::start();
    let all = make_panes(&server, 1, 3);
    for (i, pane) in all.iter().enumerate() {
        start_counter(&server, pane, &i.to_string());
        panes::wait_tick_past(&server, pane, 1);
    }
    let programs_before = panes::programs(&server, &all);
    let ids_before = ids(&server);
    let old_pid = server.server_pid();

    let refused = server.cli(&["server", "live-handoff", "--expected-protocol", "9999"]);
    assert!(!refused.status.success(), "a wrong protocol must be refused: {refused:?}");
    assert!(refused.stderr.contains("expected protocol 9999"), "{refused:?}");

    let exits = server.cli(&["server", "live-handoff", "--import-exe", "/bin/false"]);
    assert!(!exits.status.success(), "an importer that exits must fail the handoff: {exits:?}");
    assert!(exits.stderr.contains("handoff_failed"), "{exits:?}");

    // An importer that takes the sockets and then dies: the old one has let go of every worker
    // by then, and must take each one back.
    let dies = server.work_dir("dying-importer").join("herdr");
    std::fs::write(&dies, DYING_IMPORTER).expect("write the importer");
    std::fs::set_permissions(&dies, std::os::unix::fs::PermissionsExt::from_mode(0o700)).expect("chmod");
    let died = server.cli(&["server", "live-handoff", "--import-exe", dies.to_str().expect("utf-8")]);
    assert!(!died.status.success(), "an importer that dies after the fds must fail the handoff: {died:?}");
    assert!(server.log_text().contains("took worker"), "workers taken back:\n{}", server.log_tail());

    assert!(server.server_exited().is_none(), "the old supervisor still runs");
    assert_eq!(server.server_pid(), old_pid);
    assert_eq!(ids(&server), ids_before);
    assert_eq!(panes::programs(&server, &all), programs_before, "same programs, same workers");
    for pane in &all {
        let now = panes::last_tick(&server, pane).unwrap_or(0);
        panes::wait_tick_past(&server, pane, now + 1);
    }
    // The CLI and new panes work, and the session is still saved.
    let split = panes::split(&server, &all[0], "down");
    panes::settle(&server, &split);
    wait_until("the new pane to be saved", PATIENCE, || {
        let saved = std::fs::read_to_string(server.session_json_path()).unwrap_or_default();
        let count = saved.matches("\"uid\"").count();
        if count == all.len() + 1 { Ok(()) } else { Err(format!("{count} panes saved")) }
    });
    assert!(server.cli(&["pane", "list"]).status.success());
}
