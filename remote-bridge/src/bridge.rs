//! The local end of `herdr --remote`: a private Unix socket (in a fresh 0700 directory) that
//! the ordinary terminal client attaches to as if it were a local supervisor. Each connection
//! accepted there gets its own ssh session (the spare one left from preparing, the first time)
//! and an exec channel running `herdr remote-client-bridge` on the far host, relayed by
//! [`crate::relay`]. A connection whose ssh session cannot be opened is closed at once: the
//! client sees a failed handshake and retries with its backoff, which is what reconnects after
//! a dropped link. The last failure is kept for the message printed when the client gives up.

use std::fs::DirBuilder;
use std::os::fd::AsFd;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use crate::connect::{self, Connection, Identity};
use crate::relay::{self, Liveness, RelayEnd};
use crate::target::Destination;

/// The socket and its private directory, removed on drop.
#[derive(Debug)]
pub struct BridgeSocket {
    dir: PathBuf,
    path: PathBuf,
    listener: UnixListener,
}

impl BridgeSocket {
    /// Binds `<parent>/herdr-remote-<pid>/client.sock`, the directory 0700 so no other user
    /// can reach the remote session through it.
    pub fn bind(parent: &Path) -> std::io::Result<BridgeSocket> {
        let dir = parent.join(format!("herdr-remote-{}", std::process::id()));
        // A directory left by a crashed run of a process with our pid is ours to replace.
        let _ = std::fs::remove_dir_all(&dir);
        DirBuilder::new().mode(0o700).create(&dir)?;
        let path = dir.join("client.sock");
        let listener = UnixListener::bind(&path)?;
        Ok(BridgeSocket { dir, path, listener })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for BridgeSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What each accepted connection needs to reach the far side.
pub struct Bridge {
    pub destination: Destination,
    pub identity: Identity,
    /// The remote command line (`<herdr> [--session N] remote-client-bridge`).
    pub remote_command: String,
    pub liveness: Liveness,
    /// The session that prepared the remote host, reused by the first connection.
    pub spare: Mutex<Option<Connection>>,
    /// The last reason a connection failed (for the give-up message).
    pub last_error: Mutex<Option<String>>,
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge")
            .field("destination", &self.destination)
            .field("remote_command", &self.remote_command)
            .finish_non_exhaustive()
    }
}

impl Bridge {
    /// Accepts connections on `socket` on a background thread, one relay thread each.
    pub fn serve(self: Arc<Self>, socket: &BridgeSocket) -> std::io::Result<()> {
        let listener = socket.listener.try_clone()?;
        thread::Builder::new().name("herdr-remote-accept".into()).spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let bridge = self.clone();
                let spawned = thread::Builder::new()
                    .name("herdr-remote-relay".into())
                    .spawn(move || bridge.carry(stream));
                if let Err(err) = spawned {
                    self.note(format!("cannot start a relay thread: {err}"));
                }
            }
        })?;
        Ok(())
    }

    /// The last recorded failure, if any.
    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn note(&self, error: String) {
        *self.last_error.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
    }

    /// One client connection, start to end.
    fn carry(&self, local: UnixStream) {
        let spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner).take();
        let connection = match spare.map_or_else(|| connect::open(&self.destination, &self.identity), Ok) {
            Ok(connection) => connection,
            Err(err) => return self.note(err.to_string()),
        };
        let mut channel = match connection
            .session
            .channel_session()
            .and_then(|mut channel| channel.exec(&self.remote_command).map(|()| channel))
        {
            Ok(channel) => channel,
            Err(err) => return self.note(format!("cannot start the remote bridge: {err}")),
        };
        let end =
            relay::run(&connection.session, connection.tcp.as_fd(), &mut channel, &local, self.liveness);
        match end {
            RelayEnd::ClientLeft => {}
            RelayEnd::RemoteClosed { stderr } if stderr.is_empty() => {}
            RelayEnd::RemoteClosed { stderr } => self.note(format!("the remote bridge said: {stderr}")),
            RelayEnd::LinkLost(why) => {
                self.note(format!("the ssh link to {} dropped: {why}", self.destination.alias))
            }
        }
    }
}
