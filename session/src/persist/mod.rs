//! Session persistence on disk: the `session.json` format (`snapshot`, upstream herdr's v3
//! schema plus our pane uids), reading and atomically replacing the file (`file`), the
//! load-failure backups beside it (`backup`, and `owed`: a backup still owed, or a missing file to
//! look at again, before the first save replaces it), the layout snapshots (`snapshots`), and
//! the pane screen history (`history`).
//!
//! Not here: turning the session model into a snapshot and back (`session::persist`, pure), and
//! deciding when to save (the supervisor runtime: debounce, shutdown, `--no-session`).

mod backup;
mod file;
pub mod history;
mod owed;
mod snapshot;
mod snapshots;

#[cfg(test)]
mod tests_file;
#[cfg(test)]
mod tests_history;
#[cfg(test)]
mod tests_snapshot;
#[cfg(test)]
mod tests_snapshots;

pub use backup::{BACKUPS_DIR, KEPT_BACKUPS, backup_original};
pub use file::{
    LoadError, LoadOutcome, MAX_SESSION_BYTES, WriteError, encode, load, remove, resolve, write_atomic,
};
pub use owed::{Owed, SettleError, Unsettled, settle};
pub use snapshot::{
    AgentSessionSnapshot, DecodeError, DirectionSnapshot, LayoutSnapshot, PaneSnapshot, SNAPSHOT_VERSION,
    SessionRefKind, SessionSnapshot, TabSnapshot, WorkspaceSnapshot, decode,
};
pub use snapshots::{KEPT_SNAPSHOTS, SNAPSHOT_INTERVAL, SNAPSHOTS_DIR, SnapshotError, keep_snapshots};

/// The file name of the saved layout inside a session's data dir.
pub const SESSION_FILE: &str = "session.json";
