//! What the file on disk is owed before a save may first replace it: a backup of an unusable
//! `session.json` that could not be kept at start-up (retried at every save until it works), or
//! another look at a file that was missing at start-up (something may have put one there since,
//! and it must not vanish unseen).

use std::io;
use std::path::{Path, PathBuf};

use super::backup::backup_original;
use super::file::{LoadError, LoadOutcome, load};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Owed {
    /// The file may be replaced.
    #[default]
    Nothing,
    /// These original bytes must be in `session-backups/` first.
    Backup(Vec<u8>),
    /// The file was missing at start-up: look again before replacing it.
    Recheck,
}

/// Why the file may not be replaced yet; what is still owed goes with it.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub struct Unsettled {
    pub owed: Owed,
    pub reason: SettleError,
}

#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error("cannot keep a backup of it: {0}")]
    Backup(io::Error),
    /// A file appeared that cannot even be read: it is never replaced.
    #[error(transparent)]
    Unreadable(LoadError),
}

/// Pays what is owed to the file at `session_path`. `Ok(Some(path))`: a backup was written there
/// (for the caller's `persist.backup` line); `Ok(None)`: nothing was needed.
pub fn settle(session_path: &Path, owed: Owed) -> Result<Option<PathBuf>, Unsettled> {
    let original = match owed {
        Owed::Nothing => return Ok(None),
        Owed::Backup(original) => original,
        Owed::Recheck => match load(session_path) {
            LoadOutcome::Missing => return Ok(None),
            // A usable layout appeared since start-up (a snapshot copied back, another tool):
            // replacing it unseen would lose it, so it is kept like an unusable one.
            LoadOutcome::Loaded(_) => match std::fs::read(session_path) {
                Ok(bytes) => bytes,
                Err(e) => return Err(Unsettled { owed: Owed::Recheck, reason: SettleError::Backup(e) }),
            },
            LoadOutcome::Failed { original: Some(original), .. } => original,
            LoadOutcome::Failed { reason, original: None } => {
                return Err(Unsettled { owed: Owed::Recheck, reason: SettleError::Unreadable(reason) });
            }
        },
    };
    match backup_original(session_path, &original) {
        Ok(path) => Ok(Some(path)),
        Err(e) => Err(Unsettled { owed: Owed::Backup(original), reason: SettleError::Backup(e) }),
    }
}
