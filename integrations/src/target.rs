//! The integration targets: the API's `IntegrationTarget` (from herdr-protocol, re-exported as
//! [`Target`]), which of them this build implements, and their labels, commands and current asset
//! versions. This build implements four (`claude` and `codex` report their session identity for
//! resume, `pi` and `opencode` report their full lifecycle state); the others still parse, so the
//! API can answer them with `not_implemented` instead of a request error.

use crate::error::Error;

pub use herdr_protocol::api::IntegrationTarget as Target;

/// The targets this build can install, in the order `status` and `integration.list` show them.
pub const IMPLEMENTED: [Target; 4] = [Target::Claude, Target::Codex, Target::Pi, Target::Opencode];

/// A target by its wire name; `antigravity-cli` is accepted too, as the command line spells it.
pub fn parse_target(name: &str) -> Result<Target, Error> {
    let wanted = if name == "antigravity-cli" { "antigravity_cli" } else { name };
    Target::ALL
        .into_iter()
        .find(|t| t.as_str() == wanted)
        .ok_or_else(|| Error::UnknownTarget { name: name.to_owned(), expected: names(&Target::ALL) })
}

/// What this build can do for a [`Target`]. A trait because the target type is herdr-protocol's.
pub trait Installable {
    /// The implemented target, or `not_implemented`.
    fn implemented(self) -> Result<Implemented, Error>;

    fn is_implemented(&self) -> bool;
}

impl Installable for Target {
    fn implemented(self) -> Result<Implemented, Error> {
        match self {
            Target::Claude => Ok(Implemented::Claude),
            Target::Codex => Ok(Implemented::Codex),
            Target::Pi => Ok(Implemented::Pi),
            Target::Opencode => Ok(Implemented::Opencode),
            other => Err(Error::NotImplemented { target: other, implemented: names(&IMPLEMENTED) }),
        }
    }

    fn is_implemented(&self) -> bool {
        IMPLEMENTED.contains(self)
    }
}

fn names(targets: &[Target]) -> String {
    targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implemented_agrees_with_the_list_and_round_trips() {
        for target in Target::ALL {
            assert_eq!(target.is_implemented(), target.implemented().is_ok(), "{target}");
            if let Ok(implemented) = target.implemented() {
                assert_eq!(implemented.target(), target);
            }
        }
    }

    #[test]
    fn parse_errors_name_the_input_and_every_target() {
        let err = parse_target("gemini").expect_err("unknown");
        assert_eq!(err.code(), "invalid_request");
        let text = err.to_string();
        assert!(
            text.starts_with("unknown integration target \"gemini\" (expected one of: pi, omp,"),
            "{text}"
        );
        assert!(text.ends_with("antigravity_cli, grok)"), "{text}");
    }
}
