//! Unit tests of `detection`: what is in front, when timers are armed, which manifest is compiled.

use herdr_manifests::{Agent, ForegroundProcess};

use super::*;

fn process(pid: u32, argv: &[&str]) -> ForegroundProcess {
    ForegroundProcess {
        pid,
        argv: argv.iter().map(|a| a.to_string()).collect(),
        comm: argv.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()),
        agent_hint: None,
    }
}

#[test]
fn own_program_is_the_shell_unless_it_is_an_agent() {
    let bash = |_| vec![process(10, &["bash", "-i"])];
    assert_eq!(classify(Some(10), 10, bash), Foreground::Shell);
    let claude = |_| vec![process(10, &["/bin/sh", "/tmp/bin/claude"])];
    assert!(matches!(classify(Some(10), 10, claude), Foreground::Job(p) if p[0].pid == 10));
    // `sh -c` without job control: the agent is a member of the program's own group.
    let wrapped = |_| vec![process(10, &["sh", "-c", "cd x; claude"]), process(11, &["claude"])];
    assert!(matches!(classify(Some(10), 10, wrapped), Foreground::Job(p) if p.len() == 2));
    // Caught mid-exec, or gone: not (yet) the shell.
    assert_eq!(classify(Some(10), 10, |_| vec![process(10, &[])]), Foreground::Unavailable);
    assert_eq!(classify(Some(10), 10, |_| Vec::new()), Foreground::Unavailable);
}

#[test]
fn other_groups_are_jobs_and_nothing_is_unavailable() {
    let vim = |_| vec![process(20, &["vim", "x"])];
    assert!(matches!(classify(Some(20), 10, vim), Foreground::Job(_)));
    assert_eq!(classify(Some(20), 10, |_| Vec::new()), Foreground::Unavailable);
    assert_eq!(classify(None, 10, |_| panic!("no group to read")), Foreground::Unavailable);
}

#[test]
fn shell_arms_no_timer_and_a_new_agent_keeps_only_its_own_osc_evidence() {
    use std::os::unix::process::CommandExt;
    let now = Instant::now();
    let engine = Engine::new(80, 24).expect("engine");
    let mut d = PaneDetection::with_overrides_dir(now, None);
    // A `sleep` in a group of its own plays the pane's shell: in front, not an agent. (Not the
    // test's own group: parallel tests fork into it, and a member caught mid-exec is "not known
    // yet", which rightly arms a probe.)
    let mut shell = spawn_named("sleep");
    let ours = i32::try_from(shell.id()).expect("pid");
    d.feed(b"\x1b]0;user@host: ~\x07\x1b]9;4;1;10\x07");
    assert!(d.poll(now, &engine, Some(ours), ours).is_empty());
    assert_eq!(d.wake_at(), None, "a shell in front arms no timer");

    // The fake claude in its own group takes the foreground; its title came in the same output.
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents/claude");
    let mut agent = std::process::Command::new("bash")
        .arg(fake)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn the fake agent");
    let pgrp = i32::try_from(agent.id()).expect("pid");
    // spawn can return while the exec is still in flight (empty cmdline): wait it out.
    let cmdline = format!("/proc/{pgrp}/cmdline");
    let deadline = Instant::now() + std::time::Duration::from_secs(5);
    while !fs::read(&cmdline).is_ok_and(|c| c.windows(6).any(|w| w == b"claude")) {
        assert!(Instant::now() < deadline, "the fake agent did not start");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    d.feed("\x1b]0;⠐ Refactoring\x07".as_bytes());
    let events = d.poll(now, &engine, Some(pgrp), ours);
    let _ = (agent.kill(), agent.wait());
    let _ = (shell.kill(), shell.wait());
    assert_eq!(
        events.first(),
        Some(&WorkerEvent::AgentIdentity {
            agent: Some("claude".into()),
            previous: None,
            reason: IdentityReason::Detected
        }),
        "{events:?}"
    );
    assert_eq!((d.osc.title(), d.osc.progress()), (Some("⠐ Refactoring"), None));
    assert!(d.wake_at().is_some(), "an agent keeps the detector's deadline");
}

/// A process in its own group whose argv[0] is `name` (so identity sees that agent); waits
/// until it has exec'd.
fn spawn_named(name: &str) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let child = std::process::Command::new("bash")
        .args(["-c", &format!("exec -a {name} sleep 30")])
        .stdin(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn a named process");
    let cmdline = format!("/proc/{}/cmdline", child.id());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !fs::read(&cmdline).is_ok_and(|c| c.starts_with(format!("{name}\0").as_bytes())) {
        assert!(Instant::now() < deadline, "{name} did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn pgrp(child: &std::process::Child) -> Option<i32> {
    Some(i32::try_from(child.id()).expect("pid"))
}

fn compiled(d: &PaneDetection) -> Vec<Agent> {
    d.manifests.agents().collect()
}

#[test]
fn nothing_is_compiled_without_an_agent() {
    let now = Instant::now();
    let engine = Engine::new(80, 24).expect("engine");
    let mut d = PaneDetection::with_overrides_dir(now, None);
    d.prepare();
    d.reload(now);
    let explained: serde_json::Value = serde_json::from_str(&d.explain(&engine)).expect("json");
    assert_eq!(explained["state"], "unknown");
    assert_eq!(explained["agent"], serde_json::Value::Null);
    assert_eq!(explained["screen_detection_skipped"], false);
    assert_eq!((d.manifests_for, compiled(&d)), (None, vec![]), "no agent: nothing to compile");
}

#[test]
fn only_the_identified_agents_manifest_is_compiled_and_a_new_agent_gets_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    let now = Instant::now();
    let engine = Engine::new(80, 24).expect("engine");
    let mut d = PaneDetection::with_overrides_dir(now, Some(dir.path().to_path_buf()));
    // SAFETY: getpgrp has no preconditions.
    let ours = unsafe { libc::getpgrp() };
    let mut claude = spawn_named("claude");
    let mut codex = spawn_named("codex");

    let events = d.poll(now, &engine, pgrp(&claude), ours);
    assert!(events.contains(&WorkerEvent::AgentIdentity {
        agent: Some("claude".into()),
        previous: None,
        reason: IdentityReason::Detected
    }));
    d.prepare();
    assert_eq!(compiled(&d), vec![Agent::Claude]);

    // Another agent takes the foreground: its manifest replaces claude's.
    let later = now + Duration::from_millis(50);
    let events = d.poll(later, &engine, pgrp(&codex), ours);
    assert!(events.contains(&WorkerEvent::AgentIdentity {
        agent: Some("codex".into()),
        previous: Some("claude".into()),
        reason: IdentityReason::Detected
    }));
    d.prepare();
    assert_eq!(compiled(&d), vec![Agent::Codex]);
    let explained: serde_json::Value = serde_json::from_str(&d.explain(&engine)).expect("json");
    assert_eq!(explained["agent"], "codex");
    assert_eq!(explained["manifest_source"], "bundled");
    assert!(explained["evaluated_rules"].as_array().is_some_and(|r| r.len() > 1), "{explained}");

    // A reload with the agent in front recompiles it at once, from the files as they are now.
    let mine = "id = \"codex\"\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"zzz\"]\n";
    fs::write(dir.path().join("codex.toml"), mine).expect("write");
    d.reload(later);
    assert_eq!(compiled(&d), vec![Agent::Codex]);
    let explained: serde_json::Value = serde_json::from_str(&d.explain(&engine)).expect("json");
    let rules = explained["evaluated_rules"].as_array().expect("rules");
    assert_eq!(rules.iter().map(|r| r["id"].as_str()).collect::<Vec<_>>(), vec![Some("mine")]);

    let _ = (claude.kill(), claude.wait(), codex.kill(), codex.wait());
}

#[test]
fn overrides_replace_one_agent_and_bad_ones_are_ignored() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(read_overrides(&dir.path().join("missing")).is_empty());
    fs::write(dir.path().join("codex.toml"), "this is [not toml").expect("write");
    fs::write(dir.path().join("notes.txt"), "ignored").expect("write");
    let claude = "id = \"claude\"\n\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"zzz\"]\n";
    fs::write(dir.path().join("claude.toml"), claude).expect("write");
    let files = read_overrides(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let rules = |set: &ManifestSet, agent| {
        set.get(agent).map(|m| m.rules.iter().map(|r| r.id.clone()).collect::<Vec<_>>())
    };
    let set = load_manifests(Agent::Claude, Some(dir.path()));
    assert_eq!(rules(&set, Agent::Claude), Some(vec!["mine".to_string()]));
    assert_eq!(set.agents().count(), 1, "only the asked agent is compiled");
    // The invalid codex override left the bundled manifest in force, with a warning.
    let set = load_manifests(Agent::Codex, Some(dir.path()));
    assert!(rules(&set, Agent::Codex).is_some_and(|r| r.len() > 1));
    assert!(set.warning(Agent::Codex).is_some());
}
