//! The `last_turn` cut against every `manifests/fixtures/<agent>/last_turn_*/` case: `screen.txt`
//! (the pane's recent text at the end of a turn) must give exactly `expect_last_turn.txt` (the
//! agent's reply only). Adding a case adds files, not code. Also the `[last_turn]` table's checks,
//! the generic cut and the bounds.

use std::fs;
use std::path::{Path, PathBuf};

use herdr_manifests::{Agent, ManifestProblem, ManifestSet, ManifestSource, compile, last_turn};

fn cases() -> Vec<(Agent, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for agent_dir in fs::read_dir(&root).expect("fixtures dir") {
        let agent_dir = agent_dir.expect("entry").path();
        let label = agent_dir.file_name().and_then(|n| n.to_str()).expect("utf-8 name").to_string();
        let agent = Agent::from_label(&label).expect("fixture folders are agent labels");
        for case in fs::read_dir(&agent_dir).expect("agent dir") {
            let case = case.expect("entry").path();
            if case.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("last_turn_")) {
                out.push((agent, case));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// Expected and got side by side, line by line, `!` marking the lines that differ.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    (0..w.len().max(g.len()))
        .map(|i| {
            let (a, b) = (w.get(i).copied().unwrap_or("<none>"), g.get(i).copied().unwrap_or("<none>"));
            format!("  {} want {a:?}\n    got  {b:?}", if a == b { ' ' } else { '!' })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_last_turn_fixture_cuts_to_the_reply_only() {
    let set = ManifestSet::bundled().expect("bundled manifests compile");
    let cases = cases();
    let mut failures = Vec::new();
    for (agent, dir) in &cases {
        let screen = fs::read_to_string(dir.join("screen.txt")).expect("screen.txt");
        let want = fs::read_to_string(dir.join("expect_last_turn.txt")).expect("expect_last_turn.txt");
        let turn = last_turn(set.get(*agent), &screen);
        if turn.text != want.trim_end_matches('\n') || turn.prompt.is_none() {
            failures.push(format!(
                "{} (prompt {:?}):\n{}",
                dir.display(),
                turn.prompt,
                diff(&want, &turn.text)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} last_turn cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let major = [Agent::Claude, Agent::Codex, Agent::Opencode, Agent::Gemini, Agent::Cursor, Agent::Copilot];
    for agent in major {
        assert!(cases.iter().any(|(a, _)| *a == agent), "{agent}: no last_turn fixture");
        assert!(set.get(agent).is_some_and(|m| m.last_turn.is_some()), "{agent}: no [last_turn] table");
    }
}

#[test]
fn the_reply_is_much_smaller_than_the_screen_it_was_cut_from() {
    let set = ManifestSet::bundled().expect("bundled manifests compile");
    for (agent, dir) in cases() {
        let screen = fs::read_to_string(dir.join("screen.txt")).expect("screen.txt");
        let turn = last_turn(set.get(agent), &screen);
        assert!(turn.text.len() < screen.len(), "{}", dir.display());
        let footer = screen.lines().rev().find(|l| !l.trim().is_empty()).expect("a drawn screen");
        assert!(!turn.text.contains(footer.trim()), "{}: the footer survived", dir.display());
    }
}

#[test]
fn without_a_table_the_generic_cut_applies() {
    let screen = "old\n> first\n\nanswer one\n> second question\n  continued\nanswer two\n\nmore\n\
                  ────\n❯ \n────\n  footer";
    let turn = last_turn(None, screen);
    assert_eq!(turn.prompt.as_deref(), Some("> second question\n  continued\nanswer two"));
    assert_eq!(turn.text, "more");
    let no_prompt = last_turn(None, "just output\n\nmore output\n────\n❯ \n────");
    assert_eq!((no_prompt.prompt, no_prompt.text.as_str()), (None, "just output\n\nmore output"));
}

#[test]
fn bounds_keep_the_end_and_say_when_they_cut() {
    let turn = last_turn(None, "> q\n\nl1\nl2\nl3\nl4");
    assert_eq!(turn.bounded(None, 1024), ("l1\nl2\nl3\nl4".to_string(), false));
    assert_eq!(turn.bounded(Some(2), 1024), ("l3\nl4".to_string(), true));
    assert_eq!(turn.bounded(None, 5), ("l3\nl4".to_string(), true));
    let long = last_turn(None, "> q\n\nééééé");
    assert_eq!(long.bounded(None, 5), ("éé".to_string(), true));
    let unseen = last_turn(None, "reply without its prompt");
    assert!(unseen.bounded(None, 1024).1, "a turn whose start was not seen is truncated");
}

fn table(body: &str) -> Result<(), ManifestProblem> {
    let text = format!("id = \"claude\"\n[[rules]]\nid = \"r\"\ncontains = [\"x\"]\n[last_turn]\n{body}\n");
    compile("t.toml", &text, Some(Agent::Claude), ManifestSource::Bundled).map(|_| ()).map_err(|e| e.problem)
}

#[test]
fn the_last_turn_table_is_validated_like_the_rules() {
    assert_eq!(table("end_region = \"above_prompt_box\"\nstrip_prefix = [\"* \"]"), Ok(()));
    assert_eq!(
        table("end_region = \"bottom_lines(3)\""),
        Err(ManifestProblem::BadLastTurnEnd("bottom_lines(3)".into()))
    );
    assert!(matches!(table("end_region = \"nowhere\""), Err(ManifestProblem::BadRegion { .. })));
    assert!(
        matches!(table("prompt_line_regex = \"(\""), Err(ManifestProblem::BadRegex { path, .. }) if path == "last_turn.prompt_line_regex")
    );
    assert!(
        matches!(table("chrome_line_regex = [\"ok\", \"[\"]"), Err(ManifestProblem::BadRegex { path, .. }) if path == "last_turn.chrome_line_regex[1]")
    );
    assert_eq!(
        table("strip_prefix = [\" \"]"),
        Err(ManifestProblem::EmptyStripPrefix { path: "last_turn.strip_prefix[0]".into() })
    );
    let long = "x".repeat(513);
    assert!(matches!(
        table(&format!("end_line_regex = \"{long}\"")),
        Err(ManifestProblem::MatcherTooLong { .. })
    ));
    let many = (0..33).map(|i| format!("\"c{i}\"")).collect::<Vec<_>>().join(", ");
    assert!(matches!(
        table(&format!("chrome_line_regex = [{many}]")),
        Err(ManifestProblem::TooManyDirectMatchers { .. })
    ));
    assert!(
        matches!(table("prompt_regex = \"x\""), Err(ManifestProblem::Toml(m)) if m.contains("prompt_regex"))
    );
}
