//! The live fields of pane records: `scroll` for a pane no client shows, `cwd` following the
//! shell's `cd`, and `foreground_cwd` naming where the foreground job runs; and the same two
//! cwds in agent records. Every answer is schema-checked by the test server's request helpers.

use std::path::Path;

use herdr_e2e::agents;
use herdr_e2e::panes::{self, Marker};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

fn pane_get(server: &TestServer, pane: &str) -> Value {
    let got = server.call("pane.get", json!({"pane_id": pane}));
    assert_eq!(got["type"], "pane_info", "{got}");
    got["pane"].clone()
}

/// The path the kernel reports for `dir` (it resolves symlinks, as `/proc/<pid>/cwd` does).
fn real(dir: &str) -> String {
    let path = std::fs::canonicalize(Path::new(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
    path.to_string_lossy().into_owned()
}

/// The record of `pane` in `session.snapshot` and in `pane.list`.
fn listed(server: &TestServer, pane: &str) -> (Value, Value) {
    let snapshot = server.call("session.snapshot", json!({}));
    let find = |list: &Value| {
        list.as_array()
            .and_then(|panes| panes.iter().find(|p| p["pane_id"] == pane))
            .cloned()
            .unwrap_or_else(|| panic!("{pane} missing from {list}"))
    };
    let in_snapshot = find(&snapshot["snapshot"]["panes"]);
    let list = server.call("pane.list", json!({}));
    (in_snapshot, find(&list["panes"]))
}

#[test]
fn a_hidden_panes_scroll_grows_with_output() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let before = pane_get(&server, &pane)["scroll"].clone();
    assert!(before["viewport_rows"].as_u64().is_some_and(|rows| rows > 0), "no client shows it: {before}");
    assert_eq!(before["offset_from_bottom"], 0, "{before}");
    let max_before = before["max_offset_from_bottom"].as_u64().expect("max_offset_from_bottom");

    let done = Marker::new("LINES");
    panes::run(&server, &pane, &format!("seq 1 200; {}", done.command));
    panes::wait_output(&server, &pane, &done.word, PATIENCE);
    let grown = wait_until("the scrollback to take the 200 lines", PATIENCE, || {
        let scroll = pane_get(&server, &pane)["scroll"].clone();
        let max = scroll["max_offset_from_bottom"].as_u64().unwrap_or(0);
        if max >= max_before + 150 { Ok(max) } else { Err(format!("{scroll}, was {before}")) }
    });
    let (in_snapshot, in_list) = listed(&server, &pane);
    for record in [&in_snapshot, &in_list] {
        let max = record["scroll"]["max_offset_from_bottom"].as_u64().unwrap_or(0);
        assert!(max >= grown, "{record}");
    }
}

#[test]
fn cwd_follows_the_shell_and_foreground_cwd_the_job() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let (tmp, var) = (real("/tmp"), real("/var"));

    panes::run(&server, &pane, "cd /tmp");
    wait_until("pane.get to show the shell in /tmp", PATIENCE, || {
        let record = pane_get(&server, &pane);
        if record["cwd"] == json!(tmp) { Ok(()) } else { Err(format!("{record}")) }
    });
    let (in_snapshot, in_list) = listed(&server, &pane);
    assert_eq!(in_snapshot["cwd"], json!(tmp), "{in_snapshot}");
    assert_eq!(in_list["cwd"], json!(tmp), "{in_list}");

    panes::run(&server, &pane, "(cd /var && sleep 100)");
    panes::wait_foreground(&server, &pane, "sleep");
    let record = wait_until("foreground_cwd to name the job's /var", PATIENCE, || {
        let record = pane_get(&server, &pane);
        if record["foreground_cwd"] == json!(var) { Ok(record) } else { Err(format!("{record}")) }
    });
    assert_eq!(record["cwd"], json!(tmp), "the shell itself is still in /tmp: {record}");
}

#[test]
fn agent_records_name_where_the_shell_and_the_agent_run() {
    let server = TestServer::start();
    let pane = agents::create_agent_workspace(&server, &[]).ids.pane_id;
    let (tmp, var) = (real("/tmp"), real("/var"));
    panes::run(&server, &pane, "cd /tmp");
    wait_until("pane.get to show the shell in /tmp", PATIENCE, || {
        let record = pane_get(&server, &pane);
        if record["cwd"] == json!(tmp) { Ok(()) } else { Err(format!("{record}")) }
    });

    // The agent runs in a subshell elsewhere; the shell stays where it was.
    panes::run(&server, &pane, "(cd /var && exec claude)");
    let listed = wait_until("agent.list to show the claude in /var", PATIENCE, || {
        let list = server.call("agent.list", json!({}));
        let found =
            list["agents"].as_array().and_then(|all| all.iter().find(|a| a["pane_id"] == pane)).cloned();
        match found {
            Some(agent) if agent["agent"] == "claude" && agent["foreground_cwd"] == json!(var) => Ok(agent),
            _ => Err(format!("{list}")),
        }
    });
    assert_eq!(listed["cwd"], json!(tmp), "the shell is still in /tmp: {listed}");
    let got = agents::agent_info(&server, &pane);
    assert_eq!((&got["cwd"], &got["foreground_cwd"]), (&json!(tmp), &json!(var)), "{got}");

    // Once the agent is gone its pane is no agent's, and the shell's record is back to itself.
    panes::run(&server, &pane, "/exit");
    let record = wait_until("pane.get to show the shell in the foreground again", PATIENCE, || {
        let record = pane_get(&server, &pane);
        if record["foreground_cwd"] == json!(tmp) { Ok(record) } else { Err(format!("{record}")) }
    });
    assert_eq!(record["cwd"], json!(tmp), "{record}");
}
