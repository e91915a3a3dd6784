//! The effective manifest set: bundled manifests, with the user's
//! `<config_dir>/agent-detection/<agent>.toml` overrides applied. An invalid override is reported
//! and ignored (the bundled manifest stays), never fatal.
//!
//! Reading the config dir is the caller's job: this module takes file contents, not paths to open.

use std::collections::BTreeMap;

use crate::agent::Agent;
use crate::compile::{CompiledManifest, ManifestSource, compile};
use crate::embedded::{BUNDLED, agent_for_file_name};
use crate::error::ManifestError;
use crate::eval::{Detection, DetectionInput, evaluate};
use crate::explain::{Explanation, explain};

/// One override file as read from the config dir.
#[derive(Clone, Debug)]
pub struct OverrideFile {
    /// Path (or name) of the file: its stem names the agent, and it is quoted in diagnostics.
    pub path: String,
    pub contents: String,
}

/// Why a manifest file was not used.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub path: String,
    pub agent: Option<Agent>,
    /// Human text naming file, rule and problem.
    pub message: String,
}

/// The manifests in force, one per agent that has one.
#[derive(Clone, Debug, Default)]
pub struct ManifestSet {
    manifests: BTreeMap<Agent, CompiledManifest>,
    /// Per-agent warning shown by explain (an ignored invalid override).
    warnings: BTreeMap<Agent, String>,
}

/// Result of loading: the set plus everything that was ignored.
#[derive(Clone, Debug)]
pub struct EffectiveManifests {
    pub set: ManifestSet,
    pub diagnostics: Vec<Diagnostic>,
}

impl ManifestSet {
    /// The bundled manifests only. Errors are impossible for a tested build; they are returned
    /// rather than hidden.
    pub fn bundled() -> Result<ManifestSet, ManifestError> {
        let mut set = ManifestSet::default();
        for (name, text) in BUNDLED {
            let agent = agent_for_file_name(name);
            let manifest = compile(name, text, agent, ManifestSource::Bundled)?;
            set.manifests.insert(manifest.agent, manifest);
        }
        Ok(set)
    }

    pub fn get(&self, agent: Agent) -> Option<&CompiledManifest> {
        self.manifests.get(&agent)
    }

    pub fn agents(&self) -> impl Iterator<Item = Agent> + '_ {
        self.manifests.keys().copied()
    }

    pub fn warning(&self, agent: Agent) -> Option<&str> {
        self.warnings.get(&agent).map(String::as_str)
    }

    /// Evaluates the screen for `agent` (None = no known agent).
    pub fn evaluate(&self, agent: Option<Agent>, input: &DetectionInput<'_>) -> Detection {
        evaluate(agent, agent.and_then(|a| self.get(a)), input)
    }

    /// `agent.explain`'s value for the same input.
    pub fn explain(&self, agent: Option<Agent>, input: &DetectionInput<'_>) -> Explanation {
        let warning = agent.and_then(|a| self.warning(a)).map(str::to_string);
        explain(agent, agent.and_then(|a| self.get(a)), input, warning)
    }
}

/// Bundled manifests with `overrides` applied: a valid override replaces its agent's manifest;
/// an invalid one is reported in `diagnostics` (and as that agent's explain warning) and ignored.
pub fn effective_manifests(overrides: &[OverrideFile]) -> EffectiveManifests {
    let mut set = ManifestSet::default();
    let mut diagnostics = Vec::new();
    for (name, text) in BUNDLED {
        let agent = agent_for_file_name(name);
        match compile(name, text, agent, ManifestSource::Bundled) {
            Ok(m) => {
                set.manifests.insert(m.agent, m);
            }
            Err(e) => {
                diagnostics.push(Diagnostic { path: (*name).to_string(), agent, message: e.to_string() })
            }
        }
    }
    for file in overrides {
        let Some(agent) = agent_for_file_name(&file.path) else {
            diagnostics.push(Diagnostic {
                path: file.path.clone(),
                agent: None,
                message: format!("{}: file name does not name a known agent; ignored", file.path),
            });
            continue;
        };
        match compile(&file.path, &file.contents, Some(agent), ManifestSource::Override(file.path.clone())) {
            Ok(m) => {
                set.manifests.insert(agent, m);
            }
            Err(e) => {
                let message = format!("{e}; override ignored, using the bundled manifest");
                set.warnings.insert(agent, message.clone());
                diagnostics.push(Diagnostic { path: file.path.clone(), agent: Some(agent), message });
            }
        }
    }
    EffectiveManifests { set, diagnostics }
}
