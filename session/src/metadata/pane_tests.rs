use std::time::{Duration, Instant};

use herdr_protocol::api::requests::PaneReportMetadataParams;
use serde_json::json;

use super::*;

fn params(extra: serde_json::Value) -> PaneReportMetadataParams {
    let mut base = json!({"pane_id": "w1:p1", "source": "test:bot"});
    if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
        base.extend(extra.clone());
    }
    serde_json::from_value(base).expect("params")
}

fn parse(extra: serde_json::Value) -> Result<PaneReport, MetadataError> {
    PaneReport::parse(&params(extra))
}

fn code(extra: serde_json::Value) -> &'static str {
    parse(extra).expect_err("refused").code()
}

#[test]
fn contradictions_and_empty_reports_are_invalid_requests() {
    assert_eq!(code(json!({"title": "x", "clear_title": true})), "invalid_metadata_request");
    // Blank still counts as setting the field.
    assert_eq!(code(json!({"title": "   ", "clear_title": true})), "invalid_metadata_request");
    assert_eq!(code(json!({"display_agent": "x", "clear_display_agent": true})), "invalid_metadata_request");
    assert_eq!(
        code(json!({"state_labels": {"idle": "x"}, "clear_state_labels": true})),
        "invalid_metadata_request"
    );
    assert_eq!(code(json!({})), "invalid_metadata_request");
    assert_eq!(code(json!({"state_labels": {"sleeping": "x"}})), "invalid_metadata_request");
    assert!(parse(json!({"clear_title": true})).is_ok());
}

#[test]
fn source_and_ttl_are_checked_before_the_fields() {
    assert_eq!(code(json!({"source": "has space"})), "invalid_metadata_source");
    assert_eq!(code(json!({"source": "", "title": "x"})), "invalid_metadata_source");
    assert_eq!(code(json!({"ttl_ms": 0})), "invalid_metadata_ttl");
    assert_eq!(code(json!({"ttl_ms": 86_400_001, "title": "x"})), "invalid_metadata_ttl");
    assert_eq!(code(json!({"tokens": {"bad key": "v"}})), "invalid_metadata_token");
}

#[test]
fn text_is_trimmed_cleaned_and_cut_to_80_characters() {
    let report = parse(json!({"title": format!("  a\u{7}b{}  ", "c".repeat(100))})).expect("ok");
    let FieldChange::Set(Some(title)) = &report.title else { panic!("{:?}", report.title) };
    assert!(title.starts_with("abc") && title.chars().count() == 80, "{title}");
}

#[test]
fn presentation_follows_the_guard_and_tokens_do_not() {
    let now = Instant::now();
    let mut meta = PaneMetadata::default();
    let report = parse(json!({
        "agent": "claude", "title": "Refactor", "display_agent": "Claude auth",
        "state_labels": {"working": "deep in it"}, "tokens": {"branch": "main"},
    }))
    .expect("ok");
    let codex = AgentNow { agent: Some("codex"), authority_source: None };
    let changed = meta.apply(&report, codex, now).expect("applies");
    assert_eq!(changed, Changed { tokens: true, presentation: false });
    assert_eq!((meta.title(), meta.tokens.values().get("branch").map(String::as_str)), (None, Some("main")));

    let claude = AgentNow { agent: Some("claude"), authority_source: Some("herdr:claude") };
    assert_eq!(meta.apply(&report, claude, now), Ok(Changed { tokens: false, presentation: true }));
    assert_eq!((meta.title(), meta.display_agent()), (Some("Refactor"), Some("Claude auth")));
    assert_eq!(meta.state_labels().get("working").map(String::as_str), Some("deep in it"));

    let other_source = parse(json!({"applies_to_source": "herdr:codex", "clear_title": true})).expect("ok");
    assert_eq!(meta.apply(&other_source, claude, now), Ok(Changed::default()));
    let clear = parse(json!({"clear_title": true, "clear_state_labels": true})).expect("ok");
    assert_eq!(meta.apply(&clear, claude, now), Ok(Changed { tokens: false, presentation: true }));
    assert_eq!((meta.title(), meta.state_labels().len()), (None, 0));
    assert_eq!(meta.display_agent(), Some("Claude auth"));
}

#[test]
fn a_stale_seq_changes_nothing_and_only_tokens_expire() {
    let now = Instant::now();
    let mut meta = PaneMetadata::default();
    let any = AgentNow::default();
    let first = parse(json!({"seq": 5, "ttl_ms": 100, "title": "one", "tokens": {"k": "v"}})).expect("ok");
    assert!(meta.apply(&first, any, now).expect("fresh").any());
    let stale = parse(json!({"seq": 5, "title": "two", "tokens": {"k": "w"}})).expect("ok");
    assert_eq!(meta.apply(&stale, any, now), Ok(Changed::default()));
    assert_eq!(meta.title(), Some("one"));
    assert_eq!(meta.tokens.next_expiry(), Some(now + Duration::from_millis(100)));
    assert!(meta.tokens.expire(now + Duration::from_millis(100)));
    assert!(meta.tokens.is_empty());
    assert_eq!(meta.title(), Some("one"), "presentation has no ttl");
}
