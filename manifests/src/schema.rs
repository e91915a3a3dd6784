//! The manifest file format as serde types: exactly what a TOML file may say, nothing compiled.
//!
//! Unknown fields are rejected (a typo in a rule must not silently disable it). Validation of
//! limits and meaning lives in `validate`, compilation in `compile`.

use serde::Deserialize;

/// A manifest file's root table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    pub id: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub min_engine_version: Option<u32>,
    /// Informational only.
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub rules: Vec<RuleFile>,
    /// How a `last_turn` read cuts this agent's reply (a herdr extension; see `last_turn_spec`).
    #[serde(default)]
    pub last_turn: Option<crate::last_turn_spec::LastTurnFile>,
}

/// One `[[rules]]` table: metadata plus the six matcher fields of a gate. serde's `flatten` does
/// not combine with `deny_unknown_fields`, so the matcher fields are repeated here.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    pub id: String,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub priority: i32,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub visible_idle: bool,
    #[serde(default)]
    pub visible_blocker: bool,
    #[serde(default)]
    pub visible_working: bool,
    #[serde(default)]
    pub skip_state_update: bool,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub regex: Vec<String>,
    #[serde(default)]
    pub line_regex: Vec<String>,
    #[serde(default)]
    pub all: Vec<GateFile>,
    #[serde(default)]
    pub any: Vec<GateFile>,
    #[serde(default)]
    pub not: Vec<GateFile>,
}

/// A nested gate: the matcher fields without rule metadata.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateFile {
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub regex: Vec<String>,
    #[serde(default)]
    pub line_regex: Vec<String>,
    #[serde(default)]
    pub all: Vec<GateFile>,
    #[serde(default)]
    pub any: Vec<GateFile>,
    #[serde(default)]
    pub not: Vec<GateFile>,
}

impl RuleFile {
    /// The rule's own matchers viewed as a gate (the rule is the root gate).
    pub fn gate(&self) -> GateFile {
        GateFile {
            contains: self.contains.clone(),
            regex: self.regex.clone(),
            line_regex: self.line_regex.clone(),
            all: self.all.clone(),
            any: self.any.clone(),
            not: self.not.clone(),
        }
    }
}

impl GateFile {
    /// Direct matchers: strings and nested gates counted at this level.
    pub fn direct_matchers(&self) -> usize {
        self.contains.len()
            + self.regex.len()
            + self.line_regex.len()
            + self.all.len()
            + self.any.len()
            + self.not.len()
    }

    /// Whether anything here can make the gate match on its own (a gate of only `not` cannot).
    pub fn has_positive_matcher(&self) -> bool {
        !(self.contains.is_empty()
            && self.regex.is_empty()
            && self.line_regex.is_empty()
            && self.all.is_empty()
            && self.any.is_empty())
    }
}
