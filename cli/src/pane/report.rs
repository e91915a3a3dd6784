//! The pane subcommands agent hooks and integrations call: `report-agent`,
//! `report-agent-session`, `release-agent` and `report-metadata`. All are silent on success and
//! use the request id `cli:request`.

use clap::{ArgAction, Args, ValueEnum};
use std::collections::BTreeMap;

use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    PaneReleaseAgentParams, PaneReportAgentParams, PaneReportAgentSessionParams, PaneReportMetadataParams,
    PaneRequest, ReportedState,
};

use crate::args::{ValueError, parse_token_assignment};
use crate::request::{ApiRequest, SILENT_ID, UsageError};
use crate::workspace::{source_id, token_map};

/// A silent (`cli:request`) pane request.
fn silent(request: PaneRequest) -> ApiRequest {
    ApiRequest::new(SILENT_ID, Request::Pane(request))
}

/// A hook-reported agent state (no `done`: that is derived by herdr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaneAgentState {
    Idle,
    Working,
    Blocked,
    Unknown,
}

impl PaneAgentState {
    fn wire(self) -> ReportedState {
        match self {
            PaneAgentState::Idle => ReportedState::Idle,
            PaneAgentState::Working => ReportedState::Working,
            PaneAgentState::Blocked => ReportedState::Blocked,
            PaneAgentState::Unknown => ReportedState::Unknown,
        }
    }
}

#[derive(Debug, Args)]
pub struct ReportAgentArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    #[arg(long, value_name = "ID", required = true)]
    pub source: String,
    #[arg(long, value_name = "LABEL", required = true)]
    pub agent: String,
    #[arg(long, value_enum, value_name = "STATUS", required = true)]
    pub state: PaneAgentState,
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    #[arg(long, value_name = "N")]
    pub seq: Option<u64>,
    #[arg(long = "agent-session-id", value_name = "ID")]
    pub agent_session_id: Option<String>,
    #[arg(long = "agent-session-path", value_name = "PATH")]
    pub agent_session_path: Option<String>,
}

impl ReportAgentArgs {
    pub fn request(&self) -> Result<ApiRequest, UsageError> {
        Ok(silent(PaneRequest::ReportAgent(PaneReportAgentParams {
            pane_id: self.pane_id.as_str().into(),
            source: source_id(&self.source)?,
            agent: self.agent.clone(),
            state: self.state.wire(),
            message: self.message.clone(),
            seq: self.seq,
            agent_session_id: self.agent_session_id.clone(),
            agent_session_path: self.agent_session_path.clone(),
        })))
    }
}

#[derive(Debug, Args)]
pub struct ReportAgentSessionArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    #[arg(long, value_name = "ID", required = true)]
    pub source: String,
    #[arg(long, value_name = "LABEL", required = true)]
    pub agent: String,
    #[arg(long, value_name = "N")]
    pub seq: Option<u64>,
    #[arg(long = "agent-session-id", value_name = "ID")]
    pub agent_session_id: Option<String>,
    #[arg(long = "agent-session-path", value_name = "PATH")]
    pub agent_session_path: Option<String>,
    #[arg(long = "session-start-source", value_name = "SOURCE")]
    pub session_start_source: Option<String>,
}

impl ReportAgentSessionArgs {
    pub fn request(&self) -> Result<ApiRequest, UsageError> {
        Ok(silent(PaneRequest::ReportAgentSession(PaneReportAgentSessionParams {
            pane_id: self.pane_id.as_str().into(),
            source: source_id(&self.source)?,
            agent: self.agent.clone(),
            seq: self.seq,
            agent_session_id: self.agent_session_id.clone(),
            agent_session_path: self.agent_session_path.clone(),
            session_start_source: self.session_start_source.clone(),
        })))
    }
}

#[derive(Debug, Args)]
pub struct ReleaseAgentArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    #[arg(long, value_name = "ID", required = true)]
    pub source: String,
    #[arg(long, value_name = "LABEL", required = true)]
    pub agent: String,
    #[arg(long, value_name = "N")]
    pub seq: Option<u64>,
}

impl ReleaseAgentArgs {
    pub fn request(&self) -> Result<ApiRequest, UsageError> {
        Ok(silent(PaneRequest::ReleaseAgent(PaneReleaseAgentParams {
            pane_id: self.pane_id.as_str().into(),
            source: source_id(&self.source)?,
            agent: self.agent.clone(),
            seq: self.seq,
        })))
    }
}

#[derive(Debug, Args)]
pub struct ReportMetadataArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    #[arg(long, value_name = "ID", required = true)]
    pub source: String,
    #[arg(long, value_name = "LABEL")]
    pub agent: Option<String>,
    #[arg(long = "applies-to-source", value_name = "ID")]
    pub applies_to_source: Option<String>,
    #[arg(long, value_name = "TEXT", conflicts_with = "clear_title")]
    pub title: Option<String>,
    #[arg(long = "clear-title")]
    pub clear_title: bool,
    #[arg(long = "display-agent", value_name = "TEXT", conflicts_with = "clear_display_agent")]
    pub display_agent: Option<String>,
    #[arg(long = "clear-display-agent")]
    pub clear_display_agent: bool,
    /// Label for one status: idle, working, blocked, done or unknown (repeatable)
    #[arg(long = "state-label", value_name = "STATUS=TEXT", value_parser = parse_state_label,
          action = ArgAction::Append, conflicts_with = "clear_state_labels")]
    pub state_label: Vec<(String, String)>,
    #[arg(long = "clear-state-labels")]
    pub clear_state_labels: bool,
    /// Set a token (repeatable)
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_token_assignment, action = ArgAction::Append)]
    pub token: Vec<(String, String)>,
    /// Clear a token (repeatable)
    #[arg(long = "clear-token", value_name = "NAME", action = ArgAction::Append)]
    pub clear_token: Vec<String>,
    #[arg(long, value_name = "N")]
    pub seq: Option<u64>,
    #[arg(long = "ttl-ms", value_name = "N")]
    pub ttl_ms: Option<u64>,
}

fn parse_state_label(raw: &str) -> Result<(String, String), ValueError> {
    let (status, label) = raw.split_once('=').ok_or(ValueError::StateLabelForm)?;
    let status = status.trim().to_ascii_lowercase();
    if !matches!(status.as_str(), "idle" | "working" | "blocked" | "done" | "unknown") {
        return Err(ValueError::StateLabel(status));
    }
    Ok((status, label.to_owned()))
}

impl ReportMetadataArgs {
    pub fn request(&self) -> Result<ApiRequest, UsageError> {
        let source = source_id(&self.source)?;
        if self.applies_to_source.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(UsageError::new("missing value for --applies-to-source"));
        }
        let tokens = token_map(&self.token, &self.clear_token);
        let state_labels: BTreeMap<String, String> = self.state_label.iter().cloned().collect();
        let sets_something = self.title.is_some()
            || self.display_agent.is_some()
            || !state_labels.is_empty()
            || !tokens.is_empty()
            || self.clear_title
            || self.clear_display_agent
            || self.clear_state_labels;
        if !sets_something {
            return Err(UsageError::new("missing metadata field to set or clear"));
        }
        Ok(silent(PaneRequest::ReportMetadata(PaneReportMetadataParams {
            pane_id: self.pane_id.as_str().into(),
            source,
            agent: self.agent.clone(),
            applies_to_source: self.applies_to_source.clone(),
            seq: self.seq,
            ttl_ms: self.ttl_ms,
            title: self.title.clone(),
            display_agent: self.display_agent.clone(),
            state_labels,
            tokens,
            // Flags are sent only when set.
            clear_title: self.clear_title.then_some(true),
            clear_display_agent: self.clear_display_agent.then_some(true),
            clear_state_labels: self.clear_state_labels.then_some(true),
        })))
    }
}
