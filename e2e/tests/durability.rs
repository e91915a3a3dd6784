//! Durability drills on real processes.
//!
//! - `kill -9` of the supervisor while panes print counters: every worker and program keeps
//!   running, and the next supervisor of the session re-adopts them before it answers anything:
//!   same pane ids, layout, shells and workers (adopted, not replaced), pre-kill scrollback
//!   readable, counters still counting, waits and keys working, an agent's state back. Twenty
//!   crashes in a row lose no program, nor does a crash before the layout was first saved; a
//!   program that ended meanwhile closes its pane; of two supervisors started at once, one
//!   adopts everything and the other refuses.
//! - `herdr server stop` ends every worker and shell, saving first; the next `herdr server`
//!   restores the layout from `session.json` (workspaces, tabs, splits and ratios, labels, focus,
//!   zoom, public ids, live cwds, command panes rerun) with new shells. A saved cwd that is gone
//!   leaves the pane in place showing the error. Upstream's fixtures load.
//! - `session.json` is 0600 and follows a split; one `persist.save` log line per save;
//!   `--no-session` neither reads nor writes it; a SIGHUP cascade during shutdown does not empty
//!   it; a regular file at the socket path is left alone.
//! - An attached client (in tmux) whose supervisor is killed starts the next one itself and
//!   reconnects; one whose server is stopped on purpose exits and starts nothing.
//!
//! No timing is asserted: every wait is a named condition with a deadline. How long re-adoption
//! and saves take is `bench/durability.py`'s business.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use std::fs;
use std::path::{Path, PathBuf};

use herdr_e2e::panes::{self, Marker, Program};
use herdr_e2e::session_file::{self, persist_saves};
use herdr_e2e::{PATIENCE, TestServer, agents, layout, procs, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

fn sorted(ids: &[String]) -> Vec<String> {
    let mut ids = ids.to_vec();
    ids.sort();
    ids
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("expected a string, got {value}")).to_owned()
}

/// Waits until `session.json` lists `count` panes. A crash drill starts from a saved layout:
/// the file follows structural changes within about a second, and a crash inside that second
/// may lose the newest change (its pane is still adopted, into a "recovered" workspace).
fn wait_saved(server: &TestServer, count: usize) -> Value {
    session_file::wait_for(
        &server.session_json_path(),
        &format!("session.json to list {count} panes"),
        PATIENCE,
        |saved| session_file::panes(saved).len() == count,
    )
}

/// Every shell and worker pid of `programs`.
fn pids(programs: &[Program]) -> Vec<i32> {
    programs.iter().flat_map(|p| [p.shell, p.worker]).collect()
}

// ---------------------------------------------------------------------------------------------
// kill -9 of the supervisor
// ---------------------------------------------------------------------------------------------

/// Five panes over two workspaces and three tabs (a right and a down split in the first tab; a
/// second workspace with a second tab), each printing 100 lines `pre-<n>-1` … `pre-<n>-100`
/// (more than a screen, so most of it is scrollback) and then a counter; returns once every
/// counter runs.
fn five_counting_panes(server: &TestServer) -> Vec<String> {
    let first = panes::create_workspace(server);
    let right = panes::split(server, &first.pane_id, "right");
    let below = panes::split(server, &right, "down");
    let second = panes::create_workspace(server);
    let tab = server.call("tab.create", json!({"workspace_id": second.workspace_id, "label": "more"}));
    let ids = vec![first.pane_id, right, below, second.pane_id, text(&tab["root_pane"]["pane_id"])];
    for (n, pane) in ids.iter().enumerate() {
        panes::settle(server, pane);
        panes::run(server, pane, &format!("seq -f 'pre-{n}-%g' 1 100; {}", panes::COUNTER));
    }
    for pane in &ids {
        panes::wait_tick_past(server, pane, 2);
    }
    ids
}

/// The pane's recent output (1000 rows) still holds the first and last of its `pre-<n>-*` lines.
fn assert_pre_kill_scrollback(server: &TestServer, pane: &str, n: usize) {
    let read = panes::read_result(server, json!({"pane_id": pane, "source": "recent", "lines": 1000}));
    let recent = read["text"].as_str().unwrap_or_default();
    for line in [format!("pre-{n}-1"), format!("pre-{n}-100")] {
        // The first output line can share its row with a prompt printed after the command was
        // typed ahead (`e2e$ pre-0-1`).
        let shown = |row: &str| row.trim_end() == line || row.trim_end().ends_with(&format!(" {line}"));
        assert!(
            recent.lines().any(shown),
            "{pane}: the line {line:?} printed before the kill is not in its recent output:\n{recent}"
        );
    }
}

#[test]
fn kill_9_of_the_supervisor_keeps_every_pane_and_the_next_one_re_adopts_them() {
    let mut server = TestServer::start();
    let ids = five_counting_panes(&server);
    wait_saved(&server, ids.len());
    let layout = layout::structure(&server);
    let before = panes::programs(&server, &ids);
    let workers = server.worker_pids();
    let mut own: Vec<i32> = before.iter().map(|p| p.worker).collect();
    own.sort_unstable();
    assert_eq!(workers, own, "one worker per pane and no other");
    let ticks: Vec<u64> =
        ids.iter().map(|p| panes::last_tick(&server, p).expect("a counting pane")).collect();

    let killed = server.kill9();

    // Nobody supervises: every worker and program runs on, each worker on its own socket.
    for program in &before {
        assert!(
            procs::alive(program.shell),
            "{}'s shell {} died with the supervisor",
            program.pane,
            program.shell
        );
        assert!(
            procs::alive(program.worker),
            "{}'s worker {} died with the supervisor",
            program.pane,
            program.worker
        );
    }
    assert_eq!(
        server.worker_sockets().len(),
        ids.len(),
        "one socket per worker in {}",
        server.runtime_dir().display()
    );
    let secret = server.runtime_dir().join("secret");
    assert_eq!(session_file::mode(&secret), 0o600, "{} mode", secret.display());

    server.restart();
    // Re-adopted before the first answer: nothing here waits.
    assert_eq!(layout::pane_ids(&server), sorted(&ids), "the same panes right after the restart");
    assert_eq!(layout::structure(&server), layout, "the same workspaces, tabs, labels, focus and layouts");
    assert_eq!(panes::programs(&server, &ids), before, "the same shells, under the same workers");
    assert_eq!(server.worker_pids(), workers, "the workers are adopted, not replaced");

    for (n, pane) in ids.iter().enumerate() {
        assert_pre_kill_scrollback(&server, pane, n);
        let resumed = panes::wait_tick_past(&server, pane, ticks[n] + 2);
        let later = panes::wait_tick_past(&server, pane, resumed);
        eprintln!(
            "{pane}: tick-{} before the kill of {killed}, tick-{resumed} then tick-{later} after",
            ticks[n]
        );
        assert!(panes::read(&server, pane, "visible").contains("tick-"), "{pane}'s screen shows its counter");
    }

    // Waits and keys reach an adopted program.
    let next = panes::last_tick(&server, &ids[0]).unwrap_or_default() + 3;
    panes::wait_output(&server, &ids[0], &format!("tick-{next}"), PATIENCE);
    server.call("pane.send_keys", json!({"pane_id": ids[0], "keys": ["ctrl+c"]}));
    let done = Marker::new("STOPPED");
    panes::run(&server, &ids[0], &done.command);
    panes::wait_output(&server, &ids[0], &done.word, PATIENCE);
}

#[test]
fn twenty_supervisor_crashes_in_a_row_lose_no_program() {
    let mut server = TestServer::start();
    let ids = five_counting_panes(&server);
    wait_saved(&server, ids.len());
    let before = panes::programs(&server, &ids);
    let workers = server.worker_pids();
    let ticks: Vec<u64> =
        ids.iter().map(|p| panes::last_tick(&server, p).expect("a counting pane")).collect();

    for round in 1..=20 {
        server.kill9();
        server.restart();
        assert_eq!(layout::pane_ids(&server), sorted(&ids), "round {round}: the pane count and ids");
        for program in &before {
            assert!(
                procs::alive(program.shell),
                "round {round}: {}'s shell {} is gone",
                program.pane,
                program.shell
            );
        }
        assert_eq!(panes::programs(&server, &ids), before, "round {round}: the same shells and workers");
        assert_eq!(server.worker_pids(), workers, "round {round}: no worker replaced, none added");
    }
    for (n, pane) in ids.iter().enumerate() {
        panes::wait_tick_past(&server, pane, ticks[n] + 2);
    }
}

#[test]
fn a_crash_before_the_layout_was_saved_loses_no_program() {
    // Two workspaces and the kill at once: whether or not the save came first, every program
    // is in a pane of the next supervisor (panes it found no saved place for are adopted too).
    let mut server = TestServer::start();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let root = panes::create_workspace(&server).pane_id;
        ids.extend([panes::split(&server, &root, "right"), root]);
    }
    let mut shells: Vec<i32> = ids.iter().map(|pane| panes::shell_pid(&server, pane)).collect();
    shells.sort_unstable();

    server.kill9();
    server.restart();
    let adopted = layout::pane_ids(&server);
    assert_eq!(adopted.len(), ids.len(), "every pane is back: {adopted:?} (before: {ids:?})");
    let mut now: Vec<i32> = adopted.iter().map(|pane| panes::shell_pid(&server, pane)).collect();
    now.sort_unstable();
    assert_eq!(now, shells, "the same programs, each in a pane");
    for pane in &adopted {
        panes::settle(&server, pane);
    }
}

#[test]
fn a_program_that_ends_while_no_supervisor_runs_closes_its_pane_on_adoption() {
    let mut server = TestServer::start();
    let ids: Vec<String> = (0..3).map(|_| panes::create_workspace(&server).pane_id).collect();
    for pane in &ids {
        panes::settle(&server, pane);
    }
    wait_saved(&server, ids.len());
    let shells: Vec<i32> = ids.iter().map(|pane| panes::shell_pid(&server, pane)).collect();

    server.kill9();
    kill(Pid::from_raw(shells[0]), Signal::SIGKILL).expect("kill the first pane's program");
    procs::wait_gone("the first pane's program to end while nobody supervises", &shells[..1]);
    server.restart();

    wait_until(
        "the ended program's pane to be closed, the others kept",
        PATIENCE,
        || match layout::pane_ids(&server) {
            found if found == sorted(&ids[1..]) => Ok(()),
            found => Err(format!("{found:?}")),
        },
    );
    for (pane, shell) in ids.iter().zip(&shells).skip(1) {
        assert_eq!(panes::shell_pid(&server, pane), *shell, "{pane} keeps its program");
        panes::settle(&server, pane);
    }
}

#[test]
fn two_supervisors_started_at_once_after_a_crash_one_adopts_everything() {
    let mut server = TestServer::start();
    let ids = five_counting_panes(&server);
    wait_saved(&server, ids.len());
    let before = panes::programs(&server, &ids);
    server.kill9();

    let logs = [server.root().join("race-1.log"), server.root().join("race-2.log")];
    let mut racers: Vec<_> =
        logs.iter().map(|log| server.server_command(log).spawn().expect("start a racing server")).collect();
    server.track_processes();
    let loser = wait_until("one of the two servers to give up", PATIENCE, || {
        let exited: Vec<usize> = (0..2).filter(|&i| matches!(racers[i].try_wait(), Ok(Some(_)))).collect();
        match exited.as_slice() {
            [one] => Ok(*one),
            other => Err(format!("exited: {other:?}")),
        }
    });
    let status = racers[loser].wait().expect("the loser's status");
    let said = fs::read_to_string(&logs[loser]).unwrap_or_default();
    assert!(!status.success() && said.contains("already running"), "the loser refuses: {status}, {said}");
    wait_until("the winner to answer", PATIENCE, || server.answers_ping());
    assert_eq!(layout::pane_ids(&server), sorted(&ids), "every pane is the winner's");
    assert_eq!(panes::programs(&server, &ids), before, "the same shells and workers");
    assert!(matches!(racers[1 - loser].try_wait(), Ok(None)), "the winner runs on");
}

#[test]
fn an_agent_is_back_in_its_state_after_a_supervisor_crash() {
    let mut server = TestServer::start();
    let workspace = agents::create_agent_workspace(&server, &[]);
    let pane = workspace.ids.pane_id.clone();
    let started = agents::start_agent(&server, "kai", "claude", &pane).result();
    assert_eq!(started["type"], "agent_started", "{started}");
    agents::wait_status(&server, &pane, &["idle", "done"], PATIENCE);
    server.call("agent.prompt", json!({"target": pane, "text": "needs-permission: rm -rf build"}));
    let blocked = agents::wait_status(&server, &pane, &["blocked"], PATIENCE);
    let fake = panes::shell_pid(&server, &pane);
    session_file::wait_for(
        &server.session_json_path(),
        "session.json to name the agent",
        PATIENCE,
        |saved| session_file::panes(saved).iter().any(|p| p["agent_name"] == "kai"),
    );

    server.kill9();
    server.restart();

    let back = agents::wait_status(&server, &pane, &["blocked"], PATIENCE);
    assert_eq!(back["agent"], blocked["agent"], "the same agent kind: {back}");
    assert_eq!(back["name"], "kai", "the same agent name: {back}");
    assert_eq!(back["pane_id"], pane.as_str(), "{back}");
    assert_eq!(panes::shell_pid(&server, &pane), fake, "the same agent process");
    // It still answers: Esc rejects the dialog and the turn settles.
    server.call("pane.send_keys", json!({"pane_id": pane, "keys": ["Esc"]}));
    agents::wait_status(&server, &pane, &["idle", "done"], PATIENCE);
}

// ---------------------------------------------------------------------------------------------
// server stop, then server: restore from session.json
// ---------------------------------------------------------------------------------------------

#[test]
fn server_stop_ends_every_worker_and_shell() {
    let mut server = TestServer::start();
    let ids = five_counting_panes(&server);
    let before = panes::programs(&server, &ids);
    assert_eq!(server.worker_sockets().len(), ids.len(), "one socket per worker");

    let status = server.stop();
    assert!(status.success(), "the server exits 0 after `server stop`: {status}");
    procs::wait_gone("every worker and shell to end", &pids(&before));
    wait_until("no process of this test to be left", PATIENCE, || {
        match server.marked_processes().as_slice() {
            [] => Ok(()),
            left => Err(format!("{left:?}")),
        }
    });
    assert_eq!(server.worker_sockets(), Vec::<PathBuf>::new(), "the workers removed their sockets");
    assert!(!server.socket().exists(), "the API socket is removed");
    let saved = session_file::read(&server.session_json_path()).expect("session.json saved on stop");
    assert_eq!(session_file::panes(&saved).len(), ids.len(), "saved first: {saved}");
}

#[test]
fn server_stop_then_server_restores_the_layout_with_new_shells_in_the_saved_cwds() {
    let mut server = TestServer::start();
    let alpha = server.work_dir("alpha");
    let beta = server.work_dir("beta");
    let moved = server.work_dir("moved");

    // Workspace alpha: tab 1 split right (0.3) then down (0.6, labelled), tab 2, tab 3 from a
    // layout with a command pane.
    let a = server.call("workspace.create", json!({"label": "alpha", "cwd": alpha}));
    let (ws_a, a1) = (text(&a["workspace"]["workspace_id"]), text(&a["root_pane"]["pane_id"]));
    let a2 = text(
        &server.call("pane.split", json!({"target_pane_id": a1, "direction": "right", "ratio": 0.3}))["pane"]
            ["pane_id"],
    );
    let split = json!({"target_pane_id": a2, "direction": "down", "ratio": 0.6, "cwd": beta});
    let a3 = text(&server.call("pane.split", split)["pane"]["pane_id"]);
    server.call("pane.rename", json!({"pane_id": a3, "label": "logs"}));
    let tab = server.call("tab.create", json!({"workspace_id": ws_a, "label": "second", "cwd": alpha}));
    let a4 = text(&tab["root_pane"]["pane_id"]);
    let command = ["sh", "-c", "printf 'cmd-%s\\n' $((6*7)); exec cat"];
    let applied = server.call(
        "layout.apply",
        json!({"workspace_id": ws_a, "tab_label": "cmds", "root": {"type": "split", "direction": "down",
            "ratio": 0.6, "first": {"type": "pane", "label": "runner", "command": command, "cwd": alpha},
            "second": {"type": "pane", "cwd": beta}}}),
    );
    let runner = text(&applied["layout"]["root"]["first"]["pane_id"]);
    let a5 = text(&applied["layout"]["root"]["second"]["pane_id"]);

    // Workspace beta: split down; the root pane's shell moves to another folder; a closed pane
    // leaves a gap in the public numbers.
    let b = server.call("workspace.create", json!({"label": "beta", "cwd": beta}));
    let b1 = text(&b["root_pane"]["pane_id"]);
    let b2 = panes::split(&server, &b1, "down");
    let closed = panes::split(&server, &b2, "right");
    server.call("pane.close", json!({"pane_id": closed}));

    let shells = [&a1, &a2, &a3, &a4, &a5, &b1, &b2];
    for pane in shells {
        panes::settle(&server, pane);
    }
    panes::run(&server, &b1, &format!("cd '{}'", moved.display()));
    panes::wait_cwd(&server, &b1, &moved);
    panes::wait_output(&server, &runner, "cmd-42", PATIENCE);
    server.call("pane.zoom", json!({"pane_id": a2, "mode": "on"}));
    server.call("pane.focus", json!({"pane_id": b2}));

    let ids: Vec<String> = shells.iter().map(|p| (*p).clone()).chain([runner.clone()]).collect();
    let layout = layout::structure(&server);
    let exported = layout::exports(&server);
    let old = panes::programs(&server, &ids);
    let cwds: Vec<PathBuf> =
        old.iter().map(|p| procs::cwd(p.shell).unwrap_or_else(|| panic!("cwd of {p:?}"))).collect();
    assert_eq!(cwds[5], moved, "b1's live cwd");

    server.stop();
    procs::wait_gone("the old shells and workers to end", &pids(&old));
    let saved = session_file::read(&server.session_json_path()).expect("session.json after stop");
    assert_eq!(session_file::panes(&saved).len(), ids.len(), "every pane saved: {saved}");

    server.restart();
    wait_until("the restored panes", PATIENCE, || match layout::pane_ids(&server) {
        found if found == sorted(&ids) => Ok(()),
        found => Err(format!("{found:?}")),
    });
    assert_eq!(
        layout::structure(&server),
        layout,
        "workspaces, tabs, labels, ids, focus, zoom and splits restored"
    );
    assert_eq!(
        layout::exports(&server),
        exported,
        "every tab's portable layout (commands included) restored"
    );

    for (program, cwd) in old.iter().zip(&cwds) {
        panes::wait_cwd(&server, &program.pane, cwd);
        let shell = panes::shell_pid(&server, &program.pane);
        assert_ne!(shell, program.shell, "{} runs a new program", program.pane);
        assert!(procs::alive(shell), "{}'s new program {shell} runs", program.pane);
    }
    panes::wait_output(&server, &runner, "cmd-42", PATIENCE);
    for pane in shells {
        panes::settle(&server, pane);
    }

    // Public numbers are not reused after a restore either.
    let fresh = panes::split(&server, &b2, "right");
    assert!(
        fresh != closed && !ids.contains(&fresh),
        "a new pane got the id {fresh} (closed before the stop: {closed})"
    );
}

#[test]
fn a_pane_whose_saved_cwd_is_gone_stays_with_the_error_and_keeps_its_cwd() {
    let mut server = TestServer::start();
    let doomed = server.work_dir("doomed");
    let keep = server.work_dir("keep");
    let d = text(
        &server.call("workspace.create", json!({"label": "doomed", "cwd": doomed}))["root_pane"]["pane_id"],
    );
    let k =
        text(&server.call("workspace.create", json!({"label": "keep", "cwd": keep}))["root_pane"]["pane_id"]);
    panes::settle(&server, &d);
    panes::settle(&server, &k);
    panes::wait_cwd(&server, &d, &doomed);

    server.stop();
    fs::remove_dir(&doomed).expect("remove the saved cwd");
    server.restart();
    wait_until("both panes restored", PATIENCE, || match layout::pane_ids(&server) {
        found if found == sorted(&[d.clone(), k.clone()]) => Ok(()),
        found => Err(format!("{found:?}")),
    });
    let missing = doomed.display().to_string();
    panes::wait_start_error(&server, &d, &missing);
    panes::settle(&server, &k);

    // The saved cwd is kept (not replaced by a fallback): with the folder back, the next
    // restore starts the shell there.
    server.stop();
    let saved = session_file::read(&server.session_json_path()).expect("session.json after the second stop");
    let saved_cwds: Vec<&str> =
        session_file::panes(&saved).iter().filter_map(|p| p["cwd"].as_str()).collect();
    assert!(saved_cwds.contains(&missing.as_str()), "the missing cwd is still saved: {saved}");
    fs::create_dir_all(&doomed).expect("recreate the cwd");
    server.restart();
    wait_until("both panes restored again", PATIENCE, || match layout::pane_ids(&server).len() {
        2 => Ok(()),
        n => Err(format!("{n} panes")),
    });
    panes::settle(&server, &d);
    panes::wait_cwd(&server, &d, &doomed);
}

/// Each upstream fixture as `session.json`: the right counts, labels and focus, and every pane
/// whose saved cwd does not exist showing the error with that cwd.
fn fixture_loads(file: &str, workspaces: usize, tabs: usize, pane_count: usize, focused_tab: &str) {
    let mut server = TestServer::prepare();
    let fixture = session_file::fixture(file);
    session_file::install(&fixture, &server.session_json_path());
    let saved = session_file::read(&fixture).expect("a JSON fixture");
    server.start_server();
    wait_until(&format!("{file}'s {pane_count} panes"), PATIENCE, || match layout::pane_ids(&server).len() {
        n if n == pane_count => Ok(()),
        n => Err(format!("{n} panes")),
    });
    let snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    let count = |key: &str| snapshot[key].as_array().map_or(0, Vec::len);
    assert_eq!(
        (count("workspaces"), count("tabs"), count("panes")),
        (workspaces, tabs, pane_count),
        "{snapshot}"
    );
    let focused = snapshot["tabs"].as_array().into_iter().flatten().find(|tab| tab["focused"] == true);
    assert_eq!(
        focused.map(|tab| tab["label"].clone()),
        Some(json!(focused_tab)),
        "the focused tab: {snapshot}"
    );

    // Saved cwds in layout order against the restored panes in layout order.
    let expected = session_file::layout_cwds(&saved);
    let restored = layout::panes_in_layout_order(&server);
    assert_eq!(restored.len(), expected.len(), "{restored:?} against {expected:?}");
    for (pane, cwd) in restored.iter().zip(&expected) {
        if !Path::new(cwd).exists() {
            panes::wait_start_error(&server, pane, cwd);
        }
    }
}

#[test]
fn upstream_session_fixture_loads() {
    fixture_loads("current-herdr-session.json", 2, 3, 3, "separate-pane");
}

#[test]
fn upstream_dev_session_fixture_loads() {
    fixture_loads("current-herdr-dev-session.json", 2, 3, 4, "2");
}

#[test]
fn upstream_legacy_pre_tabs_fixture_loads() {
    fixture_loads("legacy-pre-tabs-v2.json", 1, 1, 2, "1");
}

// ---------------------------------------------------------------------------------------------
// session.json itself
// ---------------------------------------------------------------------------------------------

#[test]
fn session_json_is_private_and_follows_a_split() {
    let server = TestServer::start();
    let path = server.session_json_path();
    let pane = panes::create_workspace(&server).pane_id;
    let first = session_file::wait_for(&path, "session.json to list the first pane", PATIENCE, |saved| {
        session_file::panes(saved).len() == 1
    });
    assert_eq!(first["version"], 3, "upstream's v3 format: {first}");
    assert_eq!(session_file::mode(&path), 0o600, "{} mode", path.display());
    let uid = session_file::pane_uids(&first).remove(0);
    assert!(!uid.is_empty() && uid != "<none>", "every saved pane has a uid: {first}");

    panes::split(&server, &pane, "right");
    let second =
        session_file::wait_for(&path, "session.json to list the split's new pane", PATIENCE, |saved| {
            session_file::panes(saved).len() == 2
        });
    assert_eq!(session_file::mode(&path), 0o600, "still 0600 after a rewrite");
    let uids = session_file::pane_uids(&second);
    assert!(
        uids.contains(&uid) && uids[0] != uids[1],
        "the first pane keeps its uid, the new one has its own: {uids:?}"
    );

    // One log line per save, naming the file; the last one is the file as it is now.
    let shown = path.display().to_string();
    wait_until("the last persist.save line to describe session.json as it is", PATIENCE, || {
        let saves = persist_saves(&server.log_text());
        let size = fs::metadata(&path).map(|m| m.len()).unwrap_or_default();
        match saves.last() {
            Some(last) if last.path == shown && last.bytes == size => Ok(()),
            other => Err(format!("last save {other:?}, file {size} bytes, {} saves", saves.len())),
        }
    });
}

#[test]
fn no_session_neither_reads_nor_writes_session_json() {
    let mut server = TestServer::prepare();
    let path = server.session_json_path();
    session_file::install(&session_file::fixture("current-herdr-session.json"), &path);
    let bytes = fs::read(&path).expect("the installed fixture");
    server.start_server_with(&["--no-session"]);
    assert_eq!(layout::pane_ids(&server), Vec::<String>::new(), "nothing loaded from session.json");
    let pane = panes::create_workspace(&server).pane_id;
    panes::split(&server, &pane, "down");
    server.stop();
    assert_eq!(fs::read(&path).expect("session.json is still there"), bytes, "session.json untouched");

    fs::remove_file(&path).expect("remove session.json");
    server.restart_with(&["--no-session"]);
    let pane = panes::create_workspace(&server).pane_id;
    panes::split(&server, &pane, "down");
    server.stop();
    assert!(!path.exists(), "--no-session created {}", path.display());
    assert_eq!(persist_saves(&server.log_text()), Vec::new(), "no persist.save line with --no-session");
}

#[test]
fn a_sighup_cascade_during_shutdown_does_not_empty_session_json() {
    let mut server = TestServer::start();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let root = panes::create_workspace(&server).pane_id;
        let other = panes::split(&server, &root, "right");
        ids.extend([root, other]);
    }
    for pane in &ids {
        panes::settle(&server, pane);
    }
    let path = server.session_json_path();
    let saved = session_file::wait_for(&path, "session.json to list all four panes", PATIENCE, |saved| {
        session_file::panes(saved).len() == 4
    });
    let uids = session_file::pane_uids(&saved);
    let shells: Vec<i32> = ids.iter().map(|pane| panes::shell_pid(&server, pane)).collect();

    for &shell in &shells {
        kill(Pid::from_raw(shell), Signal::SIGHUP).expect("hang up a pane's shell");
    }
    server.signal(Signal::SIGTERM);
    wait_until("the server to exit on SIGTERM", PATIENCE, || {
        server.server_exited().ok_or_else(|| "still running".to_owned())
    });
    procs::wait_gone("the hung-up shells to end", &shells);

    let after = session_file::read(&path).expect("session.json after the shutdown");
    assert_eq!(session_file::pane_uids(&after), uids, "session.json still lists every pane: {after}");
}

#[test]
fn a_regular_file_at_the_socket_path_survives_a_server_start() {
    let server = TestServer::prepare();
    let socket = server.socket().to_path_buf();
    let folder = socket.parent().expect("the socket has a folder");
    fs::create_dir_all(folder).expect("create the socket folder");
    fs::set_permissions(folder, std::os::unix::fs::PermissionsExt::from_mode(0o700)).expect("chmod 0700");
    let bytes = b"not a socket: somebody's notes\n\x00\x01\x02".to_vec();
    fs::write(&socket, &bytes).expect("write a regular file at the socket path");

    let log = server.root().join("refused-server.log");
    let mut child = server.server_command(&log).spawn().expect("start a server");
    server.track_processes();
    let status = wait_until("the server to refuse and exit", PATIENCE, || {
        child.try_wait().expect("try_wait").ok_or_else(|| "still running".to_owned())
    });
    let output = fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !status.success(),
        "the server must fail with a regular file at its socket path; it printed: {output}"
    );
    assert!(
        output.contains(&socket.display().to_string()),
        "the message names {}: {output}",
        socket.display()
    );
    assert!(fs::metadata(&socket).expect("the file is still there").is_file(), "still a regular file");
    assert_eq!(fs::read(&socket).expect("read the file"), bytes, "its bytes are unchanged");
}

// ---------------------------------------------------------------------------------------------
// An attached client across a supervisor crash
// ---------------------------------------------------------------------------------------------

#[test]
fn an_attached_client_starts_the_next_supervisor_itself_and_reconnects() {
    // No server from the test: `herdr` in tmux starts one, and after the crash the next one.
    let server = TestServer::prepare();
    let tmux = support::Tmux::start(&server);
    tmux.attach_herdr();
    let snapshot = server.call("session.snapshot", json!({}));
    let pane = text(&snapshot["snapshot"]["focused_pane_id"]);
    let before = Marker::new("SEEN");
    tmux.keys(&[&before.command, "Enter"]);
    panes::wait_output(&server, &pane, &before.word, PATIENCE);
    tmux.wait_screen("the marker on the attached screen", |s| s.contains(&before.word));
    let shell = panes::shell_pid(&server, &pane);
    let old = wait_until("one supervisor", PATIENCE, || match server.supervisors().as_slice() {
        [one] => Ok(one.pid),
        many => Err(format!("{many:?}")),
    });

    kill(Pid::from_raw(old), Signal::SIGKILL).expect("kill -9 the supervisor");
    let new = wait_until("the client to start a new supervisor that answers", PATIENCE, || {
        match server.supervisors().as_slice() {
            [one] if one.pid != old => server.answers_ping().map(|()| one.pid),
            found => Err(format!("supervisors {found:?}")),
        }
    });
    assert_eq!(layout::pane_ids(&server), vec![pane.clone()], "the same pane");
    assert_eq!(panes::shell_pid(&server, &pane), shell, "the same shell");

    // Output that exists only since the crash reaching the attached screen shows the client is
    // painted by the new supervisor; the marker from before shows the adopted screen came back.
    let after = Marker::new("AFTER");
    panes::run(&server, &pane, &after.command);
    tmux.wait_screen("the pane's content shown again by the new supervisor", |s| {
        s.contains(&after.word) && s.contains(&before.word) && !s.to_lowercase().contains("reconnecting")
    });

    let word = Marker::new("RECONNECTED").word;
    tmux.keys(&[&format!("echo back-{word}"), "Enter"]);
    let expected = format!("back-{word}");
    wait_until("the typed command's output in the pane", PATIENCE, || {
        let recent = panes::read(&server, &pane, "recent");
        if recent.lines().any(|line| line.trim() == expected) { Ok(()) } else { Err(recent) }
    });
    tmux.wait_screen("the output on the attached screen", |s| {
        s.lines().any(|line| line.contains(&expected) && !line.contains("echo"))
    });
    assert_eq!(
        server.supervisors().iter().map(|p| p.pid).collect::<Vec<_>>(),
        vec![new],
        "exactly one supervisor"
    );
}

#[test]
fn server_stop_with_an_attached_client_ends_the_client_and_starts_nothing() {
    // A deliberate stop is not a crash: the client says so and exits; it must not start a new
    // supervisor the way it does after losing one.
    let server = TestServer::prepare();
    let tmux = support::Tmux::start(&server);
    tmux.attach_herdr();
    let clients = |server: &TestServer| -> Vec<i32> {
        let marked = server.marked_processes();
        marked.iter().filter(|p| p.cmdline.len() == 1 && p.is_program("herdr")).map(|p| p.pid).collect()
    };
    assert_eq!(clients(&server).len(), 1, "one attached client");

    let stop = server.cli(&["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    wait_until("the attached client to exit", PATIENCE, || match clients(&server).as_slice() {
        [] => Ok(()),
        left => Err(format!("clients still running: {left:?}")),
    });
    tmux.wait_screen("the terminal's own shell back, herdr's chrome gone", |s| {
        s.contains("e2e$") && !s.contains("spaces")
    });
    assert_eq!(server.supervisors(), Vec::new(), "nothing started a new supervisor");
    assert!(server.answers_ping().is_err(), "no server answers");
}
