//! The worker-upgrade drill: a server of the normal build hands its session to the link-next
//! build (one worker link version newer, `target/link-next/`), which moves every pane to its own
//! `herdr-pane-worker` without losing a screen: new worker pids running link-next's binary, the
//! same programs, whole scrollback, a counter that never skips a number, a full-screen program
//! (less) that still answers, the title kept. Handing the session back to the normal build is then
//! refused: it cannot drive the newer workers, and the link-next server serves on.

#[path = "support/link_next.rs"]
mod link_next;
#[path = "support/workers.rs"]
mod workers;

use std::path::Path;

use herdr_e2e::panes;
use herdr_e2e::{PATIENCE, TestServer, binaries, procs, wait_until};
use serde_json::json;
use workers::{Served, served};

/// The numbers after `tick-` in `text`, in order.
fn ticks(text: &str) -> Vec<u64> {
    text.lines().filter_map(|l| l.trim().strip_prefix("tick-")?.parse().ok()).collect()
}

/// `recent`, as many rows as one read gives.
fn recent(server: &TestServer, pane: &str) -> String {
    let read = panes::read_result(server, json!({"pane_id": pane, "source": "recent", "lines": 1000}));
    read["text"].as_str().unwrap_or_default().to_owned()
}

fn terminal_title(server: &TestServer, pane: &str) -> Option<String> {
    let info = server.call("pane.get", json!({"pane_id": pane}));
    info["pane"]["terminal_title"].as_str().map(str::to_owned)
}

/// The pane's worker runs `exe`.
fn runs(served: &Served, exe: &Path) -> Result<(), String> {
    match served.worker_exe() {
        Some(running) if running == exe => Ok(()),
        other => Err(format!("{}'s worker {} runs {other:?}", served.pane, served.worker)),
    }
}

/// What the link-next server wrote (the importer logs to the session's server log).
fn importer_log(server: &TestServer) -> String {
    std::fs::read_to_string(server.data_dir().join("herdr-server.log")).unwrap_or_default()
}

#[test]
fn a_handoff_to_the_next_link_version_moves_every_pane_to_its_worker() {
    let (next_herdr, next_worker) = link_next::binaries();
    let next_worker = std::fs::canonicalize(&next_worker).expect("canonical worker path");
    let server = TestServer::start();
    let counter = panes::create_workspace(&server).pane_id;
    let lines = panes::split(&server, &counter, "right");
    let less = panes::split(&server, &counter, "down");
    let titled = panes::split(&server, &lines, "down");
    let all = vec![counter.clone(), lines.clone(), less.clone(), titled.clone()];
    for pane in &all {
        panes::settle(&server, pane);
    }
    panes::run(&server, &counter, panes::COUNTER);
    panes::run(&server, &lines, "seq -f 'row-%g' 3000");
    panes::wait_output(&server, &lines, "row-3000", PATIENCE);
    let pages = server.work_dir("less").join("pages.txt");
    let text: String = (1..=500).map(|i| format!("page-{i}\n")).collect();
    std::fs::write(&pages, text).expect("write the file less shows");
    panes::run(&server, &less, &format!("seq -f 'hist-%g' 300; less {}", pages.display()));
    panes::wait_foreground(&server, &less, "less");
    wait_until("less to draw its first page", PATIENCE, || {
        let screen = panes::read(&server, &less, "visible");
        if screen.starts_with("page-1\n") { Ok(()) } else { Err(screen) }
    });
    panes::run(&server, &titled, "printf '\\033]2;upgrade-drill\\007'");
    wait_until("the title to be reported", PATIENCE, || match terminal_title(&server, &titled) {
        Some(title) if title == "upgrade-drill" => Ok(()),
        other => Err(format!("{other:?}")),
    });
    panes::wait_tick_past(&server, &counter, 5);

    let before = served(&server, &all).expect("one worker per pane");
    assert_eq!(
        before.iter().map(|s| (s.shell, s.worker)).collect::<Vec<_>>(),
        panes::programs(&server, &all).iter().map(|p| (p.shell, p.worker)).collect::<Vec<_>>(),
        "found by its PTY, each pane's worker is its program's parent before any upgrade"
    );
    let normal_worker = std::fs::canonicalize(binaries::binary("herdr-pane-worker")).expect("canonical");
    for program in &before {
        runs(program, &normal_worker).expect("the normal build's worker runs every pane first");
    }
    let lines_before = recent(&server, &lines);
    let less_before = panes::read(&server, &less, "visible");
    let titled_before = recent(&server, &titled);
    let counter_before = recent(&server, &counter);
    assert!(lines_before.contains("row-2002\n") && lines_before.contains("row-3000"), "{lines_before}");

    let handoff =
        server.cli(&["server", "live-handoff", "--import-exe", next_herdr.to_str().expect("utf-8")]);
    assert!(handoff.status.success(), "live-handoff failed: {handoff:?}\nlog:\n{}", importer_log(&server));

    // Every pane moves to link-next's worker, in the background, with the same program.
    let after = wait_until("every pane to run on link-next's worker", PATIENCE, || {
        let now = served(&server, &all)?;
        for (old, new) in before.iter().zip(&now) {
            if old.worker == new.worker {
                return Err(format!("{} still on worker {}", new.pane, new.worker));
            }
            runs(new, &next_worker)?;
        }
        Ok(now)
    });
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(old.shell, new.shell, "{}: the same program runs", new.pane);
    }
    let log = importer_log(&server);
    assert!(log.contains("because it speaks link version"), "upgrades are logged per pane:\n{log}");
    // A read shows at most 1000 rows; the dump sizes say the rest came too: the biggest (the
    // 3000 lines' pane) holds at least every `row-N` line it printed.
    let printed: usize = (1..=3000).map(|n: usize| format!("row-{n}\r\n").len()).sum();
    let biggest = log
        .lines()
        .filter(|l| l.contains("upgraded worker"))
        .filter_map(|l| l.split("; ").nth(1)?.split(' ').next()?.parse::<usize>().ok())
        .max()
        .expect("upgrade lines with their dump sizes");
    assert!(biggest >= printed, "the biggest dump has {biggest} bytes, the 3000 lines alone {printed}");

    // Scrollback: the 3000 lines' pane printed nothing since, so its read is the same.
    assert_eq!(recent(&server, &lines), lines_before, "the 3000 lines came over");
    assert_eq!(recent(&server, &titled), titled_before);
    assert_eq!(panes::read(&server, &less, "visible"), less_before, "less's screen came over as it was");
    // The counter went on counting: every number from its first to its last, none skipped.
    let seen = panes::last_tick(&server, &counter).expect("ticks");
    panes::wait_tick_past(&server, &counter, seen + 5);
    let counter_after = recent(&server, &counter);
    assert!(counter_after.starts_with(&counter_before), "only new output was added:\n{counter_after}");
    let counted = ticks(&counter_after);
    let first = *counted.first().expect("ticks in the read");
    let expected: Vec<u64> = (first..first + counted.len() as u64).collect();
    assert_eq!(counted, expected, "the counter's output has no gap and no repeat");
    // less answers keystrokes on the alternate screen, and the shell history under it is kept.
    panes::run(&server, &less, "G");
    wait_until("less to show the end of the file", PATIENCE, || {
        let screen = panes::read(&server, &less, "visible");
        if screen.contains("page-500") && !screen.contains("page-1\n") { Ok(()) } else { Err(screen) }
    });
    let typed = server.call("pane.send_input", json!({"pane_id": less, "text": "q", "keys": []}));
    assert_eq!(typed["type"], "ok", "{typed}");
    panes::wait_shell_foreground(&server, &less);
    wait_until("the shell history from before less", PATIENCE, || {
        let text = recent(&server, &less);
        if text.contains("hist-1\n") && text.contains("hist-300") { Ok(()) } else { Err(text) }
    });
    assert_eq!(terminal_title(&server, &titled).as_deref(), Some("upgrade-drill"));

    // Back to the normal build: it cannot drive the newer workers, so it refuses.
    let back = server.cli(&[
        "server",
        "live-handoff",
        "--import-exe",
        binaries::binary("herdr").to_str().expect("utf-8"),
    ]);
    assert!(
        !back.status.success(),
        "a handoff to a binary that cannot drive the workers must fail: {back:?}"
    );
    assert!(back.stderr.contains("a worker speaks link version"), "the reason is given: {back:?}");
    assert_eq!(
        served(&server, &all),
        Ok(after.clone()),
        "the link-next server serves on with the same workers"
    );
    let now = panes::last_tick(&server, &counter).expect("ticks");
    panes::wait_tick_past(&server, &counter, now + 2);
    assert!(after.iter().all(|p| procs::alive(p.worker)));
}
