//! Reading, writing and removing `session.json` on disk: the only file I/O of the session state
//! besides load-failure backups (`backup.rs`).
//!
//! Writes are atomic and private: a `<target>.tmp-<pid>` file created 0600 (never following a
//! symlink, never reusing an existing file), written, fsynced, renamed over the target, and the
//! directory fsynced, so a crash leaves the old file or the new one, never half of either.
//! Symlinks on the way are resolved by hand (as upstream does, up to 16 hops) so a
//! dotfile-managed `session.json -> ~/dotfiles/...` stays a symlink and its target is replaced.
//! A target that exists but is not a regular file (a directory, socket, fifo, device) is refused
//! with nothing touched: replacing it would destroy something that is not ours.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::snapshot::{DecodeError, SessionSnapshot, decode};

/// Symlink hops followed before giving up (a loop, or something hostile).
const MAX_LINK_HOPS: usize = 16;

/// A session file larger than this is not a layout; refuse rather than read it into memory.
pub const MAX_SESSION_BYTES: u64 = 64 * 1024 * 1024;

/// What is on disk at start-up.
#[derive(Debug)]
pub enum LoadOutcome {
    /// No file (or a dangling symlink): a fresh session.
    Missing,
    Loaded(SessionSnapshot),
    /// The file exists but cannot be used. `original` holds its bytes when they could be read,
    /// for [`super::backup_original`] before anything replaces the file; None when even reading
    /// failed, in which case the file must be left alone.
    Failed {
        reason: LoadError,
        original: Option<Vec<u8>>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("{} is {kind}, not a session file", path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{} is {size} bytes, more than the {MAX_SESSION_BYTES} a session file may have", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{}: {source}", path.display())]
    Decode { path: PathBuf, source: DecodeError },
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{} is {kind}, not a regular file; leaving it alone", path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("more than {MAX_LINK_HOPS} symlinks from {}", path.display())]
    TooManyLinks { path: PathBuf },
    #[error("{op} {}: {source}", path.display())]
    Io { op: &'static str, path: PathBuf, source: io::Error },
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> WriteError + use<> {
    let path = path.to_path_buf();
    move |source| WriteError::Io { op, path, source }
}

/// Reads and decodes the session file at `path` (symlinks followed).
pub fn load(path: &Path) -> LoadOutcome {
    let read_failed = |source| LoadOutcome::Failed {
        reason: LoadError::Read { path: path.to_path_buf(), source },
        original: None,
    };
    // Opening a fifo would block until someone writes to it; look before opening.
    if let Ok(meta) = fs::metadata(path)
        && let Some(kind) = irregular_kind(meta.file_type())
    {
        return LoadOutcome::Failed {
            reason: LoadError::NotAFile { path: path.to_path_buf(), kind },
            original: None,
        };
    }
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return LoadOutcome::Missing,
        Err(e) => return read_failed(e),
    };
    let mut bytes = Vec::new();
    // One byte more than allowed tells "exactly at the limit" from "over it".
    if let Err(e) = file.take(MAX_SESSION_BYTES + 1).read_to_end(&mut bytes) {
        return read_failed(e);
    }
    if bytes.len() as u64 > MAX_SESSION_BYTES {
        let size = fs::metadata(path).map_or(bytes.len() as u64, |m| m.len());
        return LoadOutcome::Failed {
            reason: LoadError::TooLarge { path: path.to_path_buf(), size },
            original: None,
        };
    }
    match decode(&bytes) {
        Ok(snapshot) => LoadOutcome::Loaded(snapshot),
        Err(source) => LoadOutcome::Failed {
            reason: LoadError::Decode { path: path.to_path_buf(), source },
            original: Some(bytes),
        },
    }
}

/// The file's bytes: pretty JSON and a trailing newline, like upstream's.
pub fn encode(snapshot: &SessionSnapshot) -> Vec<u8> {
    // Strings, integers, floats (non-finite ones become null), lists and maps keyed by strings
    // or integers: serde_json has no error to report for any of them.
    let mut bytes = serde_json::to_vec_pretty(snapshot).expect("a session snapshot always serializes");
    bytes.push(b'\n');
    bytes
}

/// What the path finally names once symlinks are followed: the file to replace or remove. A
/// path that does not exist (or a dangling link's target) is returned as is.
pub fn resolve(path: &Path) -> Result<PathBuf, WriteError> {
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_LINK_HOPS {
        let meta = match fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(io_error("inspecting", &current)(e)),
        };
        if !meta.file_type().is_symlink() {
            return Ok(current);
        }
        let target = fs::read_link(&current).map_err(io_error("reading link", &current))?;
        // A relative target is relative to the directory holding the link, not to our cwd.
        current = match current.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    Err(WriteError::TooManyLinks { path: path.to_path_buf() })
}

/// What a file that is not a regular one is, for messages; None for a regular file.
fn irregular_kind(ft: fs::FileType) -> Option<&'static str> {
    Some(if ft.is_file() {
        return None;
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_fifo() {
        "a fifo"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    })
}

/// Refuses an existing target that is not a regular file. True if there is a file to replace.
fn check_replaceable(target: &Path) -> Result<bool, WriteError> {
    match fs::symlink_metadata(target) {
        Ok(meta) => match irregular_kind(meta.file_type()) {
            None => Ok(true),
            Some(kind) => Err(WriteError::NotAFile { path: target.to_path_buf(), kind }),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error("inspecting", target)(e)),
    }
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Makes a rename or unlink in `dir` durable.
pub(super) fn sync_dir(dir: &Path) -> Result<(), WriteError> {
    let handle = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)
        .map_err(io_error("opening directory", dir))?;
    handle.sync_all().map_err(io_error("syncing directory", dir))
}

/// Creates `path` 0600 for writing; fails if anything (even a dangling symlink) is there.
pub(super) fn create_private(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Writes `bytes` to a fresh private file at `path` and fsyncs it; removes it on failure.
pub(super) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = create_private(path).map_err(io_error("creating", path))?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = fs::remove_file(path);
        return Err(io_error("writing", path)(e));
    }
    Ok(())
}

/// Replaces the file `path` names (after symlinks) with `bytes`, atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = resolve(path)?;
    check_replaceable(&target)?;
    let mut tmp_name = target.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = target.with_file_name(tmp_name);
    match write_new(&tmp, bytes) {
        Ok(()) => {}
        Err(WriteError::Io { source, .. }) if source.kind() == io::ErrorKind::AlreadyExists => {
            // Left by an earlier process with our pid that died mid-save. Unlinking never
            // follows a symlink, so this removes only the stale name.
            fs::remove_file(&tmp).map_err(io_error("removing stale", &tmp))?;
            write_new(&tmp, bytes)?;
        }
        Err(e) => return Err(e),
    }
    if let Err(e) = fs::rename(&tmp, &target) {
        let _ = fs::remove_file(&tmp);
        return Err(io_error("renaming into place", &target)(e));
    }
    sync_dir(parent_dir(&target))
}

/// Removes the file `path` names (after symlinks; the links themselves stay, so a later write
/// recreates the dotfile-managed target). Missing is fine; a non-regular file is refused.
pub fn remove(path: &Path) -> Result<(), WriteError> {
    let target = resolve(path)?;
    if !check_replaceable(&target)? {
        return Ok(());
    }
    match fs::remove_file(&target) {
        Ok(()) => sync_dir(parent_dir(&target)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("removing", &target)(e)),
    }
}
