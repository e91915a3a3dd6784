//! A stand-in for herdr's API socket: a real Unix listener that reads one request line per
//! connection (as herdr does), answers `ok` (or stays silent), and hands the lines to the test.

#![allow(dead_code, reason = "each test binary uses a different part")]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::Value;

/// Lines a test waits for longer than this are missing, not late.
pub const DEADLINE: Duration = Duration::from_secs(10);

const SENTINEL: &str = "{\"sentinel\":true}";

pub struct FakeHerdr {
    pub socket: PathBuf,
    lines: Receiver<String>,
}

impl FakeHerdr {
    /// Listens at `dir/herdr.sock`; `answer` decides whether requests get an `ok` reply.
    pub fn start(dir: &Path, answer: bool) -> Self {
        let socket = dir.join("herdr.sock");
        let listener = UnixListener::bind(&socket).expect("bind fake herdr socket");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let mut stream = reader.into_inner();
                if answer {
                    let id = serde_json::from_str::<Value>(&line)
                        .ok()
                        .and_then(|v| v.get("id").cloned())
                        .unwrap_or(Value::String(String::new()));
                    let reply = serde_json::json!({"id": id, "result": {"type": "ok"}});
                    let _ = writeln!(stream, "{reply}");
                } else {
                    held.push(stream);
                }
                if tx.send(line.trim_end().to_owned()).is_err() {
                    return;
                }
            }
        });
        FakeHerdr { socket, lines }
    }

    /// The next request line, waiting up to [`DEADLINE`].
    pub fn next_request(&self) -> Value {
        let line = self.lines.recv_timeout(DEADLINE).expect("a request line before the deadline");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("request is not JSON ({e}): {line}"))
    }

    /// `n` request lines, sorted by their `params.seq` (senders may race; seq is their order).
    pub fn requests_in_seq_order(&self, n: usize) -> Vec<Value> {
        let mut requests: Vec<Value> = (0..n).map(|_| self.next_request()).collect();
        requests.sort_by_key(|r| r["params"]["seq"].as_u64().expect("seq"));
        requests
    }

    /// Proves no request arrived before this call: connects a sentinel and checks it is the next
    /// line. Call it after the sender has exited, so any connection it made is already queued.
    pub fn assert_nothing_received(&self) {
        let mut stream = UnixStream::connect(&self.socket).expect("connect sentinel");
        writeln!(stream, "{SENTINEL}").expect("send sentinel");
        let line = self.lines.recv_timeout(DEADLINE).expect("the sentinel comes back");
        assert_eq!(line, SENTINEL, "a request arrived that should not have");
    }
}

/// Checks `value` is a valid protocol-22 request line.
pub fn assert_valid_request(value: &Value) {
    if let Err(errors) =
        herdr_protocol::schema_check::validate(herdr_protocol::schema_check::SchemaKind::Request, value)
    {
        panic!("request does not validate: {errors:?}\n{value}");
    }
}
