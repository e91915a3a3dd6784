//! Whether a connection to the worker's own socket may take the worker over: its first frame
//! must be `Adopt` from a supervisor sharing a link version with us (`ipc::version`) and
//! carrying the session secret, and no supervisor may be linked.
//! Pure: the caller says how the worker stands.
//!
//! Not here: the socket, the peer's uid (`listener`), what adoption then does (`pane`).

use herdr_protocol::ipc::{
    SupervisorToWorker, VersionRange,
    version::{self, VersionMismatch},
};

/// How the worker stands when a connection finishes its first frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// No supervisor linked: waiting to be adopted.
    Orphan,
    /// A supervisor is linked (the inherited link or an earlier adoption).
    Linked,
    /// Ending (`Shutdown` received, or the orphan timeout passed): nothing left to adopt.
    Ending,
}

/// Why an `Adopt` is turned down; the text goes back in `Refused`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("expected Adopt as the first frame on the worker socket")]
    NotAdopt,
    #[error(transparent)]
    Version(VersionMismatch),
    #[error("wrong session secret")]
    Secret,
    #[error("worker {0} is linked to a running supervisor")]
    Linked(String),
    #[error("worker {0} is shutting down")]
    Ending(String),
}

/// Accepts `first` as an adoption of worker `uid` (whose session secret is `secret`), or says why
/// not; the accepted link's version comes back. A peer that does not know the secret learns
/// nothing about the worker's state.
pub fn judge(
    first: &SupervisorToWorker,
    secret: &str,
    uid: &str,
    standing: Standing,
) -> Result<u32, Refusal> {
    let SupervisorToWorker::Adopt { version, min_version, secret: offered } = first else {
        return Err(Refusal::NotAdopt);
    };
    let supervisor = VersionRange { min: *min_version, max: *version };
    let link = version::negotiate(supervisor, VersionRange::OURS).map_err(Refusal::Version)?;
    if !same_secret(offered.as_bytes(), secret.as_bytes()) {
        return Err(Refusal::Secret);
    }
    match standing {
        Standing::Orphan => Ok(link),
        Standing::Linked => Err(Refusal::Linked(uid.to_string())),
        Standing::Ending => Err(Refusal::Ending(uid.to_string())),
    }
}

/// Compares in time that depends only on the lengths, never on where the bytes differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= std::hint::black_box(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    use herdr_protocol::ipc::{IPC_VERSION, MIN_IPC_VERSION};

    fn adopt(version: u32, secret: &str) -> SupervisorToWorker {
        SupervisorToWorker::Adopt { version, min_version: version, secret: secret.into() }
    }

    #[test]
    fn an_orphan_is_adopted_with_the_right_version_and_secret() {
        assert_eq!(judge(&adopt(IPC_VERSION, "s3cret"), "s3cret", "ab", Standing::Orphan), Ok(IPC_VERSION));
    }

    #[test]
    fn a_newer_supervisor_that_still_speaks_our_version_adopts_us_at_it() {
        let newer = SupervisorToWorker::Adopt {
            version: IPC_VERSION + 3,
            min_version: MIN_IPC_VERSION,
            secret: "s3cret".into(),
        };
        assert_eq!(judge(&newer, "s3cret", "ab", Standing::Orphan), Ok(IPC_VERSION));
    }

    #[test]
    fn refusals_in_order_of_checking() {
        let judge = |frame: &SupervisorToWorker, standing| judge(frame, "s3cret", "ab", standing);
        assert_eq!(judge(&SupervisorToWorker::Shutdown, Standing::Orphan), Err(Refusal::NotAdopt));
        let refusal = judge(&adopt(IPC_VERSION + 1, "s3cret"), Standing::Orphan).expect_err("too new");
        let text = refusal.to_string();
        assert!(matches!(refusal, Refusal::Version(_)), "{text}");
        assert!(text.contains(&format!("supervisor speaks {0}..={0}", IPC_VERSION + 1)), "{text}");
        assert!(text.contains(&format!("worker speaks {MIN_IPC_VERSION}..={IPC_VERSION}")), "{text}");
        assert_eq!(judge(&adopt(IPC_VERSION, "s3cre"), Standing::Orphan), Err(Refusal::Secret));
        assert_eq!(judge(&adopt(IPC_VERSION, "s3cret!"), Standing::Orphan), Err(Refusal::Secret));
        assert_eq!(judge(&adopt(IPC_VERSION, ""), Standing::Orphan), Err(Refusal::Secret));
        // Without the secret, a peer is not told whether a supervisor is linked.
        assert_eq!(judge(&adopt(IPC_VERSION, "x"), Standing::Linked), Err(Refusal::Secret));
        assert_eq!(judge(&adopt(IPC_VERSION, "s3cret"), Standing::Linked), Err(Refusal::Linked("ab".into())));
        assert_eq!(judge(&adopt(IPC_VERSION, "s3cret"), Standing::Ending), Err(Refusal::Ending("ab".into())));
        assert!(Refusal::Linked("ab".into()).to_string().contains("is linked to a running supervisor"));
    }

    #[test]
    fn secrets_compare_by_every_byte() {
        assert!(same_secret(b"", b""));
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        assert!(!same_secret(b"ab\0", b"ab"));
    }
}
