//! Frame encoding and decoding: round trips across split reads, size limits, what a decoder keeps.

use super::*;

#[test]
fn frames_round_trip_across_split_reads() {
    let msgs = vec![
        SupervisorToWorker::Hello {
            version: IPC_VERSION,
            min_version: MIN_IPC_VERSION,
            start: Start::Spawn {
                argv: Some(vec!["sh".into()]),
                cwd: None,
                env: vec![],
                cols: 80,
                rows: 24,
                hold_failure: false,
                replay: Some(b"saved \x1b[1mscreen\x1b[0m\r\n".to_vec()),
            },
            identity: WorkerIdentity {
                uid: "0123456789abcdef".into(),
                socket: "/run/herdr/workers/0123456789abcdef.sock".into(),
                secret: "s3cret".into(),
                orphan_timeout_ms: 86_400_000,
            },
        },
        SupervisorToWorker::Adopt {
            version: IPC_VERSION,
            min_version: MIN_IPC_VERSION,
            secret: "s3cret".into(),
        },
        SupervisorToWorker::Request { id: 7, body: WorkerRequest::SendKeys(vec!["ctrl+c".into()]) },
        SupervisorToWorker::Shutdown,
    ];
    let bytes: Vec<u8> = msgs.iter().flat_map(|m| encode_frame(m).expect("encode")).collect();
    let mut dec = FrameDecoder::new();
    let mut got = Vec::new();
    for chunk in bytes.chunks(3) {
        dec.push(chunk);
        while let Some(m) = dec.next_frame::<SupervisorToWorker>().expect("decode") {
            got.push(m);
        }
    }
    assert_eq!(got, msgs);
}

#[test]
fn oversized_length_prefix_is_rejected() {
    let mut dec = FrameDecoder::new();
    dec.push(&(u32::MAX).to_le_bytes());
    assert!(matches!(dec.next_frame::<SupervisorToWorker>(), Err(FrameError::TooLarge(_))));
}

#[test]
fn an_emptied_decoder_lets_a_big_frame_go_and_keeps_a_small_one() {
    let big = SupervisorToWorker::Request { id: 1, body: WorkerRequest::SendText("x".repeat(100_000)) };
    let small = SupervisorToWorker::Request { id: 2, body: WorkerRequest::SendText("y".into()) };
    let mut dec = FrameDecoder::new();
    dec.push(&encode_frame(&big).expect("encode"));
    assert!(dec.next_frame::<SupervisorToWorker>().expect("decode").is_some());
    assert!(dec.buf.capacity() <= KEEP_CAPACITY, "{} bytes kept", dec.buf.capacity());
    // Half a frame waiting is kept whatever its size, and a small buffer is not reallocated.
    let bytes = encode_frame(&big).expect("encode");
    dec.push(&bytes[..bytes.len() / 2]);
    assert!(dec.next_frame::<SupervisorToWorker>().expect("partial").is_none());
    dec.push(&bytes[bytes.len() / 2..]);
    assert!(dec.next_frame::<SupervisorToWorker>().expect("decode").is_some());
    dec.push(&encode_frame(&small).expect("encode"));
    let capacity = dec.buf.capacity();
    assert!(dec.next_frame::<SupervisorToWorker>().expect("decode").is_some());
    assert_eq!(dec.buf.capacity(), capacity);
}
