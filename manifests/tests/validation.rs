//! Manifest validation: every limit and meaning check names the file, the rule and the problem.

use herdr_manifests::{Agent, ManifestError, ManifestProblem, ManifestSource, compile};

fn check(text: &str) -> Result<(), ManifestError> {
    compile("test.toml", text, Some(Agent::Claude), ManifestSource::Bundled).map(|_| ())
}

fn problem(text: &str) -> (Option<String>, ManifestProblem) {
    let err = check(text).expect_err("manifest must be rejected");
    assert_eq!(err.file, "test.toml");
    (err.rule, err.problem)
}

fn rule(body: &str) -> String {
    format!("id = \"claude\"\n\n[[rules]]\nid = \"r1\"\n{body}\n")
}

#[test]
fn a_minimal_manifest_compiles() {
    check(&rule("state = \"working\"\ncontains = [\"esc to interrupt\"]")).expect("valid");
}

#[test]
fn toml_errors_and_unknown_fields_are_reported_with_the_file() {
    assert!(matches!(problem("id = ").1, ManifestProblem::Toml(_)));
    let (_, p) = problem(&rule("contains = [\"x\"]\nstat = \"idle\""));
    match p {
        ManifestProblem::Toml(message) => assert!(message.contains("stat"), "{message}"),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn root_level_checks() {
    assert_eq!(problem("id = \"claude\"\nrules = []").1, ManifestProblem::NoRules);
    let many: String = (0..129).map(|i| format!("[[rules]]\nid = \"r{i}\"\ncontains = [\"x\"]\n")).collect();
    assert_eq!(
        problem(&format!("id = \"claude\"\n{many}")).1,
        ManifestProblem::TooManyRules { found: 129, limit: 128 }
    );
    let text = format!("version = \"2026.x\"\n{}", rule("contains = [\"x\"]"));
    assert_eq!(problem(&text).1, ManifestProblem::BadVersion("2026.x".into()));
    let text = format!("min_engine_version = 4\n{}", rule("contains = [\"x\"]"));
    assert_eq!(problem(&text).1, ManifestProblem::EngineTooOld { found: 4, supported: 3 });
    let text = rule("contains = [\"x\"]").replace("id = \"claude\"", "id = \"codex\"");
    assert_eq!(
        problem(&text).1,
        ManifestProblem::IdMismatch { expected: "claude".into(), found: "codex".into() }
    );
}

#[test]
fn an_alias_may_name_the_agent() {
    let text = "id = \"claude-code\"\n[[rules]]\nid = \"r\"\ncontains = [\"x\"]\n";
    check(text).expect("alias id accepted");
    let text = "id = \"whatever\"\naliases = [\"herdr:claude\"]\n[[rules]]\nid = \"r\"\ncontains = [\"x\"]\n";
    check(text).expect("herdr: alias accepted");
}

#[test]
fn rule_metadata_checks_name_the_rule() {
    let (rule_id, p) = problem("id = \"claude\"\n[[rules]]\nid = \"\"\ncontains = [\"x\"]\n");
    assert_eq!((rule_id.as_deref(), p), (Some("#0"), ManifestProblem::EmptyRuleId));
    let text = format!("{}[[rules]]\nid = \"r1\"\ncontains = [\"y\"]\n", rule("contains = [\"x\"]"));
    assert_eq!(problem(&text), (Some("r1".into()), ManifestProblem::DuplicateRuleId));
    assert_eq!(
        problem(&rule("state = \"sleeping\"\ncontains = [\"x\"]")).1,
        ManifestProblem::UnknownState("sleeping".into())
    );
    assert_eq!(
        problem(&rule("state = \"working\"\nskip_state_update = true\ncontains = [\"x\"]")).1,
        ManifestProblem::SkipNeedsUnknownState
    );
    assert_eq!(
        problem(&rule("skip_state_update = true\nvisible_idle = true\ncontains = [\"x\"]")).1,
        ManifestProblem::SkipWithVisibleFlag
    );
}

#[test]
fn regions_must_parse_and_counts_must_be_canonical() {
    for bad in
        ["sideways", "bottom_lines(0)", "bottom_lines(007)", "top_non_empty_lines(70000)", "bottom_lines(3"]
    {
        let (_, p) = problem(&rule(&format!("region = \"{bad}\"\ncontains = [\"x\"]")));
        assert!(matches!(p, ManifestProblem::BadRegion { ref region, .. } if region == bad), "{bad}: {p:?}");
    }
    let text = format!(
        "min_engine_version = 2\n{}",
        rule("region = \"top_non_empty_lines(5)\"\ncontains = [\"x\"]")
    );
    assert_eq!(problem(&text).1, ManifestProblem::RegionNeedsEngine3("top_non_empty_lines(5)".into()));
    // Without a declared engine version the region is allowed.
    check(&rule("region = \"top_non_empty_lines(5)\"\ncontains = [\"x\"]")).expect("allowed");
}

#[test]
fn gates_must_have_positive_matchers_and_nots_must_not_be_empty() {
    assert_eq!(
        problem(&rule("not = [{ contains = [\"x\"] }]")).1,
        ManifestProblem::EmptyPositiveGate { path: "rule".into() }
    );
    assert_eq!(
        problem(&rule("contains = [\"x\"]\nall = [{ not = [{ contains = [\"y\"] }] }]")).1,
        ManifestProblem::EmptyPositiveGate { path: "rule.all[0]".into() }
    );
    assert_eq!(
        problem(&rule("contains = [\"x\"]\nnot = [{}]")).1,
        ManifestProblem::EmptyNotGate { path: "rule.not[0]".into() }
    );
}

#[test]
fn size_limits() {
    let mut nested = "{ contains = [\"x\"] }".to_string();
    for _ in 0..8 {
        nested = format!("{{ contains = [\"x\"], all = [{nested}] }}");
    }
    let (_, p) = problem(&rule(&format!("contains = [\"x\"]\nall = [{nested}]")));
    assert!(matches!(p, ManifestProblem::GateTooDeep { limit: 8, .. }), "{p:?}");

    let needles: Vec<String> = (0..33).map(|i| format!("\"n{i}\"")).collect();
    assert_eq!(
        problem(&rule(&format!("contains = [{}]", needles.join(", ")))).1,
        ManifestProblem::TooManyDirectMatchers { path: "rule".into(), found: 33, limit: 32 }
    );
    let long = "a".repeat(513);
    assert_eq!(
        problem(&rule(&format!("contains = [\"ok\", \"{long}\"]"))).1,
        ManifestProblem::MatcherTooLong { path: "rule.contains[1]".into(), found: 513, limit: 512 }
    );

    // 40 rules × 30 needles: each rule is fine, the manifest total (1200) is not.
    let needles: Vec<String> = (0..30).map(|i| format!("\"n{i}\"")).collect();
    let rules: String =
        (0..40).map(|i| format!("[[rules]]\nid = \"r{i}\"\ncontains = [{}]\n", needles.join(", "))).collect();
    let err = check(&format!("id = \"claude\"\n{rules}")).expect_err("too many matchers");
    assert_eq!(err.problem, ManifestProblem::TooManyMatchers { found: 1020 + 30, limit: 1024 });
    assert_eq!(err.rule.as_deref(), Some("r34"));

    // 100 rules × 6 gates = 600 gates.
    let gates = ["{ contains = [\"g\"] }"; 5].join(", ");
    let rules: String = (0..100)
        .map(|i| format!("[[rules]]\nid = \"r{i}\"\ncontains = [\"x\"]\nany = [{gates}]\n"))
        .collect();
    let err = check(&format!("id = \"claude\"\n{rules}")).expect_err("too many gates");
    assert!(matches!(err.problem, ManifestProblem::TooManyGates { limit: 512, .. }), "{err}");
}

#[test]
fn bad_regexes_name_their_path() {
    let (rule_id, p) = problem(&rule("contains = [\"x\"]\nany = [{ regex = [\"(unclosed\"] }]"));
    assert_eq!(rule_id.as_deref(), Some("r1"));
    assert!(
        matches!(p, ManifestProblem::BadRegex { ref path, .. } if path == "rule.any[0].regex[0]"),
        "{p:?}"
    );
}

#[test]
fn the_error_message_names_file_rule_and_problem() {
    let err = check(&rule("state = \"sleeping\"\ncontains = [\"x\"]")).expect_err("rejected");
    assert_eq!(
        err.to_string(),
        "test.toml: rule `r1`: unknown state `sleeping` (expected idle, working, blocked or unknown)"
    );
}
