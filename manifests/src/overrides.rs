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
    build(Scope::All, overrides)
}

/// As [`effective_manifests`], for `agents` only: just their manifests are compiled (a pane needs
/// its own agent's, and compiling all of them costs megabytes), and only diagnostics about their
/// files are returned — an override for another agent, or a file naming no agent, is not looked at.
/// For an agent in the set, evaluation and explain are exactly the full set's; an agent outside it
/// has no manifest here, so it evaluates like a hook-only agent (the no-match idle fallback).
pub fn effective_manifests_for(agents: &[Agent], overrides: &[OverrideFile]) -> EffectiveManifests {
    build(Scope::Only(agents), overrides)
}

/// Which agents a build covers.
#[derive(Clone, Copy)]
enum Scope<'a> {
    All,
    Only(&'a [Agent]),
}

impl Scope<'_> {
    /// Whether a file for `agent` (None: its name names no agent) is part of this build.
    fn covers(self, agent: Option<Agent>) -> bool {
        match self {
            Scope::All => true,
            Scope::Only(agents) => agent.is_some_and(|a| agents.contains(&a)),
        }
    }
}

/// Overrides are compiled first so a bundled manifest is only compiled for an agent without a
/// valid override (it would be thrown away). Diagnostics still list bundled problems first.
fn build(scope: Scope<'_>, overrides: &[OverrideFile]) -> EffectiveManifests {
    let mut set = ManifestSet::default();
    let mut override_diagnostics = Vec::new();
    for file in overrides {
        let agent = agent_for_file_name(&file.path);
        if !scope.covers(agent) {
            continue;
        }
        let Some(agent) = agent else {
            override_diagnostics.push(Diagnostic {
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
                override_diagnostics.push(Diagnostic {
                    path: file.path.clone(),
                    agent: Some(agent),
                    message,
                });
            }
        }
    }
    let mut diagnostics = Vec::new();
    for (name, text) in BUNDLED {
        let agent = agent_for_file_name(name);
        if !scope.covers(agent) || agent.is_some_and(|a| set.manifests.contains_key(&a)) {
            continue;
        }
        match compile(name, text, agent, ManifestSource::Bundled) {
            Ok(m) => {
                set.manifests.insert(m.agent, m);
            }
            Err(e) => {
                diagnostics.push(Diagnostic { path: (*name).to_string(), agent, message: e.to_string() })
            }
        }
    }
    diagnostics.extend(override_diagnostics);
    EffectiveManifests { set, diagnostics }
}

#[cfg(test)]
mod tests {
    use std::{fs, path::Path};

    use super::*;

    /// (agent, screen, OSC title, OSC progress) of every screen fixture in `manifests/fixtures`.
    fn fixture_screens() -> Vec<(Agent, String, Option<String>, Option<String>)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let read = |dir: &Path, name: &str| fs::read_to_string(dir.join(name)).ok();
        let mut out = Vec::new();
        for agent_dir in fs::read_dir(&root).expect("fixtures dir") {
            let agent_dir = agent_dir.expect("entry").path();
            let label = agent_dir.file_name().and_then(|n| n.to_str()).expect("utf-8 name").to_string();
            let agent = Agent::from_label(&label).expect("fixture folders are agent labels");
            for case in fs::read_dir(&agent_dir).expect("agent dir") {
                let case = case.expect("entry").path();
                let screen = read(&case, "screen.txt").expect("screen.txt");
                out.push((agent, screen, read(&case, "title.txt"), read(&case, "progress.txt")));
            }
        }
        out
    }

    fn input<'a>(
        screen: &'a str,
        title: &'a Option<String>,
        progress: &'a Option<String>,
    ) -> DetectionInput<'a> {
        DetectionInput { screen, osc_title: title.as_deref(), osc_progress: progress.as_deref() }
    }

    fn explained(set: &ManifestSet, agent: Agent, input: &DetectionInput<'_>) -> serde_json::Value {
        serde_json::to_value(set.explain(Some(agent), input)).expect("explanation serialises")
    }

    #[test]
    fn a_partial_set_holds_only_its_agents_and_judges_them_like_the_full_set() {
        let full = effective_manifests(&[]);
        assert!(full.diagnostics.is_empty(), "{:?}", full.diagnostics);
        let mut matched = 0;
        for (agent, screen, title, progress) in fixture_screens() {
            let partial = effective_manifests_for(&[agent], &[]);
            assert!(partial.diagnostics.is_empty(), "{:?}", partial.diagnostics);
            assert_eq!(partial.set.agents().collect::<Vec<_>>(), vec![agent]);
            let input = input(&screen, &title, &progress);
            let verdict = partial.set.evaluate(Some(agent), &input);
            assert_eq!(verdict, full.set.evaluate(Some(agent), &input), "{agent}");
            assert_eq!(explained(&partial.set, agent, &input), explained(&full.set, agent, &input));
            matched += usize::from(verdict.matched_rule.is_some());
        }
        assert!(matched > 10, "the fixtures must exercise real rule matches, not only fallbacks");
        let two = effective_manifests_for(&[Agent::Codex, Agent::Claude], &[]);
        assert_eq!(two.set.agents().collect::<Vec<_>>(), vec![Agent::Claude, Agent::Codex]);
        assert!(effective_manifests_for(&[], &[]).set.agents().next().is_none());
    }

    #[test]
    fn an_agent_outside_the_set_evaluates_as_with_no_manifest() {
        let full = effective_manifests(&[]).set;
        let claude_only = effective_manifests_for(&[Agent::Claude], &[]).set;
        let mut differs = 0;
        for (agent, screen, title, progress) in fixture_screens().into_iter().filter(|f| f.0 != Agent::Claude)
        {
            let input = input(&screen, &title, &progress);
            let verdict = claude_only.evaluate(Some(agent), &input);
            assert_eq!(verdict, evaluate(Some(agent), None, &input), "{agent}");
            assert_eq!(verdict.matched_rule, None);
            assert_eq!(verdict.state, crate::AgentState::Idle);
            assert_eq!(claude_only.explain(Some(agent), &input).manifest_source, None);
            differs += usize::from(verdict != full.evaluate(Some(agent), &input));
        }
        // So a worker that kept the wrong agent's set would misjudge: it must recompile on a change.
        assert!(differs > 0);
    }

    #[test]
    fn a_partial_set_applies_and_reports_only_its_agents_overrides() {
        let valid = "id = \"claude\"\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"zzz\"]\n";
        let overrides = [
            OverrideFile { path: "/cfg/claude.toml".into(), contents: valid.into() },
            OverrideFile { path: "/cfg/codex.toml".into(), contents: "this is [not toml".into() },
            OverrideFile { path: "/cfg/notes.toml".into(), contents: String::new() },
        ];
        let claude = effective_manifests_for(&[Agent::Claude], &overrides);
        assert!(claude.diagnostics.is_empty(), "{:?}", claude.diagnostics);
        let m = claude.set.get(Agent::Claude).expect("claude");
        assert_eq!(m.source, ManifestSource::Override("/cfg/claude.toml".into()));
        assert_eq!(claude.set.agents().count(), 1);

        let codex = effective_manifests_for(&[Agent::Codex], &overrides);
        assert_eq!(codex.diagnostics.len(), 1, "{:?}", codex.diagnostics);
        assert_eq!(codex.diagnostics[0].agent, Some(Agent::Codex));
        assert_eq!(codex.set.get(Agent::Codex).map(|m| &m.source), Some(&ManifestSource::Bundled));
        assert!(codex.set.warning(Agent::Codex).is_some_and(|w| w.contains("override ignored")));
        let e = codex.set.explain(Some(Agent::Codex), &input("", &None, &None));
        assert_eq!(e.warning.as_deref(), codex.set.warning(Agent::Codex));

        // The full set still reports all three files and applies the same results.
        let full = effective_manifests(&overrides);
        assert_eq!(full.diagnostics.len(), 2, "{:?}", full.diagnostics);
        assert_eq!(full.set.get(Agent::Claude).map(|m| &m.source), Some(&m.source));
        assert_eq!(full.set.warning(Agent::Codex), codex.set.warning(Agent::Codex));
    }
}
