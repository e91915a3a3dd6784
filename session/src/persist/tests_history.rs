//! `session-history.json`: upstream's shape, the layout check, and what is replayed where.

use std::collections::HashMap;
use std::fs;

use serde_json::{Value, json};

use super::history::{
    HISTORY_VERSION, HistoryFile, Ignored, ReadError, build, encode, layout_check, read, replay_bytes,
    replays,
};
use super::{SessionSnapshot, decode};

/// Two workspaces: the first with a split tab (raw panes 1 and 2) and a second tab (raw 3),
/// the second with one pane (raw 1) that has no uid (an upstream file).
fn session_bytes() -> Vec<u8> {
    let pane = |cwd: &str, uid: Option<&str>| match uid {
        Some(uid) => json!({"cwd": cwd, "uid": uid}),
        None => json!({"cwd": cwd}),
    };
    let split = json!({"Split": {"direction": "Horizontal", "ratio": 0.5, "first": {"Pane": 1}, "second": {"Pane": 2}}});
    let session = json!({
        "version": 3,
        "workspaces": [
            {"id": "w1", "identity_cwd": "/a", "tabs": [
                {"layout": split, "panes": {"1": pane("/a", Some("00000000000000a1")), "2": pane("/a", Some("00000000000000a2"))}},
                {"layout": {"Pane": 3}, "panes": {"3": pane("/b", Some("00000000000000a3"))}},
            ], "active_tab": 0},
            {"id": "w2", "identity_cwd": "/c", "tabs": [
                {"layout": {"Pane": 1}, "panes": {"1": pane("/c", None)}},
            ], "active_tab": 0},
        ],
        "selected": 0,
    });
    let mut bytes = serde_json::to_vec_pretty(&session).expect("json");
    bytes.push(b'\n');
    bytes
}

fn snapshot(bytes: &[u8]) -> SessionSnapshot {
    decode(bytes).expect("the test layout decodes")
}

fn screens() -> HashMap<String, String> {
    [
        ("00000000000000a1", "$ make\n\x1b[31merror\x1b[0m: nope\n$"),
        ("00000000000000a3", "third"),
        ("00000000000000a2", ""),
        ("ffffffffffffffff", "a pane the layout does not have"),
    ]
    .into_iter()
    .map(|(uid, ansi)| (uid.to_owned(), ansi.to_owned()))
    .collect()
}

#[test]
fn history_has_upstreams_shape_plus_the_layout_check() {
    let bytes = session_bytes();
    let history = build(&bytes, &snapshot(&bytes), &screens());
    let encoded: Value = serde_json::from_slice(&encode(&history)).expect("json");
    assert_eq!(
        encoded,
        json!({
            "version": HISTORY_VERSION,
            "layout": layout_check(&bytes),
            "workspaces": [
                {"tabs": [
                    {"panes": {
                        "1": {"ansi": "$ make\n\x1b[31merror\x1b[0m: nope\n$", "lines": 3},
                        "2": {"ansi": "", "lines": 0},
                    }},
                    {"panes": {"3": {"ansi": "third", "lines": 1}}},
                ]},
                {"tabs": [{"panes": {}}]},
            ],
        })
    );
    let back: HistoryFile = serde_json::from_value(encoded).expect("decodes");
    assert_eq!(back, history);
}

#[test]
fn history_replays_onto_its_own_layout_by_uid() {
    let bytes = session_bytes();
    let saved = snapshot(&bytes);
    let history = build(&bytes, &saved, &screens());
    let replayed = replays(&history, &bytes, &saved).expect("same layout");
    let mut uids: Vec<&str> = replayed.keys().map(String::as_str).collect();
    uids.sort_unstable();
    assert_eq!(uids, ["00000000000000a1", "00000000000000a3"], "empty screens replay nothing");
    assert_eq!(replayed["00000000000000a1"], b"$ make\r\n\x1b[31merror\x1b[0m: nope\r\n$\x1b[0m\r\n");
}

#[test]
fn history_of_another_layout_or_without_a_check_is_ignored() {
    let bytes = session_bytes();
    let saved = snapshot(&bytes);
    let history = build(&bytes, &saved, &screens());
    // One byte more (an edit, a snapshot copied over it, a later save) is another layout.
    let mut other = bytes.clone();
    other.insert(other.len() - 1, b' ');
    assert_eq!(replays(&history, &other, &snapshot(&other)), Err(Ignored::OtherLayout));
    let unchecked = HistoryFile { layout: None, ..history.clone() };
    assert_eq!(replays(&unchecked, &bytes, &saved), Err(Ignored::NoLayoutCheck));
    let newer = HistoryFile { version: HISTORY_VERSION + 1, ..history };
    assert_eq!(replays(&newer, &bytes, &saved), Err(Ignored::Version { found: HISTORY_VERSION + 1 }));
    // Upstream's files have no check at all.
    let upstream: HistoryFile = serde_json::from_value(
        json!({"version": 1, "workspaces": [{"tabs": [{"panes": {"1": {"ansi": "x", "lines": 1}}}]}]}),
    )
    .expect("upstream's shape decodes");
    assert_eq!(replays(&upstream, &bytes, &saved), Err(Ignored::NoLayoutCheck));
}

#[test]
fn layout_checks_tell_files_apart() {
    assert_eq!(layout_check(b""), "fnv1a64:cbf29ce484222325:0");
    assert_ne!(layout_check(b"{\"a\":1}"), layout_check(b"{\"a\":2}"));
}

#[test]
fn replayed_rows_end_on_a_fresh_unstyled_line() {
    assert_eq!(replay_bytes("a\nb"), b"a\r\nb\x1b[0m\r\n");
}

#[test]
fn reading_tells_missing_broken_and_odd_files_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session-history.json");
    assert!(matches!(read(&path), Ok(None)));
    fs::write(&path, b"not json").expect("write");
    assert!(matches!(read(&path), Err(ReadError::Decode { .. })));
    fs::write(&path, encode(&HistoryFile::default())).expect("write");
    assert!(matches!(read(&path), Ok(Some(h)) if h == HistoryFile::default()));
    fs::remove_file(&path).expect("rm");
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    assert!(matches!(read(&path), Err(ReadError::NotAFile { .. })), "a fifo is not opened");
}
