//! The target table: for every integration target, where the agent keeps its config, which files
//! herdr writes there, which of the agent's config files herdr edits and how, the asset version
//! this build writes, and the minimum version native resume needs (reference §8,
//! persistence.md). Everything per-target is data here; `install` interprets it.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::Error;
use crate::target::Target;

/// Where an agent's config dir is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// The first set variable of `vars`, else `~/<home>`.
    Var { vars: &'static [&'static str], home: &'static str },
    /// `$XDG_CONFIG_HOME/<name>`, else `~/.config/<name>`.
    XdgConfig(&'static str),
    /// OMP: `$PI_CODING_AGENT_DIR` (shared with Pi, so it can collide), else
    /// `~/${PI_CONFIG_DIR:-.omp}/agent`.
    Omp,
}

impl Dir {
    pub fn resolve(self, env: &Env, label: &'static str) -> Result<PathBuf, Error> {
        let home = |rel: &str| env.in_home(rel).ok_or(Error::NoHome { label });
        match self {
            Dir::Var { vars, home: rel } => match vars.iter().find_map(|name| env.var(name)) {
                Some(dir) => Ok(dir),
                None => home(rel),
            },
            Dir::XdgConfig(name) => match env.var("XDG_CONFIG_HOME") {
                Some(config) => Ok(config.join(name)),
                None => home(".config").map(|config| config.join(name)),
            },
            Dir::Omp => match env.var("PI_CODING_AGENT_DIR") {
                Some(dir) => Ok(dir),
                None => {
                    let config = env.var("PI_CONFIG_DIR").unwrap_or_else(|| PathBuf::from(".omp"));
                    let home = env.home.as_ref().ok_or(Error::NoHome { label })?;
                    Ok(home.join(config).join("agent"))
                }
            },
        }
    }
}

/// What a file herdr owns outright contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// The shell hook (`assets/hook.sh`) with its per-target settings.
    Hook(HookSettings),
    /// The Pi-style TypeScript extension (Pi, OMP).
    PiExtension,
    /// The OpenCode-style JavaScript plugin (OpenCode, Kilo).
    OpencodePlugin,
    HermesInit,
    HermesManifest,
}

/// How the shared hook script behaves for one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSettings {
    /// The hook events (normalized: lowercase, no `_` or `-`) whose `session` action reports
    /// the session; empty: any event. A payload without an event name counts as one of them.
    pub session_events: &'static [&'static str],
    /// `working` / `idle` / `blocked` actions report state (full-lifecycle agents).
    pub lifecycle: bool,
    /// Devin's hook payloads lack the session id: ask `devin list` for it.
    pub devin_list: bool,
}

const SESSION_START: HookSettings =
    HookSettings { session_events: &["sessionstart"], lifecycle: false, devin_list: false };
const LIFECYCLE: HookSettings = HookSettings { session_events: &[], lifecycle: true, devin_list: false };

/// One file herdr writes and owns, relative to the agent's dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asset {
    pub path: &'static str,
    pub template: Template,
}

/// The JSON layout of an agent's hook config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Claude-style: `hooks.<event>: [{matcher?, hooks: [{type: "command", command, timeout}]}]`.
    Grouped { matcher: Option<&'static str>, timeout: u64 },
    /// Copilot: `hooks.<event>: [{type: "command", bash, timeoutSec}]`.
    Direct { timeout_sec: u64 },
    /// Cursor: `hooks.<event>: [{command}]`, in a file that also says `version: 1`.
    Simple,
    /// MastraCode: `<event>: [{type: "command", command, timeout, description}]` at the top.
    Flat { timeout_ms: u64, description: &'static str },
    /// Antigravity CLI: one herdr-owned block `<name>: {<event>: [{type, command, timeout}]}`.
    Block { name: &'static str, timeout: u64 },
}

/// A change herdr makes to a config file the agent owns, relative to the agent's dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// herdr's hook entries (`(event, action)` pairs) in a JSON config.
    JsonHooks { file: &'static str, shape: Shape, events: &'static [(&'static str, &'static str)] },
    /// A file where older installs put hooks: herdr's entries are only ever removed from it.
    LegacyJsonHooks { file: &'static str, shape: Shape },
    /// Codex's `config.toml`: `[features] hooks = true`.
    CodexFeatures { file: &'static str },
    /// Kimi's `config.toml`: a herdr-managed block of `[[hooks]]` tables.
    KimiHooks { file: &'static str },
    /// Hermes' `config.yaml`: herdr's plugin in `plugins.enabled`.
    HermesPlugin { file: &'static str },
    /// Grok merges every `hooks/*.json`: herdr owns one whole file.
    GrokHooks { file: &'static str },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub target: Target,
    pub label: &'static str,
    /// The agent's executable.
    pub command: &'static str,
    pub dir: Dir,
    /// Install creates a missing agent dir (MastraCode); every other target refuses, since a
    /// config the agent never reads helps nobody.
    pub creates_dir: bool,
    /// The first asset is the one `status` reads the version from and names.
    pub assets: &'static [Asset],
    pub edits: &'static [Edit],
    /// The asset version this build writes (upstream's current numbers).
    pub version: u32,
    /// The oldest installed version whose session refs native resume uses.
    pub resume_min: u32,
}

impl Spec {
    /// The agent label the integration reports (herdr's detection name: `agy` for Antigravity).
    pub fn agent(&self) -> &'static str {
        match self.target {
            Target::AntigravityCli => "agy",
            other => other.as_str(),
        }
    }

    /// The hook script's file name, for targets that have one (how herdr recognises its hook
    /// entries in the agent's config).
    pub fn hook_script(&self) -> Option<&'static str> {
        self.assets
            .iter()
            .find(|a| matches!(a.template, Template::Hook(_)))
            .map(|a| a.path.rsplit('/').next().unwrap_or(a.path))
    }
}

const fn var(vars: &'static [&'static str], home: &'static str) -> Dir {
    Dir::Var { vars, home }
}

const fn hook(path: &'static str, settings: HookSettings) -> Asset {
    Asset { path, template: Template::Hook(settings) }
}

const GROUPED: Shape = Shape::Grouped { matcher: None, timeout: 10 };
const SESSION: &[(&str, &str)] = &[("SessionStart", "session")];

const KIMI_EVENTS: &[(&str, Option<&str>, &str)] = &[
    ("SessionStart", None, "session"),
    ("UserPromptSubmit", None, "working"),
    ("PreToolUse", Some("^(?!AskUserQuestion$).*$"), "working"),
    ("PreToolUse", Some("^AskUserQuestion$"), "blocked"),
    ("PostToolUse", Some("^AskUserQuestion$"), "working"),
    ("PostToolUseFailure", Some("^AskUserQuestion$"), "working"),
    ("SubagentStart", None, "working"),
    ("PreCompact", None, "working"),
    ("PermissionRequest", None, "blocked"),
    ("PermissionResult", None, "working"),
    ("Stop", None, "idle"),
    ("Interrupt", None, "idle"),
];

/// Kimi's `[[hooks]]` tables: `(event, matcher, action)`.
pub fn kimi_events() -> &'static [(&'static str, Option<&'static str>, &'static str)] {
    KIMI_EVENTS
}

/// Every target, in the schema's order.
pub const SPECS: [Spec; 17] = [
    Spec {
        target: Target::Pi,
        label: "Pi",
        command: "pi",
        dir: var(&["PI_CODING_AGENT_DIR"], ".pi/agent"),
        creates_dir: false,
        assets: &[Asset { path: "extensions/herdr-agent-state.ts", template: Template::PiExtension }],
        edits: &[],
        version: 8,
        resume_min: 2,
    },
    Spec {
        target: Target::Omp,
        label: "OMP",
        command: "omp",
        dir: Dir::Omp,
        creates_dir: false,
        assets: &[Asset { path: "extensions/herdr-omp-agent-state.ts", template: Template::PiExtension }],
        edits: &[],
        version: 8,
        resume_min: 3,
    },
    Spec {
        target: Target::Claude,
        label: "Claude Code",
        command: "claude",
        dir: var(&["CLAUDE_CONFIG_DIR"], ".claude"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", SESSION_START)],
        edits: &[Edit::JsonHooks { file: "settings.json", shape: GROUPED, events: SESSION }],
        version: 8,
        resume_min: 6,
    },
    Spec {
        target: Target::Codex,
        label: "Codex",
        command: "codex",
        dir: var(&["CODEX_HOME"], ".codex"),
        creates_dir: false,
        assets: &[hook("herdr-agent-state.sh", SESSION_START)],
        edits: &[
            Edit::JsonHooks { file: "hooks.json", shape: GROUPED, events: SESSION },
            Edit::CodexFeatures { file: "config.toml" },
        ],
        version: 8,
        resume_min: 5,
    },
    Spec {
        target: Target::Copilot,
        label: "GitHub Copilot CLI",
        command: "copilot",
        dir: var(&["COPILOT_HOME"], ".copilot"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", SESSION_START)],
        edits: &[Edit::JsonHooks {
            file: "settings.json",
            shape: Shape::Direct { timeout_sec: 10 },
            events: SESSION,
        }],
        version: 3,
        resume_min: 2,
    },
    Spec {
        target: Target::Devin,
        label: "Devin CLI",
        command: "devin",
        dir: Dir::XdgConfig("devin"),
        creates_dir: false,
        assets: &[hook(
            "herdr-agent-state.sh",
            HookSettings {
                session_events: &[
                    "sessionstart",
                    "userpromptsubmit",
                    "pretooluse",
                    "posttooluse",
                    "permissionrequest",
                    "stop",
                ],
                lifecycle: false,
                devin_list: true,
            },
        )],
        edits: &[Edit::JsonHooks {
            file: "config.json",
            shape: GROUPED,
            // Every event refreshes the ref: Devin can switch sessions inside one run.
            events: &[
                ("SessionStart", "session"),
                ("UserPromptSubmit", "session"),
                ("PreToolUse", "session"),
                ("PostToolUse", "session"),
                ("PermissionRequest", "session"),
                ("Stop", "session"),
            ],
        }],
        version: 2,
        resume_min: 2,
    },
    Spec {
        target: Target::Droid,
        label: "Droid",
        command: "droid",
        dir: var(&[], ".factory"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", SESSION_START)],
        edits: &[
            Edit::JsonHooks { file: "settings.json", shape: GROUPED, events: SESSION },
            Edit::LegacyJsonHooks { file: "hooks.json", shape: GROUPED },
        ],
        version: 3,
        resume_min: 2,
    },
    Spec {
        target: Target::Kimi,
        label: "Kimi Code CLI",
        command: "kimi",
        dir: var(&["KIMI_CODE_HOME"], ".kimi-code"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", LIFECYCLE)],
        edits: &[Edit::KimiHooks { file: "config.toml" }],
        version: 7,
        resume_min: 3,
    },
    Spec {
        target: Target::Opencode,
        label: "OpenCode",
        command: "opencode",
        dir: Dir::XdgConfig("opencode"),
        creates_dir: false,
        assets: &[Asset { path: "plugins/herdr-agent-state.js", template: Template::OpencodePlugin }],
        edits: &[],
        version: 10,
        resume_min: 5,
    },
    Spec {
        target: Target::Kilo,
        label: "Kilo Code CLI",
        command: "kilo",
        dir: Dir::XdgConfig("kilo"),
        creates_dir: false,
        assets: &[Asset { path: "plugin/herdr-agent-state.js", template: Template::OpencodePlugin }],
        edits: &[],
        version: 4,
        resume_min: 1,
    },
    Spec {
        target: Target::Hermes,
        label: "Hermes Agent",
        command: "hermes",
        dir: var(&["HERMES_HOME"], ".hermes"),
        creates_dir: false,
        assets: &[
            Asset { path: "plugins/herdr-agent-state/__init__.py", template: Template::HermesInit },
            Asset { path: "plugins/herdr-agent-state/plugin.yaml", template: Template::HermesManifest },
        ],
        edits: &[Edit::HermesPlugin { file: "config.yaml" }],
        version: 5,
        resume_min: 2,
    },
    Spec {
        target: Target::Qodercli,
        label: "Qoder CLI",
        command: "qodercli",
        dir: var(&["QODER_CONFIG_DIR"], ".qoder"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", SESSION_START)],
        edits: &[Edit::JsonHooks {
            file: "settings.json",
            shape: Shape::Grouped { matcher: Some("*"), timeout: 10 },
            events: SESSION,
        }],
        version: 3,
        resume_min: 2,
    },
    Spec {
        target: Target::Qwen,
        label: "Qwen Code",
        command: "qwen",
        dir: var(&["QWEN_HOME"], ".qwen"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-session.sh", SESSION_START)],
        edits: &[Edit::JsonHooks {
            file: "settings.json",
            // Qwen's hook timeouts are milliseconds.
            shape: Shape::Grouped { matcher: Some("*"), timeout: 10_000 },
            events: SESSION,
        }],
        version: 1,
        resume_min: 1,
    },
    Spec {
        target: Target::Cursor,
        label: "Cursor Agent CLI",
        command: "cursor-agent",
        dir: var(&["CURSOR_CONFIG_DIR"], ".cursor"),
        creates_dir: false,
        assets: &[hook("herdr-agent-state.sh", SESSION_START)],
        edits: &[Edit::JsonHooks {
            file: "hooks.json",
            shape: Shape::Simple,
            events: &[("sessionStart", "session")],
        }],
        version: 1,
        resume_min: 1,
    },
    Spec {
        target: Target::Mastracode,
        label: "MastraCode",
        command: "mastracode",
        dir: var(&[], ".mastracode"),
        creates_dir: true,
        assets: &[hook("hooks/herdr-agent-state.sh", LIFECYCLE)],
        edits: &[Edit::JsonHooks {
            file: "hooks.json",
            shape: Shape::Flat { timeout_ms: 10_000, description: "Report MastraCode agent state to herdr" },
            events: &[
                ("SessionStart", "session"),
                ("UserPromptSubmit", "working"),
                ("AgentStart", "working"),
                ("PreToolUse", "working"),
                ("PermissionRequest", "blocked"),
                ("PermissionResult", "working"),
                ("SubagentStart", "working"),
                ("SubagentEnd", "working"),
                ("Interrupt", "idle"),
                ("AgentEnd", "idle"),
                ("Stop", "idle"),
            ],
        }],
        version: 2,
        resume_min: 1,
    },
    Spec {
        target: Target::AntigravityCli,
        label: "Antigravity CLI",
        command: "agy",
        dir: var(&["ANTIGRAVITY_CLI_CONFIG_DIR"], ".gemini/config"),
        creates_dir: false,
        assets: &[hook(
            "hooks/herdr-agent-state.sh",
            // PreInvocation carries the conversation id; nothing else is needed for resume.
            HookSettings { session_events: &["preinvocation"], lifecycle: false, devin_list: false },
        )],
        edits: &[Edit::JsonHooks {
            file: "hooks.json",
            shape: Shape::Block { name: "herdr", timeout: 10 },
            events: &[("PreInvocation", "session")],
        }],
        version: 2,
        resume_min: 1,
    },
    Spec {
        target: Target::Grok,
        label: "Grok CLI",
        command: "grok",
        dir: var(&["GROK_CONFIG_DIR", "GROK_HOME"], ".grok"),
        creates_dir: false,
        assets: &[hook("hooks/herdr-agent-state.sh", SESSION_START)],
        edits: &[Edit::GrokHooks { file: "hooks/herdr.json" }],
        // Upstream's reference list says 1, but resume needs 2 and upstream ships 2 now: a
        // fresh install must be able to resume.
        version: 2,
        resume_min: 2,
    },
];

/// The table row of `target`.
pub fn spec(target: Target) -> &'static Spec {
    // SPECS lists every target (tested), so the fallback is never taken.
    SPECS.iter().find(|s| s.target == target).unwrap_or(&SPECS[0])
}

#[cfg(test)]
mod tests;
