//! Evaluating a compiled manifest on one detection input: the highest-priority matching rule
//! wins, ties go to the earlier rule in file order; a known agent with no match is idle, an
//! unknown program is unknown.
//!
//! Pure and stateless: timing (confirmation, grace, republish) lives in `machine`.

use serde::Serialize;

use crate::agent::{Agent, AgentState};
use crate::compile::{CompiledGate, CompiledManifest, CompiledRule};
use crate::regions::{Region, Screen};

/// What the detector reads from a pane: the live bottom rows as text (rows joined by `\n`, never
/// the scrolled viewport), the latest OSC 0/2 title and the latest OSC 9 payload after `9;`.
#[derive(Clone, Copy, Debug, Default)]
pub struct DetectionInput<'a> {
    pub screen: &'a str,
    pub osc_title: Option<&'a str>,
    pub osc_progress: Option<&'a str>,
}

/// Upstream's fallback reason for a known agent whose manifest matched nothing.
pub const FALLBACK_KNOWN_AGENT_IDLE: &str = "default_known_agent_idle_fallback";
/// Fallback reason when no known agent owns the pane.
pub const FALLBACK_NO_KNOWN_AGENT: &str = "no_known_agent";

/// The winning rule of an evaluation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchedRule {
    /// Index in file order.
    #[serde(skip)]
    pub index: usize,
    pub id: String,
    pub priority: i32,
    pub region: String,
    pub state: AgentState,
}

/// One evaluation's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Detection {
    pub agent: Option<Agent>,
    pub state: AgentState,
    /// A viewer screen (transcript, model picker): leave the published state untouched.
    pub skip_state_update: bool,
    pub visible_idle: bool,
    pub visible_blocker: bool,
    pub visible_working: bool,
    pub matched_rule: Option<MatchedRule>,
    pub fallback_reason: Option<&'static str>,
}

impl Detection {
    /// The verdict for a pane with no known agent.
    pub fn no_agent() -> Self {
        Detection {
            agent: None,
            state: AgentState::Unknown,
            skip_state_update: false,
            visible_idle: false,
            visible_blocker: false,
            visible_working: false,
            matched_rule: None,
            fallback_reason: Some(FALLBACK_NO_KNOWN_AGENT),
        }
    }

    fn fallback_idle(agent: Agent) -> Self {
        Detection {
            agent: Some(agent),
            state: AgentState::Idle,
            fallback_reason: Some(FALLBACK_KNOWN_AGENT_IDLE),
            ..Detection::no_agent()
        }
    }

    fn from_rule(agent: Agent, index: usize, rule: &CompiledRule) -> Self {
        Detection {
            agent: Some(agent),
            state: rule.state,
            skip_state_update: rule.skip_state_update,
            // Flags are evidence of live chrome only when they agree with the rule's state.
            visible_idle: rule.visible_idle && rule.state == AgentState::Idle,
            visible_blocker: rule.visible_blocker && rule.state == AgentState::Blocked,
            visible_working: rule.visible_working && rule.state == AgentState::Working,
            matched_rule: Some(MatchedRule {
                index,
                id: rule.id.clone(),
                priority: rule.priority,
                region: rule.region.name(),
                state: rule.state,
            }),
            fallback_reason: None,
        }
    }
}

/// Region texts cut once per evaluation (rules share regions), with a lowercased copy for
/// `contains`.
pub(crate) struct RegionCache<'a> {
    screen: Screen<'a>,
    cut: Vec<(Region, String, String)>,
}

impl<'a> RegionCache<'a> {
    pub(crate) fn new(input: &DetectionInput<'a>) -> Self {
        RegionCache {
            screen: Screen::new(input.screen, input.osc_title, input.osc_progress),
            cut: Vec::new(),
        }
    }

    /// (text, lowercased text) of a region.
    pub(crate) fn get(&mut self, region: Region) -> (&str, &str) {
        let pos = match self.cut.iter().position(|(r, _, _)| *r == region) {
            Some(pos) => pos,
            None => {
                let text = self.screen.cut(region);
                let lower = text.to_lowercase();
                self.cut.push((region, text, lower));
                self.cut.len() - 1
            }
        };
        let (_, text, lower) = &self.cut[pos];
        (text, lower)
    }
}

/// Evaluates `manifest` for `agent` (None = no known agent in the foreground). A known agent
/// without a screen manifest (hook-only kinds) falls back to idle like a manifest with no match.
pub fn evaluate(
    agent: Option<Agent>,
    manifest: Option<&CompiledManifest>,
    input: &DetectionInput<'_>,
) -> Detection {
    let Some(agent) = agent else {
        return Detection::no_agent();
    };
    let Some(manifest) = manifest else {
        return Detection::fallback_idle(agent);
    };
    let mut cache = RegionCache::new(input);
    for &index in &manifest.by_priority {
        let rule = &manifest.rules[index];
        let (text, lower) = cache.get(rule.region);
        if gate_matches(&rule.gate, text, lower, None) {
            return Detection::from_rule(agent, index, rule);
        }
    }
    Detection::fallback_idle(agent)
}

/// Rule indices ordered highest priority first; the stable sort keeps file order within a tie.
pub(crate) fn priority_order(rules: &[CompiledRule]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rules.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(rules[i].priority));
    order
}

/// Where a gate failed, for explain: a path such as `rule.all[1].line_regex[0]`.
pub(crate) type MissTrace<'t> = Option<&'t mut String>;

/// Whether `gate` matches a region. Order: contains → regex → line_regex → all → any → not,
/// stopping at the first failure (recorded in `miss` when tracing).
pub(crate) fn gate_matches(gate: &CompiledGate, text: &str, lower: &str, miss: MissTrace<'_>) -> bool {
    gate_at(gate, text, lower, "rule", miss)
}

fn gate_at(gate: &CompiledGate, text: &str, lower: &str, path: &str, mut miss: MissTrace<'_>) -> bool {
    // Paths are only formatted when explain traces: the hot path must not allocate per rule.
    if let Some(i) = gate.contains.iter().position(|(_, needle)| !lower.contains(needle.as_str())) {
        return record(&mut miss, || format!("{path}.contains[{i}]"));
    }
    if let Some(i) = gate.regex.iter().position(|re| !re.is_match(text)) {
        return record(&mut miss, || format!("{path}.regex[{i}]"));
    }
    if let Some(i) = gate.line_regex.iter().position(|re| !text.lines().any(|l| re.is_match(l))) {
        return record(&mut miss, || format!("{path}.line_regex[{i}]"));
    }
    for (i, child) in gate.all.iter().enumerate() {
        let child_path = if miss.is_some() { format!("{path}.all[{i}]") } else { String::new() };
        if !gate_at(child, text, lower, &child_path, miss.as_deref_mut()) {
            return false;
        }
    }
    if !gate.any.is_empty() && !gate.any.iter().any(|child| gate_at(child, text, lower, path, None)) {
        return record(&mut miss, || format!("{path}.any"));
    }
    if let Some(i) = gate.not.iter().position(|child| gate_at(child, text, lower, path, None)) {
        return record(&mut miss, || format!("{path}.not[{i}]"));
    }
    true
}

fn record(miss: &mut MissTrace<'_>, what: impl FnOnce() -> String) -> bool {
    if let Some(out) = miss.as_deref_mut() {
        *out = what();
    }
    false
}
