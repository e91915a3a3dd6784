//! `integration.*` records (protocol 22): targets, install state, list rows and the messages an
//! install or uninstall reports, with the targets' wire names.
//!
//! Not here: which targets a build can install, or parsing the command line's spellings (both
//! belong to herdr-integrations).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The schema's `IntegrationTarget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegrationTarget {
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

impl IntegrationTarget {
    /// Every target, in the schema's order.
    pub const ALL: [IntegrationTarget; 17] = [
        IntegrationTarget::Pi,
        IntegrationTarget::Omp,
        IntegrationTarget::Claude,
        IntegrationTarget::Codex,
        IntegrationTarget::Copilot,
        IntegrationTarget::Devin,
        IntegrationTarget::Droid,
        IntegrationTarget::Kimi,
        IntegrationTarget::Opencode,
        IntegrationTarget::Kilo,
        IntegrationTarget::Hermes,
        IntegrationTarget::Qodercli,
        IntegrationTarget::Qwen,
        IntegrationTarget::Cursor,
        IntegrationTarget::Mastracode,
        IntegrationTarget::AntigravityCli,
        IntegrationTarget::Grok,
    ];

    /// The wire name (what serde writes), usable without a serializer.
    pub fn as_str(self) -> &'static str {
        match self {
            IntegrationTarget::Pi => "pi",
            IntegrationTarget::Omp => "omp",
            IntegrationTarget::Claude => "claude",
            IntegrationTarget::Codex => "codex",
            IntegrationTarget::Copilot => "copilot",
            IntegrationTarget::Devin => "devin",
            IntegrationTarget::Droid => "droid",
            IntegrationTarget::Kimi => "kimi",
            IntegrationTarget::Opencode => "opencode",
            IntegrationTarget::Kilo => "kilo",
            IntegrationTarget::Hermes => "hermes",
            IntegrationTarget::Qodercli => "qodercli",
            IntegrationTarget::Qwen => "qwen",
            IntegrationTarget::Cursor => "cursor",
            IntegrationTarget::Mastracode => "mastracode",
            IntegrationTarget::AntigravityCli => "antigravity_cli",
            IntegrationTarget::Grok => "grok",
        }
    }
}

impl fmt::Display for IntegrationTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The schema's `IntegrationState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegrationState {
    NotInstalled,
    Current,
    Outdated,
}

impl IntegrationState {
    /// The wire name (what serde writes), usable without a serializer.
    pub fn as_str(self) -> &'static str {
        match self {
            IntegrationState::NotInstalled => "not_installed",
            IntegrationState::Current => "current",
            IntegrationState::Outdated => "outdated",
        }
    }
}

/// One row of `integration_list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrationInfo {
    pub target: IntegrationTarget,
    /// The agent's display name.
    pub label: String,
    /// The agent's executable.
    pub command: String,
    /// Whether installing would work here: the agent's config dir exists.
    pub available: bool,
    pub state: IntegrationState,
}

/// `details` of `integration_install` / `integration_uninstall`: what was done, one line per file,
/// for people.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrationDetails {
    pub messages: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_is_the_serde_name_for_every_target_and_state() {
        for target in IntegrationTarget::ALL {
            assert_eq!(serde_json::to_value(target).expect("target"), target.as_str());
            assert_eq!(target.to_string(), target.as_str());
        }
        for state in [IntegrationState::NotInstalled, IntegrationState::Current, IntegrationState::Outdated] {
            assert_eq!(serde_json::to_value(state).expect("state"), state.as_str());
        }
    }

    #[test]
    fn all_lists_the_schema_targets_in_the_schema_order() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schema/herdr-api-p22.schema.json")).expect("schema");
        let names = &schema["schemas"]["request"]["$defs"]["IntegrationTarget"]["enum"];
        let ours: Vec<&str> = IntegrationTarget::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, &serde_json::json!(ours));
    }
}
