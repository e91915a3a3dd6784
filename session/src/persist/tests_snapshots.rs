//! Layout snapshots: the rules with an injected clock, then the directory they live in (each
//! call reads the directory afresh, exactly like a restarted server would).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::snapshots::{Newest, Take, excess, plan, stamp_time};
use super::{KEPT_SNAPSHOTS, SNAPSHOT_INTERVAL, SNAPSHOTS_DIR, SnapshotError, keep_snapshots};

const MINUTE: Duration = Duration::from_secs(60);

/// 2026-12-01 19:05:01 UTC plus `offset`.
fn at(offset: Duration) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_796_151_901) + offset
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

/// The snapshot files, oldest first (names sort by time).
fn snapshots(session: &Path) -> Vec<PathBuf> {
    let dir = session.with_file_name(SNAPSHOTS_DIR);
    let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    paths.sort_by_key(|p| super::backup::stamped_order(p.file_name().and_then(|n| n.to_str()).unwrap_or("")));
    paths
}

fn contents(session: &Path) -> Vec<Vec<u8>> {
    snapshots(session).iter().map(|p| fs::read(p).expect("read snapshot")).collect()
}

#[test]
fn the_first_saved_layout_is_copied_at_once() {
    assert_eq!(plan(None, None, Some(b"a"), at(MINUTE)), [Take::Saved]);
    // A layout from before snapshots existed is older still and is kept first.
    assert_eq!(plan(None, Some(b"old"), Some(b"a"), at(MINUTE)), [Take::Previous, Take::Saved]);
    // An emptied session is nothing to keep, but what it replaced is.
    assert_eq!(plan(None, Some(b"old"), None, at(MINUTE)), [Take::Previous]);
    assert_eq!(plan(None, None, None, at(MINUTE)), []);
}

#[test]
fn later_saves_keep_the_previous_layout_at_most_every_interval() {
    let newest = Some(Newest { taken: at(Duration::ZERO), bytes: b"a" });
    assert_eq!(plan(newest, Some(b"b"), Some(b"c"), at(SNAPSHOT_INTERVAL - MINUTE)), []);
    assert_eq!(plan(newest, Some(b"b"), Some(b"c"), at(SNAPSHOT_INTERVAL)), [Take::Previous]);
    // The previous layout is the newest snapshot already: nothing to add however late it is.
    assert_eq!(plan(newest, Some(b"a"), Some(b"c"), at(10 * SNAPSHOT_INTERVAL)), []);
    // Nothing usable was replaced (a missing or unparsable file).
    assert_eq!(plan(newest, None, Some(b"c"), at(10 * SNAPSHOT_INTERVAL)), []);
}

#[test]
fn a_newest_snapshot_from_the_future_is_taken_as_just_made() {
    let newest = Some(Newest { taken: at(10 * SNAPSHOT_INTERVAL), bytes: b"a" });
    assert_eq!(plan(newest, Some(b"b"), Some(b"c"), at(SNAPSHOT_INTERVAL)), []);
}

#[test]
fn pruning_keeps_the_newest_and_always_the_one_just_written() {
    let names: Vec<String> = (0..50).map(|s| format!("session-20261201T1905{s:02}Z-1.json")).collect();
    let mut all = names.clone();
    all.push("notes.txt".to_owned());
    let gone = excess(&all, &names[49..]);
    assert_eq!(gone, [names[0].as_str(), names[1].as_str()]);
    // A clock that went back makes the new one look oldest; it stays anyway.
    let gone = excess(&all, &names[..1]);
    assert_eq!(gone, [names[1].as_str(), names[2].as_str()]);
}

#[test]
fn stamps_read_back_as_the_time_they_name() {
    for offset in [Duration::ZERO, MINUTE, 400 * 86_400 * Duration::from_secs(1)] {
        let stamp = super::backup::utc_stamp(at(offset));
        assert_eq!(stamp_time(&stamp), Some(at(offset)), "{stamp}");
    }
    assert_eq!(stamp_time("20000229T000000Z"), Some(UNIX_EPOCH + Duration::from_secs(951_782_400)));
    assert_eq!(stamp_time("2026-12-01T19:05Z"), None);
    assert_eq!(stamp_time("20261301T190501Z"), None);
}

#[test]
fn the_first_save_is_copied_at_once_privately_and_named_by_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    let written = keep_snapshots(&session, None, b"first", at(Duration::ZERO)).expect("snapshot");
    let snapshots_dir = dir.path().join(SNAPSHOTS_DIR);
    assert_eq!(written, [snapshots_dir.join("session-20261201T190501Z-1.json")]);
    assert_eq!(contents(&session), [b"first".to_vec()]);
    assert_eq!(mode(&snapshots_dir), 0o700);
    assert_eq!(mode(&written[0]), 0o600);
    let mtime = fs::metadata(&written[0]).expect("metadata").modified().expect("mtime");
    assert_eq!(mtime, at(Duration::ZERO), "the mtime says when it was taken");
}

#[test]
fn a_burst_of_changes_and_restarts_within_the_interval_adds_at_most_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    keep_snapshots(&session, None, b"layout-0", at(Duration::ZERO)).expect("first");
    keep_snapshots(&session, Some(b"layout-0"), b"layout-1", at(MINUTE)).expect("second save");
    assert_eq!(contents(&session), [b"layout-0".to_vec()], "layout-0 is the newest snapshot already");
    // An hour later, 100 changes within eight minutes. Every call reads the directory afresh,
    // as the next server after a restart does, so this is also 100 restarts.
    let mut previous = b"layout-1".to_vec();
    for n in 2..=101u64 {
        let saved = format!("layout-{n}").into_bytes();
        let when = at(60 * MINUTE + Duration::from_secs(5 * n));
        keep_snapshots(&session, Some(&previous), &saved, when).expect("snapshot");
        previous = saved;
    }
    assert_eq!(contents(&session), [b"layout-0".to_vec(), b"layout-1".to_vec()]);
}

#[test]
fn unchanged_layouts_are_not_duplicated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    keep_snapshots(&session, None, b"a", at(Duration::ZERO)).expect("first");
    // Saving "a" again over itself, or going back and forth: the newest snapshot is "a".
    keep_snapshots(&session, Some(b"a"), b"a", at(SNAPSHOT_INTERVAL)).expect("same");
    keep_snapshots(&session, Some(b"a"), b"b", at(2 * SNAPSHOT_INTERVAL)).expect("a → b");
    assert_eq!(contents(&session), [b"a".to_vec()]);
    keep_snapshots(&session, Some(b"b"), b"a", at(3 * SNAPSHOT_INTERVAL)).expect("b → a");
    assert_eq!(contents(&session), [b"a".to_vec(), b"b".to_vec()]);
}

#[test]
fn never_more_than_the_kept_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    keep_snapshots(&session, None, b"layout-0", at(Duration::ZERO)).expect("first");
    for n in 1..=120u32 {
        let previous = format!("layout-{}", n - 1).into_bytes();
        let saved = format!("layout-{n}").into_bytes();
        let when = at(SNAPSHOT_INTERVAL * n + MINUTE);
        keep_snapshots(&session, Some(&previous), &saved, when).expect("snapshot");
        assert!(snapshots(&session).len() <= KEPT_SNAPSHOTS, "after save {n}");
    }
    let kept = contents(&session);
    assert_eq!(kept.len(), KEPT_SNAPSHOTS);
    assert_eq!(kept.first(), Some(&b"layout-72".to_vec()), "the oldest went first");
    assert_eq!(kept.last(), Some(&b"layout-119".to_vec()));
}

#[test]
fn a_directory_that_cannot_be_used_fails_without_touching_anything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    let blocker = dir.path().join(SNAPSHOTS_DIR);
    fs::write(&blocker, b"not a directory").expect("write");
    let failed = keep_snapshots(&session, None, b"a", at(Duration::ZERO));
    assert!(matches!(failed, Err(SnapshotError::NotADirectory { .. })), "{failed:?}");
    assert_eq!(fs::read(&blocker).expect("read"), b"not a directory");
}

#[test]
fn an_empty_session_is_never_a_snapshot_but_the_layout_it_replaced_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    let empty = br#"{"version": 3, "workspaces": []}"#;
    let layout = br#"{"version": 3, "workspaces": [{"id": "w1", "tabs": []}]}"#;
    assert_eq!(
        keep_snapshots(&session, None, empty, at(Duration::ZERO)).expect("empty"),
        Vec::<PathBuf>::new()
    );
    assert!(!session.with_file_name(SNAPSHOTS_DIR).exists(), "nothing made for an empty session");
    keep_snapshots(&session, Some(empty), layout, at(MINUTE)).expect("the first layout");
    assert_eq!(contents(&session), [layout.to_vec()]);
    // Cleared long after: the layout is the newest snapshot already; nothing new.
    keep_snapshots(&session, Some(layout), empty, at(10 * SNAPSHOT_INTERVAL)).expect("cleared");
    assert_eq!(contents(&session), [layout.to_vec()]);
}
