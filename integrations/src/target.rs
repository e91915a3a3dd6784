//! The integration targets. Names are exactly the API's `IntegrationTarget` enum; this build
//! implements four of them (`claude` and `codex` report their session identity for resume, `pi`
//! and `opencode` report their full lifecycle state). The others parse, so the API can answer them
//! with `not_implemented` instead of a request error.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Pi,
    Omp,
    Claude,
    Codex,
    Copilot,
    Devin,
    Droid,
    Kimi,
    Opencode,
    Kilo,
    Hermes,
    Qodercli,
    Qwen,
    Cursor,
    Mastracode,
    AntigravityCli,
    Grok,
}

impl Target {
    /// Every API target, in the schema's order.
    pub const ALL: [Target; 17] = [
        Target::Pi,
        Target::Omp,
        Target::Claude,
        Target::Codex,
        Target::Copilot,
        Target::Devin,
        Target::Droid,
        Target::Kimi,
        Target::Opencode,
        Target::Kilo,
        Target::Hermes,
        Target::Qodercli,
        Target::Qwen,
        Target::Cursor,
        Target::Mastracode,
        Target::AntigravityCli,
        Target::Grok,
    ];

    /// The targets this build can install, in the order `status` and `integration.list` show them.
    pub const IMPLEMENTED: [Target; 4] = [Target::Claude, Target::Codex, Target::Pi, Target::Opencode];

    pub fn as_str(self) -> &'static str {
        match self {
            Target::Pi => "pi",
            Target::Omp => "omp",
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::Copilot => "copilot",
            Target::Devin => "devin",
            Target::Droid => "droid",
            Target::Kimi => "kimi",
            Target::Opencode => "opencode",
            Target::Kilo => "kilo",
            Target::Hermes => "hermes",
            Target::Qodercli => "qodercli",
            Target::Qwen => "qwen",
            Target::Cursor => "cursor",
            Target::Mastracode => "mastracode",
            Target::AntigravityCli => "antigravity_cli",
            Target::Grok => "grok",
        }
    }

    pub fn is_implemented(self) -> bool {
        Target::IMPLEMENTED.contains(&self)
    }

    /// The implemented target, or `not_implemented`.
    pub fn implemented(self) -> Result<Implemented, Error> {
        match self {
            Target::Claude => Ok(Implemented::Claude),
            Target::Codex => Ok(Implemented::Codex),
            Target::Pi => Ok(Implemented::Pi),
            Target::Opencode => Ok(Implemented::Opencode),
            other => Err(Error::NotImplemented { target: other, implemented: names(&Target::IMPLEMENTED) }),
        }
    }
}

fn names(targets: &[Target]) -> String {
    targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = Error;

    /// The wire names; `antigravity-cli` is accepted too, as the command line spells it.
    fn from_str(name: &str) -> Result<Self, Error> {
        let wanted = if name == "antigravity-cli" { "antigravity_cli" } else { name };
        Target::ALL
            .into_iter()
            .find(|t| t.as_str() == wanted)
            .ok_or_else(|| Error::UnknownTarget { name: name.to_owned(), expected: names(&Target::ALL) })
    }
}

/// A target this build installs. Kept apart from [`Target`] so the per-agent code matches
/// exhaustively on what it really handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implemented {
    Claude,
    Codex,
    Pi,
    Opencode,
}

impl Implemented {
    pub fn target(self) -> Target {
        match self {
            Implemented::Claude => Target::Claude,
            Implemented::Codex => Target::Codex,
            Implemented::Pi => Target::Pi,
            Implemented::Opencode => Target::Opencode,
        }
    }

    /// The agent's name as herdr's detection knows it (the `agent` of its reports).
    pub fn agent(self) -> &'static str {
        self.target().as_str()
    }

    pub fn label(self) -> &'static str {
        match self {
            Implemented::Claude => "Claude Code",
            Implemented::Codex => "Codex",
            Implemented::Pi => "Pi",
            Implemented::Opencode => "OpenCode",
        }
    }

    /// The agent's executable.
    pub fn command(self) -> &'static str {
        self.agent()
    }

    /// The asset version this build writes (upstream's current numbers, so an install made by
    /// either reads as current to the other only when the generations match).
    pub fn version(self) -> u32 {
        match self {
            Implemented::Claude | Implemented::Codex | Implemented::Pi => 8,
            Implemented::Opencode => 10,
        }
    }
}
