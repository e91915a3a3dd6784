//! The environment an integration is installed against: the home dir and the variables agents use
//! to move their config dirs. Plain data, so tests point it at temp dirs and nothing reads the
//! real process environment behind their back.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Every variable an agent's config dir can come from (see the target table in `spec`).
pub const DIR_VARS: &[&str] = &[
    "XDG_CONFIG_HOME",
    "PI_CODING_AGENT_DIR",
    "PI_CONFIG_DIR",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "KIMI_CODE_HOME",
    "HERMES_HOME",
    "QODER_CONFIG_DIR",
    "QWEN_HOME",
    "CURSOR_CONFIG_DIR",
    "ANTIGRAVITY_CLI_CONFIG_DIR",
    "GROK_CONFIG_DIR",
    "GROK_HOME",
];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    pub home: Option<PathBuf>,
    /// Set, non-empty [`DIR_VARS`] by name.
    pub vars: BTreeMap<String, PathBuf>,
}

impl Env {
    /// An environment with only `HOME` set.
    pub fn with_home(home: impl Into<PathBuf>) -> Self {
        Env { home: Some(home.into()), vars: BTreeMap::new() }
    }

    /// This environment with `name` set to `value`.
    pub fn with_var(mut self, name: &str, value: impl Into<PathBuf>) -> Self {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// Reads the variables through `lookup`; empty values count as unset, as shells treat them.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let vars = DIR_VARS.iter().filter_map(|name| Some(((*name).to_owned(), var(name)?))).collect();
        Env { home: var("HOME"), vars }
    }

    pub fn from_process_env() -> Self {
        Env::from_lookup(|name| std::env::var_os(name))
    }

    /// The variable's value as a dir: `~` and `~/…` are the home dir (agents expand them too).
    pub fn var(&self, name: &str) -> Option<PathBuf> {
        let value = self.vars.get(name)?;
        Some(match (value.to_str(), &self.home) {
            (Some("~"), Some(home)) => home.clone(),
            (Some(text), Some(home)) if text.starts_with("~/") => home.join(&text[2..]),
            _ => value.clone(),
        })
    }

    /// `home` joined with `rel`, if there is a home.
    pub fn in_home(&self, rel: impl AsRef<Path>) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_are_unset_and_tildes_are_the_home() {
        let env = Env::from_lookup(|name| match name {
            "HOME" => Some("/h".into()),
            "CODEX_HOME" => Some("".into()),
            "QWEN_HOME" => Some("~/q".into()),
            "GROK_HOME" => Some("~".into()),
            _ => None,
        });
        assert_eq!(env.var("CODEX_HOME"), None);
        assert_eq!(env.var("QWEN_HOME"), Some(PathBuf::from("/h/q")));
        assert_eq!(env.var("GROK_HOME"), Some(PathBuf::from("/h")));
        assert_eq!(Env::with_home("/x").with_var("HERMES_HOME", "/y").var("HERMES_HOME"), Some("/y".into()));
    }
}
