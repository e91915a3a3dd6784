//! Evaluation rules (priority, ties, fallbacks, visible flags), regions, explain and overrides.

use herdr_manifests::regions::Screen;
use herdr_manifests::{
    Agent, AgentState, DetectionInput, ManifestSet, ManifestSource, OverrideFile, Region, compile,
    effective_manifests, evaluate, explain,
};

fn manifest(rules: &str) -> herdr_manifests::CompiledManifest {
    compile("t.toml", &format!("id = \"codex\"\n{rules}"), Some(Agent::Codex), ManifestSource::Bundled)
        .expect("valid test manifest")
}

fn screen(text: &str) -> DetectionInput<'_> {
    DetectionInput { screen: text, osc_title: None, osc_progress: None }
}

#[test]
fn highest_priority_wins_regardless_of_file_order() {
    let m = manifest(
        "[[rules]]\nid = \"low\"\nstate = \"working\"\npriority = 10\ncontains = [\"x\"]\n\
         [[rules]]\nid = \"high\"\nstate = \"blocked\"\npriority = 20\ncontains = [\"x\"]\n",
    );
    let d = evaluate(Some(Agent::Codex), Some(&m), &screen("x"));
    assert_eq!((d.state, d.matched_rule.map(|r| r.id)), (AgentState::Blocked, Some("high".into())));
}

#[test]
fn ties_keep_the_earlier_rule_in_file_order() {
    let m = manifest(
        "[[rules]]\nid = \"first\"\nstate = \"working\"\npriority = 5\ncontains = [\"x\"]\n\
         [[rules]]\nid = \"second\"\nstate = \"blocked\"\npriority = 5\ncontains = [\"x\"]\n",
    );
    let d = evaluate(Some(Agent::Codex), Some(&m), &screen("x"));
    assert_eq!(d.matched_rule.map(|r| r.id), Some("first".into()));
}

#[test]
fn negative_priorities_and_fallbacks() {
    let m =
        manifest("[[rules]]\nid = \"catch_all\"\nstate = \"working\"\npriority = -10\nregex = ['(?s).+']\n");
    assert_eq!(evaluate(Some(Agent::Codex), Some(&m), &screen("anything")).state, AgentState::Working);
    let empty = evaluate(Some(Agent::Codex), Some(&m), &screen("\n\n"));
    assert_eq!(
        (empty.state, empty.fallback_reason),
        (AgentState::Idle, Some("default_known_agent_idle_fallback"))
    );
    let none = evaluate(None, Some(&m), &screen("anything"));
    assert_eq!(none.state, AgentState::Unknown);
    // Hook-only kinds have no manifest: a known agent still falls back to idle.
    let omp = evaluate(Some(Agent::Omp), None, &screen("anything"));
    assert_eq!(omp.state, AgentState::Idle);
}

#[test]
fn visible_flags_are_reported_only_when_they_agree_with_the_state() {
    let m = manifest(
        "[[rules]]\nid = \"odd\"\nstate = \"working\"\nvisible_blocker = true\nvisible_working = true\ncontains = [\"x\"]\n",
    );
    let d = evaluate(Some(Agent::Codex), Some(&m), &screen("x"));
    assert!(d.visible_working && !d.visible_blocker);
}

#[test]
fn matchers_follow_their_semantics() {
    let m = manifest(
        "[[rules]]\nid = \"r\"\nstate = \"blocked\"\n\
         contains = [\"ESC TO CANCEL\"]\n\
         line_regex = ['^\\s*1\\.', '^\\s*2\\.']\n\
         any = [{ contains = [\"nope\"] }, { contains = [\"enter\"] }]\n\
         not = [{ contains = [\"interrupted\"] }]\n",
    );
    let ok = "Pick one\n 1. yes\n 2. no\nenter to confirm · esc to cancel";
    assert_eq!(evaluate(Some(Agent::Codex), Some(&m), &screen(ok)).state, AgentState::Blocked);
    let missing_line = "Pick one\n 1. yes\nenter to confirm · esc to cancel";
    assert_eq!(evaluate(Some(Agent::Codex), Some(&m), &screen(missing_line)).state, AgentState::Idle);
    let vetoed = format!("{ok}\ninterrupted");
    assert_eq!(evaluate(Some(Agent::Codex), Some(&m), &screen(&vetoed)).state, AgentState::Idle);
    // `regex` is case-sensitive unless the pattern says otherwise.
    let m = manifest("[[rules]]\nid = \"r\"\nstate = \"working\"\nregex = ['Working']\n");
    assert_eq!(evaluate(Some(Agent::Codex), Some(&m), &screen("working")).state, AgentState::Idle);
}

#[test]
fn regions_cut_the_screen_as_specified() {
    let text = "top\n\nalpha\n› 1. old prompt\n• block one\n› current\nbelow\n\n\n";
    let s = Screen::new(text, Some("title"), Some("4;0;0"));
    assert_eq!(s.cut(Region::WholeRecent), "top\n\nalpha\n› 1. old prompt\n• block one\n› current\nbelow");
    assert_eq!(s.cut(Region::BottomLines(2)), "› current\nbelow");
    assert_eq!(
        s.cut(Region::BottomNonEmptyLines(5)),
        "alpha\n› 1. old prompt\n• block one\n› current\nbelow"
    );
    assert_eq!(s.cut(Region::TopNonEmptyLines(2)), "top\n\nalpha");
    assert_eq!(s.cut(Region::AfterLastPromptMarker), "below");
    assert_eq!(s.cut(Region::BeforeCurrentPromptMarker), "top\n\nalpha\n› 1. old prompt\n• block one");
    assert_eq!(s.cut(Region::WholeRecentWithoutCurrentPromptMarker), "");
    assert_eq!(s.cut(Region::CurrentPromptBlockMarker), "• block one");
    assert_eq!(s.cut(Region::AfterCurrentPromptBlockMarker), "• block one\n› current\nbelow");
    assert_eq!(s.cut(Region::OscTitle), "title");
    assert_eq!(s.cut(Region::OscProgress), "4;0;0");

    // A block marker after the last prompt means there is no current prompt.
    let s = Screen::new("› asked\n• answered", None, None);
    assert_eq!(s.cut(Region::WholeRecentWithoutCurrentPromptMarker), "› asked\n• answered");
    assert_eq!(s.cut(Region::BeforeCurrentPromptMarker), "› asked\n• answered");
    assert_eq!(s.cut(Region::CurrentPromptBlockMarker), "");
    assert_eq!(s.cut(Region::OscTitle), "");
}

#[test]
fn prompt_box_regions_use_the_last_two_horizontal_rules() {
    let rule = "─".repeat(20);
    let text = format!("history\n──── Plan ────\nsteps\n\nstatus …\n{rule}\n❯ hello\n{rule}\n  footer");
    let s = Screen::new(&text, None, None);
    assert_eq!(s.cut(Region::PromptBoxBody), "❯ hello");
    assert_eq!(s.cut(Region::AbovePromptBox), "history\n──── Plan ────\nsteps\n\nstatus …");
    assert_eq!(s.cut(Region::LastNonEmptyAbovePromptBox), "status …");
    assert_eq!(s.cut(Region::AfterLastHorizontalRule), "  footer");
    // A titled rule counts; `──x` (fewer than three dashes then text) does not.
    let s = Screen::new("a\n──x\nb", None, None);
    assert_eq!(s.cut(Region::AfterLastHorizontalRule), "a\n──x\nb");
    assert_eq!(s.cut(Region::PromptBoxBody), "");
    assert_eq!(s.cut(Region::AbovePromptBox), "a\n──x\nb");
}

#[test]
fn explain_reports_every_rule_with_evidence_and_the_winner() {
    let m = manifest(
        "[[rules]]\nid = \"blocked_dialog\"\nstate = \"blocked\"\npriority = 900\nvisible_blocker = true\n\
         contains = [\"allow command?\", \"esc\"]\n\
         [[rules]]\nid = \"working_line\"\nstate = \"working\"\npriority = 500\n\
         line_regex = ['^• Working']\nall = [{ contains = [\"interrupt\"] }]\n",
    );
    let text = "• Working (3s • esc to interrupt)";
    let e = explain(Some(Agent::Codex), Some(&m), &screen(text), Some("w".into()));
    assert_eq!(e.state, AgentState::Working);
    assert_eq!(e.matched_rule.as_ref().map(|r| r.id.as_str()), Some("working_line"));
    assert_eq!(e.evaluated_rules.len(), 2);
    let blocked = &e.evaluated_rules[0];
    assert!(!blocked.matched);
    assert_eq!(blocked.failed_at.as_deref(), Some("rule.contains[0]"));
    assert_eq!(blocked.evidence.contains.iter().map(|n| n.found).collect::<Vec<_>>(), vec![false, true]);
    let working = &e.evaluated_rules[1];
    assert!(working.matched);
    assert_eq!(working.evidence.line_regex[0].line.as_deref(), Some(text));
    assert_eq!(working.evidence.all_count, 1);
    let json = serde_json::to_value(&e).expect("serializable");
    assert_eq!(json["matched_rule"]["id"], "working_line");
    assert_eq!(json["manifest_source"], "bundled");
    assert_eq!(json["warning"], "w");
}

#[test]
fn explain_traces_nested_gate_failures() {
    let m = manifest(
        "[[rules]]\nid = \"r\"\nstate = \"working\"\ncontains = [\"a\"]\nall = [{ contains = [\"b\"] }, { line_regex = ['^c$'] }]\n",
    );
    let e = explain(Some(Agent::Codex), Some(&m), &screen("a b\nd"), None);
    assert_eq!(e.evaluated_rules[0].failed_at.as_deref(), Some("rule.all[1].line_regex[0]"));
    let long = "x".repeat(1000);
    let e = explain(Some(Agent::Codex), Some(&m), &screen(&long), None);
    assert_eq!(e.evaluated_rules[0].evidence.region_preview.chars().count(), 240);
    assert_eq!(e.evaluated_rules[0].evidence.region_bytes, 1000);
}

#[test]
fn bundled_manifests_cover_every_screen_agent() {
    let set = ManifestSet::bundled().expect("bundled manifests compile");
    for agent in Agent::ALL {
        assert_eq!(set.get(agent).is_some(), agent.has_screen_manifest(), "{agent}");
    }
    let listed: Vec<&str> = herdr_manifests::embedded::BUNDLED.iter().map(|(name, _)| *name).collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("agents");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("agents dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, listed, "embedded table and agents/ folder differ");
}

#[test]
fn a_valid_override_replaces_the_bundled_manifest() {
    let text = "id = \"codex\"\nversion = \"9.0\"\n[[rules]]\nid = \"mine\"\nstate = \"blocked\"\ncontains = [\"halt\"]\n";
    let loaded = effective_manifests(&[OverrideFile {
        path: "/cfg/agent-detection/codex.toml".into(),
        contents: text.into(),
    }]);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let m = loaded.set.get(Agent::Codex).expect("codex");
    assert_eq!(m.source, ManifestSource::Override("/cfg/agent-detection/codex.toml".into()));
    let d = loaded.set.evaluate(Some(Agent::Codex), &screen("halt"));
    assert_eq!(d.matched_rule.map(|r| r.id), Some("mine".into()));
    // Other agents keep their bundled manifests.
    assert_eq!(loaded.set.get(Agent::Claude).map(|m| &m.source), Some(&ManifestSource::Bundled));
}

#[test]
fn invalid_overrides_are_reported_and_ignored() {
    let overrides = [
        OverrideFile {
            path: "claude.toml".into(),
            contents: "id = \"claude\"\n[[rules]]\nid = \"r\"\nregex = ['(']\n".into(),
        },
        OverrideFile {
            path: "gemini.toml".into(),
            contents: "id = \"codex\"\n[[rules]]\nid = \"r\"\ncontains = [\"x\"]\n".into(),
        },
        OverrideFile { path: "notes.toml".into(), contents: String::new() },
    ];
    let loaded = effective_manifests(&overrides);
    assert_eq!(loaded.diagnostics.len(), 3, "{:?}", loaded.diagnostics);
    assert!(loaded.diagnostics[0].message.starts_with("claude.toml: rule `r`: regex at rule.regex[0]"));
    assert!(loaded.diagnostics[1].message.contains("does not name agent `gemini`"));
    assert_eq!(loaded.diagnostics[2].agent, None);
    assert_eq!(loaded.set.get(Agent::Claude).map(|m| &m.source), Some(&ManifestSource::Bundled));
    assert_eq!(loaded.set.get(Agent::Gemini).map(|m| &m.source), Some(&ManifestSource::Bundled));
    let e = loaded.set.explain(Some(Agent::Claude), &screen(""));
    assert!(e.warning.as_deref().is_some_and(|w| w.contains("override ignored")));
}
