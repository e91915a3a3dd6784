//! Process identity: which agent owns a pane's foreground, decided from the foreground process
//! group's members (pid, argv, comm, `HERDR_AGENT` hint).
//!
//! Pure: the pane worker reads `/proc` (tpgid, cmdline, comm, environ) and hands the facts in.
//! Wrappers (node, bun, deno, python, shells) are looked through to the script they run; `tmux`
//! is never looked through (an agent inside a nested tmux is not this pane's agent).

use crate::agent::Agent;

/// One member of the foreground process group, as the worker read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForegroundProcess {
    pub pid: u32,
    /// `/proc/<pid>/cmdline` split on NUL.
    pub argv: Vec<String>,
    /// `/proc/<pid>/comm`, if read.
    pub comm: Option<String>,
    /// The value of `HERDR_AGENT` in the process environment, if set (sandbox wrappers use it).
    pub agent_hint: Option<String>,
}

/// How strongly a process was identified; higher wins, ties keep list order (leader first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IdentityEvidence {
    /// Found inside a runtime's argv (script path or package path).
    ThroughRuntime = 1,
    /// The process's own name (argv0 or comm) is an agent.
    ProcessName = 2,
    /// The process renamed itself via argv (argv0 names an agent, comm does not).
    RenamedByArgv = 3,
    /// `HERDR_AGENT=<label>` in its environment.
    EnvHint = 4,
}

/// The decided identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub agent: Agent,
    pub pid: u32,
    pub evidence: IdentityEvidence,
}

/// Decides the foreground agent, if any.
pub fn identify(processes: &[ForegroundProcess]) -> Option<Identity> {
    let mut best: Option<Identity> = None;
    for process in processes {
        if let Some(found) = identify_process(process)
            && best.is_none_or(|b| found.evidence > b.evidence)
        {
            best = Some(found);
        }
    }
    best
}

/// Identifies one process.
pub fn identify_process(process: &ForegroundProcess) -> Option<Identity> {
    let make = |agent, evidence| Some(Identity { agent, pid: process.pid, evidence });
    if let Some(agent) = process.agent_hint.as_deref().and_then(Agent::lookup) {
        return make(agent, IdentityEvidence::EnvHint);
    }
    let argv0 = process.argv.first().map(String::as_str).unwrap_or("");
    let argv0_name = base_name(argv0);
    let comm = process.comm.as_deref().map(str::trim);
    if let Some(agent) = Agent::lookup(argv0_name) {
        let comm_agrees = comm.is_none_or(|c| Agent::lookup(c) == Some(agent) || argv0_name.starts_with(c));
        let evidence =
            if comm_agrees { IdentityEvidence::ProcessName } else { IdentityEvidence::RenamedByArgv };
        return make(agent, evidence);
    }
    if !is_runtime(argv0_name)
        && let Some(agent) = comm.filter(|c| !is_runtime(c)).and_then(Agent::lookup)
    {
        return make(agent, IdentityEvidence::ProcessName);
    }
    if argv0.contains("/cursor-agent/versions/") {
        // Cursor ships its own node next to index.js under cursor-agent/versions/<v>/.
        return make(Agent::Cursor, IdentityEvidence::ThroughRuntime);
    }
    let runtime = if is_runtime(argv0_name) { argv0_name } else { comm.filter(|c| is_runtime(c))? };
    if runtime == "tmux" {
        return None;
    }
    let script = script_argument(runtime, &process.argv)?;
    let agent = package_agent(script).or_else(|| Agent::lookup(base_name(script)))?;
    make(agent, IdentityEvidence::ThroughRuntime)
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Generic runtimes and shells whose argv must be looked into.
pub fn is_runtime(name: &str) -> bool {
    let name = name.to_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "fish"
            | "dash"
            | "ksh"
            | "tmux"
            | "node"
            | "nodejs"
            | "bun"
            | "deno"
            | "npx"
            | "bunx"
            | "cmd"
            | "powershell"
            | "pwsh"
            | "python"
            | "python3"
            | "uv"
    ) || name
        .strip_prefix("python")
        .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Options of the runtimes that take a separate value (skipped when looking for the script).
const VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--title",
    "--inspect-port",
    "--conditions",
    "-C",
    "-W",
    "-X",
    "--config",
    "--cwd",
    "--package",
];

/// Eval forms: the program is inline text, not a script that could name an agent.
const EVAL_OPTIONS: &[&str] = &["-e", "--eval", "-c", "-p", "--print"];

/// Runtime subcommands that precede the script (`bun run x`, `deno run x`, `uv run x`).
const SUBCOMMANDS: &[&str] = &["run", "x", "exec", "tool"];

/// The script or package a runtime runs, if argv names one.
fn script_argument<'a>(runtime: &str, argv: &'a [String]) -> Option<&'a str> {
    let mut args = argv.iter().skip(1).map(String::as_str).peekable();
    let mut first_positional = true;
    while let Some(arg) = args.next() {
        if arg == "--" {
            return args.next();
        }
        if arg == "-m" && runtime.starts_with("python") {
            return args.next();
        }
        if EVAL_OPTIONS.contains(&arg) {
            return None;
        }
        if arg.starts_with('-') {
            if !arg.contains('=') && VALUE_OPTIONS.contains(&arg) {
                args.next();
            }
            continue;
        }
        if first_positional && SUBCOMMANDS.contains(&arg) && !matches!(runtime, "node" | "nodejs") {
            first_positional = false;
            continue;
        }
        return Some(arg);
    }
    None
}

/// npm package paths (or names, for `npx pkg`) of agents whose script name says nothing.
const PACKAGES: &[(&str, Agent)] = &[
    ("@anthropic-ai/claude-code", Agent::Claude),
    ("@openai/codex", Agent::Codex),
    ("@google/gemini-cli", Agent::Gemini),
    ("@github/copilot", Agent::Copilot),
    ("opencode-ai", Agent::Opencode),
    ("@sourcegraph/amp", Agent::Amp),
    ("@earendil-works/pi-coding-agent", Agent::Pi),
    ("@qwen-code/qwen-code", Agent::Qwen),
    ("mastracode", Agent::Mastracode),
    ("@kilocode/cli", Agent::Kilo),
];

fn package_agent(script: &str) -> Option<Agent> {
    let normalized = script.replace('\\', "/");
    PACKAGES.iter().find_map(|(package, agent)| {
        let in_modules = normalized.contains(&format!("node_modules/{package}/"));
        // `npx @openai/codex` / `npx @openai/codex@latest`
        let bare =
            normalized == *package || normalized.strip_prefix(package).is_some_and(|r| r.starts_with('@'));
        (in_modules || bare).then_some(*agent)
    })
}
