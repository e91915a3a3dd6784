//! The edge of the session's sockets (the API and client sockets): binding with stale/busy
//! detection and permissions, and the peer check.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("herdr is already running (socket busy at {})", .0.display())]
    Busy(PathBuf),
    #[error(
        "{} exists and is not a socket; herdr will not replace it (move it away, or choose another \
         path with HERDR_SOCKET_PATH)",
        .0.display()
    )]
    NotASocket(PathBuf),
    #[error("herdr is already running (another supervisor holds the session lock for {})", .0.display())]
    Locked(PathBuf),
    #[error(transparent)]
    RuntimeDir(#[from] crate::runtime::RuntimeDirError),
    #[error("could not prepare socket directory {}: {source}", .path.display())]
    Dir { path: PathBuf, source: io::Error },
    #[error("could not bind {}: {source}", .path.display())]
    Bind { path: PathBuf, source: io::Error },
}

/// Binds `path` with mode 0600 in a directory that is created 0700 when missing. A socket file
/// nobody listens on is stale and replaced; a live one means another supervisor owns the session;
/// anything else at the path (a regular file, a directory, a symlink) is someone's and is never
/// touched.
pub fn bind(path: &Path) -> Result<std::os::unix::net::UnixListener, BindError> {
    use std::os::unix::fs::FileTypeExt;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        prepare_dir(dir).map_err(|source| BindError::Dir { path: dir.to_owned(), source })?;
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_socket() => return Err(BindError::NotASocket(path.to_owned())),
        Ok(_) => match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => return Err(BindError::Busy(path.to_owned())),
            Err(_) => {
                log::info!("removing stale socket {}", path.display());
                let _ = fs::remove_file(path);
            }
        },
        Err(_) => {}
    }
    let listener = std::os::unix::net::UnixListener::bind(path)
        .map_err(|source| BindError::Bind { path: path.to_owned(), source })?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(|source| BindError::Bind { path: path.to_owned(), source })?;
    listener.set_nonblocking(true).map_err(|source| BindError::Bind { path: path.to_owned(), source })?;
    Ok(listener)
}

/// Registers a listener made by [`bind`] with the running reactor.
pub fn listen(listener: std::os::unix::net::UnixListener) -> std::io::Result<UnixListener> {
    UnixListener::from_std(listener)
}

fn prepare_dir(dir: &Path) -> io::Result<()> {
    if !dir.exists() {
        fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    Ok(())
}

/// Identifies the socket file we bound, so shutdown removes it only while it is still ours
/// (a newer supervisor may have replaced a socket it believed stale).
#[derive(Debug, Clone)]
pub struct SocketIdentity {
    path: PathBuf,
    inode: Option<u64>,
}

impl SocketIdentity {
    pub fn of(path: &Path) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self { path: path.to_owned(), inode: fs::metadata(path).ok().map(|m| m.ino()) }
    }

    pub fn remove_if_owned(&self) {
        use std::os::unix::fs::MetadataExt;
        let current = fs::metadata(&self.path).ok().map(|m| m.ino());
        if current.is_some() && current == self.inode {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Only processes of our own user may talk to the supervisor.
pub fn peer_is_same_user(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) => cred.uid() == nix::unistd::getuid().as_raw(),
        Err(_) => false,
    }
}
