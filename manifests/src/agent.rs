//! The agents herdr knows, their canonical labels, interactive executables and aliases, and the
//! detector states.
//!
//! This is vocabulary only: how a process is recognised lives in `identity`, how a screen is judged
//! in `eval`.

use serde::{Deserialize, Serialize};

/// What a screen evaluation (or the machine built on it) says an agent is doing.
/// `done` is not a detector state: it is `Idle` not yet seen by a focused client, decided by the
/// supervisor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentState {
    Idle,
    Working,
    Blocked,
    Unknown,
}

impl AgentState {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentState::Idle => "idle",
            AgentState::Working => "working",
            AgentState::Blocked => "blocked",
            AgentState::Unknown => "unknown",
        }
    }
}

/// Every agent kind herdr knows (upstream's 22, in upstream's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Pi,
    Claude,
    Codex,
    Gemini,
    Cursor,
    Devin,
    Agy,
    Cline,
    Omp,
    Mastracode,
    Opencode,
    Copilot,
    Kimi,
    Kiro,
    Droid,
    Amp,
    Grok,
    Hermes,
    Kilo,
    Qodercli,
    Qwen,
    Maki,
}

impl Agent {
    pub const ALL: [Agent; 22] = [
        Agent::Pi,
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::Devin,
        Agent::Agy,
        Agent::Cline,
        Agent::Omp,
        Agent::Mastracode,
        Agent::Opencode,
        Agent::Copilot,
        Agent::Kimi,
        Agent::Kiro,
        Agent::Droid,
        Agent::Amp,
        Agent::Grok,
        Agent::Hermes,
        Agent::Kilo,
        Agent::Qodercli,
        Agent::Qwen,
        Agent::Maki,
    ];

    /// The canonical label: used in the API (`agent` fields), manifest ids and override file names.
    pub fn label(self) -> &'static str {
        match self {
            Agent::Pi => "pi",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Devin => "devin",
            Agent::Agy => "agy",
            Agent::Cline => "cline",
            Agent::Omp => "omp",
            Agent::Mastracode => "mastracode",
            Agent::Opencode => "opencode",
            Agent::Copilot => "copilot",
            Agent::Kimi => "kimi",
            Agent::Kiro => "kiro",
            Agent::Droid => "droid",
            Agent::Amp => "amp",
            Agent::Grok => "grok",
            Agent::Hermes => "hermes",
            Agent::Kilo => "kilo",
            Agent::Qodercli => "qodercli",
            Agent::Qwen => "qwen",
            Agent::Maki => "maki",
        }
    }

    /// The executable `agent.start` types into the shell for this kind.
    pub fn interactive_executable(self) -> &'static str {
        match self {
            Agent::Cursor => "cursor-agent",
            Agent::Kiro => "kiro-cli",
            other => other.label(),
        }
    }

    /// omp and mastracode are hook-only: they have no screen manifest.
    pub fn has_screen_manifest(self) -> bool {
        !matches!(self, Agent::Omp | Agent::Mastracode)
    }

    /// Resolves a canonical label exactly (no aliases).
    pub fn from_label(label: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.label() == label)
    }

    /// Resolves a process or user-supplied name: lowercased, one of `.exe .cmd .bat .ps1 .js`
    /// stripped, then canonical label, interactive executable or alias table.
    pub fn lookup(name: &str) -> Option<Agent> {
        let lower = name.trim().to_lowercase();
        let stem = [".exe", ".cmd", ".bat", ".ps1", ".js"]
            .iter()
            .find_map(|ext| lower.strip_suffix(ext))
            .unwrap_or(&lower);
        if stem.is_empty() {
            return None;
        }
        Agent::from_label(stem)
            .or_else(|| Agent::ALL.into_iter().find(|a| a.interactive_executable() == stem))
            .or_else(|| ALIASES.iter().find(|(alias, _)| *alias == stem).map(|(_, agent)| *agent))
    }
}

/// Upstream's alias table (after lowercasing and extension stripping).
const ALIASES: &[(&str, Agent)] = &[
    ("claude-code", Agent::Claude),
    ("cursor-agent", Agent::Cursor),
    ("devin-cli", Agent::Devin),
    ("devin cli", Agent::Devin),
    ("antigravity", Agent::Agy),
    ("antigravity-cli", Agent::Agy),
    ("mastra-code", Agent::Mastracode),
    ("mastra code", Agent::Mastracode),
    ("opencode2", Agent::Opencode),
    ("open-code", Agent::Opencode),
    ("github-copilot", Agent::Copilot),
    ("ghcs", Agent::Copilot),
    ("kimi-code", Agent::Kimi),
    ("kimi code", Agent::Kimi),
    ("kiro-cli", Agent::Kiro),
    ("amp-local", Agent::Amp),
    ("grok-build", Agent::Grok),
    ("hermes-agent", Agent::Hermes),
    ("kilo-code", Agent::Kilo),
    ("kilo code", Agent::Kilo),
    ("qoderclicn", Agent::Qodercli),
    ("qoder", Agent::Qodercli),
    ("qodercn", Agent::Qodercli),
    ("qwen-code", Agent::Qwen),
    ("qwen code", Agent::Qwen),
];

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}
