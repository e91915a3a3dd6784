//! Reboot and logout save the session first: with systemd-logind on the system bus, the
//! supervisor holds a shutdown delay inhibitor, saves the whole layout when logind announces a
//! shutdown, then releases the inhibitor so the shutdown goes on. Without logind it runs as it
//! always did. The bus is a private `dbus-daemon` and logind a stand-in served from this
//! process (`system_bus`); everything else is the real `herdr server`.

mod system_bus;

use std::path::PathBuf;
use std::time::Duration;

use herdr_e2e::{PATIENCE, TestServer, panes, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use system_bus::{FakeLogind, SystemBus};

/// How soon after the notice the inhibitor must be released: well under logind's default
/// `InhibitDelayMaxSec` (5 s), after which logind would shut down without our save.
const RELEASE_BOUND: Duration = Duration::from_secs(3);

/// A server whose system bus is `address`.
fn server_on_bus(address: &str) -> TestServer {
    let mut server = TestServer::prepare();
    server.set_env("DBUS_SYSTEM_BUS_ADDRESS", address);
    server.start_server();
    server
}

fn session_file(server: &TestServer) -> PathBuf {
    server.root().join("config").join("herdr").join("session.json")
}

/// What `session.json` holds: every saved pane's label (`""` for none), in file order.
fn saved_labels(server: &TestServer) -> Result<Vec<String>, String> {
    let path = session_file(server);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let session: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?;
    let workspaces = session["workspaces"].as_array().ok_or_else(|| format!("no workspaces: {text}"))?;
    let mut labels = Vec::new();
    for tab in workspaces.iter().flat_map(|w| w["tabs"].as_array().into_iter().flatten()) {
        for pane in tab["panes"].as_object().into_iter().flat_map(|panes| panes.values()) {
            labels.push(pane["label"].as_str().unwrap_or_default().to_owned());
        }
    }
    Ok(labels)
}

/// Waits until `session.json` lists `count` panes.
fn wait_saved_panes(server: &TestServer, count: usize) {
    wait_until(&format!("session.json to list {count} panes"), PATIENCE, || {
        let labels = saved_labels(server)?;
        if labels.len() == count { Ok(()) } else { Err(format!("{} panes", labels.len())) }
    });
}

/// Opens `workspaces` × 2 tabs × 5 panes through the API; returns every pane id.
fn open_panes(server: &TestServer, workspaces: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for n in 0..workspaces {
        let created = server.call("workspace.create", json!({"label": format!("ws-{n}"), "focus": false}));
        let workspace = created["workspace"]["workspace_id"].as_str().expect("a workspace id").to_owned();
        let tab =
            server.call("tab.create", json!({"workspace_id": workspace, "label": "second", "focus": false}));
        for root in [&created["root_pane"], &tab["root_pane"]] {
            let mut last = root["pane_id"].as_str().expect("a root pane id").to_owned();
            ids.push(last.clone());
            for direction in ["right", "down", "right", "down"] {
                last = panes::split(server, &last, direction);
                ids.push(last.clone());
            }
        }
    }
    ids
}

/// The one inhibitor logind has been asked for, once it has.
fn wait_inhibitor(logind: &FakeLogind, count: usize) {
    wait_until(&format!("{count} Inhibit calls"), PATIENCE, || {
        let taken = logind.inhibitors(<[_]>::len);
        if taken >= count { Ok(()) } else { Err(format!("{taken} Inhibit calls")) }
    });
}

#[test]
fn a_shutdown_notice_saves_the_whole_session_then_releases_the_inhibitor() {
    let bus_dir = tempfile::tempdir().expect("a dir for the bus");
    let bus = SystemBus::start(bus_dir.path());
    let logind = FakeLogind::start(&bus);
    let mut server = server_on_bus(bus.address());

    wait_inhibitor(&logind, 1);
    logind.inhibitors(|taken| {
        let first = &taken[0];
        assert!(first.what.split(':').any(|w| w == "shutdown"), "inhibits {:?}", first.what);
        assert_eq!(first.mode, "delay", "a block inhibitor could hold a shutdown up forever");
        assert_eq!(first.who, "herdr");
        assert!(!first.why.is_empty(), "logind shows users why");
        assert!(!first.released(), "held while the server runs");
    });

    let ids = open_panes(&server, 5);
    assert_eq!(ids.len(), 50);
    wait_saved_panes(&server, 50);
    // Within the autosave's coalescing window: only the save on the notice can carry this.
    let last = ids.last().expect("panes were opened");
    server.call("pane.rename", json!({"pane_id": last, "label": "renamed-before-shutdown"}));
    logind.announce(true);

    wait_until("the inhibitor released after the notice", RELEASE_BOUND, || {
        if logind.inhibitors(|taken| taken[0].released()) { Ok(()) } else { Err("still held".to_owned()) }
    });
    // Released only after saving, so the file is complete now.
    let labels = saved_labels(&server).expect("session.json after the notice");
    assert_eq!(labels.len(), 50, "{labels:?}");
    assert!(labels.iter().any(|l| l == "renamed-before-shutdown"), "the last rename is lost: {labels:?}");
    server.assert_alive();

    // Then the shutdown goes on as logind's does: every program killed, the supervisor SIGTERMed.
    for id in &ids {
        let _ = kill(Pid::from_raw(panes::shell_pid(&server, id)), Signal::SIGKILL);
    }
    let _ = kill(Pid::from_raw(server.server_pid()), Signal::SIGTERM);
    wait_until("the server to stop on SIGTERM", PATIENCE, || {
        server.server_exited().ok_or_else(|| "still running".to_owned())
    });
    let labels = saved_labels(&server).expect("session.json after the stop");
    assert_eq!(labels.len(), 50, "the panes killed after the save emptied the layout: {labels:?}");
    assert!(labels.iter().any(|l| l == "renamed-before-shutdown"), "{labels:?}");
}

#[test]
fn a_cancelled_shutdown_resumes_saving_and_takes_a_new_inhibitor() {
    let bus_dir = tempfile::tempdir().expect("a dir for the bus");
    let bus = SystemBus::start(bus_dir.path());
    let logind = FakeLogind::start(&bus);
    let server = server_on_bus(bus.address());
    wait_inhibitor(&logind, 1);
    let workspace = panes::create_workspace(&server);
    wait_saved_panes(&server, 1);

    logind.announce(true);
    wait_until("the inhibitor released", RELEASE_BOUND, || {
        if logind.inhibitors(|taken| taken[0].released()) { Ok(()) } else { Err("still held".to_owned()) }
    });
    logind.announce(false);
    wait_inhibitor(&logind, 2);
    logind.inhibitors(|taken| {
        assert_eq!(taken[1].mode, "delay");
        assert!(!taken[1].released(), "the new inhibitor is held");
    });

    server.call("pane.rename", json!({"pane_id": workspace.pane_id, "label": "after-the-cancel"}));
    wait_until("the rename after the cancel to be saved", PATIENCE, || {
        let labels = saved_labels(&server)?;
        if labels == ["after-the-cancel"] { Ok(()) } else { Err(format!("{labels:?}")) }
    });
}

#[test]
fn without_a_system_bus_the_server_runs_as_before() {
    let dir = tempfile::tempdir().expect("a dir with no bus in it");
    let nowhere = format!("unix:path={}", dir.path().join("no_bus_here").display());
    let server = server_on_bus(&nowhere);
    assert_runs_as_before(&server);
}

#[test]
fn a_system_bus_without_logind_changes_nothing() {
    let bus_dir = tempfile::tempdir().expect("a dir for the bus");
    let bus = SystemBus::start(bus_dir.path());
    let server = server_on_bus(bus.address());
    assert_runs_as_before(&server);
}

/// Says once that shutdown saves rely on SIGTERM, then serves and saves as usual.
fn assert_runs_as_before(server: &TestServer) {
    wait_until("the no-logind notice in the log", PATIENCE, || {
        let log = server.log_text();
        if log.contains("no logind: shutdown saves rely on SIGTERM") { Ok(()) } else { Err(log) }
    });
    let workspace = panes::create_workspace(server);
    panes::split(server, &workspace.pane_id, "right");
    wait_saved_panes(server, 2);
    server.assert_alive();
    let notices = server.log_text().matches("no logind").count();
    assert_eq!(notices, 1, "logged once:\n{}", server.log_text());
}
