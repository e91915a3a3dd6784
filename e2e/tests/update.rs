//! `herdr update --handoff`: every running session (or the one `--session` names) is handed to
//! the `herdr` that runs the command when its server runs another binary; a server that already
//! runs it is left alone. The "new build" is a copy of the built `herdr` at another path (another
//! inode, so another identity), the way `scripts/install` puts a new file in place.

use std::path::Path;

use herdr_e2e::cli::{self, CliOutput};
use herdr_e2e::server::REQUEST_TIMEOUT;
use herdr_e2e::{PATIENCE, TestServer, binaries, panes, procs, wait_until};
use serde_json::{Value, json};

fn run_with(server: &TestServer, exe: &Path, args: &[&str]) -> CliOutput {
    cli::run(server.command(exe), args, REQUEST_TIMEOUT)
}

/// `status server --json` of the session: its `binary.path` and `service.pid`.
fn running(server: &TestServer, session: Option<&str>) -> (String, u64) {
    let mut args = vec!["status", "server", "--json"];
    if let Some(name) = session {
        args.extend(["--session", name]);
    }
    let out = server.cli(&args);
    let status: Value = serde_json::from_str(out.text()).expect("status --json");
    assert_eq!(status["running"], true, "{status}");
    let path = status["binary"]["path"].as_str().expect("binary.path").to_owned();
    let pid = status["service"]["pid"].as_u64().expect("service.pid");
    (path, pid)
}

/// `status server --json`'s `service.mode` for the session.
fn service_mode(server: &TestServer, session: Option<&str>) -> String {
    let mut args = vec!["status", "server", "--json"];
    if let Some(name) = session {
        args.extend(["--session", name]);
    }
    let status: Value = serde_json::from_str(server.cli(&args).text()).expect("status --json");
    status["service"]["mode"].as_str().unwrap_or_else(|| panic!("no service.mode: {status}")).to_owned()
}

/// A pane in `session` running a shell that printed a marker: (pane id, shell pid).
fn marked_pane(server: &TestServer, session: &str, marker: &panes::Marker) -> (String, i32) {
    let created = server.cli(&["workspace", "create", "--session", session]).result();
    let pane = created["root_pane"]["pane_id"].as_str().expect("root pane").to_owned();
    let read = |source: &str| {
        server.cli(&["pane", "read", &pane, "--source", source, "--session", session]).text().to_owned()
    };
    server.cli(&["pane", "run", &pane, &marker.command, "--session", session]).silent();
    wait_until("the marker in the pane", PATIENCE, || {
        let text = read("recent");
        if text.contains(&marker.word) { Ok(()) } else { Err(text) }
    });
    let info = server.cli(&["pane", "process-info", "--pane", &pane, "--session", session]).result();
    let shell = info["process_info"]["shell_pid"].as_i64().expect("shell pid");
    (pane, i32::try_from(shell).expect("pid"))
}

#[test]
fn update_handoff_moves_each_session_to_this_binary_once() {
    let mut server = TestServer::prepare();
    server.use_default_paths();
    server.start_server();
    let started = server.cli(&["server", "--detach", "--session", "work"]);
    assert!(started.status.success(), "{started:?}");
    // A session that exists but runs nothing.
    std::fs::create_dir_all(server.root().join("home/.config/herdr/sessions/idle"))
        .expect("idle session dir");

    let marker_default = panes::Marker::new("UPD");
    let marker_work = panes::Marker::new("UPW");
    let (pane_default, shell_default) = marked_pane(&server, "default", &marker_default);
    let (pane_work, shell_work) = marked_pane(&server, "work", &marker_work);
    let original = binaries::binary("herdr").display().to_string();
    assert_eq!(running(&server, None).0, original);
    // How each runs: the test's own `herdr server` in the foreground, `--detach` a daemon.
    assert_eq!(service_mode(&server, None), "foreground");
    assert_eq!(service_mode(&server, Some("work")), "detached");

    // Without --handoff there is nothing to download from.
    let plain = server.cli(&["update"]);
    assert_eq!(plain.status.code(), Some(2), "{plain:?}");
    assert!(plain.stderr.contains("scripts/install"), "{plain:?}");

    let copy = server.second_build();
    let copy_path = copy.display().to_string();

    // `--session work` hands over that session alone.
    let (_, work_pid) = running(&server, Some("work"));
    let one = run_with(&server, &copy, &["update", "--handoff", "--session", "work"]);
    assert!(one.status.success(), "{one:?}\nlog:\n{}", server.log_tail());
    assert!(one.stdout.starts_with("work: handed off (pid ") && one.stdout.lines().count() == 1, "{one:?}");
    let (work_binary, work_new_pid) = running(&server, Some("work"));
    assert_eq!(work_binary, copy_path);
    assert_ne!(work_new_pid, work_pid);
    assert_eq!(running(&server, None).0, original, "the default session was not touched");

    // Every session: the default one is handed over, `work` already runs this binary.
    let all = run_with(&server, &copy, &["update", "--handoff"]);
    assert!(all.status.success(), "{all:?}\nlog:\n{}", server.log_tail());
    let lines: Vec<&str> = all.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{all:?}");
    assert!(lines[0].starts_with("default: handed off (pid "), "{all:?}");
    assert_eq!(lines[1], "idle: not running");
    assert_eq!(lines[2], "work: already running this binary");
    assert_eq!(running(&server, None).0, copy_path);
    // An importer runs in a session of its own: a daemon, whatever its predecessor was.
    assert_eq!(service_mode(&server, None), "detached");
    wait_until("the original default supervisor to exit", PATIENCE, || {
        server.server_exited().map(drop).ok_or_else(|| "still running".to_owned())
    });

    let again = run_with(&server, &copy, &["update", "--handoff"]);
    assert!(again.status.success(), "{again:?}");
    assert_eq!(
        again.stdout,
        "default: already running this binary\nidle: not running\nwork: already running this binary\n"
    );

    // The original build is now "another binary" to the servers: status says a restart is needed.
    let status: Value = serde_json::from_str(server.cli(&["status", "--json"]).text()).expect("status");
    assert_eq!(status["server"]["same_binary"], false, "{status}");
    assert_eq!(status["update"]["restart_needed"], true, "{status}");

    // Nothing a pane ran noticed.
    for (session, pane, shell, marker) in [
        ("default", &pane_default, shell_default, &marker_default),
        ("work", &pane_work, shell_work, &marker_work),
    ] {
        assert!(procs::alive(shell), "{session}: the shell died");
        let info = server.cli(&["pane", "process-info", "--pane", pane, "--session", session]).result();
        assert_eq!(info["process_info"]["shell_pid"], json!(shell), "{session}: same shell");
        let recent = server.cli(&["pane", "read", pane, "--source", "recent", "--session", session]);
        assert!(recent.text().contains(&marker.word), "{session} kept its scrollback: {recent:?}");
    }
}
