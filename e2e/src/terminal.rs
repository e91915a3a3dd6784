//! A terminal client for the suites, speaking the client protocol on `herdr-client.sock`
//! directly: it keeps the screen it has been painted as text (one string per cell), counts the
//! paints and bells it got, and can type bytes. No real terminal involved — the tmux-driven
//! suites cover that.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use herdr_protocol::client::{CLIENT_PROTOCOL_VERSION, ClientToServer, Encoding, ServerToClient};
use herdr_protocol::grid::FrameUpdate;
use herdr_protocol::ipc::{FrameDecoder, encode_frame};
use herdr_protocol::paths::derive_client_socket;

use crate::{PATIENCE, TestServer};

pub struct TerminalClient {
    stream: UnixStream,
    frames: FrameDecoder,
    screen: Vec<Vec<String>>,
    /// Paints applied so far.
    pub frames_seen: usize,
    /// `Bell`s received so far.
    pub bells: usize,
    /// Every `WindowTitle` received so far, in order.
    pub titles: Vec<Option<String>>,
}

impl TerminalClient {
    /// Connects and sends `Hello` with `version`; returns the client and the `Welcome`.
    pub fn hello(
        server: &TestServer,
        version: u32,
        cols: u16,
        rows: u16,
    ) -> (TerminalClient, ServerToClient) {
        let stream =
            UnixStream::connect(derive_client_socket(server.socket())).expect("connect the client socket");
        let mut client = TerminalClient {
            stream,
            frames: FrameDecoder::new(),
            screen: Vec::new(),
            frames_seen: 0,
            bells: 0,
            titles: Vec::new(),
        };
        client.send(&ClientToServer::Hello { version, cols, rows, encoding: Encoding::CellDiff });
        let welcome = client.recv(PATIENCE).expect("a Welcome");
        (client, welcome)
    }

    /// Attaches with this build's protocol version; panics unless welcomed.
    pub fn attach(server: &TestServer, cols: u16, rows: u16) -> TerminalClient {
        let (client, welcome) = Self::hello(server, CLIENT_PROTOCOL_VERSION, cols, rows);
        assert_eq!(welcome, ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None });
        client
    }

    pub fn send(&mut self, msg: &ClientToServer) {
        let bytes = encode_frame(msg).expect("encode");
        self.stream.write_all(&bytes).expect("write to the server");
    }

    pub fn type_bytes(&mut self, bytes: &[u8]) {
        self.send(&ClientToServer::Input(bytes.to_vec()));
    }

    /// The next message within `timeout` (paints applied, bells counted); `None` on timeout or
    /// when the server closed.
    pub fn recv(&mut self, timeout: Duration) -> Option<ServerToClient> {
        let deadline = Instant::now() + timeout;
        let mut buf = [0u8; 65536];
        loop {
            if let Some(msg) = self.frames.next_frame::<ServerToClient>().expect("a valid frame") {
                match &msg {
                    ServerToClient::Frame(update) => self.apply(update),
                    ServerToClient::Bell => self.bells += 1,
                    ServerToClient::WindowTitle(title) => self.titles.push(title.clone()),
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
        self.frames_seen += 1;
        let (cols, rows) = (usize::from(update.cols), usize::from(update.rows));
        if update.clear || self.screen.len() != rows {
            self.screen = vec![vec![" ".to_owned(); cols]; rows];
        }
        for cell in &update.cells {
            if let Some(slot) =
                self.screen.get_mut(usize::from(cell.y)).and_then(|r| r.get_mut(usize::from(cell.x)))
            {
                *slot = cell.symbol.to_string();
            }
        }
    }

    /// The screen as painted, one line per row.
    pub fn text(&self) -> String {
        self.screen.iter().map(|row| row.concat()).collect::<Vec<_>>().join("\n")
    }

    /// The top row (the tab bar, right of the sidebar).
    pub fn top_row(&self) -> String {
        self.screen.first().map(|row| row.concat()).unwrap_or_default()
    }

    /// Reads messages until `check` holds for this client.
    pub fn wait(&mut self, what: &str, check: impl Fn(&TerminalClient) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !check(self) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                panic!("timed out waiting for {what}; {} bells; screen:\n{}", self.bells, self.text())
            };
            self.recv(left);
        }
    }

    /// Reads paints until the screen satisfies `check`.
    pub fn wait_screen(&mut self, what: &str, check: impl Fn(&str) -> bool) {
        self.wait(what, |c| check(&c.text()));
    }
}
