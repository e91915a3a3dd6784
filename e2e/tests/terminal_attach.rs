//! Direct terminal attach end to end against a real `herdr server`: the client protocol's
//! `AttachTerminal` spoken directly (one pane's frames alone, typed bytes reaching its program,
//! the pane sized to the owner, a refusal without `--takeover` and a takeover with it, detach
//! giving the pane back to the layout, the pane ending the attach), a full terminal client
//! beside it, `herdr terminal session observe` as NDJSON, `herdr agent attach` in a real
//! terminal (tmux), and unknown targets as the CLI's error envelope.

#[allow(dead_code)]
mod support;

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use herdr_e2e::terminal::TerminalClient;
use herdr_e2e::{PATIENCE, TestServer, binaries, panes, wait_until};
use herdr_protocol::client::{
    AttachRole, CLIENT_PROTOCOL_VERSION, ClientToServer, ServerToClient, ShutdownReason, TerminalFrame,
};
use herdr_protocol::ipc::{FrameDecoder, encode_frame};
use herdr_protocol::paths::derive_client_socket;
use serde_json::{Value, json};
use support::Tmux;

/// A direct attach connection: the frames' bytes so far, as text.
struct Attached {
    stream: UnixStream,
    frames: FrameDecoder,
    seen: String,
    last: Option<TerminalFrame>,
}

impl Attached {
    /// Connects, sends `AttachTerminal`, returns the connection and the `Welcome`.
    fn open(
        server: &TestServer,
        target: &str,
        role: AttachRole,
        cols: u16,
        rows: u16,
    ) -> (Attached, ServerToClient) {
        let stream = UnixStream::connect(derive_client_socket(server.socket())).expect("connect");
        let mut attached = Attached { stream, frames: FrameDecoder::new(), seen: String::new(), last: None };
        attached.send(&ClientToServer::AttachTerminal {
            version: CLIENT_PROTOCOL_VERSION,
            cols,
            rows,
            target: target.to_owned(),
            role,
        });
        let welcome = attached.recv(PATIENCE).expect("a Welcome");
        (attached, welcome)
    }

    fn control(server: &TestServer, target: &str, takeover: bool, cols: u16, rows: u16) -> Attached {
        let (attached, welcome) =
            Attached::open(server, target, AttachRole::Control { takeover }, cols, rows);
        assert_eq!(welcome, ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None });
        attached
    }

    fn send(&mut self, msg: &ClientToServer) {
        self.stream.write_all(&encode_frame(msg).expect("encode")).expect("write");
    }

    fn recv(&mut self, timeout: Duration) -> Option<ServerToClient> {
        let deadline = Instant::now() + timeout;
        let mut buf = [0u8; 65536];
        loop {
            if let Some(msg) = self.frames.next_frame::<ServerToClient>().expect("a valid frame") {
                if let ServerToClient::Terminal(frame) = &msg {
                    self.seen.push_str(&String::from_utf8_lossy(&frame.bytes));
                    self.last = Some(frame.clone());
                }
                return Some(msg);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            self.stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).expect("timeout");
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.frames.push(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return None,
                Err(e) => panic!("reading: {e}"),
            }
        }
    }

    /// Reads frames until the text they painted contains `needle`.
    fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + PATIENCE;
        while !self.seen.contains(needle) {
            let left = deadline.checked_duration_since(Instant::now());
            let Some(left) = left else { panic!("no {needle:?} in the frames:\n{:?}", self.seen) };
            self.recv(left);
        }
    }

    /// Reads until the connection ends; the last message.
    fn until_closed(&mut self) -> Option<ServerToClient> {
        let mut last = None;
        while let Some(msg) = self.recv(PATIENCE) {
            last = Some(msg);
        }
        last
    }
}

/// A workspace whose shell answers; its pane and terminal ids.
fn pane(server: &TestServer) -> (String, String) {
    let created = server.call("workspace.create", json!({"label": "attach"}));
    let pane = created["root_pane"]["pane_id"].as_str().expect("a pane").to_owned();
    let terminal = created["root_pane"]["terminal_id"].as_str().expect("a terminal id").to_owned();
    panes::settle(server, &pane);
    (pane, terminal)
}

/// The size `stty size` reports in the pane right now (printed as `SIZE=<rows>x<cols>`).
fn pane_size(server: &TestServer, pane: &str) -> String {
    let marker = panes::Marker::new("SIZE");
    panes::run(server, pane, &format!("echo {}=$(stty size | tr ' ' x)", marker.word));
    let prefix = format!("{}=", marker.word);
    wait_until("the pane's stty size", PATIENCE, || {
        let text = panes::read(server, pane, "recent");
        text.lines()
            .filter_map(|line| line.trim().strip_prefix(&prefix))
            .find(|size| size.contains('x') && size.chars().all(|c| c.is_ascii_digit() || c == 'x'))
            .map(str::to_owned)
            .ok_or(text)
    })
}

#[test]
fn an_attach_shows_one_pane_types_into_it_owns_its_size_and_hands_it_over() {
    let server = TestServer::start();
    let (pane, terminal) = pane(&server);
    // A full client beside the attaches sees the session as usual.
    let mut tui = TerminalClient::attach(&server, 120, 40);
    tui.wait_screen("the sidebar", |text| text.contains("spaces"));
    let layout_size = pane_size(&server, &pane);

    let mut first = Attached::control(&server, &terminal, false, 70, 20);
    let Some(ServerToClient::Terminal(frame)) = first.recv(PATIENCE) else { panic!("a first frame") };
    assert_eq!((frame.seq, frame.width, frame.height, frame.full), (1, 70, 20, true));
    // Typed bytes reach the program; the pane runs at the attach's size.
    first.send(&ClientToServer::Input(b"echo typed-$((40+2))\r".to_vec()));
    first.wait_for("typed-42");
    assert!(!first.seen.contains("spaces"), "only the pane is drawn, no sidebar: {:?}", first.seen);
    assert_eq!(pane_size(&server, &pane), "20x70");
    tui.wait_screen("the typed output in the full client", |text| text.contains("typed-42"));

    // One writable owner: a second attach is refused without --takeover …
    let (_refused, welcome) = Attached::open(&server, &pane, AttachRole::Control { takeover: false }, 90, 25);
    let ServerToClient::Welcome { error: Some(error), .. } = welcome else { panic!("refused: {welcome:?}") };
    assert!(error.contains("already has an attached client; retry with --takeover"), "{error}");
    // … and takes the pane with it: the first is told, the pane gets the new size.
    let mut second = Attached::control(&server, &pane, true, 90, 25);
    assert_eq!(first.until_closed(), Some(ServerToClient::Shutdown { reason: ShutdownReason::TakenOver }));
    assert_eq!(pane_size(&server, &pane), "25x90");
    second.send(&ClientToServer::Resize { cols: 100, rows: 30 });
    wait_until("the resize", PATIENCE, || match pane_size(&server, &pane) {
        size if size == "30x100" => Ok(()),
        other => Err(other),
    });

    // Detach leaves the pane running, back at the layout's size.
    second.send(&ClientToServer::Detach);
    assert_eq!(second.until_closed(), Some(ServerToClient::Shutdown { reason: ShutdownReason::Detached }));
    server.assert_alive();
    assert_eq!(pane_size(&server, &pane), layout_size);
}

#[test]
fn an_observer_types_nothing_and_the_pane_ending_ends_every_attach() {
    let server = TestServer::start();
    let (pane, terminal) = pane(&server);
    let (mut observer, welcome) = Attached::open(&server, &pane, AttachRole::Observe, 60, 15);
    assert_eq!(welcome, ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None });
    observer.send(&ClientToServer::Input(b"echo never-$((1+1))\r".to_vec()));
    panes::run(&server, &pane, "echo shown-$((2+2))");
    observer.wait_for("shown-4");
    assert!(!panes::read(&server, &pane, "recent").contains("never-2"), "an observer's input goes nowhere");
    let mut owner = Attached::control(&server, &terminal, false, 60, 15);
    owner.send(&ClientToServer::Input(b"exit\r".to_vec()));
    let ended = Some(ServerToClient::Shutdown { reason: ShutdownReason::PaneEnded(terminal.clone()) });
    assert_eq!(owner.until_closed(), ended);
    assert_eq!(observer.until_closed(), ended);
}

#[test]
fn unknown_targets_are_refused_and_the_cli_prints_its_error_envelope() {
    let server = TestServer::start();
    let (_, welcome) =
        Attached::open(&server, "term_nosuch", AttachRole::Control { takeover: false }, 80, 24);
    let ServerToClient::Welcome { error: Some(error), .. } = welcome else { panic!("refused: {welcome:?}") };
    assert_eq!(error, "terminal attach failed: terminal term_nosuch not found");

    let agent = server.cli(&["agent", "attach", "nosuch"]);
    assert_eq!(agent.status.code(), Some(1), "{agent:?}");
    let envelope: Value = serde_json::from_str(agent.stderr.trim()).expect("an error envelope");
    assert_eq!(envelope["error"]["code"], "agent_not_found", "{envelope}");
    let observe = server.cli(&["terminal", "session", "observe", "nosuch"]);
    assert_eq!(observe.status.code(), Some(1), "{observe:?}");
    let envelope: Value = serde_json::from_str(observe.stderr.trim()).expect("an error envelope");
    assert_eq!(envelope["error"]["code"], "terminal_attach_failed", "{envelope}");
    assert_eq!(envelope["id"], "cli:terminal:session:observe");
    assert!(observe.stdout.is_empty());
}

#[test]
fn terminal_session_observe_prints_ndjson_frames_of_the_pane() {
    let server = TestServer::start();
    let (pane, terminal) = pane(&server);
    let mut child = server
        .command(binaries::binary("herdr"))
        .args(["terminal", "session", "observe", &terminal, "--cols", "80", "--rows", "24"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run herdr terminal session observe");
    let stdout = child.stdout.take().expect("stdout");
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let first: Value =
        serde_json::from_str(&lines.recv_timeout(PATIENCE).expect("a first record")).expect("json");
    assert_eq!(first["type"], "terminal.frame");
    assert_eq!((first["seq"].as_u64(), first["encoding"].as_str()), (Some(1), Some("ansi")));
    assert_eq!(
        (first["width"].as_u64(), first["height"].as_u64(), first["full"].as_bool()),
        (Some(80), Some(24), Some(true))
    );
    panes::run(&server, &pane, "echo observed-$((6*7))");
    let mut painted = String::new();
    let deadline = Instant::now() + PATIENCE;
    while !painted.contains("observed-42") {
        let left = deadline.checked_duration_since(Instant::now()).expect("observed-42 in the frames");
        let Ok(line) = lines.recv_timeout(left) else { panic!("no observed-42 in {painted:?}") };
        let record: Value = serde_json::from_str(&line).expect("one JSON record a line");
        let bytes = record["bytes"].as_str().expect("base64 bytes");
        let bytes = base64::engine::general_purpose::STANDARD.decode(bytes).expect("base64");
        painted.push_str(&String::from_utf8_lossy(&bytes));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn agent_attach_in_a_real_terminal_fills_it_types_and_detaches_with_ctrl_b_q() {
    let server = TestServer::start();
    let (pane, _) = pane(&server);
    let report = json!({"pane_id": pane, "source": "e2e", "agent": "claude", "state": "idle"});
    server.call("pane.report_agent", report);
    panes::run(&server, &pane, "echo before-$((3*3))");
    panes::wait_output(&server, &pane, "before-9", PATIENCE);

    let tmux = Tmux::start(&server);
    tmux.wait_screen("the shell prompt", |s| s.contains("e2e$"));
    tmux.keys(&[&format!("herdr agent attach {pane}; echo attach-exit=$?"), "Enter"]);
    // The pane's own screen fills the terminal: its earlier output on top, no sidebar.
    let screen =
        tmux.wait_screen("the pane's screen", |s| s.contains("before-9") && !s.contains("e2e$ herdr"));
    assert!(!screen.contains("spaces"), "no sidebar:\n{screen}");
    assert_eq!(pane_size(&server, &pane), "40x120", "the pane is sized to the terminal");
    tmux.keys(&["echo typed-$((40+2))", "Enter"]);
    tmux.wait_screen("the typed output", |s| s.contains("typed-42"));
    tmux.keys(&["C-b", "q"]);
    tmux.wait_screen("back at the outer shell with exit 0", |s| s.contains("attach-exit=0"));
    server.assert_alive();
    assert!(panes::read(&server, &pane, "recent").contains("typed-42"), "the pane keeps running");
}
