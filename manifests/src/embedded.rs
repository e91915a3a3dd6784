//! The bundled manifests, embedded in the binary at build time from `manifests/agents/`.
//!
//! Adding an agent's manifest means adding its file here and in `agents/`; a test checks that the
//! table and the folder agree and that every bundled file compiles.

use crate::agent::Agent;

/// (file name, contents) of every bundled manifest; the file stem is the agent's label.
pub const BUNDLED: &[(&str, &str)] = &[
    ("agy.toml", include_str!("../agents/agy.toml")),
    ("amp.toml", include_str!("../agents/amp.toml")),
    ("claude.toml", include_str!("../agents/claude.toml")),
    ("cline.toml", include_str!("../agents/cline.toml")),
    ("codex.toml", include_str!("../agents/codex.toml")),
    ("copilot.toml", include_str!("../agents/copilot.toml")),
    ("cursor.toml", include_str!("../agents/cursor.toml")),
    ("devin.toml", include_str!("../agents/devin.toml")),
    ("droid.toml", include_str!("../agents/droid.toml")),
    ("gemini.toml", include_str!("../agents/gemini.toml")),
    ("grok.toml", include_str!("../agents/grok.toml")),
    ("hermes.toml", include_str!("../agents/hermes.toml")),
    ("kilo.toml", include_str!("../agents/kilo.toml")),
    ("kimi.toml", include_str!("../agents/kimi.toml")),
    ("kiro.toml", include_str!("../agents/kiro.toml")),
    ("maki.toml", include_str!("../agents/maki.toml")),
    ("opencode.toml", include_str!("../agents/opencode.toml")),
    ("pi.toml", include_str!("../agents/pi.toml")),
    ("qodercli.toml", include_str!("../agents/qodercli.toml")),
    ("qwen.toml", include_str!("../agents/qwen.toml")),
];

/// The agent a bundled (or override) file name is for: its stem, resolved like a process name.
pub fn agent_for_file_name(file_name: &str) -> Option<Agent> {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    base.strip_suffix(".toml").and_then(Agent::lookup)
}
