//! Process identity: wrappers, aliases, the HERDR_AGENT hint and scoring among group members.

use herdr_manifests::{Agent, ForegroundProcess, IdentityEvidence, identify};

fn proc(pid: u32, argv: &[&str], comm: Option<&str>) -> ForegroundProcess {
    ForegroundProcess {
        pid,
        argv: argv.iter().map(|s| s.to_string()).collect(),
        comm: comm.map(str::to_string),
        agent_hint: None,
    }
}

fn who(argv: &[&str], comm: Option<&str>) -> Option<(Agent, IdentityEvidence)> {
    identify(&[proc(1, argv, comm)]).map(|i| (i.agent, i.evidence))
}

#[test]
fn plain_executables_and_aliases() {
    assert_eq!(who(&["claude"], Some("claude")), Some((Agent::Claude, IdentityEvidence::ProcessName)));
    assert_eq!(
        who(&["/usr/local/bin/cursor-agent", "-p"], None),
        Some((Agent::Cursor, IdentityEvidence::ProcessName))
    );
    assert_eq!(who(&["kiro-cli", "chat"], Some("kiro-cli")).map(|w| w.0), Some(Agent::Kiro));
    assert_eq!(who(&["qoder"], None).map(|w| w.0), Some(Agent::Qodercli));
    assert_eq!(who(&["C:\\tools\\Claude.EXE"], None).map(|w| w.0), Some(Agent::Claude));
    assert_eq!(who(&["gh-copilot"], None), None);
    assert_eq!(who(&["vim", "notes.md"], Some("vim")), None);
}

#[test]
fn a_process_renamed_through_argv_scores_highest_among_names() {
    // Node rewrote argv[0] to the agent's name; comm still says node.
    assert_eq!(who(&["claude"], Some("node")), Some((Agent::Claude, IdentityEvidence::RenamedByArgv)));
    // comm is truncated to 15 bytes by the kernel: a prefix still agrees.
    assert_eq!(who(&["qodercli-nightly-x"], Some("qodercli-nightl")), None);
    assert_eq!(
        who(&["antigravity-cli"], Some("antigravity-cl")),
        Some((Agent::Agy, IdentityEvidence::ProcessName))
    );
}

#[test]
fn runtimes_are_looked_through_to_the_script() {
    let through = |argv: &[&str]| who(argv, None);
    assert_eq!(
        through(&["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"]),
        Some((Agent::Claude, IdentityEvidence::ThroughRuntime))
    );
    assert_eq!(
        through(&["node", "--no-warnings", "-r", "preload.js", "/home/u/.npm/bin/codex.js"]).map(|w| w.0),
        Some(Agent::Codex)
    );
    assert_eq!(through(&["/usr/bin/node", "--", "/opt/gemini"]).map(|w| w.0), Some(Agent::Gemini));
    assert_eq!(through(&["bun", "run", "/home/u/bin/opencode"]).map(|w| w.0), Some(Agent::Opencode));
    assert_eq!(through(&["deno", "run", "-A", "/x/amp.js"]).map(|w| w.0), Some(Agent::Amp));
    assert_eq!(through(&["python3.12", "/home/u/.local/bin/hermes-agent"]).map(|w| w.0), Some(Agent::Hermes));
    assert_eq!(through(&["python3", "-m", "hermes"]).map(|w| w.0), Some(Agent::Hermes));
    assert_eq!(through(&["bash", "/home/u/bin/droid", "--resume"]).map(|w| w.0), Some(Agent::Droid));
    assert_eq!(through(&["npx", "@openai/codex@latest"]).map(|w| w.0), Some(Agent::Codex));
    assert_eq!(
        through(&["node", "/home/u/.npm/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"])
            .map(|w| w.0),
        Some(Agent::Pi)
    );
    assert_eq!(
        through(&["node", "/usr/lib/node_modules/@qwen-code/qwen-code/dist/index.js"]).map(|w| w.0),
        Some(Agent::Qwen)
    );
    // comm can reveal the runtime when argv[0] is a bare path alias.
    assert_eq!(
        who(&["/usr/bin/env-node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"], Some("node"))
            .map(|w| w.0),
        Some(Agent::Gemini)
    );
}

#[test]
fn eval_forms_tmux_and_unknown_scripts_identify_nothing() {
    assert_eq!(who(&["sh", "-c", "claude --resume"], Some("sh")), None);
    assert_eq!(who(&["node", "-e", "require('codex')"], None), None);
    assert_eq!(who(&["node", "-p", "1+1"], None), None);
    assert_eq!(who(&["tmux", "new-session", "claude"], Some("tmux")), None);
    assert_eq!(who(&["node", "server.js"], None), None);
    assert_eq!(who(&["python3"], None), None);
}

#[test]
fn cursor_bundled_node_is_cursor() {
    let argv = ["/home/u/.local/share/cursor-agent/versions/2025.11.25-1/node", "index.js"];
    assert_eq!(who(&argv, Some("node")), Some((Agent::Cursor, IdentityEvidence::ThroughRuntime)));
}

#[test]
fn the_environment_hint_wins_and_unknown_hints_are_ignored() {
    let mut sandbox = proc(7, &["fence", "--", "node", "agent.js"], Some("fence"));
    sandbox.agent_hint = Some("codex".into());
    let id = identify(&[proc(6, &["claude"], Some("claude")), sandbox.clone()]).expect("identified");
    assert_eq!((id.agent, id.pid, id.evidence), (Agent::Codex, 7, IdentityEvidence::EnvHint));
    sandbox.agent_hint = Some("not-an-agent".into());
    assert_eq!(identify(&[sandbox]), None);
}

#[test]
fn the_strongest_evidence_wins_and_ties_keep_the_leader() {
    let wrapper = proc(10, &["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"], Some("node"));
    let named = proc(11, &["codex"], Some("codex"));
    let id = identify(&[wrapper.clone(), named.clone()]).expect("identified");
    assert_eq!((id.agent, id.pid), (Agent::Codex, 11));
    let other = proc(12, &["gemini"], Some("gemini"));
    let id = identify(&[named, other]).expect("identified");
    assert_eq!(id.pid, 11);
    assert_eq!(identify(&[]), None);
}

#[test]
fn labels_and_executables() {
    assert_eq!(Agent::ALL.len(), 22);
    assert_eq!(Agent::Cursor.interactive_executable(), "cursor-agent");
    assert_eq!(Agent::Kiro.interactive_executable(), "kiro-cli");
    assert_eq!(Agent::Agy.interactive_executable(), "agy");
    for agent in Agent::ALL {
        assert_eq!(Agent::from_label(agent.label()), Some(agent));
        assert_eq!(Agent::lookup(agent.interactive_executable()), Some(agent));
    }
    assert_eq!(serde_json::to_value(Agent::Qodercli).expect("json"), "qodercli");
}
