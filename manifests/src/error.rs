//! Errors for a manifest that cannot be used: always naming the file, the rule (when one is at
//! fault) and the problem.

use thiserror::Error;

/// A manifest rejected at parse, validation or compile time.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{file}: {}{problem}", rule.as_ref().map(|r| format!("rule `{r}`: ")).unwrap_or_default())]
pub struct ManifestError {
    /// The file name or path the manifest came from (`claude.toml`, an override path).
    pub file: String,
    /// The offending rule's id (or `#<index>` when the id itself is missing).
    pub rule: Option<String>,
    pub problem: ManifestProblem,
}

/// What is wrong with a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ManifestProblem {
    #[error("not valid manifest TOML: {0}")]
    Toml(String),
    #[error("manifest id `{found}` does not name agent `{expected}` (nor any of its aliases)")]
    IdMismatch { expected: String, found: String },
    #[error("manifest id `{0}` is not a known agent")]
    UnknownAgent(String),
    #[error("version `{0}` is not a dotted numeric version such as 2026.08.21.1")]
    BadVersion(String),
    #[error("min_engine_version {found} is newer than this engine ({supported})")]
    EngineTooOld { found: u32, supported: u32 },
    #[error("a manifest needs at least one rule")]
    NoRules,
    #[error("{found} rules exceed the limit of {limit}")]
    TooManyRules { found: usize, limit: usize },
    #[error("rule id is empty")]
    EmptyRuleId,
    #[error("rule id is used twice")]
    DuplicateRuleId,
    #[error("unknown state `{0}` (expected idle, working, blocked or unknown)")]
    UnknownState(String),
    #[error("bad region `{region}`: {reason}")]
    BadRegion { region: String, reason: crate::regions::RegionError },
    #[error("region `{0}` needs min_engine_version >= 3")]
    RegionNeedsEngine3(String),
    #[error("skip_state_update requires state = \"unknown\"")]
    SkipNeedsUnknownState,
    #[error("skip_state_update cannot be combined with visible_* flags")]
    SkipWithVisibleFlag,
    #[error("gate at {path} has no positive matcher (contains, regex, line_regex, all or any)")]
    EmptyPositiveGate { path: String },
    #[error("`not` gate at {path} is empty")]
    EmptyNotGate { path: String },
    #[error("gates nest deeper than {limit} at {path}")]
    GateTooDeep { path: String, limit: usize },
    #[error("gate at {path} has {found} direct matchers, limit {limit}")]
    TooManyDirectMatchers { path: String, found: usize, limit: usize },
    #[error("{found} gates in the manifest exceed the limit of {limit}")]
    TooManyGates { found: usize, limit: usize },
    #[error("{found} matchers in the manifest exceed the limit of {limit}")]
    TooManyMatchers { found: usize, limit: usize },
    #[error("matcher at {path} is {found} chars, limit {limit}")]
    MatcherTooLong { path: String, found: usize, limit: usize },
    #[error(
        "last_turn.end_region `{0}` must be whole_recent, above_prompt_box or before_current_prompt_marker"
    )]
    BadLastTurnEnd(String),
    #[error("{path} is empty")]
    EmptyStripPrefix { path: String },
    #[error("regex at {path} does not compile: {message}")]
    BadRegex { path: String, message: String },
}

impl ManifestError {
    pub(crate) fn file(file: &str, problem: ManifestProblem) -> Self {
        ManifestError { file: file.to_string(), rule: None, problem }
    }

    pub(crate) fn rule(file: &str, rule: &str, problem: ManifestProblem) -> Self {
        ManifestError { file: file.to_string(), rule: Some(rule.to_string()), problem }
    }
}
