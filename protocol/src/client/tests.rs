use super::*;
use crate::grid::{CellUpdate, CursorPlacement, CursorShape, WireColor};
use crate::ipc::{FrameDecoder, encode_frame};

fn round_trip<T>(msgs: &[T]) -> Vec<T>
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let bytes: Vec<u8> = msgs.iter().flat_map(|m| encode_frame(m).expect("encode")).collect();
    let mut decoder = FrameDecoder::new();
    let mut got = Vec::new();
    // Split reads at awkward places, as a socket may deliver them.
    for chunk in bytes.chunks(5) {
        decoder.push(chunk);
        while let Some(msg) = decoder.next_frame::<T>().expect("decode") {
            got.push(msg);
        }
    }
    got
}

#[test]
fn client_messages_round_trip() {
    let msgs = vec![
        ClientToServer::Hello {
            version: CLIENT_PROTOCOL_VERSION,
            cols: 120,
            rows: 40,
            encoding: Encoding::CellDiff,
        },
        ClientToServer::Input(b"\x02v\x1b[<0;3;4M".to_vec()),
        ClientToServer::Resize { cols: 80, rows: 24 },
        ClientToServer::Detach,
        ClientToServer::Keys("[keys]\nprefix = \"ctrl+a\"\n".into()),
        ClientToServer::AttachTerminal {
            version: CLIENT_PROTOCOL_VERSION,
            cols: 100,
            rows: 30,
            target: "term_1a2b".into(),
            role: AttachRole::Control { takeover: true },
        },
        ClientToServer::AttachTerminal {
            version: CLIENT_PROTOCOL_VERSION,
            cols: 120,
            rows: 40,
            target: "w1:p1".into(),
            role: AttachRole::Observe,
        },
    ];
    assert_eq!(round_trip(&msgs), msgs);
}

#[test]
fn server_messages_round_trip() {
    let update = FrameUpdate {
        cols: 3,
        rows: 1,
        clear: true,
        cells: vec![CellUpdate {
            x: 0,
            y: 0,
            symbol: "界".into(),
            fg: WireColor::Rgb(1, 2, 3),
            bg: WireColor::Indexed(4),
            attrs: 1,
        }],
        cursor: Some(CursorPlacement { x: 2, y: 0, visible: true, shape: CursorShape::Bar, blinking: true }),
    };
    let msgs = vec![
        ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None },
        ServerToClient::Frame(update),
        ServerToClient::Ansi(b"\x1b[?2026h\x1b[?2026l".to_vec()),
        ServerToClient::Bell,
        ServerToClient::MouseCapture { enabled: true },
        ServerToClient::Notify { title: "t".into(), body: Some("b".into()), via: NotifyVia::Terminal },
        ServerToClient::Notify { title: "t".into(), body: None, via: NotifyVia::System },
        ServerToClient::Shutdown { reason: ShutdownReason::Detached },
        ServerToClient::Shutdown { reason: ShutdownReason::ProtocolError("bad".into()) },
        ServerToClient::WindowTitle(Some("t".into())),
        ServerToClient::Terminal(TerminalFrame {
            seq: 1,
            width: 80,
            height: 24,
            full: true,
            bytes: b"\x1b[?2026hhi\x1b[?2026l".to_vec(),
        }),
        ServerToClient::Shutdown { reason: ShutdownReason::TakenOver },
        ServerToClient::Shutdown { reason: ShutdownReason::PaneEnded("term_1".into()) },
    ];
    assert_eq!(round_trip(&msgs), msgs);
}

#[test]
fn the_same_version_is_welcomed() {
    assert_eq!(
        check_hello_version(CLIENT_PROTOCOL_VERSION),
        Ok(ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error: None })
    );
}

#[test]
fn any_other_version_is_refused_with_a_readable_reason() {
    for other in [0, CLIENT_PROTOCOL_VERSION + 1, u32::MAX] {
        let Err(ServerToClient::Welcome { version, error: Some(error) }) = check_hello_version(other) else {
            panic!("version {other} must be refused");
        };
        assert_eq!(version, CLIENT_PROTOCOL_VERSION);
        assert!(error.contains(&format!("client speaks version {other}")), "{error}");
        assert!(error.contains(&format!("server speaks {CLIENT_PROTOCOL_VERSION}")), "{error}");
    }
    assert!(version_mismatch_message(1, 2).contains("older"));
    assert!(version_mismatch_message(3, 2).contains("newer"));
}

#[test]
fn appended_variants_leave_every_older_message_encoded_as_before() {
    // bincode encodes a variant by its index: the attach variants are last, so the messages an
    // older peer knows keep their bytes (Keys is ClientToServer's 5th, WindowTitle
    // ServerToClient's 9th, ProtocolError ShutdownReason's 3rd).
    let keys = encode_frame(&ClientToServer::Keys(String::new())).expect("encode");
    assert_eq!(keys[4], 4);
    let attach = encode_frame(&ClientToServer::AttachTerminal {
        version: 0,
        cols: 0,
        rows: 0,
        target: String::new(),
        role: AttachRole::Observe,
    })
    .expect("encode");
    assert_eq!(attach[4], 5);
    let title = encode_frame(&ServerToClient::WindowTitle(None)).expect("encode");
    assert_eq!(title[4], 8);
    let frame =
        ServerToClient::Terminal(TerminalFrame { seq: 0, width: 0, height: 0, full: false, bytes: vec![] });
    assert_eq!(encode_frame(&frame).expect("encode")[4], 9);
    let taken =
        encode_frame(&ServerToClient::Shutdown { reason: ShutdownReason::TakenOver }).expect("encode");
    assert_eq!(taken[4..], [7, 3]);
}
