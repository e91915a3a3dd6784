//! The socket transport and envelope rules (reference §1, §2): bad input gets the documented
//! answer or is dropped silently, and the server stays up after every case.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::thread;
use std::time::{Duration, Instant};

use herdr_e2e::TestServer;
use herdr_e2e::wire::{self, Reply};
use serde_json::{Value, json};

const QUICK: Duration = Duration::from_secs(15);

fn parse_failure(server: &TestServer, bytes: &[u8]) -> Value {
    match server.raw(bytes, QUICK) {
        Reply::Line(line) => {
            let answer: Value = serde_json::from_str(&line).expect("the harness already parsed it");
            assert_eq!(answer["id"], "", "parse failures answer with an empty id: {answer}");
            assert_eq!(answer["error"]["code"], "invalid_request", "{answer}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.starts_with("invalid request: "), "{answer}");
            answer
        }
        other => panic!(
            "expected an invalid_request answer to {:?}, got {other:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

fn assert_dropped(server: &TestServer, bytes: &[u8], what: &str) {
    match server.raw(bytes, QUICK) {
        Reply::Closed { partial } if partial.is_empty() => {}
        other => panic!("{what}: expected the connection dropped without a reply, got {other:?}"),
    }
}

#[test]
fn malformed_json_is_an_invalid_request_with_an_empty_id() {
    let server = TestServer::start();
    parse_failure(&server, b"{\"id\":\"a\",\"method\":\n");
    server.assert_alive();
    parse_failure(&server, b"this is not json\n");
    server.assert_alive();
}

#[test]
fn unknown_methods_list_the_valid_ones() {
    let server = TestServer::start();
    let answer = parse_failure(&server, b"{\"id\":\"u1\",\"method\":\"pane.teleport\",\"params\":{}}\n");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    for method in ["ping", "pane.read", "workspace.create"] {
        assert!(message.contains(method), "the unknown-method message should list `{method}`: {message}");
    }
    server.assert_alive();
}

#[test]
fn params_are_required_even_when_empty() {
    let server = TestServer::start();
    let answer = parse_failure(&server, b"{\"id\":\"p1\",\"method\":\"ping\"}\n");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("missing field `params`"), "{answer}");
    server.assert_alive();
}

#[test]
fn ids_must_be_strings() {
    let server = TestServer::start();
    parse_failure(&server, b"{\"id\":7,\"method\":\"ping\",\"params\":{}}\n");
    server.assert_alive();
}

#[test]
fn wrong_param_types_are_invalid_requests() {
    let server = TestServer::start();
    parse_failure(
        &server,
        b"{\"id\":\"t1\",\"method\":\"workspace.create\",\"params\":{\"focus\":\"yes\"}}\n",
    );
    server.assert_alive();
}

#[test]
fn unknown_param_fields_are_ignored() {
    let server = TestServer::start();
    let pong = server.request_value(&json!({"id": "x1", "method": "ping", "params": {"whatever": 1}}), QUICK);
    assert_eq!(pong["id"], "x1");
    assert_eq!(pong["result"]["type"], "pong", "{pong}");
}

#[test]
fn one_request_per_connection_extra_lines_ignored() {
    let server = TestServer::start();
    let mut stream = UnixStream::connect(server.socket()).expect("connect");
    let two = b"{\"id\":\"first\",\"method\":\"ping\",\"params\":{}}\n{\"id\":\"second\",\"method\":\"ping\",\"params\":{}}\n";
    stream.write_all(two).expect("write two lines");
    let Reply::Line(line) = wire::read_reply(&mut stream, QUICK).expect("read") else {
        panic!("no answer to the first line");
    };
    let answer = server.check_line(&line).expect("valid line");
    assert_eq!(answer["id"], "first");
    assert!(
        wire::wait_closed(&mut stream, QUICK).expect("nothing more"),
        "the server must close after one answer"
    );
    server.assert_alive();
}

#[test]
fn oversized_lines_are_dropped_without_reply() {
    let server = TestServer::start();
    let mut line = b"{\"id\":\"big\",\"method\":\"ping\",\"params\":{\"pad\":\"".to_vec();
    line.resize(line.len() + 1024 * 1024 + 16, b'x');
    line.extend_from_slice(b"\"}}\n");
    assert_dropped(&server, &line, "a 1 MiB+ line");
    server.assert_alive();
}

#[test]
fn empty_lines_eof_and_invalid_utf8_are_dropped() {
    let server = TestServer::start();
    assert_dropped(&server, b"\n", "an empty line");
    server.assert_alive();
    assert_dropped(&server, b"{\"id\":\"a\",\"method\":\"ping\",\"params\":{}}", "EOF before a newline");
    server.assert_alive();
    assert_dropped(&server, b"{\"id\":\"\xff\xfe\",\"method\":\"ping\",\"params\":{}}\n", "invalid UTF-8");
    server.assert_alive();
}

#[test]
fn eof_before_newline_after_half_closing_is_dropped() {
    let server = TestServer::start();
    let mut stream = UnixStream::connect(server.socket()).expect("connect");
    stream.write_all(b"{\"id\":\"h\",\"method\":\"ping\",\"params\":{}}").expect("write");
    stream.shutdown(std::net::Shutdown::Write).expect("half-close");
    match wire::read_reply(&mut stream, QUICK).expect("read") {
        Reply::Closed { partial } if partial.is_empty() => {}
        other => panic!("EOF before newline must be dropped silently, got {other:?}"),
    }
    server.assert_alive();
}

#[test]
fn silent_clients_are_dropped_after_five_seconds() {
    let server = TestServer::start();
    let started = Instant::now();
    let mut silent = UnixStream::connect(server.socket()).expect("connect");
    let mut partial = UnixStream::connect(server.socket()).expect("connect");
    partial.write_all(b"{\"id\":\"slow\",\"method\":").expect("write half a line");
    // Meanwhile other clients are served.
    server.assert_alive();
    for stream in [&mut silent, &mut partial] {
        assert!(
            wire::wait_closed(stream, Duration::from_secs(20)).expect("no bytes may arrive"),
            "a client with no full line must be dropped"
        );
    }
    let elapsed = started.elapsed();
    // The limit is 5 s; dropping much earlier would cut off honest slow writers.
    assert!(elapsed >= Duration::from_secs(4), "dropped after only {elapsed:?}");
    server.assert_alive();
}

#[test]
fn two_hundred_concurrent_clients_all_get_pong() {
    let server = TestServer::start();
    let socket = server.socket().to_path_buf();
    // Connect everyone first so all 200 connections are open at once, then send.
    let streams: Vec<UnixStream> = (0..200)
        .map(|i| UnixStream::connect(&socket).unwrap_or_else(|e| panic!("connect #{i}: {e}")))
        .collect();
    let handles: Vec<_> = streams
        .into_iter()
        .enumerate()
        .map(|(i, mut stream)| {
            thread::spawn(move || {
                let line = format!("{{\"id\":\"c{i}\",\"method\":\"ping\",\"params\":{{}}}}\n");
                stream.write_all(line.as_bytes()).map_err(|e| format!("write #{i}: {e}"))?;
                match wire::read_reply(&mut stream, Duration::from_secs(60)) {
                    Ok(Reply::Line(answer)) => Ok((i, answer)),
                    other => Err(format!("client #{i} got {other:?}")),
                }
            })
        })
        .collect();
    let mut answered = 0;
    for handle in handles {
        let (i, line) = handle.join().expect("client thread").unwrap_or_else(|e| panic!("{e}"));
        let answer = server.check_line(&line).expect("valid line");
        assert_eq!(answer["id"], format!("c{i}"), "{answer}");
        assert_eq!(answer["result"]["type"], "pong", "{answer}");
        answered += 1;
    }
    assert_eq!(answered, 200);
    server.assert_alive();
}

#[test]
fn pong_reports_protocol_22() {
    let server = TestServer::start();
    let pong = server.call("ping", json!({}));
    assert_eq!(pong["protocol"], 22, "{pong}");
    assert!(pong["version"].as_str().is_some_and(|v| !v.is_empty()), "{pong}");
}
