//! Native agent resume (reference §3.5, persistence.md "Native agent session resume"): which
//! restored panes start their agent's own resume command instead of a shell, and with which argv.
//!
//! Pure: the one outside fact it needs, whether a session file still exists, arrives as a
//! callback, so the server passes `Path::exists` and tests pass a set.
//!
//! Rules, in order, for each saved session ref:
//! - only herdr's own integrations are trusted: the `(source, agent)` pair must be one of
//!   [`RESUMABLE`] (a custom source could name any program);
//! - an id is 1..=512 bytes without control characters; a path (Pi and OMP only) is absolute,
//!   at most 4096 bytes, without control characters, and the file must still exist ("stale"
//!   otherwise: the agent would start a new conversation under the old name);
//! - the first pane (in layout order) holding a given agent conversation resumes it; later
//!   panes with the same agent and value restore as shells, since two agents writing one
//!   conversation corrupt it.

use std::collections::HashSet;
use std::path::Path;

use herdr_protocol::api::{AgentSessionInfo, AgentSessionRefKind};

/// Longest session id herdr resumes, in bytes.
pub const MAX_SESSION_ID_BYTES: usize = 512;
/// Longest session file path herdr resumes, in bytes.
pub const MAX_SESSION_PATH_BYTES: usize = 4096;

/// How a session value goes on the agent's command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `<program> <arg> <value>` (`claude --resume ID`, `codex resume ID`).
    Separate(&'static str),
    /// `<program> <arg><value>` (`copilot --resume=ID`): the value cannot be mistaken for a flag.
    Joined(&'static str),
    /// Letta: `letta --conversation ID`, or for `default:<agent-id>` the agent's default
    /// conversation, `letta --conversation default --agent <agent-id>`.
    Letta,
}

/// One official integration whose session ref herdr can resume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumable {
    pub source: &'static str,
    /// The canonical agent label the integration reports.
    pub agent: &'static str,
    pub program: &'static str,
    form: Form,
    /// Pi and OMP report their session file; every other agent only an id.
    accepts_paths: bool,
}

const fn id(source: &'static str, agent: &'static str, program: &'static str, form: Form) -> Resumable {
    Resumable { source, agent, program, form, accepts_paths: false }
}

/// Upstream's resume table (`agent_resume::plan`).
pub const RESUMABLE: &[Resumable] = &[
    Resumable {
        source: "herdr:pi",
        agent: "pi",
        program: "pi",
        form: Form::Separate("--session"),
        accepts_paths: true,
    },
    Resumable {
        source: "herdr:omp",
        agent: "omp",
        program: "omp",
        // OMP has no `--session`; its `--resume=` takes an id prefix or a path.
        form: Form::Joined("--resume="),
        accepts_paths: true,
    },
    id("herdr:claude", "claude", "claude", Form::Separate("--resume")),
    id("herdr:codex", "codex", "codex", Form::Separate("resume")),
    id("herdr:copilot", "copilot", "copilot", Form::Joined("--resume=")),
    id("herdr:devin", "devin", "devin", Form::Separate("--resume")),
    id("herdr:droid", "droid", "droid", Form::Separate("--resume")),
    id("herdr:kimi", "kimi", "kimi", Form::Separate("--session")),
    id("herdr:mastracode", "mastracode", "mastracode", Form::Separate("--thread")),
    id("herdr:hermes", "hermes", "hermes", Form::Separate("--resume")),
    id("herdr:opencode", "opencode", "opencode", Form::Separate("--session")),
    id("herdr:kilo", "kilo", "kilo", Form::Separate("--session")),
    id("herdr:qodercli", "qodercli", "qodercli", Form::Separate("--resume")),
    id("herdr:qwen", "qwen", "qwen", Form::Separate("--resume")),
    id("herdr:cursor", "cursor", "cursor-agent", Form::Separate("--resume")),
    id("herdr:antigravity_cli", "agy", "agy", Form::Separate("--conversation")),
    id("herdr:grok", "grok", "grok", Form::Separate("--resume")),
    id("herdr:letta", "letta", "letta", Form::Letta),
];

/// Why a saved session ref restores as a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Not one of herdr's own resumable integrations.
    Unsupported,
    /// Empty, too long, control characters, a relative path, or a path for an id-only agent.
    Invalid,
    /// The session file it names no longer exists.
    Stale,
    /// An earlier pane resumes the same conversation.
    Duplicate,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Unsupported => "unsupported",
            Skip::Invalid => "invalid",
            Skip::Stale => "stale",
            Skip::Duplicate => "duplicate",
        }
    }
}

/// The table row for `(source, agent)`, if herdr resumes it.
pub fn resumable(source: &str, agent: &str) -> Option<&'static Resumable> {
    RESUMABLE.iter().find(|r| r.source == source && r.agent == agent)
}

fn valid_id(value: &str) -> bool {
    !value.is_empty() && value.len() <= MAX_SESSION_ID_BYTES && !value.chars().any(char::is_control)
}

fn valid_path(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= MAX_SESSION_PATH_BYTES
        && !value.chars().any(char::is_control)
        && Path::new(value).is_absolute()
}

/// The resume command for one saved ref, ignoring duplicates (see [`plan`]).
pub fn resume_argv(info: &AgentSessionInfo, exists: &dyn Fn(&Path) -> bool) -> Result<Vec<String>, Skip> {
    let row = resumable(&info.source, &info.agent).ok_or(Skip::Unsupported)?;
    let value = info.value.as_str();
    match info.kind {
        AgentSessionRefKind::Id if !valid_id(value) => return Err(Skip::Invalid),
        AgentSessionRefKind::Path if !row.accepts_paths || !valid_path(value) => return Err(Skip::Invalid),
        AgentSessionRefKind::Path if !exists(Path::new(value)) => return Err(Skip::Stale),
        AgentSessionRefKind::Id | AgentSessionRefKind::Path => {}
    }
    let program = row.program.to_owned();
    Ok(match row.form {
        Form::Separate(arg) => vec![program, arg.to_owned(), value.to_owned()],
        Form::Joined(arg) => vec![program, format!("{arg}{value}")],
        Form::Letta => match value.strip_prefix("default:") {
            Some("") => return Err(Skip::Invalid),
            Some(agent_id) => {
                vec![program, "--conversation".into(), "default".into(), "--agent".into(), agent_id.into()]
            }
            None => vec![program, "--conversation".into(), value.to_owned()],
        },
    })
}

/// What keeps the pane after the agent: `sh -c` runs the resume command as its argument list
/// (no quoting of ids or paths needed), then becomes the user's shell, so quitting the agent, or
/// an agent that cannot start or resume, leaves the pane a shell in its directory (upstream types
/// the command into a fresh shell for the same reason). A trapped SIGINT or SIGQUIT waits for the
/// agent instead of ending the wrapper under it; the agent itself gets them as usual.
pub const SHELL_AFTER: &str = "trap : INT QUIT; \"$@\"; exec \"${SHELL:-/bin/sh}\"";

/// The pane's program for a resume command: see [`SHELL_AFTER`].
pub fn in_shell(resume: Vec<String>) -> Vec<String> {
    let mut argv =
        vec!["/bin/sh".to_owned(), "-c".to_owned(), SHELL_AFTER.to_owned(), "herdr-resume".to_owned()];
    argv.extend(resume);
    argv
}

/// What one pane gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned<K> {
    pub key: K,
    /// The argv to start instead of the pane's shell, or why it restores as a shell.
    pub outcome: Result<Vec<String>, Skip>,
}

/// Plans every saved ref, in the order given (the layout's): see the module docs.
pub fn plan<'a, K>(
    saved: impl IntoIterator<Item = (K, &'a AgentSessionInfo)>,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<Planned<K>> {
    let mut claimed: HashSet<(&'a str, &'a str)> = HashSet::new();
    saved
        .into_iter()
        .map(|(key, info)| {
            let outcome = resume_argv(info, exists).and_then(|argv| {
                if claimed.insert((info.agent.as_str(), info.value.as_str())) {
                    Ok(argv)
                } else {
                    Err(Skip::Duplicate)
                }
            });
            Planned { key, outcome }
        })
        .collect()
}

#[cfg(test)]
mod tests;
