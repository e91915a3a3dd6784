//! Load-failure backups: a `session.json` that cannot be used (unparsable, or written by a newer
//! herdr) is copied into `session-backups/` beside it before anything replaces it, so a failed
//! upgrade or a bad edit never costs the user their layout. The three newest backups are kept.
//! Backups are never restored automatically; recovering is copying one over `session.json`.

use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::file::{WriteError, sync_dir, write_new};

/// The directory beside `session.json` that holds backups.
pub const BACKUPS_DIR: &str = "session-backups";

/// How many backups are kept; older ones go once a new one is safely written.
pub const KEPT_BACKUPS: usize = 3;

/// Same-second backups are told apart by a counter; past this many something is looping.
const MAX_SAME_SECOND: u32 = 1000;

/// Keeps `bytes` (the original contents of `session_path`) in `session-backups/` beside it.
/// Returns the backup's path, for the caller's `persist.backup` log line.
pub fn backup_original(session_path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    backup_original_at(session_path, bytes, SystemTime::now())
}

pub(super) fn backup_original_at(session_path: &Path, bytes: &[u8], now: SystemTime) -> io::Result<PathBuf> {
    let dir = match session_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join(BACKUPS_DIR),
        _ => PathBuf::from(BACKUPS_DIR),
    };
    match DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
        Err(e) => return Err(e),
    }
    let stamp = utc_stamp(now);
    let mut written = None;
    for n in 1..=MAX_SAME_SECOND {
        let path = dir.join(format!("session-{stamp}-{n}.json"));
        match write_new(&path, bytes) {
            Ok(()) => {
                written = Some(path);
                break;
            }
            Err(WriteError::Io { source, .. }) if source.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(into_io(e)),
        }
    }
    let path = written.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{MAX_SAME_SECOND} backups taken at {stamp} already"),
        )
    })?;
    sync_dir(&dir).map_err(into_io)?;
    // Pruning is housekeeping: the backup exists whatever happens to the old ones.
    let _ = prune(&dir, &path);
    Ok(path)
}

fn into_io(e: WriteError) -> io::Error {
    match e {
        WriteError::Io { source, .. } => source,
        other => io::Error::other(other.to_string()),
    }
}

/// `(stamp, counter)` of a backup (or snapshot) file name, `session-<stamp>-<n>.json`, or None
/// for anything else in the directory.
pub(super) fn stamped_order(name: &str) -> Option<(String, u32)> {
    let rest = name.strip_prefix("session-")?.strip_suffix(".json")?;
    let (stamp, n) = rest.rsplit_once('-')?;
    let well_formed = stamp.len() == 16 && stamp.as_bytes()[8] == b'T' && stamp.ends_with('Z');
    well_formed.then(|| Some((stamp.to_owned(), n.parse().ok()?))).flatten()
}

/// Deletes all but the newest [`KEPT_BACKUPS`] backups. The one just written always stays, even
/// if the clock went backwards and it looks older than the rest.
fn prune(dir: &Path, keep: &Path) -> io::Result<()> {
    let mut others: Vec<((String, u32), PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if path == keep || !entry.file_type()?.is_file() {
            continue;
        }
        if let Some(order) = entry.file_name().to_str().and_then(stamped_order) {
            others.push((order, path));
        }
    }
    others.sort();
    let excess = others.len().saturating_sub(KEPT_BACKUPS - 1);
    for (_, path) in others.into_iter().take(excess) {
        fs::remove_file(path)?;
    }
    sync_dir(dir).map_err(into_io)
}

/// `20261201T190501Z` for `now` (UTC; times before 1970 clamp to the epoch).
pub(super) fn utc_stamp(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`, for non-negative days).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}
