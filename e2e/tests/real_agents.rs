//! The real agent CLIs in herdr panes: `claude`, `codex` and `gemini`, pinned versions installed
//! from npm by `scripts/install-agent-clis.sh` into `target/agent-clis` (run by this test on first
//! use; a cached install costs no network). Each is started in a pane with no credentials and
//! must be identified by process (the pane's `agent` names it) and reach the state herdr's
//! manifests give the first screen it shows (Claude's and Gemini's folder-trust prompts are
//! `blocked`; Codex's sign-in menu and Gemini's "waiting for authentication" are `idle`).
//!
//! This target has its own harness (`harness = false`, libtest-mimic) so that a test that cannot
//! run is reported as ignored, with the reason, not as a pass: when its package could not be
//! installed, has no executable, or `HERDR_SKIP_REAL_AGENTS=1`. A CLI that runs and exits before
//! herdr identifies it, a wrong agent name or another state is a failure. Each agent is bounded
//! to 60 s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use herdr_e2e::agents;
use herdr_e2e::panes;
use herdr_e2e::{TestServer, wait_until};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Map, Value, json};

/// How long one agent may take from typing its name to a known state.
const PER_AGENT: Duration = Duration::from_secs(60);

struct RealAgent {
    kind: &'static str,
    package: &'static str,
    executable: &'static str,
    /// The first screens the CLI shows without credentials (it picks one by what it checks
    /// first), each by a text it shows, and the state herdr must give it.
    screens: &'static [(&'static str, &'static str)],
}

const AGENTS: [RealAgent; 3] = [
    RealAgent {
        kind: "claude",
        package: "@anthropic-ai/claude-code",
        executable: "claude",
        screens: &[("Yes, I trust this folder", "blocked")],
    },
    RealAgent {
        kind: "codex",
        package: "@openai/codex",
        executable: "codex",
        screens: &[("Sign in with ChatGPT", "idle")],
    },
    RealAgent {
        kind: "gemini",
        package: "@google/gemini-cli",
        executable: "gemini",
        screens: &[
            ("Waiting for authentication", "idle"),
            ("Do you trust the files in this folder?", "blocked"),
        ],
    },
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("e2e/ sits in the repo").to_path_buf()
}

fn clis_dir() -> PathBuf {
    std::env::var_os("HERDR_AGENT_CLIS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target").join("agent-clis"))
}

/// Per package, `Ok(version)` or `Err(reason)` from the install script's status file.
type InstallStatus = BTreeMap<String, Result<String, String>>;

/// Runs the install script once per test process.
fn installed() -> &'static Result<InstallStatus, String> {
    static INSTALLED: OnceLock<Result<InstallStatus, String>> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let script = repo_root().join("scripts").join("install-agent-clis.sh");
        let output = Command::new("bash")
            .arg(&script)
            .env("HERDR_AGENT_CLIS_DIR", clis_dir())
            .env("HERDR_AGENT_CLIS_TIMEOUT", "300")
            .output()
            .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
        println!("{}", String::from_utf8_lossy(&output.stdout));
        if !output.status.success() {
            return Err(format!(
                "{} exited {:?}: {}",
                script.display(),
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let status = std::fs::read_to_string(clis_dir().join("status.txt"))
            .map_err(|error| format!("no status file after installing: {error}"))?;
        Ok(status
            .lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, ' ');
                let (package, verdict, rest) = (parts.next()?, parts.next()?, parts.next().unwrap_or(""));
                let result = if verdict == "ok" { Ok(rest.to_owned()) } else { Err(rest.to_owned()) };
                Some((package.to_owned(), result))
            })
            .collect())
    })
}

/// What the pane showed last, for skip reasons and failure messages.
fn screen(server: &TestServer, pane: &str) -> String {
    panes::read(server, pane, "detection")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until herdr names the agent and gives the screen shown its expected state; panics (a failure) when the
/// program comes and goes first, or at the deadline, with the last pane and process info.
fn watch(server: &TestServer, pane: &str, agent: &RealAgent, shell_pid: i64) -> (String, String) {
    let mut left_shell = false;
    let what = format!("herdr to identify {} with the state of its screen {:?}", agent.kind, agent.screens);
    wait_until(&what, PER_AGENT, || {
        let info = server.call("pane.get", json!({"pane_id": pane}));
        let pane_info = &info["pane"];
        let status = pane_info["agent_status"].as_str().unwrap_or_default();
        let shown = screen(server, pane);
        // Drawn: something below the shell line that started it (the alternate screen may
        // also show nothing of the shell at all).
        let drawn = shown.lines().last().is_some_and(|last| !last.starts_with("e2e$"));
        let expected = agent.screens.iter().find(|(text, _)| shown.contains(text)).map(|(_, state)| *state);
        if pane_info["agent"] == agent.kind && expected == Some(status) && drawn {
            return Ok((shown, status.to_owned()));
        }
        let process = server.call("pane.process_info", json!({"pane_id": pane}));
        let group = process["process_info"]["foreground_process_group_id"].as_i64();
        if group.is_some() && group != Some(shell_pid) {
            left_shell = true;
        } else if left_shell {
            panic!("{} exited before herdr identified it; its screen:\n{shown}", agent.executable);
        }
        Err(format!("{pane_info}\n{process}\n--- screen ---\n{shown}"))
    })
}

/// Why `agent` cannot run here, if it cannot; else its installed version.
fn readiness(agent: &RealAgent) -> Result<String, String> {
    if std::env::var("HERDR_SKIP_REAL_AGENTS").as_deref() == Ok("1") {
        return Err("HERDR_SKIP_REAL_AGENTS=1".to_owned());
    }
    let version = match installed() {
        Err(reason) => return Err(format!("the install script failed: {reason}")),
        Ok(packages) => match packages.get(agent.package) {
            Some(Ok(version)) => version.clone(),
            Some(Err(reason)) => return Err(format!("{} could not be installed: {reason}", agent.package)),
            None => return Err(format!("{} is not in the install status", agent.package)),
        },
    };
    if !clis_dir().join("node_modules/.bin").join(agent.executable).exists() {
        return Err(format!("{} has no {} executable", agent.package, agent.executable));
    }
    Ok(version)
}

fn run_real(agent: &RealAgent, version: &str) {
    let bin = clis_dir().join("node_modules").join(".bin");
    let server = TestServer::start();
    // No credentials anywhere: HOME is the test's empty temp home. Claude's first-run onboarding
    // checks the network and exits without one; marking onboarding done (a preference, not a
    // credential) lets it reach its folder-trust screen instead.
    let home = server.root().join("home");
    std::fs::write(home.join(".claude.json"), "{\"hasCompletedOnboarding\": true}\n")
        .expect("seed ~/.claude.json");
    let project = server.root().join("project");
    std::fs::create_dir_all(&project).expect("create the project dir");
    let path = server.env().iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone()).unwrap_or_default();
    let mut env = Map::new();
    env.insert("PATH".to_owned(), Value::from(format!("{}:{path}", bin.display())));
    let created = server.call(
        "workspace.create",
        json!({"label": agent.kind, "cwd": project.display().to_string(), "env": env}),
    );
    let pane = created["root_pane"]["pane_id"].as_str().expect("a root pane").to_owned();
    panes::settle(&server, &pane);
    let shell_pid = i64::from(panes::shell_pid(&server, &pane));
    panes::run(&server, &pane, agent.executable);

    let (shown, status) = watch(&server, &pane, agent, shell_pid);
    let explained = agents::explain(&server, &pane);
    let rule = agents::winning_rule(&explained)
        .or_else(|| explained["fallback_reason"].as_str().map(str::to_owned))
        .unwrap_or_default();
    println!(
        "real {} {version}: identified as {}, status {} (rule: {rule})\n--- first screen ---\n{shown}",
        agent.kind, agent.kind, status
    );
}

fn main() {
    let args = Arguments::from_args();
    // Listing must not install anything; running decides per agent whether it can run at all.
    let listing = args.list;
    let trials = AGENTS
        .iter()
        .map(|agent| {
            let name = format!("real_{}_is_identified_and_detected", agent.kind);
            let ready = if listing { Ok(String::new()) } else { readiness(agent) };
            match ready {
                Ok(version) => Trial::test(name, move || {
                    run_real(agent, &version);
                    Ok::<(), Failed>(())
                }),
                Err(reason) => {
                    println!("SKIP real {}: {reason}", agent.kind);
                    Trial::test(name, || Ok(())).with_ignored_flag(true)
                }
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
