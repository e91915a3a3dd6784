//! Opening an authenticated ssh session to a [`Destination`]: TCP with a connect timeout, the
//! ssh handshake, the host key check ([`crate::host_key`]), then authentication by the ssh agent
//! (when `$SSH_AUTH_SOCK` names one) and then the key files (the config's `IdentityFile`s,
//! then `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa`). Keepalives start with the relay
//! ([`crate::relay`]), not here: in blocking mode libssh2 ends any wait longer than the
//! keepalive interval as a timeout, which would fail a long copy or a slow remote command.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ssh2::Session;

use crate::host_key::{self, HostKeyError};
use crate::target::Destination;

/// How long the TCP connect and each blocking ssh step may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one blocking step of a remote command may take once logged in.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The key files tried after the configured ones, as OpenSSH's defaults.
const DEFAULT_KEYS: [&str; 3] = [".ssh/id_ed25519", ".ssh/id_ecdsa", ".ssh/id_rsa"];

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot resolve {host}: {source}")]
    Resolve { host: String, source: std::io::Error },
    #[error("cannot connect to {host} port {port}: {source}")]
    Tcp { host: String, port: u16, source: std::io::Error },
    #[error("the ssh handshake with {host} failed: {source}")]
    Handshake { host: String, source: ssh2::Error },
    #[error(transparent)]
    HostKey(#[from] Box<HostKeyError>),
    #[error("{user}@{host} refused every key: {tried}")]
    Auth { user: String, host: String, tried: String },
    #[error("ssh: {0}")]
    Ssh(#[from] ssh2::Error),
}

/// Where the keys and known_hosts are: the caller's HOME (ssh2 reads only the files it is given).
#[derive(Debug, Clone)]
pub struct Identity {
    pub home: PathBuf,
    /// `$SSH_AUTH_SOCK` is set: try the agent first.
    pub use_agent: bool,
}

/// An authenticated session (blocking mode, with the connect timeout).
pub struct Connection {
    pub session: Session,
    pub destination: Destination,
    /// A second handle on the session's TCP socket, for polling it.
    pub tcp: TcpStream,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("destination", &self.destination).finish_non_exhaustive()
    }
}

/// Connects, checks the host key and authenticates.
pub fn open(destination: &Destination, identity: &Identity) -> Result<Connection, ConnectError> {
    let host = destination.host.clone();
    let addrs = (host.as_str(), destination.port)
        .to_socket_addrs()
        .map_err(|source| ConnectError::Resolve { host: host.clone(), source })?;
    let mut last = None;
    let mut tcp = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => {
                tcp = Some(stream);
                break;
            }
            Err(err) => last = Some(err),
        }
    }
    let tcp = tcp.ok_or_else(|| ConnectError::Tcp {
        host: host.clone(),
        port: destination.port,
        source: last.unwrap_or_else(|| std::io::Error::other("no address")),
    })?;
    // Keystrokes are tiny packets: never hold them back for coalescing.
    tcp.set_nodelay(true).map_err(|source| ConnectError::Tcp {
        host: host.clone(),
        port: destination.port,
        source,
    })?;
    let mut session = Session::new()?;
    session.set_timeout(u32::try_from(CONNECT_TIMEOUT.as_millis()).unwrap_or(u32::MAX));
    let poll_handle = tcp.try_clone().map_err(|source| ConnectError::Tcp {
        host: host.clone(),
        port: destination.port,
        source,
    })?;
    session.set_tcp_stream(tcp);
    session.handshake().map_err(|source| ConnectError::Handshake { host: host.clone(), source })?;
    host_key::verify(&session, &destination.host, destination.port, &host_key::default_files(&identity.home))
        .map_err(Box::new)?;
    authenticate(&session, destination, identity)?;
    // Remote commands (a server starting, a status probe on a busy host) may keep a blocking
    // call waiting longer than the handshake should.
    session.set_timeout(u32::try_from(COMMAND_TIMEOUT.as_millis()).unwrap_or(u32::MAX));
    Ok(Connection { session, destination: destination.clone(), tcp: poll_handle })
}

fn authenticate(
    session: &Session,
    destination: &Destination,
    identity: &Identity,
) -> Result<(), ConnectError> {
    let user = destination.user.as_str();
    let mut tried = Vec::new();
    if identity.use_agent {
        match session.userauth_agent(user) {
            Ok(()) if session.authenticated() => return Ok(()),
            Ok(()) => tried.push("the ssh agent's keys".to_owned()),
            Err(err) => tried.push(format!("the ssh agent ({})", err.message())),
        }
    }
    for key in key_files(&destination.identity_files, &identity.home) {
        match session.userauth_pubkey_file(user, None, &key, None) {
            Ok(()) if session.authenticated() => return Ok(()),
            Ok(()) => tried.push(key.display().to_string()),
            Err(err) => tried.push(format!("{} ({})", key.display(), err.message())),
        }
    }
    if tried.is_empty() {
        tried.push(format!(
            "no ssh agent ($SSH_AUTH_SOCK is unset) and no key file (~/.ssh/id_ed25519, id_ecdsa, id_rsa or an \
             IdentityFile) under {}",
            identity.home.display()
        ));
    }
    Err(ConnectError::Auth {
        user: user.to_owned(),
        host: destination.alias.clone(),
        tried: tried.join(", "),
    })
}

/// The configured key files, then the defaults, each once and only those that exist.
fn key_files(configured: &[PathBuf], home: &Path) -> Vec<PathBuf> {
    let mut keys: Vec<PathBuf> = Vec::new();
    for key in configured.iter().cloned().chain(DEFAULT_KEYS.iter().map(|k| home.join(k))) {
        if key.is_file() && !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_keys_come_first_then_existing_defaults_once() {
        let home = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(home.path().join(".ssh")).expect("mkdir");
        for name in ["id_rsa", "id_ed25519", "custom"] {
            std::fs::write(home.path().join(".ssh").join(name), "key").expect("write");
        }
        let custom = home.path().join(".ssh/custom");
        let missing = home.path().join(".ssh/missing");
        let keys = key_files(&[custom.clone(), missing, home.path().join(".ssh/id_rsa")], home.path());
        assert_eq!(keys, [custom, home.path().join(".ssh/id_rsa"), home.path().join(".ssh/id_ed25519")]);
    }
}
