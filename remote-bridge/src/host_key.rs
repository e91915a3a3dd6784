//! Checking the server's host key against the user's `known_hosts` files (ssh2's `KnownHosts`,
//! which reads OpenSSH's format, hashed names included). A key that is not there, or differs
//! from the one recorded, is refused with its SHA256 fingerprint and the exact line that would
//! accept it; nothing is ever added on the user's behalf.

use std::path::{Path, PathBuf};

use ssh2::{CheckResult, HashType, HostKeyType, KnownHostFileKind, Session};

use crate::digest;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostKeyError {
    #[error(
        "the host key of {host} is not known ({kind} key fingerprint {fingerprint}); herdr did not log in.\n\
         If that is the host's key (compare with `ssh-keygen -lf` on the host), add this line to {file} and try again:\n\
         {line}"
    )]
    Unknown { host: String, kind: String, fingerprint: String, line: String, file: String },
    #[error(
        "the host key of {host} CHANGED: it now offers a {kind} key with fingerprint {fingerprint}, which \
         differs from the one recorded in {file}; someone may be intercepting the connection, or the host was \
         reinstalled. Refusing to connect. If the change is expected, replace the host's line in {file} with:\n\
         {line}"
    )]
    Changed { host: String, kind: String, fingerprint: String, line: String, file: String },
    #[error("the server offered no host key")]
    Missing,
    #[error("cannot check the host key: {0}")]
    Check(String),
}

/// OpenSSH's name for a key type, as written in known_hosts.
pub fn key_type_name(kind: HostKeyType) -> &'static str {
    match kind {
        HostKeyType::Rsa => "ssh-rsa",
        HostKeyType::Dss => "ssh-dss",
        HostKeyType::Ecdsa256 => "ecdsa-sha2-nistp256",
        HostKeyType::Ecdsa384 => "ecdsa-sha2-nistp384",
        HostKeyType::Ecdsa521 => "ecdsa-sha2-nistp521",
        HostKeyType::Ed25519 => "ssh-ed25519",
        HostKeyType::Unknown => "unknown",
    }
}

/// How `ssh-keygen -l` names the key type in a fingerprint line.
fn key_label(kind: HostKeyType) -> &'static str {
    match kind {
        HostKeyType::Rsa => "RSA",
        HostKeyType::Dss => "DSA",
        HostKeyType::Ecdsa256 | HostKeyType::Ecdsa384 | HostKeyType::Ecdsa521 => "ECDSA",
        HostKeyType::Ed25519 => "ED25519",
        HostKeyType::Unknown => "unknown",
    }
}

/// `SHA256:<unpadded base64>`, as OpenSSH prints fingerprints.
pub fn fingerprint(key: &[u8]) -> String {
    format!("SHA256:{}", digest::base64(&digest::sha256(key), false))
}

/// The known_hosts line that records `key` for `host_name` (`host` or `[host]:port`).
pub fn known_hosts_line(host_name: &str, kind: HostKeyType, key: &[u8]) -> String {
    format!("{host_name} {} {}", key_type_name(kind), digest::base64(key, true))
}

/// The files consulted, the user's first (named in messages).
pub fn default_files(home: &Path) -> Vec<PathBuf> {
    vec![
        home.join(".ssh/known_hosts"),
        home.join(".ssh/known_hosts2"),
        PathBuf::from("/etc/ssh/ssh_known_hosts"),
    ]
}

/// Checks the handshaken `session`'s host key for `host`:`port` against `files` (missing files
/// count as empty).
pub fn verify(session: &Session, host: &str, port: u16, files: &[PathBuf]) -> Result<(), HostKeyError> {
    let (key, kind) = session.host_key().ok_or(HostKeyError::Missing)?;
    let mut known = session.known_hosts().map_err(|e| HostKeyError::Check(e.to_string()))?;
    for file in files.iter().filter(|f| f.is_file()) {
        known
            .read_file(file, KnownHostFileKind::OpenSSH)
            .map_err(|e| HostKeyError::Check(format!("{}: {e}", file.display())))?;
    }
    let host_name = if port == 22 { host.to_owned() } else { format!("[{host}]:{port}") };
    let fingerprint = session
        .host_key_hash(HashType::Sha256)
        .map_or_else(|| fingerprint(key), |hash| format!("SHA256:{}", digest::base64(hash, false)));
    let file = files.first().map_or_else(|| "~/.ssh/known_hosts".to_owned(), |f| f.display().to_string());
    let line = known_hosts_line(&host_name, kind, key);
    let kind_label = key_label(kind).to_owned();
    match known.check_port(host, port, key) {
        CheckResult::Match => Ok(()),
        CheckResult::NotFound => {
            Err(HostKeyError::Unknown { host: host_name, kind: kind_label, fingerprint, line, file })
        }
        CheckResult::Mismatch => {
            Err(HostKeyError::Changed { host: host_name, kind: kind_label, fingerprint, line, file })
        }
        CheckResult::Failure => Err(HostKeyError::Check("libssh2 could not compare the key".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_and_lines_are_in_openssh_form() {
        // An ed25519 public key blob: string "ssh-ed25519" + string of 32 key bytes.
        let mut blob = Vec::new();
        blob.extend_from_slice(&11u32.to_be_bytes());
        blob.extend_from_slice(b"ssh-ed25519");
        blob.extend_from_slice(&32u32.to_be_bytes());
        blob.extend_from_slice(&[7u8; 32]);
        let fp = fingerprint(&blob);
        assert!(fp.starts_with("SHA256:") && !fp.ends_with('='), "{fp}");
        assert_eq!(fp.len(), "SHA256:".len() + 43);
        let line = known_hosts_line("[127.0.0.1]:2222", HostKeyType::Ed25519, &blob);
        assert!(line.starts_with("[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"), "{line}");
    }
}
