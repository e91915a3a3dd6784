//! The pane subcommands agent hooks and integrations call: `report-agent`,
//! `report-agent-session`, `release-agent` and `report-metadata`. All are silent on success and
//! use the request id `cli:request`.

use clap::{ArgAction, Args, ValueEnum};
use serde_json::{Map, Value};

use crate::args::parse_token_assignment;
use crate::request::{ApiRequest, SILENT_ID, UsageError};
use crate::workspace::{source_id, token_map};

/// A hook-reported agent state (no `done`: that is derived by herdr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaneAgentState {
    Idle,
    Working,
    Blocked,
    Unknown,
}

impl PaneAgentState {
    fn wire(self) -> &'static str {
        match self {
            PaneAgentState::Idle => "idle",
            PaneAgentState::Working => "working",
            PaneAgentState::Blocked => "blocked",
            PaneAgentState::Unknown => "unknown",
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
        Ok(ApiRequest::new(SILENT_ID, "pane.report_agent")
            .with("pane_id", self.pane_id.as_str())
            .with("source", source_id(&self.source)?)
            .with("agent", self.agent.as_str())
            .with("state", self.state.wire())
            .with_opt("message", self.message.clone())
            .with_opt("seq", self.seq)
            .with_opt("agent_session_id", self.agent_session_id.clone())
            .with_opt("agent_session_path", self.agent_session_path.clone()))
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
        Ok(ApiRequest::new(SILENT_ID, "pane.report_agent_session")
            .with("pane_id", self.pane_id.as_str())
            .with("source", source_id(&self.source)?)
            .with("agent", self.agent.as_str())
            .with_opt("seq", self.seq)
            .with_opt("agent_session_id", self.agent_session_id.clone())
            .with_opt("agent_session_path", self.agent_session_path.clone())
            .with_opt("session_start_source", self.session_start_source.clone()))
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
        Ok(ApiRequest::new(SILENT_ID, "pane.release_agent")
            .with("pane_id", self.pane_id.as_str())
            .with("source", source_id(&self.source)?)
            .with("agent", self.agent.as_str())
            .with_opt("seq", self.seq))
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

fn parse_state_label(raw: &str) -> Result<(String, String), String> {
    let (status, label) = raw.split_once('=').ok_or("expected --state-label STATUS=TEXT")?;
    let status = status.trim().to_ascii_lowercase();
    if !matches!(status.as_str(), "idle" | "working" | "blocked" | "done" | "unknown") {
        return Err(format!("unknown state label: {status}"));
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
        let state_labels: Map<String, Value> =
            self.state_label.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
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
        Ok(ApiRequest::new(SILENT_ID, "pane.report_metadata")
            .with("pane_id", self.pane_id.as_str())
            .with("source", source)
            .with_opt("agent", self.agent.clone())
            .with_opt("applies_to_source", self.applies_to_source.clone())
            .with_opt("title", self.title.clone())
            .with_opt("display_agent", self.display_agent.clone())
            .with_map("state_labels", state_labels)
            .with_map("tokens", tokens)
            .with_flag("clear_title", self.clear_title)
            .with_flag("clear_display_agent", self.clear_display_agent)
            .with_flag("clear_state_labels", self.clear_state_labels)
            .with_opt("seq", self.seq)
            .with_opt("ttl_ms", self.ttl_ms))
    }
}
