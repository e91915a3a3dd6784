//! Live handoff (`herdr server live-handoff`): the running supervisor passes its sockets and
//! session lock to another binary, which re-adopts every worker. Nothing a pane runs notices:
//! same programs, same workers, whole terminals, same ids; the API answers throughout.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use herdr_e2e::panes::{self, Program};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, procs, wait_until};
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

/// The lines a stream still delivers until it ends (or stays silent for 10 s).
fn drain(events: &mut LineStream) -> Vec<String> {
    let mut tail = Vec::new();
    while let Ok(Some(line)) = events.next_line(Duration::from_secs(10)) {
        tail.push(line);
    }
    tail
}

/// Opens a new `events.subscribe` stream and returns its first line (the acknowledgement).
fn resubscribe(server: &TestServer) -> String {
    let mut again = LineStream::open(
        server.socket(),
        &json!({"id": "sub2", "method": "events.subscribe", "params": {"subscriptions": [{"type": "pane.created"}]}})
            .to_string(),
    )
    .expect("resubscribe");
    again.next_line(Duration::from_secs(10)).expect("ack").expect("an ack line")
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
    let exe = server.second_build();
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
    let tail = drain(&mut events);
    assert!(tail.iter().all(|l| l.contains("server_unavailable")), "the stream ended with {tail:?}");
    let ack = resubscribe(&server);
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

fn subscribe(server: &TestServer, id: &str) -> LineStream {
    let mut events = LineStream::open(
        server.socket(),
        &json!({"id": id, "method": "events.subscribe", "params": {"subscriptions": [{"type": "pane.created"}]}})
            .to_string(),
    )
    .expect("subscribe");
    let ack = events.next_line(Duration::from_secs(10)).expect("ack").expect("an ack line");
    assert!(ack.contains("subscription_started"), "{ack}");
    events
}

/// `status --json`'s server block.
fn server_status(server: &TestServer) -> Value {
    let status: Value = serde_json::from_str(server.cli(&["status", "--json"]).text()).expect("status json");
    status["server"].clone()
}

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
    let status_before = server_status(&server);
    let mut events = subscribe(&server, "sub");

    // Refused at validation, or no importer at all: nothing was paused, so even the open
    // subscription goes on as if nothing happened.
    let refused = server.cli(&["server", "live-handoff", "--expected-protocol", "9999"]);
    assert!(!refused.status.success(), "a wrong protocol must be refused: {refused:?}");
    assert!(refused.stderr.contains("expected protocol 9999"), "{refused:?}");

    let wrong_version = server.cli(&["server", "live-handoff", "--expected-version", "99.0.0"]);
    assert!(!wrong_version.status.success(), "a wrong version must be refused: {wrong_version:?}");
    assert!(wrong_version.stderr.contains("expected version 99.0.0"), "{wrong_version:?}");

    let exits = server.cli(&["server", "live-handoff", "--import-exe", "/bin/false"]);
    assert!(!exits.status.success(), "an importer that exits must fail the handoff: {exits:?}");
    assert!(exits.stderr.contains("handoff_failed"), "{exits:?}");

    let missing = server.work_dir("nowhere").join("herdr");
    let absent = server.cli(&["server", "live-handoff", "--import-exe", missing.to_str().expect("utf-8")]);
    assert!(!absent.status.success(), "a missing binary must fail the handoff: {absent:?}");
    assert!(absent.stderr.contains("cannot start the importer"), "{absent:?}");

    let extra = panes::split(&server, &all[0], "down");
    let event = events.next_line(Duration::from_secs(10)).expect("read").expect("an event line");
    assert!(event.contains("pane_created") && event.contains(&extra), "the subscription still runs: {event}");
    assert_eq!(server_status(&server), status_before, "same supervisor, same binary, same service");
    server.call("pane.close", json!({"pane_id": extra}));

    // An importer that takes the sockets and then dies: the old one has let go of every worker
    // by then, and must take each one back. It had paused, so the subscription ended.
    let dies = server.work_dir("dying-importer").join("herdr");
    std::fs::write(&dies, DYING_IMPORTER).expect("write the importer");
    std::fs::set_permissions(&dies, std::os::unix::fs::PermissionsExt::from_mode(0o700)).expect("chmod");
    let died = server.cli(&["server", "live-handoff", "--import-exe", dies.to_str().expect("utf-8")]);
    assert!(!died.status.success(), "an importer that dies after the fds must fail the handoff: {died:?}");
    assert!(server.log_text().contains("took worker"), "workers taken back:\n{}", server.log_tail());
    let tail = drain(&mut events);
    assert!(tail.iter().all(|l| l.contains("server_unavailable")), "the stream ended with {tail:?}");
    drop(subscribe(&server, "sub2"));

    assert!(server.server_exited().is_none(), "the old supervisor still runs");
    assert_eq!(server.server_pid(), old_pid);
    assert_eq!(ids(&server), ids_before);
    assert_eq!(panes::programs(&server, &all), programs_before, "same programs, same workers");
    for pane in &all {
        let now = panes::last_tick(&server, pane).unwrap_or(0);
        panes::wait_tick_past(&server, pane, now + 1);
    }
    let leftovers: Vec<_> = std::fs::read_dir(server.runtime_dir())
        .expect("the runtime dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("handoff-"))
        .collect();
    assert!(leftovers.is_empty(), "handoff sockets left behind: {leftovers:?}");
    // The CLI and new panes work, and the session is still saved.
    let split = panes::split(&server, &all[0], "down");
    panes::settle(&server, &split);
    wait_until("the new pane to be saved", PATIENCE, || {
        let saved = std::fs::read_to_string(server.session_json_path()).unwrap_or_default();
        let count = saved.matches("\"uid\"").count();
        if count == all.len() + 1 { Ok(()) } else { Err(format!("{count} panes saved")) }
    });
    assert!(server.cli(&["pane", "list"]).status.success());

    // Nothing the failures did is in the way of a handoff that works.
    let exe = server.second_build();
    let handoff = server.cli(&["server", "live-handoff", "--import-exe", exe.to_str().expect("utf-8")]);
    assert!(handoff.status.success(), "live-handoff after the failures: {handoff:?}\n{}", server.log_tail());
    assert_eq!(panes::programs(&server, &all), programs_before, "same programs after the handoff");
    assert_ne!(server_status(&server)["service"]["pid"], status_before["service"]["pid"]);
}

/// The pid of the process called `name` in the pane's foreground.
fn foreground_pid(server: &TestServer, pane: &str, name: &str) -> i64 {
    let info = server.call("pane.process_info", json!({"pane_id": pane}));
    info["process_info"]["foreground_processes"]
        .as_array()
        .and_then(|list| list.iter().find(|p| p["name"] == name))
        .and_then(|p| p["pid"].as_i64())
        .unwrap_or_else(|| panic!("no {name} in {pane}'s foreground: {info}"))
}

/// The whole scrollback (up to the 1000-row cap) of a pane as `recent` text.
fn whole_recent(server: &TestServer, pane: &str) -> String {
    panes::read_result(server, json!({"pane_id": pane, "source": "recent", "lines": 1000}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn wait_screen(server: &TestServer, pane: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    wait_until(what, PATIENCE, || {
        let screen = panes::read(server, pane, "visible");
        if ok(&screen) { Ok(screen) } else { Err(screen) }
    })
}

fn top_ui(screen: &str) -> bool {
    screen.contains("load average") && screen.lines().any(|r| r.contains("PID") && r.contains("USER"))
}

/// vi's UI on an empty buffer: a column of tildes.
fn vi_ui(screen: &str) -> bool {
    screen.lines().filter(|r| r.trim_end() == "~").count() >= 5
}

/// The acceptance drill: 98 counters, vi and top — 100 panes — handed to a second build.
/// Every program keeps its pid, every counter's scrollback reads the same plus what it printed
/// since, vi and top still draw and answer keys, a subscription ends with an error and a new
/// one works.
#[test]
fn a_hundred_panes_with_full_screen_programs_survive_a_handoff() {
    let server = TestServer::start();
    let t0 = Instant::now();
    let counters = make_panes(&server, 14, 7);
    eprintln!("{:?}: 98 panes made", t0.elapsed());
    assert_eq!(counters.len(), 98);
    let vi_pane = panes::create_workspace(&server).pane_id;
    let top_pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &vi_pane);
    panes::settle(&server, &top_pane);
    for (i, pane) in counters.iter().enumerate() {
        // One line a second: 98 shells forking `sleep` ten times a second would be the test.
        panes::run(
            &server,
            pane,
            &format!("echo start-{i}; i=0; while :; do i=$((i+1)); echo tick-$i; sleep 1; done"),
        );
    }
    panes::run(&server, &vi_pane, "vi");
    panes::run(&server, &top_pane, "top -d 1");
    panes::wait_foreground(&server, &vi_pane, "vi");
    panes::wait_foreground(&server, &top_pane, "top");
    let vi_before = wait_screen(&server, &vi_pane, "vi to draw", vi_ui);
    let top_before = wait_screen(&server, &top_pane, "top to draw", top_ui);
    for pane in &counters {
        panes::wait_tick_past(&server, pane, 1);
    }
    eprintln!("{:?}: programs running", t0.elapsed());
    let all: Vec<String> = counters.iter().cloned().chain([vi_pane.clone(), top_pane.clone()]).collect();
    let programs_before = panes::programs(&server, &all);
    let (vi_pid, top_pid) =
        (foreground_pid(&server, &vi_pane, "vi"), foreground_pid(&server, &top_pane, "top"));
    let ids_before = ids(&server);
    let recent_before: BTreeMap<&String, String> =
        counters.iter().map(|pane| (pane, whole_recent(&server, pane))).collect();
    let mut events = LineStream::open(
        server.socket(),
        &json!({"id": "sub", "method": "events.subscribe", "params": {"subscriptions": [{"type": "pane.created"}]}})
            .to_string(),
    )
    .expect("subscribe");
    let ack = events.next_line(Duration::from_secs(10)).expect("ack").expect("an ack line");
    assert!(ack.contains("subscription_started"), "{ack}");

    let exe = server.second_build();
    let started = Instant::now();
    let handoff = server.cli(&["server", "live-handoff", "--import-exe", exe.to_str().expect("utf-8")]);
    let took = started.elapsed();
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", server.log_tail());
    eprintln!("{:?}: handoff of {} panes took {took:?}", t0.elapsed(), all.len());

    let tail = drain(&mut events);
    assert!(
        !tail.is_empty() && tail.iter().all(|l| l.contains("server_unavailable")),
        "the subscription ended with an error: {tail:?}"
    );
    let ack = resubscribe(&server);
    assert!(ack.contains("subscription_started"), "{ack}");

    // 0 programs lost: the same shells on the same workers, vi and top the same processes.
    assert_eq!(ids(&server), ids_before, "pane ids are unchanged");
    assert_eq!(panes::programs(&server, &all), programs_before, "same programs, same workers");
    assert_eq!(foreground_pid(&server, &vi_pane, "vi"), vi_pid);
    assert_eq!(foreground_pid(&server, &top_pane, "top"), top_pid);
    let status: Value = serde_json::from_str(server.cli(&["status", "--json"]).text()).expect("status");
    assert!(
        status["server"]["binary"]["path"].as_str().is_some_and(|p| p.ends_with("second-build/herdr")),
        "the second build serves: {status}"
    );

    // Every scrollback reads as before, plus the lines printed since (counted from the read
    // before the handoff, so the counters are waited for all at once, not one after another).
    let tick = regex::Regex::new(r"tick-(\d+)").expect("a valid regex");
    for pane in &counters {
        let before = recent_before[pane].trim_end();
        let floor = tick.captures_iter(before).filter_map(|c| c[1].parse().ok()).max().unwrap_or(0);
        panes::wait_tick_past(&server, pane, floor);
        let after = whole_recent(&server, pane);
        assert!(
            after.starts_with(before),
            "{pane}'s scrollback changed across the handoff\n--- before ---\n{before}\n--- after ---\n{after}"
        );
        assert!(after.len() > before.len(), "{pane} printed nothing since");
    }

    eprintln!("{:?}: scrollbacks checked", t0.elapsed());
    // Full-screen programs: vi's screen is untouched and it answers a key; top keeps redrawing
    // (its clock moves) and quits on `q`.
    assert_eq!(panes::read(&server, &vi_pane, "visible"), vi_before, "vi's screen is intact");
    server.call("pane.send_keys", json!({"pane_id": vi_pane, "keys": ["i"]}));
    server.call("pane.send_text", json!({"pane_id": vi_pane, "text": "typed-after-handoff"}));
    wait_screen(&server, &vi_pane, "vi to insert the typed text", |s| {
        vi_ui(s) && s.lines().next().is_some_and(|row| row.trim_end() == "typed-after-handoff")
    });
    wait_screen(&server, &top_pane, "top to redraw after the handoff", |s| top_ui(s) && s != top_before);
    server.call("pane.send_text", json!({"pane_id": top_pane, "text": "q"}));
    panes::wait_shell_foreground(&server, &top_pane);
    assert!(!procs::alive(i32::try_from(top_pid).expect("pid")), "top quit on q");
    eprintln!("{:?}: full-screen programs checked", t0.elapsed());
}
