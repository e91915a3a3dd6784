//! Compiling a manifest: TOML text → validated, regex-compiled rules ready for `eval`.
//!
//! Compilation happens once per manifest load (bundled at first use, overrides at reload); the
//! hot path never touches TOML or builds a regex.

use regex::Regex;

use crate::agent::{Agent, AgentState};
use crate::error::{ManifestError, ManifestProblem};
use crate::last_turn_spec::LastTurnSpec;
use crate::regions::Region;
use crate::schema::{GateFile, ManifestFile};
use crate::validate::validate;

/// Where an effective manifest came from (shown by explain).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum ManifestSource {
    Bundled,
    Override(String),
}

impl ManifestSource {
    /// `bundled` or the override path, as upstream's explain prints it.
    pub fn describe(&self) -> String {
        match self {
            ManifestSource::Bundled => "bundled".to_string(),
            ManifestSource::Override(path) => path.clone(),
        }
    }
}

/// A manifest ready to evaluate.
#[derive(Clone, Debug)]
pub struct CompiledManifest {
    pub agent: Agent,
    pub id: String,
    pub version: Option<String>,
    pub aliases: Vec<String>,
    pub source: ManifestSource,
    pub rules: Vec<CompiledRule>,
    /// Rule indices, highest priority first, file order within a tie (evaluation order).
    pub by_priority: Vec<usize>,
    /// The `[last_turn]` table, when the manifest has one (else reads use the generic cut).
    pub last_turn: Option<LastTurnSpec>,
}

/// One rule, in file order.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    pub id: String,
    pub state: AgentState,
    pub priority: i32,
    pub region: Region,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub skip_state_update: bool,
    pub gate: CompiledGate,
}

/// A gate with its needles lowercased and its regexes built.
#[derive(Clone, Debug, Default)]
pub struct CompiledGate {
    /// (as written, lowercased)
    pub contains: Vec<(String, String)>,
    pub regex: Vec<Regex>,
    pub line_regex: Vec<Regex>,
    pub all: Vec<CompiledGate>,
    pub any: Vec<CompiledGate>,
    pub not: Vec<CompiledGate>,
}

/// Parses, validates and compiles one manifest. With `expected`, the manifest's id (or one of its
/// aliases) must name that agent; without, the id decides the agent.
pub fn compile(
    file: &str,
    text: &str,
    expected: Option<Agent>,
    source: ManifestSource,
) -> Result<CompiledManifest, ManifestError> {
    let parsed: ManifestFile = toml::from_str(text)
        .map_err(|e| ManifestError::file(file, ManifestProblem::Toml(e.message().to_string())))?;
    let agent = resolve_agent(file, &parsed, expected)?;
    let regions = validate(file, &parsed)?;
    let mut rules = Vec::with_capacity(parsed.rules.len());
    for (rule, region) in parsed.rules.iter().zip(regions) {
        let gate = compile_gate(&rule.gate(), "rule").map_err(|p| ManifestError::rule(file, &rule.id, p))?;
        rules.push(CompiledRule {
            id: rule.id.clone(),
            state: state_from_name(rule.state.as_deref()),
            priority: rule.priority,
            region,
            visible_idle: rule.visible_idle,
            visible_blocker: rule.visible_blocker,
            visible_working: rule.visible_working,
            skip_state_update: rule.skip_state_update,
            gate,
        });
    }
    let by_priority = crate::eval::priority_order(&rules);
    let last_turn = parsed
        .last_turn
        .as_ref()
        .map(LastTurnSpec::compile)
        .transpose()
        .map_err(|p| ManifestError::file(file, p))?;
    Ok(CompiledManifest {
        by_priority,
        last_turn,
        agent,
        id: parsed.id,
        version: parsed.version,
        aliases: parsed.aliases,
        source,
        rules,
    })
}

fn resolve_agent(file: &str, parsed: &ManifestFile, expected: Option<Agent>) -> Result<Agent, ManifestError> {
    let names = std::iter::once(parsed.id.as_str()).chain(parsed.aliases.iter().map(String::as_str));
    // `herdr:pi` style aliases name the agent after the integration prefix.
    let resolved: Vec<Agent> =
        names.filter_map(|n| Agent::lookup(n.strip_prefix("herdr:").unwrap_or(n))).collect();
    match expected {
        Some(agent) if resolved.contains(&agent) => Ok(agent),
        Some(agent) => Err(ManifestError::file(
            file,
            ManifestProblem::IdMismatch { expected: agent.label().to_string(), found: parsed.id.clone() },
        )),
        None => resolved
            .first()
            .copied()
            .ok_or_else(|| ManifestError::file(file, ManifestProblem::UnknownAgent(parsed.id.clone()))),
    }
}

fn state_from_name(name: Option<&str>) -> AgentState {
    match name {
        Some("idle") => AgentState::Idle,
        Some("working") => AgentState::Working,
        Some("blocked") => AgentState::Blocked,
        _ => AgentState::Unknown,
    }
}

fn compile_gate(gate: &GateFile, path: &str) -> Result<CompiledGate, ManifestProblem> {
    let build = |field: &str, patterns: &[String]| -> Result<Vec<Regex>, ManifestProblem> {
        patterns
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Regex::new(p).map_err(|e| ManifestProblem::BadRegex {
                    path: format!("{path}.{field}[{i}]"),
                    message: e.to_string(),
                })
            })
            .collect()
    };
    let nested = |field: &str, gates: &[GateFile]| -> Result<Vec<CompiledGate>, ManifestProblem> {
        gates.iter().enumerate().map(|(i, g)| compile_gate(g, &format!("{path}.{field}[{i}]"))).collect()
    };
    Ok(CompiledGate {
        contains: gate.contains.iter().map(|c| (c.clone(), c.to_lowercase())).collect(),
        regex: build("regex", &gate.regex)?,
        line_regex: build("line_regex", &gate.line_regex)?,
        all: nested("all", &gate.all)?,
        any: nested("any", &gate.any)?,
        not: nested("not", &gate.not)?,
    })
}
