//! Pane bells end to end: a real `herdr server` with real shells, and a terminal client speaking
//! the client protocol on `herdr-client.sock`. A BEL in the focused pane reaches the attached
//! client as `Bell`; a BEL in a tab nobody sees rings too and marks that tab (` !`) until it is
//! focused; with `ui.sound.enabled = false` nothing rings but the mark still shows.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use herdr_e2e::panes::{Marker, run, settle, wait_output};
use herdr_e2e::{PATIENCE, TestServer};
use herdr_protocol::client::{CLIENT_PROTOCOL_VERSION, ClientToServer, Encoding, ServerToClient};
use herdr_protocol::grid::FrameUpdate;
use herdr_protocol::ipc::{FrameDecoder, encode_frame};
use herdr_protocol::paths::derive_client_socket;
use serde_json::json;

/// A terminal client that keeps the screen it has been painted, as text, and counts the bells
/// it was sent.
struct BellClient {
    stream: UnixStream,
    frames: FrameDecoder,
    screen: Vec<Vec<String>>,
    bells: usize,
}

impl BellClient {
    fn attach(server: &TestServer, cols: u16, rows: u16) -> BellClient {
        let stream =
            UnixStream::connect(derive_client_socket(server.socket())).expect("connect the client socket");
        let mut client = BellClient { stream, frames: FrameDecoder::new(), screen: Vec::new(), bells: 0 };
        let hello = ClientToServer::Hello {
            version: CLIENT_PROTOCOL_VERSION,
            cols,
            rows,
            encoding: Encoding::CellDiff,
        };
        client.stream.write_all(&encode_frame(&hello).expect("encode")).expect("send Hello");
        let welcome = client.recv(PATIENCE);
        assert_eq!(welcome, Some(ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None }));
        client
    }

    fn type_bytes(&mut self, bytes: &[u8]) {
        let input = encode_frame(&ClientToServer::Input(bytes.to_vec())).expect("encode");
        self.stream.write_all(&input).expect("write to the server");
    }

    /// The next message within `timeout` (frames applied, bells counted); `None` on timeout or
    /// when the server closed.
    fn recv(&mut self, timeout: Duration) -> Option<ServerToClient> {
        let deadline = Instant::now() + timeout;
        let mut buf = [0u8; 65536];
        loop {
            if let Some(msg) = self.frames.next_frame::<ServerToClient>().expect("a valid frame") {
                match &msg {
                    ServerToClient::Frame(update) => self.apply(update),
                    ServerToClient::Bell => self.bells += 1,
                    _ => {}
                }
                return Some(msg);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            self.stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).expect("set timeout");
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.frames.push(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return None,
                Err(e) => panic!("reading from the server: {e}"),
            }
        }
    }

    fn apply(&mut self, update: &FrameUpdate) {
        let (cols, rows) = (usize::from(update.cols), usize::from(update.rows));
        if update.clear || self.screen.len() != rows {
            self.screen = vec![vec![" ".to_owned(); cols]; rows];
        }
        for cell in &update.cells {
            if let Some(slot) =
                self.screen.get_mut(usize::from(cell.y)).and_then(|r| r.get_mut(usize::from(cell.x)))
            {
                *slot = cell.symbol.clone();
            }
        }
    }

    fn text(&self) -> String {
        self.screen.iter().map(|row| row.concat()).collect::<Vec<_>>().join("\n")
    }

    /// The tab bar (the top row, right of the sidebar).
    fn tab_bar(&self) -> String {
        self.screen.first().map(|row| row.concat()).unwrap_or_default()
    }

    /// Reads messages until `check` holds for this client.
    fn wait(&mut self, what: &str, check: impl Fn(&BellClient) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !check(self) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                panic!("timed out waiting for {what}; {} bells; screen:\n{}", self.bells, self.text())
            };
            self.recv(left);
        }
    }
}

/// A server with `config` as its `config.toml`, a client attached at 100x30 and its first
/// workspace's shell ready; returns the focused pane's id too.
fn attached(config: &str) -> (TestServer, BellClient, String) {
    let mut server = TestServer::prepare();
    let config_dir = server.root().join("config").join("herdr");
    std::fs::create_dir_all(&config_dir).expect("create the config dir");
    std::fs::write(config_dir.join("config.toml"), config).expect("write config.toml");
    server.start_server();
    let mut client = BellClient::attach(&server, 100, 30);
    client.wait("the first paint", |c| c.text().contains("spaces"));
    let snapshot = server.call("session.snapshot", json!({}));
    let pane = snapshot["snapshot"]["focused_pane_id"].as_str().expect("a focused pane").to_owned();
    settle(&server, &pane);
    (server, client, pane)
}

/// Rings the bell in `pane` and waits until a word printed after it is in the pane (through the
/// API: the pane may be hidden). The client's bell may still be on its way.
fn ring(server: &TestServer, pane: &str) {
    let marker = Marker::new("RANG");
    run(server, pane, &format!("printf '\\a'; {}", marker.command));
    wait_output(server, pane, &marker.word, PATIENCE);
}

/// A second tab, not focused, with its shell ready: its id and its pane's id.
fn background_tab(server: &TestServer) -> (String, String) {
    let created = server.call("tab.create", json!({"label": "bg", "focus": false}));
    assert_eq!(created["type"], "tab_created", "{created}");
    let tab = created["tab"]["tab_id"].as_str().expect("a tab id").to_owned();
    let pane = created["root_pane"]["pane_id"].as_str().expect("a pane id").to_owned();
    settle(server, &pane);
    (tab, pane)
}

#[test]
fn a_bel_in_the_focused_pane_rings_the_attached_client() {
    let (server, mut client, pane) = attached("");
    // Typed by the user, as at a real terminal.
    client.type_bytes(b"printf '\\a'\r");
    client.wait("the bell", |c| c.bells == 1);
    // The pane is shown: its tab gets no mark.
    let marker = Marker::new("SHOWN");
    run(&server, &pane, &marker.command);
    client.wait("the marker on screen", |c| c.text().contains(&marker.word));
    assert!(!client.tab_bar().contains(" !"), "{}", client.tab_bar());
}

#[test]
fn a_bel_in_a_hidden_tab_rings_and_marks_the_tab_until_it_is_focused() {
    let (server, mut client, _) = attached("");
    let (tab, pane) = background_tab(&server);
    client.wait("the second tab", |c| c.tab_bar().contains("2 bg"));
    ring(&server, &pane);
    client.wait("the bell", |c| c.bells == 1);
    client.wait("the bell marker on the bg tab", |c| c.tab_bar().contains("2 bg !"));
    let focused = server.call("tab.focus", json!({"tab_id": tab}));
    assert_eq!(focused["type"], "tab_info", "{focused}");
    client.wait("the marker gone", |c| c.tab_bar().contains("2 bg") && !c.tab_bar().contains(" !"));
}

#[test]
fn with_sound_off_a_bel_marks_the_tab_but_rings_nothing() {
    let (server, mut client, pane) = attached("[ui.sound]\nenabled = false\n");
    let (_, hidden) = background_tab(&server);
    client.wait("the second tab", |c| c.tab_bar().contains("2 bg"));
    ring(&server, &hidden);
    client.wait("the bell marker on the bg tab", |c| c.tab_bar().contains("2 bg !"));
    ring(&server, &pane);
    // Two later screen changes: a bell would have been delivered before the second is painted.
    for tag in ["AFTER", "LATER"] {
        let marker = Marker::new(tag);
        run(&server, &pane, &marker.command);
        client.wait("the marker on screen", |c| c.text().contains(&marker.word));
    }
    assert_eq!(client.bells, 0, "sound is off");
}
