//! Hook source classes (reference §1.8), agent labels and agent names.

use herdr_manifests::Agent;

/// How herdr treats reports from a `source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceClass {
    /// herdr's own integrations for agents whose hooks cover the whole lifecycle: while live and
    /// matching the detected agent their reports are the state and screen scans pause.
    FullLifecycle,
    /// herdr's own integrations that only carry session identity (resume); `state` is ignored.
    SessionOnly,
    /// Anything else: becomes hook authority, may name an agent herdr does not know.
    Custom,
}

const FULL_LIFECYCLE: &[&str] =
    &["herdr:pi", "herdr:omp", "herdr:mastracode", "herdr:opencode", "herdr:kilo", "herdr:kimi"];

/// Reserved native sources (session-only) and session-identity-only integrations.
const SESSION_ONLY: &[&str] = &[
    "herdr:claude",
    "herdr:codex",
    "herdr:copilot",
    "herdr:devin",
    "herdr:droid",
    "herdr:qodercli",
    "herdr:qwen",
    "herdr:cursor",
    "herdr:grok",
    "herdr:hermes",
    "herdr:antigravity_cli",
];

impl SourceClass {
    pub fn of(source: &str) -> SourceClass {
        if FULL_LIFECYCLE.contains(&source) {
            SourceClass::FullLifecycle
        } else if SESSION_ONLY.contains(&source) {
            SourceClass::SessionOnly
        } else {
            SourceClass::Custom
        }
    }
}

/// herdr's own integrations (`herdr:*`): their `release_agent` is ignored, because the agent's
/// process exit is their release signal.
pub fn is_official(source: &str) -> bool {
    source.starts_with("herdr:")
}

/// A reported agent label in canonical form: known agents and their aliases map to the
/// canonical label (`claude-code` → `claude`); other labels are kept as given (trimmed).
pub fn canonical_label(label: &str) -> String {
    match Agent::lookup(label) {
        Some(agent) => agent.label().to_owned(),
        None => label.trim().to_owned(),
    }
}

/// Whether `label` names an agent herdr knows.
pub fn is_known(label: &str) -> bool {
    Agent::lookup(label).is_some()
}

/// An agent name outside `[a-z][a-z0-9_-]{0,31}`; its message is the public one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid agent name {0:?}: use a lowercase letter followed by up to 31 lowercase letters, digits, '_' or '-'"
)]
pub struct InvalidAgentName(pub String);

/// Checks an agent name against `[a-z][a-z0-9_-]{0,31}`.
pub fn validate_name(name: &str) -> Result<(), InvalidAgentName> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok && name.len() <= 32 { Ok(()) } else { Err(InvalidAgentName(name.to_owned())) }
}
