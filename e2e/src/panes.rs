//! Pane-level conveniences built on the public API, so the suites read as scenarios.
//!
//! The one trap these avoid: a shell echoes the command line it was given, so waiting for a word
//! that appears in the command would match the echo, not the output. [`Marker`] prints a word
//! the command line does not contain.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::procs;
use crate::server::TestServer;

/// The ids `workspace.create` hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWorkspace {
    pub workspace_id: String,
    pub tab_id: String,
    pub pane_id: String,
}

/// Creates a workspace through the socket and returns its ids.
pub fn create_workspace(server: &TestServer) -> NewWorkspace {
    let created = server.call("workspace.create", json!({"label": "e2e"}));
    assert_eq!(created["type"], "workspace_created", "{created}");
    NewWorkspace {
        workspace_id: text(&created["workspace"]["workspace_id"]),
        tab_id: text(&created["tab"]["tab_id"]),
        pane_id: text(&created["root_pane"]["pane_id"]),
    }
}

/// Splits `pane_id` and returns the new pane's id.
pub fn split(server: &TestServer, pane_id: &str, direction: &str) -> String {
    let info = server.call("pane.split", json!({"target_pane_id": pane_id, "direction": direction}));
    assert_eq!(info["type"], "pane_info", "{info}");
    text(&info["pane"]["pane_id"])
}

/// Types `command` and Enter into the pane (what `herdr pane run` does).
pub fn run(server: &TestServer, pane_id: &str, command: &str) {
    let ok = server.call("pane.send_input", json!({"pane_id": pane_id, "text": command, "keys": ["Enter"]}));
    assert_eq!(ok["type"], "ok", "{ok}");
}

/// `pane.read` text of one source (`visible`, `recent`, `recent_unwrapped`, `detection`).
pub fn read(server: &TestServer, pane_id: &str, source: &str) -> String {
    read_result(server, json!({"pane_id": pane_id, "source": source}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The whole `PaneReadResult` for `params`.
pub fn read_result(server: &TestServer, params: Value) -> Value {
    let result = server.call("pane.read", params);
    assert_eq!(result["type"], "pane_read", "{result}");
    result["read"].clone()
}

/// `pane.wait_for_output` for a substring on `recent`, failing the test on timeout.
pub fn wait_output(server: &TestServer, pane_id: &str, needle: &str, timeout: Duration) -> Value {
    let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    let matched = server.request_with_timeout(
        "pane.wait_for_output",
        json!({"pane_id": pane_id, "source": "recent", "match": {"type": "substring", "value": needle},
               "timeout_ms": millis}),
        timeout + Duration::from_secs(30),
    );
    match matched.get("result") {
        Some(result) => {
            assert_eq!(result["type"], "output_matched", "{matched}");
            result.clone()
        }
        None => {
            let screen = read(server, pane_id, "recent");
            panic!("waiting for {needle:?} in {pane_id} failed: {matched}\n--- recent ---\n{screen}\n---");
        }
    }
}

/// A program that prints `tick-1`, `tick-2`, … ten times a second until interrupted. Its own
/// command line contains no `tick-<digit>`, so an echo never counts as a tick.
pub const COUNTER: &str = "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done";

/// The highest `tick-N` in the pane's recent output, if any; `None` too when the read fails
/// (a server still starting, a pane not there).
pub fn last_tick(server: &TestServer, pane_id: &str) -> Option<u64> {
    let answer = server.request("pane.read", json!({"pane_id": pane_id, "source": "recent"}));
    let text = answer["result"]["read"]["text"].as_str()?;
    let pattern = regex::Regex::new(r"tick-(\d+)").expect("a valid regex");
    pattern.captures_iter(text).filter_map(|c| c[1].parse().ok()).max()
}

/// Waits until the pane's counter has printed past `floor`; returns the highest tick seen.
pub fn wait_tick_past(server: &TestServer, pane_id: &str, floor: u64) -> u64 {
    crate::wait_until(&format!("{pane_id}'s counter to pass tick-{floor}"), crate::PATIENCE, || {
        match last_tick(server, pane_id) {
            Some(n) if n > floor => Ok(n),
            seen => Err(format!("last tick {seen:?}")),
        }
    })
}

/// A word printed by a command whose own text does not contain it.
#[derive(Debug, Clone)]
pub struct Marker {
    pub word: String,
    pub command: String,
}

impl Marker {
    /// A fresh marker `<TAG>-<n>`, unique within the test process.
    pub fn new(tag: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Self { word: format!("{tag}-{n}"), command: format!("printf '%s-%s\\n' {tag} {n}") }
    }
}

/// Runs a marker command in the pane and waits until its output shows: the shell is up and
/// reading input.
pub fn settle(server: &TestServer, pane_id: &str) {
    let marker = Marker::new("READY");
    run(server, pane_id, &marker.command);
    wait_output(server, pane_id, &marker.word, crate::PATIENCE);
}

/// The `shell_pid` from `pane.process_info`.
pub fn shell_pid(server: &TestServer, pane_id: &str) -> i32 {
    let info = server.call("pane.process_info", json!({"pane_id": pane_id}));
    assert_eq!(info["type"], "pane_process_info", "{info}");
    info["process_info"]["shell_pid"]
        .as_i64()
        .and_then(|pid| i32::try_from(pid).ok())
        .unwrap_or_else(|| panic!("no shell_pid for {pane_id}: {info}"))
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("expected a string, got {value}")).to_owned()
}

/// Waits until the pane's shell owns the terminal again (its foreground process group is the
/// shell's own), e.g. after a full-screen program quit. Typing before that races the program's
/// exit: programs that restore the terminal with `TCSAFLUSH` discard typed-ahead input.
pub fn wait_shell_foreground(server: &TestServer, pane_id: &str) {
    let shell = shell_pid(server, pane_id);
    crate::wait_until("the shell to be the foreground process again", crate::PATIENCE, || {
        let info = server.call("pane.process_info", json!({"pane_id": pane_id}));
        let group = info["process_info"]["foreground_process_group_id"].as_i64();
        if group == Some(i64::from(shell)) { Ok(()) } else { Err(format!("{info}")) }
    });
}

/// Waits until a process called `name` is in the pane's foreground (e.g. before interrupting
/// it: a ctrl+c that arrives while the shell is still starting the program is lost on the shell).
pub fn wait_foreground(server: &TestServer, pane_id: &str, name: &str) {
    crate::wait_until(&format!("`{name}` to be the foreground process"), crate::PATIENCE, || {
        let info = server.call("pane.process_info", json!({"pane_id": pane_id}));
        let running = info["process_info"]["foreground_processes"]
            .as_array()
            .is_some_and(|list| list.iter().any(|process| process["name"] == name));
        if running { Ok(()) } else { Err(format!("{info}")) }
    });
}

/// One pane's program and the worker that owns its PTY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub pane: String,
    pub shell: i32,
    pub worker: i32,
}

/// The program (`pane.process_info`'s `shell_pid`) and worker (the program's parent, which must
/// be one of this test's `herdr-pane-worker`s) of each pane.
pub fn programs(server: &TestServer, pane_ids: &[String]) -> Vec<Program> {
    let workers = server.worker_pids();
    pane_ids
        .iter()
        .map(|pane| {
            let shell = shell_pid(server, pane);
            let parent =
                procs::read(shell).unwrap_or_else(|| panic!("{pane}'s program {shell} is not running"));
            assert!(
                workers.contains(&parent.ppid),
                "{pane}'s program {shell} has parent {}, not one of this test's workers {workers:?}",
                parent.ppid
            );
            Program { pane: pane.clone(), shell, worker: parent.ppid }
        })
        .collect()
}

/// Waits until the pane's program runs in `dir` (`/proc/<pid>/cwd`).
pub fn wait_cwd(server: &TestServer, pane_id: &str, dir: &Path) {
    crate::wait_until(&format!("{pane_id}'s program to run in {}", dir.display()), crate::PATIENCE, || {
        let shell = shell_pid(server, pane_id);
        match procs::cwd(shell) {
            Some(cwd) if cwd == dir => Ok(()),
            other => Err(format!("program {shell} runs in {other:?}")),
        }
    });
}

/// What a restored pane whose program could not start shows (case-insensitive, any of these).
pub const START_ERROR_PHRASES: &[&str] = &[
    "could not start",
    "couldn't start",
    "cannot start",
    "can't start",
    "failed to start",
    "no such file or directory",
    "does not exist",
];

/// Waits until the pane's visible text shows why its program could not start in `missing`:
/// one of [`START_ERROR_PHRASES`] and the path (which may wrap across rows).
pub fn wait_start_error(server: &TestServer, pane_id: &str, missing: &str) {
    crate::wait_until(
        &format!("{pane_id} to show why it could not start in {missing}"),
        crate::PATIENCE,
        || {
            let visible = read(server, pane_id, "visible");
            let joined = visible.replace('\n', "");
            let lower = visible.to_lowercase();
            if joined.contains(missing) && START_ERROR_PHRASES.iter().any(|phrase| lower.contains(phrase)) {
                Ok(())
            } else {
                Err(format!("visible text:\n{visible}"))
            }
        },
    );
}
