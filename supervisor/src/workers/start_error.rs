//! Why a pane got no worker: the ways starting a fresh worker, or adopting one that outlived
//! its supervisor, can fail. The messages are what the API's error and the log say.

use std::io;
use std::path::PathBuf;

use herdr_protocol::ipc::{IPC_VERSION, MIN_IPC_VERSION};

/// A worker start or adoption that did not give the pane a running program.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("could not start {}: {source}", exe.display())]
    Exec { exe: PathBuf, source: io::Error },
    #[error("worker refused: {0}")]
    Refused(String),
    #[error("worker link failed: {0}")]
    Link(io::Error),
    #[error("worker speaks link version {0}, supervisor {MIN_IPC_VERSION}..={IPC_VERSION}")]
    LinkVersion(u32),
    /// The worker answered the `Hello` with something else (the frame, debug-printed), or not at all.
    #[error("worker did not complete the handshake ({0})")]
    NoHandshake(String),
    /// The worker could not start the pane's program: its own words.
    #[error("{0}")]
    SpawnFailed(String),
    #[error("worker did not start the program ({0})")]
    NoProgram(String),
    #[error("no worker answers at {socket}: {source}")]
    NoWorkerAt { socket: String, source: io::Error },
    #[error("cannot check the worker's credentials: {0}")]
    Credentials(io::Error),
    #[error("the process at {socket} belongs to uid {uid}")]
    OtherUser { socket: String, uid: u32 },
    #[error("the worker speaks link version {0}, this supervisor {MIN_IPC_VERSION}..={IPC_VERSION}")]
    AdoptLinkVersion(u32),
    #[error("the worker refused: {0}")]
    AdoptRefused(String),
    #[error("the worker did not answer Adopt ({0})")]
    NoAdoptAnswer(String),
    /// The pane's task ended before it said how the start went.
    #[error("the pane's worker stopped while starting")]
    TaskGone,
}

impl StartError {
    /// Whether a worker refused adoption only because another supervisor still holds its link
    /// (during a live handoff that supervisor lets go a moment later).
    pub fn still_linked(&self) -> bool {
        matches!(self, StartError::AdoptRefused(reason) if reason.contains("linked to a running supervisor"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_keep_their_wording() {
        let exec = StartError::Exec { exe: "/x/w".into(), source: io::Error::from(io::ErrorKind::NotFound) };
        assert!(exec.to_string().starts_with("could not start /x/w: "), "{exec}");
        assert_eq!(StartError::SpawnFailed("no such file".into()).to_string(), "no such file");
        assert_eq!(
            StartError::LinkVersion(99).to_string(),
            format!("worker speaks link version 99, supervisor {MIN_IPC_VERSION}..={IPC_VERSION}")
        );
    }

    #[test]
    fn only_a_linked_refusal_is_retried() {
        assert!(
            StartError::AdoptRefused("worker ab is linked to a running supervisor".into()).still_linked()
        );
        assert!(!StartError::AdoptRefused("bad secret".into()).still_linked());
        assert!(!StartError::Refused("worker ab is linked to a running supervisor".into()).still_linked());
    }
}
