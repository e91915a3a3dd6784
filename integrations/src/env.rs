//! The environment an integration is installed against: the home dir and the variables agents use
//! to move their config dirs. Plain data, so tests point it at temp dirs and nothing reads the
//! real process environment behind their back.

use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    pub home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (OpenCode's config lives under it, default `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (default `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME` (default `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `PI_CODING_AGENT_DIR` (default `~/.pi/agent`).
    pub pi_coding_agent_dir: Option<PathBuf>,
}

impl Env {
    /// Reads the variables through `lookup`; empty values count as unset, as shells treat them.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.is_empty());
        let dir = |name: &str| var(name).map(PathBuf::from);
        Env {
            home: dir("HOME"),
            xdg_config_home: dir("XDG_CONFIG_HOME"),
            claude_config_dir: dir("CLAUDE_CONFIG_DIR"),
            codex_home: dir("CODEX_HOME"),
            pi_coding_agent_dir: dir("PI_CODING_AGENT_DIR"),
        }
    }

    pub fn from_process_env() -> Self {
        Env::from_lookup(|name| std::env::var_os(name))
    }
}
