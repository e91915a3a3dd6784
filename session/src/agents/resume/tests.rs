//! The resume planner: every agent's argv, and every reason a ref restores as a shell.

use std::path::Path;

use herdr_protocol::api::{AgentSessionInfo, AgentSessionRefKind};

use super::*;

fn id_ref(source: &str, agent: &str, value: &str) -> AgentSessionInfo {
    AgentSessionInfo {
        source: source.into(),
        agent: agent.into(),
        kind: AgentSessionRefKind::Id,
        value: value.into(),
    }
}

fn path_ref(source: &str, agent: &str, value: &str) -> AgentSessionInfo {
    AgentSessionInfo { kind: AgentSessionRefKind::Path, ..id_ref(source, agent, value) }
}

fn everything_exists(_: &Path) -> bool {
    true
}

fn argv(info: &AgentSessionInfo) -> Result<Vec<String>, Skip> {
    resume_argv(info, &everything_exists)
}

#[test]
fn every_agent_resumes_with_its_own_command() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("herdr:claude", "claude", &["claude", "--resume", "S"]),
        ("herdr:codex", "codex", &["codex", "resume", "S"]),
        ("herdr:copilot", "copilot", &["copilot", "--resume=S"]),
        ("herdr:devin", "devin", &["devin", "--resume", "S"]),
        ("herdr:droid", "droid", &["droid", "--resume", "S"]),
        ("herdr:kimi", "kimi", &["kimi", "--session", "S"]),
        ("herdr:mastracode", "mastracode", &["mastracode", "--thread", "S"]),
        ("herdr:pi", "pi", &["pi", "--session", "S"]),
        ("herdr:omp", "omp", &["omp", "--resume=S"]),
        ("herdr:hermes", "hermes", &["hermes", "--resume", "S"]),
        ("herdr:opencode", "opencode", &["opencode", "--session", "S"]),
        ("herdr:kilo", "kilo", &["kilo", "--session", "S"]),
        ("herdr:qodercli", "qodercli", &["qodercli", "--resume", "S"]),
        ("herdr:qwen", "qwen", &["qwen", "--resume", "S"]),
        ("herdr:cursor", "cursor", &["cursor-agent", "--resume", "S"]),
        ("herdr:antigravity_cli", "agy", &["agy", "--conversation", "S"]),
        ("herdr:grok", "grok", &["grok", "--resume", "S"]),
        ("herdr:letta", "letta", &["letta", "--conversation", "S"]),
    ];
    assert_eq!(cases.len(), RESUMABLE.len(), "one case per table row");
    for (source, agent, expected) in cases {
        let expected: Vec<String> = expected.iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(argv(&id_ref(source, agent, "S")), Ok(expected), "{source}");
    }
}

#[test]
fn pi_and_omp_resume_their_session_file() {
    let file = "/home/u/.pi/agent/sessions/2026-01-01_abc.jsonl";
    assert_eq!(
        argv(&path_ref("herdr:pi", "pi", file)),
        Ok(vec!["pi".into(), "--session".into(), file.into()])
    );
    assert_eq!(argv(&path_ref("herdr:omp", "omp", file)), Ok(vec!["omp".into(), format!("--resume={file}")]));
}

#[test]
fn letta_default_conversations_name_their_agent() {
    assert_eq!(
        argv(&id_ref("herdr:letta", "letta", "default:agent-7")),
        Ok(["letta", "--conversation", "default", "--agent", "agent-7"].map(String::from).to_vec())
    );
    assert_eq!(argv(&id_ref("herdr:letta", "letta", "default:")), Err(Skip::Invalid));
}

#[test]
fn only_official_source_and_agent_pairs_resume() {
    for (source, agent) in [
        ("custom:claude", "claude"),
        ("herdr:claude", "codex"),
        ("herdr:codex", "claude"),
        ("herdr:gemini", "gemini"),
        ("herdr:antigravity_cli", "antigravity-cli"),
        ("", ""),
    ] {
        assert_eq!(argv(&id_ref(source, agent, "S")), Err(Skip::Unsupported), "{source} {agent}");
    }
}

#[test]
fn invalid_values_restore_as_shells() {
    let long_id = "x".repeat(MAX_SESSION_ID_BYTES + 1);
    let longest_id = "x".repeat(MAX_SESSION_ID_BYTES);
    assert_eq!(argv(&id_ref("herdr:claude", "claude", &longest_id)).map(|a| a.len()), Ok(3));
    for bad in ["", "abc\u{1b}[2J", "line\nbreak", "tab\there", "\u{7f}", long_id.as_str()] {
        assert_eq!(argv(&id_ref("herdr:claude", "claude", bad)), Err(Skip::Invalid), "{bad:?}");
    }
    let long_path = format!("/{}", "p".repeat(MAX_SESSION_PATH_BYTES));
    for bad in ["relative/s.jsonl", "", "/a\u{0}b", long_path.as_str()] {
        assert_eq!(argv(&path_ref("herdr:pi", "pi", bad)), Err(Skip::Invalid), "{bad:?}");
    }
    // Only Pi and OMP resume by file.
    assert_eq!(argv(&path_ref("herdr:claude", "claude", "/abs/s.jsonl")), Err(Skip::Invalid));
}

#[test]
fn a_session_file_that_is_gone_is_stale() {
    let gone = |_: &Path| false;
    assert_eq!(resume_argv(&path_ref("herdr:pi", "pi", "/gone/s.jsonl"), &gone), Err(Skip::Stale));
    // Ids name no file: nothing to check.
    assert!(resume_argv(&id_ref("herdr:pi", "pi", "s1"), &gone).is_ok());
    let real = tempfile::NamedTempFile::new().expect("temp file");
    let path = real.path().to_str().expect("utf-8").to_owned();
    let exists = |p: &Path| p.exists();
    assert!(resume_argv(&path_ref("herdr:omp", "omp", &path), &exists).is_ok());
    drop(real);
    assert_eq!(resume_argv(&path_ref("herdr:omp", "omp", &path), &exists), Err(Skip::Stale));
}

#[test]
fn the_first_pane_of_a_conversation_resumes_it_and_later_ones_restore_as_shells() {
    let a = id_ref("herdr:claude", "claude", "same");
    let b = id_ref("herdr:claude", "claude", "same");
    let c = id_ref("herdr:codex", "codex", "same");
    let d = id_ref("herdr:claude", "claude", "other");
    let bad = id_ref("herdr:claude", "claude", "");
    let bad_again = id_ref("herdr:claude", "claude", "");
    let planned = plan([(1, &bad), (2, &a), (3, &b), (4, &c), (5, &d), (6, &bad_again)], &everything_exists);
    let outcomes: Vec<(i32, Result<usize, Skip>)> =
        planned.into_iter().map(|p| (p.key, p.outcome.map(|argv| argv.len()))).collect();
    assert_eq!(
        outcomes,
        [
            (1, Err(Skip::Invalid)),
            (2, Ok(3)),
            (3, Err(Skip::Duplicate)),
            (4, Ok(3)), // another agent's conversation of the same name is its own
            (5, Ok(3)),
            (6, Err(Skip::Invalid)), // an invalid ref claims nothing, so it is not a duplicate
        ]
    );
}

#[test]
fn a_stale_ref_claims_nothing() {
    let stale = path_ref("herdr:pi", "pi", "/gone.jsonl");
    let again = path_ref("herdr:pi", "pi", "/gone.jsonl");
    let gone = |_: &Path| false;
    let skips: Vec<Option<Skip>> =
        plan([(1, &stale), (2, &again)], &gone).into_iter().map(|p| p.outcome.err()).collect();
    assert_eq!(skips, [Some(Skip::Stale), Some(Skip::Stale)]);
}

#[test]
fn the_resume_command_runs_under_sh_as_its_argument_list_and_the_shell_follows() {
    let argv = in_shell(vec!["claude".into(), "--resume".into(), "it's \"odd\"; rm -rf /".into()]);
    assert_eq!(&argv[..2], ["/bin/sh", "-c"]);
    assert_eq!(&argv[3..], ["herdr-resume", "claude", "--resume", "it's \"odd\"; rm -rf /"]);
    // The script runs "$@" as given (never re-parsed), then becomes the user's shell.
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..3])
        .args(["herdr-resume", "printf", "[%s]", "it's \"odd\"; rm -rf /"])
        .env("SHELL", "/bin/true")
        .output()
        .expect("sh");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[it's \"odd\"; rm -rf /]");
    assert!(out.status.success());
}
