//! Resumable events against the real supervisor: the `subscription_started` ack names the run's
//! `epoch` and the current `seq`, every event line carries its `seq`, and a subscriber that
//! comes back with `after_seq` + `epoch` gets exactly what it missed, in order, before the live
//! stream; past the 4096-event ring, or with another run's epoch, the ack says `truncated` and
//! where the replay starts (`first_available_seq`). Every line is schema-checked as it arrives.

use herdr_e2e::panes::create_workspace;
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer};
use serde_json::{Value, json};

/// The ring's capacity (ARCHITECTURE.md, `hub.rs`).
const RING: usize = 4096;

/// Opens an `events.subscribe` for `workspace.renamed` with the extra resume fields and returns
/// the stream and its ack's `result`.
fn subscribe(server: &TestServer, resume: Value) -> (LineStream, Value) {
    let mut params = json!({"subscriptions": [{"type": "workspace.renamed"}]});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), resume.as_object()) {
        params.extend(extra.clone());
    }
    let request = json!({"id": "resume:sub", "method": "events.subscribe", "params": params});
    let mut stream = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
    let ack = next(server, &mut stream);
    assert_eq!(ack["id"], "resume:sub", "ack: {ack}");
    assert_eq!(ack["result"]["type"], "subscription_started", "ack: {ack}");
    (stream, ack["result"].clone())
}

/// The next line on the stream, schema-checked; panics when the stream ends or stalls.
fn next(server: &TestServer, stream: &mut LineStream) -> Value {
    let line = stream
        .next_line(PATIENCE)
        .unwrap_or_else(|e| panic!("no event line within {PATIENCE:?}: {e}"))
        .expect("the stream ended");
    server.check_line(&line).unwrap_or_else(|e| panic!("{e}"))
}

fn seq_of(value: &Value) -> u64 {
    value["seq"].as_u64().unwrap_or_else(|| panic!("no numeric seq in {value}"))
}

fn rename(server: &TestServer, workspace_id: &str, label: &str) {
    server.call("workspace.rename", json!({"workspace_id": workspace_id, "label": label}));
}

/// Reads one `workspace_renamed` event; returns its label and seq.
fn renamed(server: &TestServer, stream: &mut LineStream) -> (String, u64) {
    let event = next(server, stream);
    assert_eq!(event["event"], "workspace_renamed", "unexpected line: {event}");
    (event["data"]["label"].as_str().unwrap_or_default().to_owned(), seq_of(&event))
}

/// Subscribes once and disconnects, keeping the ack's `(epoch, seq)`: the resume cursor.
fn cursor(server: &TestServer) -> (String, u64) {
    let (first, ack) = subscribe(server, json!({}));
    let epoch = ack["epoch"].as_str().expect("the ack names an epoch").to_owned();
    assert_ne!(ack["truncated"], true, "a fresh subscription is not truncated: {ack}");
    drop(first);
    (epoch, seq_of(&ack))
}

#[test]
fn a_resubscriber_gets_exactly_the_missed_events_in_order_then_live() {
    let server = TestServer::start();
    let ws = create_workspace(&server).workspace_id;
    let (epoch, after) = cursor(&server);

    let labels: Vec<String> = (0..50).map(|i| format!("missed-{i}")).collect();
    for label in &labels {
        rename(&server, &ws, label);
    }
    let (mut stream, ack) = subscribe(&server, json!({"after_seq": after, "epoch": epoch}));
    assert_eq!(ack["epoch"], json!(epoch), "same run, same epoch: {ack}");
    assert_ne!(ack["truncated"], true, "50 events fit the ring: {ack}");

    let mut last = after;
    for want in &labels {
        let (label, seq) = renamed(&server, &mut stream);
        assert_eq!(&label, want, "replay out of order or incomplete");
        assert!(seq > last, "seq {seq} does not follow {last}");
        last = seq;
    }
    // Nothing else was replayed: the next line is the live event caused now.
    rename(&server, &ws, "live");
    let (label, seq) = renamed(&server, &mut stream);
    assert_eq!(label, "live", "a 51st replayed event or a lost live one");
    assert!(seq > last, "live seq {seq} does not follow the replay's {last}");
}

#[test]
fn past_the_ring_or_from_another_epoch_the_ack_is_truncated() {
    let server = TestServer::start();
    let ws = create_workspace(&server).workspace_id;
    let (epoch, after) = cursor(&server);

    // Another run's epoch: nothing of ours can be resumed, even with nothing missed.
    let (_, wrong) = subscribe(&server, json!({"after_seq": after, "epoch": format!("{epoch}x")}));
    assert_eq!(wrong["truncated"], true, "another epoch must be truncated: {wrong}");
    assert!(wrong["first_available_seq"].is_u64(), "truncated ack without first_available_seq: {wrong}");

    let total = RING + 20;
    for i in 0..total {
        rename(&server, &ws, &format!("r{i}"));
    }
    let (mut stream, ack) = subscribe(&server, json!({"after_seq": after, "epoch": epoch}));
    assert_eq!(ack["truncated"], true, "{total} events overflow the ring: {ack}");
    let first_available = ack["first_available_seq"].as_u64().expect("first_available_seq");
    assert!(first_available > after + 1, "the ring should have lost seq {}: {ack}", after + 1);
    // The replay starts at first_available_seq and still ends with the newest rename.
    let (label, seq) = renamed(&server, &mut stream);
    assert!(seq >= first_available, "replayed seq {seq} before first_available_seq {first_available}");
    assert_ne!(label, "r0", "the oldest rename cannot still be in the ring");
    let mut last_label = label;
    let mut last = seq;
    while last_label != format!("r{}", total - 1) {
        let (label, seq) = renamed(&server, &mut stream);
        assert!(seq > last, "seq {seq} does not follow {last}");
        (last_label, last) = (label, seq);
    }
}
