//! File I/O against a temp dir: loading, atomic private writes through symlinks, refusals, and
//! load-failure backups.

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use super::backup::{backup_original_at, utc_stamp};
use super::{
    BACKUPS_DIR, DecodeError, LoadError, LoadOutcome, WriteError, backup_original, decode, encode, load,
    remove, write_atomic,
};

const CURRENT: &str = include_str!("../../tests/fixtures/session/current-herdr-session.json");

fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("metadata").permissions().mode() & 0o777
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn load_tells_missing_loaded_and_failed_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.json");
    assert!(matches!(load(&path), LoadOutcome::Missing));

    fs::write(&path, CURRENT).expect("write");
    let LoadOutcome::Loaded(snapshot) = load(&path) else { panic!("loads") };
    assert_eq!(snapshot.workspaces.len(), 2);

    fs::write(&path, b"{ not json").expect("write");
    let LoadOutcome::Failed { reason, original } = load(&path) else { panic!("fails") };
    assert!(matches!(reason, LoadError::Decode { source: DecodeError::Json(_), .. }), "{reason}");
    assert_eq!(original.as_deref(), Some(&b"{ not json"[..]));

    fs::write(&path, br#"{"version": 7, "workspaces": []}"#).expect("write");
    let LoadOutcome::Failed { reason, original } = load(&path) else { panic!("fails") };
    assert!(matches!(reason, LoadError::Decode { source: DecodeError::Newer { found: 7 }, .. }));
    assert!(reason.to_string().contains("session.json"), "{reason}");
    assert!(original.is_some());

    // A dangling symlink is a file not written yet.
    let link = dir.path().join("linked.json");
    symlink(dir.path().join("nowhere.json"), &link).expect("symlink");
    assert!(matches!(load(&link), LoadOutcome::Missing));

    // A directory or a fifo is not read at all (a fifo would block): no bytes to back up, so
    // nothing may replace it.
    let LoadOutcome::Failed { reason, original } = load(dir.path()) else { panic!("fails") };
    assert!(matches!(reason, LoadError::NotAFile { kind: "a directory", .. }), "{reason}");
    assert!(original.is_none());
    let fifo = dir.path().join("fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    assert!(matches!(
        load(&fifo),
        LoadOutcome::Failed { reason: LoadError::NotAFile { kind: "a fifo", .. }, .. }
    ));
}

#[test]
fn writes_are_private_atomic_and_leave_no_temp_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.json");
    let snapshot = decode(CURRENT.as_bytes()).expect("fixture");
    write_atomic(&path, &encode(&snapshot)).expect("first write");
    assert_eq!(mode(&path), 0o600);
    let LoadOutcome::Loaded(back) = load(&path) else { panic!("loads") };
    assert_eq!(back, snapshot);

    // Replacing an existing, more open file still ends up private.
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).expect("chmod");
    write_atomic(&path, b"{}\n").expect("second write");
    assert_eq!(fs::read(&path).expect("read"), b"{}\n");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(names(dir.path()), ["session.json"]);
}

#[test]
fn a_stale_temp_file_of_our_pid_is_replaced_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.json");
    let victim = dir.path().join("victim");
    fs::write(&victim, b"keep me").expect("write");
    let tmp = dir.path().join(format!("session.json.tmp-{}", std::process::id()));
    symlink(&victim, &tmp).expect("symlink");
    write_atomic(&path, b"new").expect("write");
    assert_eq!(fs::read(&victim).expect("read"), b"keep me");
    assert_eq!(fs::read(&path).expect("read"), b"new");
    assert!(fs::symlink_metadata(&tmp).is_err());
}

#[test]
fn symlinks_stay_symlinks_and_their_targets_are_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dotfiles = dir.path().join("dotfiles");
    fs::create_dir(&dotfiles).expect("mkdir");
    let real = dotfiles.join("herdr-session.json");
    fs::write(&real, b"old").expect("write");
    // Absolute link to a relative link: session.json -> /…/hop.json -> dotfiles/herdr-session.json
    let hop = dir.path().join("hop.json");
    symlink("dotfiles/herdr-session.json", &hop).expect("relative symlink");
    let path = dir.path().join("session.json");
    symlink(&hop, &path).expect("symlink");

    write_atomic(&path, b"new").expect("write through links");
    assert!(fs::symlink_metadata(&path).expect("link").file_type().is_symlink());
    assert!(fs::symlink_metadata(&hop).expect("link").file_type().is_symlink());
    assert_eq!(fs::read(&real).expect("read"), b"new");
    assert_eq!(mode(&real), 0o600);
    assert_eq!(names(&dotfiles), ["herdr-session.json"]);

    // A dangling link gets its target created; removing takes the target, keeps the link.
    remove(&path).expect("remove");
    assert!(fs::symlink_metadata(&path).is_ok() && !real.exists());
    write_atomic(&path, b"again").expect("write to dangling link");
    assert_eq!(fs::read(&real).expect("read"), b"again");
}

#[test]
fn link_loops_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    symlink(&b, &a).expect("symlink");
    symlink(&a, &b).expect("symlink");
    assert!(matches!(write_atomic(&a, b"x"), Err(WriteError::TooManyLinks { .. })));
}

#[test]
fn non_regular_targets_are_refused_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let as_dir = dir.path().join("session.json");
    fs::create_dir(&as_dir).expect("mkdir");
    fs::write(as_dir.join("inside"), b"x").expect("write");
    let err = write_atomic(&as_dir, b"{}").expect_err("refused");
    assert!(matches!(err, WriteError::NotAFile { kind: "a directory", .. }), "{err}");
    assert!(err.to_string().contains("leaving it alone"), "{err}");
    assert!(matches!(remove(&as_dir), Err(WriteError::NotAFile { .. })));
    assert!(as_dir.join("inside").exists());

    let sock = dir.path().join("sock.json");
    let _listener = UnixListener::bind(&sock).expect("bind");
    assert!(matches!(write_atomic(&sock, b"{}"), Err(WriteError::NotAFile { kind: "a socket", .. })));

    let fifo = dir.path().join("fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    // Through a symlink too: the final target decides.
    let link = dir.path().join("link.json");
    symlink(&fifo, &link).expect("symlink");
    assert!(matches!(write_atomic(&link, b"{}"), Err(WriteError::NotAFile { kind: "a fifo", .. })));
    assert!(fs::symlink_metadata(&fifo).expect("fifo").file_type().is_fifo());
    assert_eq!(names(dir.path()), ["fifo.json", "link.json", "session.json", "sock.json"]);
}

#[test]
fn removing_a_missing_file_is_fine() {
    let dir = tempfile::tempdir().expect("tempdir");
    remove(&dir.path().join("session.json")).expect("nothing to remove");
}

#[test]
fn stamps_are_utc() {
    assert_eq!(utc_stamp(UNIX_EPOCH), "19700101T000000Z");
    // 2026-12-01 19:05:01 UTC
    assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(1_796_151_901)), "20261201T190501Z");
    // A leap day.
    assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "20000229T000000Z");
}

#[test]
fn backups_are_private_and_unique() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    let at = UNIX_EPOCH + Duration::from_secs(1_796_151_901);
    let first = backup_original_at(&session, b"one", at).expect("backup");
    let second = backup_original_at(&session, b"two", at).expect("backup");
    let backups = dir.path().join(BACKUPS_DIR);
    assert_eq!(first, backups.join("session-20261201T190501Z-1.json"));
    assert_eq!(second, backups.join("session-20261201T190501Z-2.json"));
    assert_eq!(fs::read(&first).expect("read"), b"one");
    assert_eq!(mode(&backups), 0o700);
    assert_eq!(mode(&first), 0o600);
    // The real clock works too.
    assert!(backup_original(&session, b"now").expect("backup").starts_with(&backups));
}

#[test]
fn only_the_three_newest_backups_stay_and_only_after_a_new_one_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    let backups = dir.path().join(BACKUPS_DIR);
    let at = |s: u64| UNIX_EPOCH + Duration::from_secs(1_796_151_901 + s);
    for s in 0..3 {
        backup_original_at(&session, b"x", at(s)).expect("backup");
    }
    fs::write(backups.join("notes.txt"), b"not a backup").expect("write");
    assert_eq!(names(&backups).len(), 4);

    // A backup that cannot be written (every same-second name is taken) deletes nothing.
    let stamp = utc_stamp(at(10));
    for n in 1..=1000 {
        fs::create_dir(backups.join(format!("session-{stamp}-{n}.json"))).expect("mkdir");
    }
    assert!(backup_original_at(&session, b"y", at(10)).is_err());
    assert_eq!(names(&backups).len(), 1004, "nothing pruned after a failed backup");
    for n in 1..=1000 {
        fs::remove_dir(backups.join(format!("session-{stamp}-{n}.json"))).expect("rmdir");
    }

    let newest = backup_original_at(&session, b"z", at(20)).expect("backup");
    assert_eq!(
        names(&backups),
        [
            "notes.txt",
            "session-20261201T190502Z-1.json",
            "session-20261201T190503Z-1.json",
            newest.file_name().and_then(|n| n.to_str()).expect("name"),
        ]
    );
    // A clock that went backwards never costs the backup just taken.
    let past = backup_original_at(&session, b"p", at(0) - Duration::from_secs(3600)).expect("backup");
    assert!(past.exists());
    assert_eq!(names(&backups).len(), 4);
}

#[test]
fn a_backup_owed_is_retried_until_it_can_be_written() {
    use super::{Owed, SettleError, settle};
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    assert!(matches!(settle(&session, Owed::Nothing), Ok(None)));
    let blocker = dir.path().join(BACKUPS_DIR);
    fs::write(&blocker, b"a file").expect("write");
    let failed = settle(&session, Owed::Backup(b"original".to_vec())).expect_err("blocked");
    assert!(matches!(failed.reason, SettleError::Backup(_)), "{failed}");
    assert_eq!(failed.owed, Owed::Backup(b"original".to_vec()), "still owed");
    fs::remove_file(&blocker).expect("unblock");
    let backup = settle(&session, failed.owed).expect("settled").expect("a backup");
    assert_eq!(fs::read(backup).expect("read"), b"original");
}

#[test]
fn a_file_missing_at_start_up_is_looked_at_again_before_it_is_replaced() {
    use super::{Owed, SettleError, settle};
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("session.json");
    assert!(matches!(settle(&session, Owed::Recheck), Ok(None)), "still missing: nothing owed");
    // Something put a file there since: unusable or not, it is kept before being replaced.
    for bytes in [b"garbage".as_slice(), CURRENT.as_bytes()] {
        fs::write(&session, bytes).expect("write");
        let backup = settle(&session, Owed::Recheck).expect("settled").expect("a backup");
        assert_eq!(fs::read(backup).expect("read"), bytes);
    }
    // One that cannot even be read is never replaced.
    fs::remove_file(&session).expect("rm");
    nix::unistd::mkfifo(&session, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let failed = settle(&session, Owed::Recheck).expect_err("a fifo");
    assert!(matches!(failed.reason, SettleError::Unreadable(_)), "{failed}");
    assert_eq!(failed.owed, Owed::Recheck);
}
