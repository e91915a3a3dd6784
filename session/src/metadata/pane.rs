//! A pane's display metadata (`pane.report_metadata`): the presentation a script or hook gives
//! it — title, display agent, one label per agent status — and its token [`Ledger`].
//!
//! Pure, like the ledger: a report is parsed once into a [`PaneReport`] (every field cleaned,
//! contradictions refused), then applied against the pane's current agent. `agent` and
//! `applies_to_source` only guard the presentation: a report meant for another agent, or for an
//! agent whose state another source reports, still updates its tokens. Only tokens carry a ttl
//! (upstream's `ttl_ms` applies to the keys the report sets); presentation stays until changed.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use herdr_protocol::api::requests::PaneReportMetadataParams;

use super::tokens::{self, Ledger, MetadataError, Patch, Verdict};

/// The statuses a state label may name (`AgentStatus`).
pub const LABEL_STATES: [&str; 5] = ["idle", "working", "blocked", "done", "unknown"];

/// What one report does to a presentation field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldChange {
    Keep,
    /// Set it (`None`: the text was empty after clean-up, which clears it).
    Set(Option<String>),
    Clear,
}

impl FieldChange {
    fn of(value: Option<&str>, clear: bool, name: &str) -> Result<Self, MetadataError> {
        match (value, clear) {
            (Some(_), true) => {
                Err(MetadataError::InvalidRequest(format!("cannot both set and clear {name}")))
            }
            (Some(raw), false) => Ok(FieldChange::Set(tokens::normalize_text(raw))),
            (None, true) => Ok(FieldChange::Clear),
            (None, false) => Ok(FieldChange::Keep),
        }
    }

    fn apply(&self, field: &mut Option<String>) -> bool {
        let next = match self {
            FieldChange::Keep => return false,
            FieldChange::Set(value) => value.clone(),
            FieldChange::Clear => None,
        };
        let changed = *field != next;
        *field = next;
        changed
    }
}

/// A checked `pane.report_metadata`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneReport {
    pub source: String,
    pub seq: Option<u64>,
    pub ttl: Option<Duration>,
    /// The agent the presentation is meant for (matched against the pane's agent).
    pub agent: Option<String>,
    /// The hook source the presentation is meant for (matched against the pane's authority).
    pub applies_to_source: Option<String>,
    pub title: FieldChange,
    pub display_agent: FieldChange,
    /// Labels to set (`None`: empty after clean-up, removes that label).
    pub state_labels: BTreeMap<String, Option<String>>,
    pub clear_state_labels: bool,
    pub tokens: Patch,
}

impl PaneReport {
    /// Checks a report in upstream's order: source, ttl, the fields (a field both set and
    /// cleared, or nothing at all, is `invalid_metadata_request`), state label names, tokens.
    pub fn parse(p: &PaneReportMetadataParams) -> Result<Self, MetadataError> {
        let source = tokens::normalize_source(&p.source)?;
        let ttl = tokens::normalize_ttl(p.ttl_ms)?;
        let clear_labels = p.clear_state_labels.unwrap_or(false);
        let title = FieldChange::of(p.title.as_deref(), p.clear_title.unwrap_or(false), "title")?;
        let display_agent = FieldChange::of(
            p.display_agent.as_deref(),
            p.clear_display_agent.unwrap_or(false),
            "display_agent",
        )?;
        if !p.state_labels.is_empty() && clear_labels {
            return Err(MetadataError::InvalidRequest("cannot both set and clear state_labels".into()));
        }
        let nothing = title == FieldChange::Keep
            && display_agent == FieldChange::Keep
            && p.state_labels.is_empty()
            && !clear_labels
            && p.tokens.is_empty();
        if nothing {
            return Err(MetadataError::InvalidRequest("missing metadata field to set or clear".into()));
        }
        let mut state_labels = BTreeMap::new();
        for (state, label) in &p.state_labels {
            if !LABEL_STATES.contains(&state.as_str()) {
                return Err(MetadataError::InvalidRequest(format!(
                    "unknown state label {state:?}: use one of {}",
                    LABEL_STATES.join(", ")
                )));
            }
            state_labels.insert(state.clone(), tokens::normalize_text(label));
        }
        let tokens = if p.tokens.is_empty() { Patch::new() } else { tokens::normalize_tokens(&p.tokens)? };
        let clean =
            |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        Ok(PaneReport {
            source,
            seq: p.seq,
            ttl,
            agent: clean(&p.agent),
            applies_to_source: clean(&p.applies_to_source),
            title,
            display_agent,
            state_labels,
            clear_state_labels: clear_labels,
            tokens,
        })
    }

    fn has_presentation(&self) -> bool {
        self.title != FieldChange::Keep
            || self.display_agent != FieldChange::Keep
            || !self.state_labels.is_empty()
            || self.clear_state_labels
    }
}

/// Who the pane's agent is now, for the presentation guard.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgentNow<'a> {
    /// The pane's agent label (`claude`), if it hosts one.
    pub agent: Option<&'a str>,
    /// The source whose hook reports hold authority over the pane's state.
    pub authority_source: Option<&'a str>,
}

/// What applying a report changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changed {
    pub tokens: bool,
    pub presentation: bool,
}

impl Changed {
    pub fn any(self) -> bool {
        self.tokens || self.presentation
    }
}

/// A pane's metadata. Not saved in `session.json` (upstream does not persist it either).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaneMetadata {
    pub tokens: Ledger,
    title: Option<String>,
    display_agent: Option<String>,
    state_labels: BTreeMap<String, String>,
}

impl PaneMetadata {
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    pub fn display_agent(&self) -> Option<&str> {
        self.display_agent.as_deref()
    }

    pub fn state_labels(&self) -> &BTreeMap<String, String> {
        &self.state_labels
    }

    /// Checks `report` against the ledger (limits, stale `seq`) and applies it. A stale report
    /// changes nothing and is not an error.
    pub fn apply(
        &mut self,
        report: &PaneReport,
        now_agent: AgentNow<'_>,
        now: Instant,
    ) -> Result<Changed, MetadataError> {
        if self.tokens.check(&report.source, report.seq, &report.tokens, "pane")? == Verdict::Stale {
            return Ok(Changed::default());
        }
        let tokens = self.tokens.apply(&report.source, report.seq, report.tokens.clone(), report.ttl, now);
        let guard =
            |wanted: &Option<String>, have: Option<&str>| wanted.as_deref().is_none_or(|w| Some(w) == have);
        let presentation = report.has_presentation()
            && guard(&report.agent, now_agent.agent)
            && guard(&report.applies_to_source, now_agent.authority_source)
            && self.present(report);
        Ok(Changed { tokens, presentation })
    }

    fn present(&mut self, report: &PaneReport) -> bool {
        let mut changed = report.title.apply(&mut self.title);
        changed |= report.display_agent.apply(&mut self.display_agent);
        if report.clear_state_labels && !self.state_labels.is_empty() {
            self.state_labels.clear();
            changed = true;
        }
        for (state, label) in &report.state_labels {
            let before = match label {
                Some(label) => self.state_labels.insert(state.clone(), label.clone()),
                None => self.state_labels.remove(state),
            };
            changed |= before.as_ref() != label.as_ref();
        }
        changed
    }
}

#[cfg(test)]
#[path = "pane_tests.rs"]
mod tests;
