//! Server lifecycle through the CLI: `herdr server` (foreground), `herdr server --detach`,
//! `herdr server stop`, `herdr status`, and what clients see when no server runs.

use std::fs;
use std::time::Duration;

use herdr_e2e::procs;
use herdr_e2e::wire::{self, Reply};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::Value;

fn answers_ping(server: &TestServer) -> Result<(), String> {
    match wire::exchange(
        server.socket(),
        b"{\"id\":\"l\",\"method\":\"ping\",\"params\":{}}\n",
        Duration::from_secs(5),
    ) {
        Ok(Reply::Line(line)) => server.check_line(&line).map(|_| ()),
        Ok(other) => Err(format!("{other:?}")),
        Err(error) => Err(error.to_string()),
    }
}

#[test]
fn server_stop_ends_the_server_and_removes_its_socket() {
    let mut server = TestServer::start();
    let stop = server.cli(&["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    wait_until("the server process to exit", PATIENCE, || {
        server.server_exited().map(|_| ()).ok_or_else(|| "still running".to_owned())
    });
    assert!(!server.socket().exists(), "a clean shutdown removes the socket it owns");
    let (code, _) = server.cli(&["pane", "list"]).error();
    assert_eq!(code, "server_not_running");
}

#[test]
fn stopping_the_server_ends_its_workers_and_panes() {
    let mut server = TestServer::start();
    let pane = herdr_e2e::panes::create_workspace(&server).pane_id;
    herdr_e2e::panes::settle(&server, &pane);
    let shell = herdr_e2e::panes::shell_pid(&server, &pane);
    let workers: Vec<i32> = server.workers().iter().map(|w| w.pid).collect();
    assert!(!workers.is_empty());
    let stop = server.cli(&["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    wait_until("the server process to exit", PATIENCE, || {
        server.server_exited().map(|_| ()).ok_or_else(|| "still running".to_owned())
    });
    // server.stop ends all panes (reference §6).
    wait_until("the workers and the pane's shell to exit", PATIENCE, || {
        let alive: Vec<i32> = workers
            .iter()
            .copied()
            .chain([shell])
            .filter(|&pid| procs::read(pid).is_some_and(|p| p.state != 'Z'))
            .collect();
        if alive.is_empty() { Ok(()) } else { Err(format!("still running: {alive:?}")) }
    });
}

#[test]
fn detached_server_runs_without_the_cli_and_stops_on_request() {
    let server = TestServer::prepare();
    let detach = server.cli(&["server", "--detach"]);
    assert!(detach.status.success(), "{detach:?}");
    wait_until("the detached server to answer ping", PATIENCE, || answers_ping(&server));
    assert!(!server.track_processes().is_empty(), "the detached server carries this test's environment");
    let created = server.cli(&["workspace", "create"]).result();
    assert_eq!(created["type"], "workspace_created");
    let stop = server.cli(&["server", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    wait_until("the detached server to stop", PATIENCE, || match answers_ping(&server) {
        Ok(()) => Err("still answering".to_owned()),
        Err(_) => Ok(()),
    });
    let (code, _) = server.cli(&["workspace", "list"]).error();
    assert_eq!(code, "server_not_running");
}

#[test]
fn status_json_reports_the_server() {
    let server = TestServer::prepare();
    let down = server.cli(&["status", "--json"]);
    assert!(down.status.success(), "status exits 0 even when no server runs: {down:?}");
    let down: Value = serde_json::from_str(down.stdout.trim()).expect("status --json prints JSON");
    assert_eq!(down["server"]["running"], false, "{down}");
    assert_eq!(down["server"]["status"], "not_running", "{down}");
    assert_eq!(down["client"]["protocol"], 22, "{down}");
    drop(server);

    let server = TestServer::start();
    let up = server.cli(&["status", "--json"]);
    let up: Value = serde_json::from_str(up.text().trim()).expect("status --json prints JSON");
    assert_eq!(up["server"]["running"], true, "{up}");
    assert_eq!(up["server"]["status"], "running", "{up}");
    assert_eq!(up["server"]["protocol"], 22, "{up}");
    assert_eq!(up["server"]["socket"], server.socket().display().to_string(), "{up}");
    let text = server.cli(&["status"]);
    assert!(text.text().contains("status: running"), "{}", text.stdout);
}

#[test]
fn clients_fail_cleanly_when_no_server_runs() {
    let server = TestServer::prepare();
    let (code, message) = server.cli(&["workspace", "list"]).error();
    assert_eq!(code, "server_not_running");
    assert!(message.contains(&server.socket().display().to_string()), "{message}");
    assert!(!fs::exists(server.socket()).unwrap_or(false), "a client never creates the socket");
}
