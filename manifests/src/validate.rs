//! Manifest validation: the schema's limits and meaning checks, before anything is compiled.
//!
//! Regexes are checked for compilation in `compile` (compiling them twice would waste time);
//! everything else that can be wrong with a manifest is caught here.

use std::collections::HashSet;

use crate::error::{ManifestError, ManifestProblem};
use crate::regions::Region;
use crate::schema::{GateFile, ManifestFile, RuleFile};

/// The engine version this crate implements (`min_engine_version` above it is refused).
pub const MANIFEST_ENGINE_VERSION: u32 = 3;
pub const MAX_RULES: usize = 128;
pub const MAX_GATE_DEPTH: usize = 8;
pub const MAX_GATES: usize = 512;
pub const MAX_DIRECT_MATCHERS: usize = 32;
pub const MAX_MATCHERS: usize = 1024;
pub const MAX_MATCHER_CHARS: usize = 512;

/// Checks the root table and every rule; returns each rule's parsed region in file order.
pub fn validate(file: &str, manifest: &ManifestFile) -> Result<Vec<Region>, ManifestError> {
    if let Some(version) = &manifest.version
        && !is_dotted_numeric(version)
    {
        return Err(ManifestError::file(file, ManifestProblem::BadVersion(version.clone())));
    }
    if let Some(found) = manifest.min_engine_version
        && found > MANIFEST_ENGINE_VERSION
    {
        let problem = ManifestProblem::EngineTooOld { found, supported: MANIFEST_ENGINE_VERSION };
        return Err(ManifestError::file(file, problem));
    }
    if manifest.rules.is_empty() {
        return Err(ManifestError::file(file, ManifestProblem::NoRules));
    }
    if manifest.rules.len() > MAX_RULES {
        let problem = ManifestProblem::TooManyRules { found: manifest.rules.len(), limit: MAX_RULES };
        return Err(ManifestError::file(file, problem));
    }
    let mut totals = Totals::default();
    let mut seen = HashSet::new();
    let mut regions = Vec::with_capacity(manifest.rules.len());
    for (index, rule) in manifest.rules.iter().enumerate() {
        let name = if rule.id.trim().is_empty() { format!("#{index}") } else { rule.id.clone() };
        let fail = |problem| ManifestError::rule(file, &name, problem);
        if rule.id.trim().is_empty() {
            return Err(fail(ManifestProblem::EmptyRuleId));
        }
        if !seen.insert(rule.id.as_str()) {
            return Err(fail(ManifestProblem::DuplicateRuleId));
        }
        regions.push(validate_rule(rule, manifest.min_engine_version).map_err(fail)?);
        walk_gate(&rule.gate(), "rule", 1, &mut totals).map_err(fail)?;
        if totals.gates > MAX_GATES {
            return Err(fail(ManifestProblem::TooManyGates { found: totals.gates, limit: MAX_GATES }));
        }
        if totals.matchers > MAX_MATCHERS {
            let problem = ManifestProblem::TooManyMatchers { found: totals.matchers, limit: MAX_MATCHERS };
            return Err(fail(problem));
        }
    }
    Ok(regions)
}

fn validate_rule(rule: &RuleFile, engine: Option<u32>) -> Result<Region, ManifestProblem> {
    if let Some(state) = &rule.state
        && !["idle", "working", "blocked", "unknown"].contains(&state.as_str())
    {
        return Err(ManifestProblem::UnknownState(state.clone()));
    }
    let region_text = rule.region.as_deref().unwrap_or("whole_recent");
    let region = Region::parse(region_text)
        .map_err(|reason| ManifestProblem::BadRegion { region: region_text.to_string(), reason })?;
    if matches!(region, Region::TopNonEmptyLines(_)) && engine.is_some_and(|v| v < 3) {
        return Err(ManifestProblem::RegionNeedsEngine3(region_text.to_string()));
    }
    if rule.skip_state_update {
        if rule.state.as_deref().unwrap_or("unknown") != "unknown" {
            return Err(ManifestProblem::SkipNeedsUnknownState);
        }
        if rule.visible_idle || rule.visible_blocker || rule.visible_working {
            return Err(ManifestProblem::SkipWithVisibleFlag);
        }
    }
    Ok(region)
}

#[derive(Default)]
struct Totals {
    gates: usize,
    matchers: usize,
}

fn walk_gate(gate: &GateFile, path: &str, depth: usize, totals: &mut Totals) -> Result<(), ManifestProblem> {
    if depth > MAX_GATE_DEPTH {
        return Err(ManifestProblem::GateTooDeep { path: path.to_string(), limit: MAX_GATE_DEPTH });
    }
    totals.gates += 1;
    let direct = gate.direct_matchers();
    if direct > MAX_DIRECT_MATCHERS {
        let problem = ManifestProblem::TooManyDirectMatchers {
            path: path.to_string(),
            found: direct,
            limit: MAX_DIRECT_MATCHERS,
        };
        return Err(problem);
    }
    totals.matchers += gate.contains.len() + gate.regex.len() + gate.line_regex.len();
    let strings = [("contains", &gate.contains), ("regex", &gate.regex), ("line_regex", &gate.line_regex)];
    for (field, values) in strings {
        for (i, value) in values.iter().enumerate() {
            let found = value.chars().count();
            if found > MAX_MATCHER_CHARS {
                let path = format!("{path}.{field}[{i}]");
                return Err(ManifestProblem::MatcherTooLong { path, found, limit: MAX_MATCHER_CHARS });
            }
        }
    }
    for (field, nested) in [("all", &gate.all), ("any", &gate.any)] {
        for (i, child) in nested.iter().enumerate() {
            let child_path = format!("{path}.{field}[{i}]");
            if !child.has_positive_matcher() {
                return Err(ManifestProblem::EmptyPositiveGate { path: child_path });
            }
            walk_gate(child, &child_path, depth + 1, totals)?;
        }
    }
    for (i, child) in gate.not.iter().enumerate() {
        let child_path = format!("{path}.not[{i}]");
        if child.direct_matchers() == 0 {
            return Err(ManifestProblem::EmptyNotGate { path: child_path });
        }
        walk_gate(child, &child_path, depth + 1, totals)?;
    }
    if depth == 1 && !gate.has_positive_matcher() {
        return Err(ManifestProblem::EmptyPositiveGate { path: path.to_string() });
    }
    Ok(())
}

/// `2026.08.21.1`: one or more dot-separated decimal segments.
pub fn is_dotted_numeric(text: &str) -> bool {
    !text.is_empty() && text.split('.').all(|seg| !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()))
}
