//! Native agent resume end to end: an agent reports its session through the installed
//! integration, the server stops and starts again, and once a terminal client attaches the
//! restored pane runs the agent's own resume command, in every workspace.
//!
//! The agent is `e2e/fake-agents/hooked/claude`, a fake that runs the `SessionStart` hook
//! commands from `~/.claude/settings.json` as Claude Code does (`herdr integration install
//! claude` wrote them) and records every start: its pane, argv and terminal size. The servers
//! run with that folder first on `PATH`, because restored panes get the server's environment.
//!
//! Also covered: a second pane holding the same conversation and a Pi pane whose session file
//! was deleted come back as shells; before a client attaches nothing resumes and the waiting
//! pane reads as empty instead of blocking.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use herdr_e2e::terminal::TerminalClient;
use herdr_e2e::wire::{self, Reply};
use herdr_e2e::{PATIENCE, TestServer, agents, binaries, panes, wait_until};
use serde_json::{Value, json};

/// The servers of one test: started by hand so their `PATH` holds the hooked fake.
struct Servers {
    server: TestServer,
    path: String,
    record: PathBuf,
    running: Option<Child>,
    started: usize,
}

impl Servers {
    fn new() -> Self {
        let server = TestServer::prepare();
        let inherited = server.env().iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone());
        let hooked = agents::fake_agents_dir().join("hooked");
        let path = format!("{}:{}", hooked.display(), inherited.unwrap_or_default());
        let record = server.root().join("claude-starts.jsonl");
        Servers { server, path, record, running: None, started: 0 }
    }

    fn start(&mut self) {
        assert!(self.running.is_none(), "a server already runs");
        self.started += 1;
        let log = self.log(self.started);
        let mut command = self.server.server_command(&log);
        command.env("PATH", &self.path).env("FAKE_CLAUDE_RECORD", &self.record);
        self.running = Some(command.spawn().expect("start `herdr server`"));
        let socket = self.server.socket().to_owned();
        wait_until("the server to answer ping", PATIENCE, || {
            match wire::exchange(
                &socket,
                b"{\"id\":\"e2e:boot\",\"method\":\"ping\",\"params\":{}}\n",
                PATIENCE,
            ) {
                Ok(Reply::Line(line)) if line.contains("\"result\"") => Ok(()),
                other => Err(format!("{other:?}")),
            }
        });
        self.server.track_processes();
    }

    /// `server.stop`, then waits for the process to exit (it saves the session first).
    fn stop(&mut self) {
        let stopped = self.server.call("server.stop", json!({}));
        assert_eq!(stopped["type"], "ok", "{stopped}");
        let mut child = self.running.take().expect("a server runs");
        let status = child.wait().expect("wait for the server");
        assert!(status.success(), "the server exited with {status}:\n{}", self.logs());
    }

    fn log(&self, n: usize) -> PathBuf {
        self.server.root().join(format!("server-{n}.log"))
    }

    fn logs(&self) -> String {
        (1..=self.started).map(|n| fs::read_to_string(self.log(n)).unwrap_or_default()).collect()
    }

    /// Every start the fake recorded so far.
    fn starts(&self) -> Vec<Value> {
        let text = fs::read_to_string(&self.record).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).expect("a JSON record line")).collect()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- server logs ---\n{}\n--- end ---", self.logs());
        }
        if let Some(mut child) = self.running.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn pane(server: &TestServer, pane_id: &str) -> Value {
    let info = server.call("pane.get", json!({"pane_id": pane_id}));
    assert_eq!(info["type"], "pane_info", "{info}");
    info["pane"].clone()
}

/// Waits until the pane holds `value` as its agent session ref.
fn wait_session(server: &TestServer, pane_id: &str, value: &str) {
    wait_until(&format!("{pane_id} to hold session {value}"), PATIENCE, || {
        let session = pane(server, pane_id)["agent_session"].clone();
        if session["value"] == value { Ok(()) } else { Err(session.to_string()) }
    });
}

/// Starts the fake claude in a pane's shell on conversation `session`.
fn run_claude(servers: &Servers, pane_id: &str, session: &str) {
    panes::settle(&servers.server, pane_id);
    panes::run(&servers.server, pane_id, &format!("FAKE_CLAUDE_SESSION={session} claude"));
    panes::wait_output(&servers.server, pane_id, &format!("fake claude {session} ready"), PATIENCE);
    wait_session(&servers.server, pane_id, session);
}

fn starts_with_resume(servers: &Servers) -> Vec<(String, Vec<String>)> {
    servers
        .starts()
        .iter()
        .filter(|start| start["argv"].get(0).is_some_and(|a| a == "--resume"))
        .map(|start| {
            let argv = start["argv"].as_array().into_iter().flatten().filter_map(Value::as_str);
            (start["pane"].as_str().unwrap_or_default().to_owned(), argv.map(str::to_owned).collect())
        })
        .collect()
}

fn install_claude_integration(server: &TestServer) {
    fs::create_dir_all(server.root().join("home/.claude")).expect("claude config dir");
    let installed = server.cli(&["integration", "install", "claude"]);
    assert!(installed.status.success(), "{installed:?}");
    let status = server.cli(&["integration", "status", "claude"]);
    assert!(status.stdout.starts_with("claude: current"), "{status:?}");
}

fn pi_session_file(root: &Path) -> PathBuf {
    let file = root.join("home/.pi/agent/sessions/deleted.jsonl");
    fs::create_dir_all(file.parent().expect("parent")).expect("pi sessions dir");
    fs::write(&file, "{}\n").expect("pi session file");
    file
}

#[test]
fn restored_agent_panes_resume_their_conversation_once_a_client_attaches() {
    assert!(binaries::binary("herdr").exists());
    let mut servers = Servers::new();
    servers.start();
    install_claude_integration(&servers.server);

    // w1: the conversation, a second pane holding the same one, a Pi pane whose file goes away.
    let first = panes::create_workspace(&servers.server);
    let twin = panes::split(&servers.server, &first.pane_id, "right");
    let pi = panes::split(&servers.server, &twin, "down");
    // w2: another conversation, in a workspace nobody looks at.
    let other = panes::create_workspace(&servers.server);
    run_claude(&servers, &first.pane_id, "conv-a");
    run_claude(&servers, &twin, "conv-a");
    run_claude(&servers, &other.pane_id, "conv-b");
    let pi_file = pi_session_file(servers.server.root());
    let reported = servers.server.call(
        "pane.report_agent_session",
        json!({"pane_id": pi, "source": "herdr:pi", "agent": "pi", "agent_session_path": pi_file}),
    );
    assert_eq!(reported["type"], "ok", "{reported}");
    wait_session(&servers.server, &pi, pi_file.to_str().expect("utf-8"));
    assert!(starts_with_resume(&servers).is_empty());

    servers.stop();
    fs::remove_file(&pi_file).expect("delete the pi session");
    servers.start();

    // No client yet: nothing resumes, and the waiting pane answers reads at once, empty.
    let read = panes::read_result(&servers.server, json!({"pane_id": first.pane_id, "source": "visible"}));
    assert_eq!(read["text"], "", "a pane waiting for its resume shows nothing: {read}");
    assert!(servers.logs().contains("2 wait for a client to resume their agent"), "{}", servers.logs());
    assert!(starts_with_resume(&servers).is_empty(), "resumed before any client attached");
    assert_eq!(pane(&servers.server, &first.pane_id)["agent_session"]["value"], "conv-a");

    let mut client = TerminalClient::attach(&servers.server, 100, 30);
    let resumed = wait_until("both conversations to resume", PATIENCE, || {
        let _ = client.recv(Duration::from_millis(20));
        let resumed = starts_with_resume(&servers);
        if resumed.len() >= 2 { Ok(resumed) } else { Err(format!("{resumed:?}")) }
    });
    let mut resumed = resumed;
    resumed.sort();
    let mut expected = vec![
        (first.pane_id.clone(), vec!["--resume".to_owned(), "conv-a".to_owned()]),
        (other.pane_id.clone(), vec!["--resume".to_owned(), "conv-b".to_owned()]),
    ];
    expected.sort();
    assert_eq!(resumed, expected);

    // It started at the attached terminal's size, not the headless 120x40.
    let start = servers.starts().into_iter().find(|s| s["argv"] == json!(["--resume", "conv-a"]));
    let cols = start.as_ref().and_then(|s| s["cols"].as_u64()).expect("a recorded size");
    assert!(cols < 100, "the resumed agent started {cols} columns wide");

    // The resumed agent is what runs in the pane, and its hook reported the session again.
    panes::wait_output(&servers.server, &first.pane_id, "fake claude conv-a ready", PATIENCE);
    panes::wait_foreground(&servers.server, &first.pane_id, "claude");
    wait_session(&servers.server, &first.pane_id, "conv-a");

    let detected = wait_until("the resumed claude to be detected", PATIENCE, || {
        let info = pane(&servers.server, &first.pane_id);
        if info["agent"] == "claude" { Ok(info) } else { Err(info.to_string()) }
    });
    assert_eq!(detected["agent_session"]["source"], "herdr:claude");

    // Quitting the resumed agent leaves the pane a shell in its directory, as before the restart.
    panes::run(&servers.server, &other.pane_id, "/exit");
    panes::wait_shell_foreground(&servers.server, &other.pane_id);
    panes::settle(&servers.server, &other.pane_id);

    // The duplicate and the stale ref came back as shells in their panes.
    for shell in [&twin, &pi] {
        panes::settle(&servers.server, shell);
        panes::wait_shell_foreground(&servers.server, shell);
    }
    assert_eq!(starts_with_resume(&servers).len(), 2, "nothing else resumed: {:?}", servers.starts());
    drop(client);
}

#[test]
fn with_resume_turned_off_agent_panes_restore_as_shells() {
    let mut servers = Servers::new();
    let config = servers.server.root().join("config/herdr");
    fs::create_dir_all(&config).expect("config dir");
    fs::write(config.join("config.toml"), "[session]\nresume_agents_on_restore = false\n").expect("config");
    servers.start();
    install_claude_integration(&servers.server);
    let only = panes::create_workspace(&servers.server);
    run_claude(&servers, &only.pane_id, "conv-off");
    servers.stop();
    servers.start();
    let mut client = TerminalClient::attach(&servers.server, 100, 30);
    let _ = client.recv(Duration::from_millis(50));
    panes::settle(&servers.server, &only.pane_id);
    panes::wait_shell_foreground(&servers.server, &only.pane_id);
    assert!(starts_with_resume(&servers).is_empty(), "{:?}", servers.starts());
}
