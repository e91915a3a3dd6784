//! The session's runtime dir (`<socket dir>/<socket stem>-run/`, 0700): the secret a supervisor
//! shows the workers it re-adopts, and the folder of the workers' own sockets. Nothing here
//! removes anything but a stale socket, and nothing follows a symlink someone else planted.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use herdr_protocol::paths;

/// Hex characters of a secret: 32 random bytes.
const SECRET_LEN: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeDirError {
    #[error("{} exists and is not a directory; herdr keeps its runtime files there, move it away", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} belongs to another user (uid {}); refusing to keep the session's secret there", .0.display(), .1)]
    ForeignOwner(PathBuf, u32),
    #[error("{} is not a regular file; refusing to read or replace it", .0.display())]
    NotAFile(PathBuf),
    #[error("{} does not hold a herdr session secret; remove it to make a new one", .0.display())]
    BadSecret(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> RuntimeDirError + '_ {
    move |source| RuntimeDirError::Io { path: path.to_owned(), source }
}

/// Where this session's workers listen, and the secret they expect.
#[derive(Debug, Clone)]
pub struct RuntimeDir {
    pub workers: PathBuf,
    pub secret: String,
}

impl RuntimeDir {
    /// Creates (or checks) the runtime dir of the session whose API socket is `api_socket`.
    pub fn prepare(api_socket: &Path) -> Result<Self, RuntimeDirError> {
        let root = paths::runtime_dir(api_socket);
        private_dir(&root)?;
        let workers = root.join(paths::WORKERS_DIR_NAME);
        private_dir(&workers)?;
        let secret = secret(&root.join(paths::SECRET_FILE_NAME))?;
        Ok(Self { workers, secret })
    }

    /// The socket of the worker of pane `uid`.
    pub fn worker_socket(&self, uid: &str) -> PathBuf {
        self.workers.join(format!("{uid}.sock"))
    }

    /// Uids of every worker socket in the folder (live or stale: the caller tries them).
    pub fn worker_uids(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.workers) else { return Vec::new() };
        let mut uids: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_socket()))
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".sock").map(str::to_owned))
            .filter(|uid| is_uid(uid))
            .collect();
        uids.sort();
        uids
    }

    /// Removes the socket of `uid` if it is a socket nobody listens on (a worker killed without
    /// cleaning up). Anything else is left alone.
    pub fn remove_stale(&self, uid: &str) {
        let path = self.worker_socket(uid);
        let is_socket = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_socket());
        if is_socket && std::os::unix::net::UnixStream::connect(&path).is_err() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// The session's lock: an exclusive `flock` on its runtime dir, held for the supervisor's life.
/// Two supervisors started at once (two attached clients that lost theirs) can both find the
/// API socket stale; only the one that holds this lock goes on to replace it.
///
/// The lock belongs to the open file description, not to this fd: a live handoff passes a dup
/// to the next supervisor, so the lock stays held across the swap. That is also why it is never
/// unlocked explicitly (an unlock would release it for the importer too); it ends when the last
/// fd of the description closes.
#[derive(Debug)]
pub struct SessionLock {
    /// Opened close-on-exec, so no worker inherits it: a lock a worker held would outlive us.
    dir: OwnedFd,
}

impl SessionLock {
    /// Takes the lock of the session whose API socket is `api_socket` (creating its runtime
    /// dir); `Ok(None)` when another supervisor holds it.
    pub fn take(api_socket: &Path) -> Result<Option<Self>, RuntimeDirError> {
        let root = paths::runtime_dir(api_socket);
        private_dir(&root)?;
        let dir = OwnedFd::from(File::open(&root).map_err(io_at(&root))?);
        // SAFETY: flock on a descriptor we own; no memory is passed.
        let locked = unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if locked == 0 {
            return Ok(Some(Self { dir }));
        }
        match io::Error::last_os_error() {
            e if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(None),
            e => Err(io_at(&root)(e)),
        }
    }

    /// The lock a previous supervisor handed over (a dup of its locked descriptor).
    pub fn inherited(dir: OwnedFd) -> Self {
        Self { dir }
    }

    /// The locked descriptor, to pass to the next supervisor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }
}

/// Pane uids are lowercase hex; anything else in the folder is not ours.
fn is_uid(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 32
        && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A 0700 directory of ours at `path`, created when missing.
fn private_dir(path: &Path) -> Result<(), RuntimeDirError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_dir() => return Err(RuntimeDirError::NotADirectory(path.to_owned())),
        Ok(meta) => {
            check_owner(path, &meta)?;
            if meta.permissions().mode() & 0o077 != 0 {
                fs::set_permissions(path, fs::Permissions::from_mode(0o700)).map_err(io_at(path))?;
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            DirBuilder::new().recursive(true).mode(0o700).create(path).map_err(io_at(path))?;
        }
        Err(e) => return Err(io_at(path)(e)),
    }
    Ok(())
}

fn check_owner(path: &Path, meta: &fs::Metadata) -> Result<(), RuntimeDirError> {
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(RuntimeDirError::ForeignOwner(path.to_owned(), meta.uid()));
    }
    Ok(())
}

/// Reads the session secret, or makes one (0600) when there is none.
fn secret(path: &Path) -> Result<String, RuntimeDirError> {
    let opened = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path);
    match opened {
        Ok(mut file) => {
            let meta = file.metadata().map_err(io_at(path))?;
            if !meta.is_file() {
                return Err(RuntimeDirError::NotAFile(path.to_owned()));
            }
            check_owner(path, &meta)?;
            if meta.permissions().mode() & 0o077 != 0 {
                file.set_permissions(fs::Permissions::from_mode(0o600)).map_err(io_at(path))?;
            }
            let mut text = String::new();
            file.read_to_string(&mut text).map_err(io_at(path))?;
            let text = text.trim();
            if text.len() != SECRET_LEN || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(RuntimeDirError::BadSecret(path.to_owned()));
            }
            Ok(text.to_owned())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => create_secret(path),
        // O_NOFOLLOW on a symlink.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(RuntimeDirError::NotAFile(path.to_owned())),
        Err(e) => Err(io_at(path)(e)),
    }
}

fn create_secret(path: &Path) -> Result<String, RuntimeDirError> {
    let mut bytes = [0u8; SECRET_LEN / 2];
    File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).map_err(io_at(path))?;
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(io_at(path))?;
    file.write_all(format!("{secret}\n").as_bytes()).and_then(|()| file.sync_all()).map_err(io_at(path))?;
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makes_a_private_dir_and_a_private_secret_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("herdr.sock");
        let first = RuntimeDir::prepare(&socket).expect("prepared");
        let root = dir.path().join("herdr-run");
        assert_eq!(fs::metadata(&root).expect("root").permissions().mode() & 0o777, 0o700);
        assert_eq!(fs::metadata(&first.workers).expect("workers").permissions().mode() & 0o777, 0o700);
        let secret_file = root.join("secret");
        assert_eq!(fs::metadata(&secret_file).expect("secret").permissions().mode() & 0o777, 0o600);
        assert_eq!(first.secret.len(), SECRET_LEN);
        let second = RuntimeDir::prepare(&socket).expect("prepared again");
        assert_eq!(first.secret, second.secret, "the secret survives restarts");
        assert_eq!(second.worker_socket("ab12"), root.join("workers").join("ab12.sock"));
    }

    #[test]
    fn refuses_what_is_not_ours_to_use() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("herdr.sock");
        fs::write(dir.path().join("herdr-run"), b"my notes").expect("a file");
        assert!(matches!(RuntimeDir::prepare(&socket), Err(RuntimeDirError::NotADirectory(_))));
        assert_eq!(fs::read(dir.path().join("herdr-run")).expect("kept"), b"my notes");

        let other = dir.path().join("other.sock");
        fs::create_dir_all(dir.path().join("other-run")).expect("dir");
        fs::write(dir.path().join("other-run").join("secret"), b"not hex").expect("bad secret");
        assert!(matches!(RuntimeDir::prepare(&other), Err(RuntimeDirError::BadSecret(_))));

        let linked = dir.path().join("linked.sock");
        fs::create_dir_all(dir.path().join("linked-run")).expect("dir");
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("linked-run").join("secret"))
            .expect("link");
        assert!(matches!(RuntimeDir::prepare(&linked), Err(RuntimeDirError::NotAFile(_))));
    }

    #[test]
    fn one_supervisor_at_a_time_holds_the_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("herdr.sock");
        let first = SessionLock::take(&socket).expect("lockable");
        assert!(first.is_some());
        assert!(SessionLock::take(&socket).expect("lockable").is_none(), "the second one is refused");
        drop(first);
        assert!(SessionLock::take(&socket).expect("lockable").is_some(), "free again once released");
    }

    #[test]
    fn lists_worker_sockets_and_removes_only_stale_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rt = RuntimeDir::prepare(&dir.path().join("herdr.sock")).expect("prepared");
        let live = std::os::unix::net::UnixListener::bind(rt.worker_socket("aa")).expect("live");
        drop(std::os::unix::net::UnixListener::bind(rt.worker_socket("bb")).expect("stale"));
        fs::write(rt.workers.join("cc.sock"), b"a file, not a socket").expect("file");
        fs::write(rt.workers.join("notes.txt"), b"").expect("file");
        assert_eq!(rt.worker_uids(), vec!["aa".to_owned(), "bb".to_owned()]);
        rt.remove_stale("aa");
        rt.remove_stale("bb");
        rt.remove_stale("cc");
        assert!(rt.worker_socket("aa").exists(), "a live socket stays");
        assert!(!rt.worker_socket("bb").exists(), "a stale socket goes");
        assert!(rt.workers.join("cc.sock").exists(), "a regular file is never removed");
        drop(live);
    }
}
