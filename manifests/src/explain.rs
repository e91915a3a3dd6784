//! `agent.explain`: every rule's evidence (matched or not, which gate failed, which line
//! matched) and the winner, as a serializable value.
//!
//! Explain re-evaluates without short-circuiting across rules so a user can see why a rule they
//! expected did not win; it is for humans and tools, not the hot path.

use serde::Serialize;

use crate::agent::{Agent, AgentState};
use crate::compile::{CompiledManifest, CompiledRule};
use crate::eval::{Detection, DetectionInput, MatchedRule, RegionCache, evaluate, gate_matches};

/// Characters of a region shown in `region_preview` (the tail: detection reads the bottom).
pub const REGION_PREVIEW_CHARS: usize = 240;

/// The whole explanation (upstream's `agent.explain` JSON shape).
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    pub agent: Option<Agent>,
    pub state: AgentState,
    pub manifest_source: Option<String>,
    pub manifest_version: Option<String>,
    pub matched_rule: Option<MatchedRule>,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub skip_state_update: bool,
    pub skipped_update_reason: Option<String>,
    pub fallback_reason: Option<&'static str>,
    /// E.g. an invalid override that was ignored.
    pub warning: Option<String>,
    pub evaluated_rules: Vec<RuleEvidence>,
}

/// One rule's evaluation.
#[derive(Clone, Debug, Serialize)]
pub struct RuleEvidence {
    pub id: String,
    pub priority: i32,
    pub region: String,
    pub state: AgentState,
    pub matched: bool,
    /// Where the rule first failed, e.g. `rule.contains[1]` or `rule.all[0].line_regex[0]`.
    pub failed_at: Option<String>,
    pub evidence: Evidence,
}

/// The rule's own matchers each checked, plus region facts.
#[derive(Clone, Debug, Serialize)]
pub struct Evidence {
    pub contains: Vec<NeedleEvidence>,
    pub regex: Vec<RegexEvidence>,
    pub line_regex: Vec<LineEvidence>,
    pub all_count: usize,
    pub any_count: usize,
    pub not_count: usize,
    pub region_bytes: usize,
    pub region_preview: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct NeedleEvidence {
    pub needle: String,
    pub found: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct RegexEvidence {
    pub pattern: String,
    pub matched: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct LineEvidence {
    pub pattern: String,
    /// The first line of the region that matched, if any.
    pub line: Option<String>,
}

/// Explains the verdict `evaluate` would give for the same arguments.
pub fn explain(
    agent: Option<Agent>,
    manifest: Option<&CompiledManifest>,
    input: &DetectionInput<'_>,
    warning: Option<String>,
) -> Explanation {
    let detection: Detection = evaluate(agent, manifest, input);
    let mut cache = RegionCache::new(input);
    let evaluated_rules = match (agent, manifest) {
        (Some(_), Some(m)) => m.rules.iter().map(|rule| rule_evidence(rule, &mut cache)).collect(),
        _ => Vec::new(),
    };
    Explanation {
        agent: detection.agent,
        state: detection.state,
        manifest_source: manifest.map(|m| m.source.describe()),
        manifest_version: manifest.and_then(|m| m.version.clone()),
        skipped_update_reason: detection
            .matched_rule
            .as_ref()
            .filter(|_| detection.skip_state_update)
            .map(|r| format!("matched_rule:{}", r.id)),
        matched_rule: detection.matched_rule,
        visible_idle: detection.visible_idle,
        visible_blocker: detection.visible_blocker,
        visible_working: detection.visible_working,
        skip_state_update: detection.skip_state_update,
        fallback_reason: detection.fallback_reason,
        warning,
        evaluated_rules,
    }
}

fn rule_evidence(rule: &CompiledRule, cache: &mut RegionCache<'_>) -> RuleEvidence {
    let (text, lower) = cache.get(rule.region);
    let mut failed_at = String::new();
    let matched = gate_matches(&rule.gate, text, lower, Some(&mut failed_at));
    let gate = &rule.gate;
    let evidence = Evidence {
        contains: gate
            .contains
            .iter()
            .map(|(needle, low)| NeedleEvidence {
                needle: needle.clone(),
                found: lower.contains(low.as_str()),
            })
            .collect(),
        regex: gate
            .regex
            .iter()
            .map(|re| RegexEvidence { pattern: re.as_str().to_string(), matched: re.is_match(text) })
            .collect(),
        line_regex: gate
            .line_regex
            .iter()
            .map(|re| LineEvidence {
                pattern: re.as_str().to_string(),
                line: text.lines().find(|l| re.is_match(l)).map(str::to_string),
            })
            .collect(),
        all_count: gate.all.len(),
        any_count: gate.any.len(),
        not_count: gate.not.len(),
        region_bytes: text.len(),
        region_preview: tail_chars(text, REGION_PREVIEW_CHARS),
    };
    RuleEvidence {
        id: rule.id.clone(),
        priority: rule.priority,
        region: rule.region.name(),
        state: rule.state,
        matched,
        failed_at: (!matched).then_some(failed_at),
        evidence,
    }
}

fn tail_chars(text: &str, max: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(max)).collect()
}
