//! Golden bytes of the link frames the compatibility rule freezes (ARCHITECTURE.md, "Supervisor ↔
//! worker link"): the handshake, adoption and hand-over frames every later build must still
//! encode and decode exactly like this, whatever else the link gains. A reordered variant or
//! field, or a changed field type, changes these bytes and fails here.
//!
//! Each case is bincode (standard config) of one frame, without the length prefix, as hex.

use herdr_protocol::ipc::{
    FrameDecoder, Start, SupervisorToWorker, WorkerIdentity, WorkerToSupervisor, encode_frame,
};

fn identity() -> WorkerIdentity {
    WorkerIdentity {
        uid: "0123456789abcdef".into(),
        socket: "/run/w.sock".into(),
        secret: "s3".into(),
        orphan_timeout_ms: 86_400_000,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The frame body's bytes, after checking that the frame decodes back to `frame`.
fn body<T>(frame: &T) -> String
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = encode_frame(frame).expect("encodes");
    let mut decoder = FrameDecoder::new();
    decoder.push(&bytes);
    let back: T = decoder.next_frame().expect("decodes").expect("a whole frame");
    assert_eq!(&back, frame);
    hex(&bytes[4..])
}

fn supervisor_frames() -> Vec<(&'static str, SupervisorToWorker)> {
    vec![
        (
            "hello_adopt",
            SupervisorToWorker::Hello {
                version: 12,
                min_version: 11,
                start: Start::Adopt { child_pid: 4242, cols: 80, rows: 24 },
                identity: identity(),
            },
        ),
        (
            "hello_restore",
            SupervisorToWorker::Hello {
                version: 12,
                min_version: 11,
                start: Start::Restore { child_pid: 4242, cols: 80, rows: 24, revision: 300, dump_len: 2 },
                identity: identity(),
            },
        ),
        ("adopt", SupervisorToWorker::Adopt { version: 12, min_version: 11, secret: "s3".into() }),
        ("hand_over", SupervisorToWorker::HandOver),
        ("dump_chunk", SupervisorToWorker::DumpChunk { bytes: b"ab".to_vec() }),
    ]
}

fn worker_frames() -> Vec<(&'static str, WorkerToSupervisor)> {
    vec![
        ("hello", WorkerToSupervisor::Hello { version: 11, worker_pid: 4243 }),
        ("refused", WorkerToSupervisor::Refused { reason: "no".into() }),
        (
            "adopted",
            WorkerToSupervisor::Adopted {
                version: 11,
                worker_pid: 4243,
                child_pid: 4242,
                cols: 80,
                rows: 24,
            },
        ),
        ("handing_over", WorkerToSupervisor::HandingOver { revision: 300, dump_len: 2 }),
        ("dump_chunk", WorkerToSupervisor::DumpChunk { bytes: b"ab".to_vec() }),
    ]
}

const SUPERVISOR_GOLDEN: &[(&str, &str)] = &[
    (
        "hello_adopt",
        "000c0b01fb2421501810303132333435363738396162636465660b2f72756e2f772e736f636b027333fc005c2605",
    ),
    (
        "hello_restore",
        "000c0b02fb24215018fb2c010210303132333435363738396162636465660b2f72756e2f772e736f636b027333fc005c2605",
    ),
    ("adopt", "010c0b027333"),
    ("hand_over", "05"),
    ("dump_chunk", "06026162"),
];
const WORKER_GOLDEN: &[(&str, &str)] = &[
    ("hello", "000bfb2621"),
    ("refused", "01026e6f"),
    ("adopted", "040bfb2621fb24215018"),
    ("handing_over", "07fb2c0102"),
    ("dump_chunk", "08026162"),
];

#[test]
fn frozen_frames_keep_their_bytes() {
    let mut mismatches = Vec::new();
    let got_supervisor: Vec<(&str, String)> =
        supervisor_frames().iter().map(|(n, f)| (*n, body(f))).collect();
    let got_worker: Vec<(&str, String)> = worker_frames().iter().map(|(n, f)| (*n, body(f))).collect();
    for (side, got, golden) in
        [("supervisor", &got_supervisor, SUPERVISOR_GOLDEN), ("worker", &got_worker, WORKER_GOLDEN)]
    {
        assert_eq!(got.len(), golden.len(), "{side}: every frozen frame has a golden entry: {got:?}");
        for ((name, bytes), (golden_name, golden_bytes)) in got.iter().zip(golden) {
            assert_eq!(name, golden_name);
            if bytes != golden_bytes {
                mismatches.push(format!("{side} {name}: {bytes} (golden {golden_bytes})"));
            }
        }
    }
    assert!(mismatches.is_empty(), "frozen frames changed their encoding:\n{}", mismatches.join("\n"));
}
