//! Runs every screen fixture in `manifests/fixtures/<agent>/<case>/` against the bundled
//! manifests. Adding a case adds files, not code.
//!
//! A case holds `screen.txt` (the live bottom rows the worker hands the detector), optional
//! `title.txt` / `progress.txt` (OSC 0/2 title, OSC 9 payload), optional `scrollback.txt` (lines
//! above the live screen, e.g. the user scrolled up) and `expect.toml`:
//! `state = "blocked"`, `rule = "<winning rule id>"` (absent = no rule matched), optional
//! `skip_state_update`, `visible_blocker`, `visible_idle`, `visible_working` booleans.

use std::fs;
use std::path::{Path, PathBuf};

use herdr_manifests::{Agent, AgentState, DetectionInput, ManifestSet};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    state: AgentState,
    rule: Option<String>,
    skip_state_update: Option<bool>,
    visible_blocker: Option<bool>,
    visible_idle: Option<bool>,
    visible_working: Option<bool>,
}

fn read_optional(dir: &Path, name: &str) -> Option<String> {
    fs::read_to_string(dir.join(name)).ok().map(|s| s.trim_end_matches('\n').to_string())
}

fn cases() -> Vec<(Agent, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for agent_dir in fs::read_dir(&root).expect("fixtures dir") {
        let agent_dir = agent_dir.expect("entry").path();
        let name = agent_dir.file_name().and_then(|n| n.to_str()).expect("utf-8 name").to_string();
        let agent = Agent::from_label(&name).unwrap_or_else(|| panic!("fixtures/{name}: not an agent label"));
        for case in fs::read_dir(&agent_dir).expect("agent dir") {
            out.push((agent, case.expect("entry").path()));
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// The live bottom the worker would hand over: the last `rows` lines of the whole buffer.
fn live_bottom(buffer: &str, rows: usize) -> String {
    let lines: Vec<&str> = buffer.lines().collect();
    lines[lines.len().saturating_sub(rows)..].join("\n")
}

/// The viewport of a user scrolled to the top of the scrollback: the first `rows` lines.
fn scrolled_view(buffer: &str, rows: usize) -> String {
    buffer.lines().take(rows).collect::<Vec<_>>().join("\n")
}

fn check(set: &ManifestSet, agent: Agent, dir: &Path) -> Result<(), String> {
    let screen = read_optional(dir, "screen.txt").ok_or("missing screen.txt")?;
    let title = read_optional(dir, "title.txt");
    let progress = read_optional(dir, "progress.txt");
    let expect_text = read_optional(dir, "expect.toml").ok_or("missing expect.toml")?;
    let expect: Expect = toml::from_str(&expect_text).map_err(|e| format!("expect.toml: {e}"))?;
    let input = |screen: &'_ str| -> (AgentState, Option<String>) {
        let input = DetectionInput { screen, osc_title: title.as_deref(), osc_progress: progress.as_deref() };
        let d = set.evaluate(Some(agent), &input);
        (d.state, d.matched_rule.map(|r| r.id))
    };
    let detection = set.evaluate(
        Some(agent),
        &DetectionInput { screen: &screen, osc_title: title.as_deref(), osc_progress: progress.as_deref() },
    );
    let got_rule = detection.matched_rule.as_ref().map(|r| r.id.clone());
    if detection.state != expect.state || got_rule != expect.rule {
        let explain = set.explain(
            Some(agent),
            &DetectionInput {
                screen: &screen,
                osc_title: title.as_deref(),
                osc_progress: progress.as_deref(),
            },
        );
        let matched: Vec<&str> =
            explain.evaluated_rules.iter().filter(|r| r.matched).map(|r| r.id.as_str()).collect();
        return Err(format!(
            "expected {:?} by {:?}, got {:?} by {:?} (matching rules: {matched:?})",
            expect.state, expect.rule, detection.state, got_rule
        ));
    }
    let flags = [
        ("skip_state_update", expect.skip_state_update, detection.skip_state_update),
        ("visible_blocker", expect.visible_blocker, detection.visible_blocker),
        ("visible_idle", expect.visible_idle, detection.visible_idle),
        ("visible_working", expect.visible_working, detection.visible_working),
    ];
    for (name, want, got) in flags {
        if want.is_some_and(|w| w != got) {
            return Err(format!("{name}: expected {want:?}, got {got}"));
        }
    }
    if let Some(scrollback) = read_optional(dir, "scrollback.txt") {
        let rows = screen.lines().count();
        let buffer = format!("{scrollback}\n{screen}");
        let live = input(&live_bottom(&buffer, rows));
        if live != (expect.state, expect.rule.clone()) {
            return Err(format!("with scrollback above, the live bottom gave {live:?}"));
        }
        // The scrollback must matter: the scrolled-up view alone reads differently, so a detector
        // that looked at the viewport instead of the live bottom would fail this case.
        let viewport = input(&scrolled_view(&buffer, rows));
        if viewport == live {
            return Err(format!("scrollback.txt does not change the verdict when viewed ({viewport:?})"));
        }
    }
    Ok(())
}

#[test]
fn every_fixture_case_yields_its_expected_state_and_rule() {
    let set = ManifestSet::bundled().expect("bundled manifests compile");
    let cases = cases();
    let mut failures = Vec::new();
    for (agent, dir) in &cases {
        if let Err(why) = check(&set, *agent, dir) {
            failures.push(format!("{}: {why}", dir.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn fixture_coverage_meets_the_acceptance_minimum() {
    let cases = cases();
    let major = [Agent::Claude, Agent::Codex, Agent::Cursor, Agent::Gemini, Agent::Copilot, Agent::Opencode];
    for agent in Agent::ALL.into_iter().filter(|a| a.has_screen_manifest()) {
        let count = cases.iter().filter(|(a, _)| *a == agent).count();
        let needed = if major.contains(&agent) { 8 } else { 3 };
        assert!(count >= needed, "{agent}: {count} fixture cases, need {needed}");
    }
}
