//! The link's version numbers and the rule that decides whether two sides can talk.
//!
//! Each side speaks every link version from [`MIN_IPC_VERSION`] to [`IPC_VERSION`]. A link speaks
//! the older of the two sides' newest versions, and only if both sides still speak it; neither side
//! ever sends a variant newer than the link's version. What may change between versions, so that
//! an older peer still decodes what it is sent, is written in `ARCHITECTURE.md` ("Supervisor ↔
//! worker link") and pinned by `protocol/tests/ipc_golden.rs`.

/// The first link version with a version range in its handshake and the hand-over frames; every
/// frame shape of this version is frozen.
pub const IPC_BASE_VERSION: u32 = 11;

/// The link version this build speaks natively: the newest frames' version plus `HERDR_LINK_VERSION_BUMP` (a
/// decimal number, read at compile time) so a second build with another link version can be made
/// for the worker-upgrade drill without editing code. rustc tracks `option_env!`, so setting the
/// variable rebuilds only the crates that depend on this constant.
pub const IPC_VERSION: u32 = FACTS_VERSION + link_version_bump();

/// The link version that added `WorkerRequest::Facts` and `WorkerResponse::Facts`: never sent
/// to a worker on an older link.
pub const FACTS_VERSION: u32 = 12;

/// The oldest link version this build still drives (as a supervisor) or serves (as a worker).
pub const MIN_IPC_VERSION: u32 = IPC_BASE_VERSION;

const fn link_version_bump() -> u32 {
    match option_env!("HERDR_LINK_VERSION_BUMP") {
        None => 0,
        Some(text) => parse_decimal(text),
    }
}

/// A decimal `u32` at compile time; anything else fails the build, naming the variable.
const fn parse_decimal(text: &str) -> u32 {
    let bytes = text.as_bytes();
    assert!(!bytes.is_empty(), "HERDR_LINK_VERSION_BUMP must be a decimal number");
    let mut value: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let digit = bytes[i];
        assert!(digit.is_ascii_digit(), "HERDR_LINK_VERSION_BUMP must be a decimal number");
        value = match value.checked_mul(10) {
            Some(v) => match v.checked_add((digit - b'0') as u32) {
                Some(v) => v,
                None => panic!("HERDR_LINK_VERSION_BUMP is too large"),
            },
            None => panic!("HERDR_LINK_VERSION_BUMP is too large"),
        };
        i += 1;
    }
    value
}

/// The versions one side of a link speaks, oldest to newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionRange {
    pub min: u32,
    pub max: u32,
}

impl VersionRange {
    /// What this build speaks.
    pub const OURS: VersionRange = VersionRange { min: MIN_IPC_VERSION, max: IPC_VERSION };

    pub fn contains(self, version: u32) -> bool {
        (self.min..=self.max).contains(&version)
    }

    /// The version a link from this side to a peer whose newest version is `peer` speaks, if
    /// this side still speaks it (the peer has checked its own end before answering).
    pub fn link_to(self, peer: u32) -> Option<u32> {
        let link = self.max.min(peer);
        self.contains(link).then_some(link)
    }
}

/// Two sides that share no link version; the message names both sides' versions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no common link version: supervisor speaks {}..={}, worker speaks {}..={}",
    .supervisor.min, .supervisor.max, .worker.min, .worker.max
)]
pub struct VersionMismatch {
    pub supervisor: VersionRange,
    pub worker: VersionRange,
}

/// The version a link between these two sides speaks: the older of their newest versions, if
/// both still speak it.
pub fn negotiate(supervisor: VersionRange, worker: VersionRange) -> Result<u32, VersionMismatch> {
    let link = supervisor.max.min(worker.max);
    if supervisor.contains(link) && worker.contains(link) {
        Ok(link)
    } else {
        Err(VersionMismatch { supervisor, worker })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn range(min: u32, max: u32) -> VersionRange {
        VersionRange { min, max }
    }

    #[test]
    fn the_link_speaks_the_older_newest_version_both_still_speak() {
        assert_eq!(negotiate(range(11, 11), range(11, 11)), Ok(11));
        // A new supervisor drives an old-but-supported worker at the worker's version.
        assert_eq!(negotiate(range(11, 12), range(11, 11)), Ok(11));
        // A new worker talks down to an older supervisor it still serves.
        assert_eq!(negotiate(range(11, 11), range(11, 13)), Ok(11));
        let too_old = negotiate(range(12, 13), range(11, 11)).expect_err("the worker is too old");
        assert_eq!(
            too_old.to_string(),
            "no common link version: supervisor speaks 12..=13, worker speaks 11..=11"
        );
        assert!(negotiate(range(11, 11), range(12, 12)).is_err(), "the worker no longer speaks 11");
        assert_eq!(range(11, 12).link_to(11), Some(11));
        assert_eq!(range(11, 12).link_to(13), Some(12));
        assert_eq!(range(12, 13).link_to(11), None);
    }

    #[test]
    fn this_build_speaks_its_own_version() {
        assert!(VersionRange::OURS.contains(IPC_VERSION));
        assert!(VersionRange::OURS.contains(MIN_IPC_VERSION));
        const { assert!(IPC_VERSION >= IPC_BASE_VERSION) };
        assert_eq!(parse_decimal("0"), 0);
        assert_eq!(parse_decimal("42"), 42);
    }
}
