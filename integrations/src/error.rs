//! What can go wrong installing, removing or inspecting an integration, and which public API
//! error code each failure maps to.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name that is not an integration target at all.
    #[error("unknown integration target {name:?} (expected one of: {expected})")]
    UnknownTarget { name: String, expected: String },
    /// The agent's own config dir is missing: installing into it would create a config the agent
    /// does not use (upstream refuses too).
    #[error("{label} config directory {} does not exist; install and run {label} once first", path.display())]
    AgentDirMissing { label: &'static str, path: PathBuf },
    /// Two agents resolve to one config dir (OMP under `PI_CODING_AGENT_DIR`): each would load
    /// the other's integration.
    #[error("{label} and {other} resolve to the same directory {}; give them separate agent directories first", path.display())]
    SharedDir { label: &'static str, other: &'static str, path: PathBuf },
    #[error("cannot locate the {label} config directory: HOME is not set")]
    NoHome { label: &'static str },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// A user config that does not parse: left untouched rather than overwritten.
    #[error("{} is not valid JSON ({source}); fix or remove it, then retry", path.display())]
    InvalidJson { path: PathBuf, source: serde_json::Error },
    #[error("{} is not valid TOML ({message}); fix it, then retry", path.display())]
    InvalidToml { path: PathBuf, message: String },
    /// A config that parses but has a shape herdr cannot edit safely.
    #[error("{}: {problem}; left unchanged", path.display())]
    UnexpectedShape { path: PathBuf, problem: String },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// The public API error code: `internal_error` for file-system failures, and
    /// `invalid_request` for everything the user's own files prevent (missing agent dir,
    /// unparsable config).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Io { .. } => "internal_error",
            Error::UnknownTarget { .. }
            | Error::AgentDirMissing { .. }
            | Error::SharedDir { .. }
            | Error::NoHome { .. }
            | Error::InvalidJson { .. }
            | Error::InvalidToml { .. }
            | Error::UnexpectedShape { .. } => "invalid_request",
        }
    }
}
