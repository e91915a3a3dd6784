//! Layout snapshots: copies of `session.json` kept in `session-snapshots/` beside it, so that a
//! burst of pane closes, a bad edit or a buggy restore cannot cost every older layout. Recovery
//! is by hand (copy a snapshot over `session.json` while the server is stopped); nothing here
//! ever restores one.
//!
//! The rules ([`plan`], pure): the first saved layout is copied at once; after that a save may
//! add a snapshot of the layout it replaced, at most one per [`SNAPSHOT_INTERVAL`], and never
//! one equal to the newest snapshot. The interval is measured from the newest snapshot's name,
//! so it survives server restarts: a crash loop or a script restarting the server cannot rotate
//! out old layouts. At most [`KEPT_SNAPSHOTS`] are kept. A session without workspaces is never
//! copied (the one saved before the first pane exists is no layout to go back to).
//!
//! The file edge ([`keep_snapshots`]) takes the clock as an argument. Files are named
//! `session-<UTC stamp>-<n>.json` like backups (sortable by time), created 0600 in a 0700
//! directory, with their mtime set to the time they were taken.

use std::fs::{self, DirBuilder, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::backup::{stamped_order, utc_stamp};
use super::file::{MAX_SESSION_BYTES, WriteError, create_private, sync_dir};

/// The directory beside `session.json` that holds layout snapshots.
pub const SNAPSHOTS_DIR: &str = "session-snapshots";

/// How many snapshots are kept: twelve hours of a layout changing all the time.
pub const KEPT_SNAPSHOTS: usize = 48;

/// The shortest time between two snapshots after the first.
pub const SNAPSHOT_INTERVAL: Duration = Duration::from_secs(15 * 60);

/// Same-second snapshots are told apart by a counter; past this many something is looping.
const MAX_SAME_SECOND: u32 = 1000;

/// The newest snapshot on disk: when it was taken (from its name) and what it holds.
#[derive(Debug, Clone, Copy)]
pub struct Newest<'a> {
    pub taken: SystemTime,
    pub bytes: &'a [u8],
}

/// Which layout a save should copy into the snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// The layout the save replaced.
    Previous,
    /// The layout just saved.
    Saved,
}

/// What to snapshot after `saved` replaced `previous` in `session.json` at `now`, given the
/// newest snapshot there is. Either is None when it is nothing worth keeping: no usable file, or
/// a session without workspaces (recovering to that is deleting `session.json`).
pub fn plan(
    newest: Option<Newest<'_>>,
    previous: Option<&[u8]>,
    saved: Option<&[u8]>,
    now: SystemTime,
) -> Vec<Take> {
    let previous = previous.filter(|p| Some(*p) != saved);
    let Some(newest) = newest else {
        // The first saved layout is copied at once. A layout that was on disk before it (from a
        // herdr without snapshots, or a directory cleared by hand) is older still: it goes
        // first, or the first burst of changes would lose it.
        let first = [previous.map(|_| Take::Previous), saved.map(|_| Take::Saved)];
        return first.into_iter().flatten().collect();
    };
    let Some(previous) = previous else { return Vec::new() };
    if previous == newest.bytes {
        return Vec::new();
    }
    // A newest snapshot stamped after `now` (the clock went back) counts as just taken: a wrong
    // clock must not let every save rotate out an old layout.
    let due = now.duration_since(newest.taken).is_ok_and(|elapsed| elapsed >= SNAPSHOT_INTERVAL);
    if due { vec![Take::Previous] } else { Vec::new() }
}

/// The snapshots to delete so that at most [`KEPT_SNAPSHOTS`] stay: the oldest by name, never
/// one of `keep` (just written, even if a clock that went back makes them look oldest).
pub fn excess<'a>(names: &'a [String], keep: &[String]) -> Vec<&'a str> {
    let mut others: Vec<((String, u32), &str)> = names
        .iter()
        .filter(|name| !keep.contains(name))
        .filter_map(|name| stamped_order(name).map(|order| (order, name.as_str())))
        .collect();
    others.sort();
    let room = KEPT_SNAPSHOTS.saturating_sub(keep.len());
    let excess = others.len().saturating_sub(room);
    others.into_iter().take(excess).map(|(_, name)| name).collect()
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{} is not a directory; leaving it alone", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{op} {}: {source}", path.display())]
    Io { op: &'static str, path: PathBuf, source: io::Error },
    #[error(transparent)]
    Write(#[from] WriteError),
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SnapshotError + use<> {
    let path = path.to_path_buf();
    move |source| SnapshotError::Io { op, path, source }
}

/// The snapshots directory for the session file at `session_path`.
pub fn snapshots_dir(session_path: &Path) -> PathBuf {
    match session_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join(SNAPSHOTS_DIR),
        _ => PathBuf::from(SNAPSHOTS_DIR),
    }
}

/// After a successful save of `saved` over `previous` at `now`: takes the snapshots `plan`
/// asks for and prunes the oldest. Returns the files written (none most of the time).
pub fn keep_snapshots(
    session_path: &Path,
    previous: Option<&[u8]>,
    saved: &[u8],
    now: SystemTime,
) -> Result<Vec<PathBuf>, SnapshotError> {
    let dir = snapshots_dir(session_path);
    let names = snapshot_names(&dir)?;
    let newest_name = names.iter().filter_map(|n| stamped_order(n).map(|o| (o, n))).max();
    let newest = match newest_name {
        Some(((stamp, _), name)) => Some((stamp_time(&stamp), read_bounded(&dir.join(name))?)),
        None => None,
    };
    // A name whose stamp does not parse was never written by us; treat it as very old.
    let newest = newest
        .as_ref()
        .map(|(taken, bytes)| Newest { taken: taken.unwrap_or(UNIX_EPOCH), bytes: bytes.as_slice() });
    let previous = previous.filter(|p| holds_workspaces(p));
    let takes = plan(newest, previous, Some(saved).filter(|s| holds_workspaces(s)), now);
    if takes.is_empty() {
        return Ok(Vec::new());
    }
    create_dir(&dir)?;
    let mut written = Vec::new();
    for take in takes {
        let bytes = match take {
            Take::Previous => previous.unwrap_or_default(),
            Take::Saved => saved,
        };
        written.push(write_snapshot(&dir, bytes, now)?);
    }
    sync_dir(&dir)?;
    let keep: Vec<String> =
        written.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_owned)).collect();
    for name in excess(&names, &keep) {
        let path = dir.join(name);
        fs::remove_file(&path).map_err(io_error("pruning", &path))?;
    }
    sync_dir(&dir)?;
    Ok(written)
}

/// Whether encoded session bytes list at least one workspace. Bytes that do not parse are
/// kept (they are what was saved; better one useless snapshot than a lost layout).
fn holds_workspaces(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        workspaces: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(bytes).map_or(true, |probe| !probe.workspaces.is_empty())
}

/// The names of the regular files in `dir` (none if it does not exist yet).
fn snapshot_names(dir: &Path) -> Result<Vec<String>, SnapshotError> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(SnapshotError::NotADirectory { path: dir.to_path_buf() }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("inspecting", dir)(e)),
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error("listing", dir))? {
        let entry = entry.map_err(io_error("listing", dir))?;
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if let (true, Some(name)) = (is_file, entry.file_name().to_str()) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

fn create_dir(dir: &Path) -> Result<(), SnapshotError> {
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(io_error("creating", dir)(e)),
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, SnapshotError> {
    let file = File::open(path).map_err(io_error("reading", path))?;
    let mut bytes = Vec::new();
    file.take(MAX_SESSION_BYTES).read_to_end(&mut bytes).map_err(io_error("reading", path))?;
    Ok(bytes)
}

/// Writes `bytes` to the first free `session-<stamp>-<n>.json` in `dir`, 0600, fsynced, its
/// mtime `now`.
fn write_snapshot(dir: &Path, bytes: &[u8], now: SystemTime) -> Result<PathBuf, SnapshotError> {
    let stamp = utc_stamp(now);
    for n in 1..=MAX_SAME_SECOND {
        let path = dir.join(format!("session-{stamp}-{n}.json"));
        let mut file = match create_private(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("creating", &path)(e)),
        };
        let written =
            file.write_all(bytes).and_then(|()| file.set_modified(now)).and_then(|()| file.sync_all());
        if let Err(e) = written {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(io_error("writing", &path)(e));
        }
        return Ok(path);
    }
    Err(io_error("naming", dir)(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{MAX_SAME_SECOND} snapshots taken at {stamp} already"),
    )))
}

/// The time a `20261201T190501Z` stamp names; None for anything else.
pub(super) fn stamp_time(stamp: &str) -> Option<SystemTime> {
    let digits = |range: std::ops::Range<usize>| stamp.get(range)?.parse::<u64>().ok();
    if stamp.len() != 16 || stamp.as_bytes()[8] != b'T' || !stamp.ends_with('Z') {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (hour, minute, second) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    let valid = year >= 1970 && (1..=12).contains(&month) && (1..=31).contains(&day);
    if !valid || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

/// (year ≥ 1970, month, day) → days since 1970-01-01 (Howard Hinnant's `days_from_civil`, the
/// inverse of the one the stamps are made with).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y % 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).saturating_sub(719_468)
}
