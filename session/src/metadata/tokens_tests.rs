use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::*;

fn raw(pairs: &[(&str, Option<&str>)]) -> BTreeMap<String, Option<String>> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned))).collect()
}

fn patch(pairs: &[(&str, Option<&str>)]) -> Patch {
    normalize_tokens(&raw(pairs)).expect("valid tokens")
}

#[test]
fn sources_ttls_and_texts_are_normalised_or_refused() {
    assert_eq!(normalize_source("  herdr:pi.v2_x-y "), Ok("herdr:pi.v2_x-y".to_owned()));
    for bad in ["", "   ", "has space", "slash/no", &"x".repeat(81)] {
        assert_eq!(normalize_source(bad), Err(MetadataError::InvalidSource), "{bad:?}");
    }
    assert_eq!(normalize_ttl(Some(1)), Ok(Some(Duration::from_millis(1))));
    assert_eq!(normalize_ttl(Some(MAX_TTL_MS)), Ok(Some(Duration::from_millis(MAX_TTL_MS))));
    assert_eq!(normalize_ttl(Some(0)), Err(MetadataError::InvalidTtl));
    assert_eq!(normalize_ttl(Some(MAX_TTL_MS + 1)), Err(MetadataError::InvalidTtl));
    assert_eq!(normalize_text("  a\u{7}b\tc \n"), Some("abc".to_owned()));
    assert_eq!(normalize_text(" \u{1b} "), None);
    assert_eq!(normalize_text(&"é".repeat(100)).map(|s| s.chars().count()), Some(80));
}

#[test]
fn tokens_need_valid_names_and_at_most_sixteen_per_report() {
    assert!(
        matches!(normalize_tokens(&raw(&[])), Err(MetadataError::InvalidToken(m)) if m.contains("missing"))
    );
    for bad in ["", "with space", "dot.ted", &"k".repeat(33)] {
        let err = normalize_tokens(&raw(&[(bad, Some("v"))])).expect_err(bad);
        assert_eq!(err.code(), "invalid_metadata_token");
    }
    let seventeen: Vec<(String, Option<String>)> =
        (0..17).map(|i| (format!("k{i}"), Some("v".into()))).collect();
    let err = normalize_tokens(&seventeen.into_iter().collect()).expect_err("17 keys");
    assert_eq!(err.code(), "invalid_metadata_token");
    // An empty value clears, like null.
    assert_eq!(patch(&[("a", Some("  ")), ("b", None)]), raw(&[("a", None), ("b", None)]));
}

#[test]
fn a_stale_seq_is_accepted_and_changes_nothing() {
    let now = Instant::now();
    let mut ledger = Ledger::default();
    let p = patch(&[("branch", Some("main"))]);
    assert_eq!(ledger.check("s", Some(5), &p, "pane"), Ok(Verdict::Fresh));
    assert!(ledger.apply("s", Some(5), p, None, now));
    let older = patch(&[("branch", Some("old"))]);
    assert_eq!(ledger.check("s", Some(5), &older, "pane"), Ok(Verdict::Stale));
    assert_eq!(ledger.check("s", Some(4), &older, "pane"), Ok(Verdict::Stale));
    // Another source, or no seq at all, is always new.
    assert_eq!(ledger.check("other", Some(1), &older, "pane"), Ok(Verdict::Fresh));
    assert_eq!(ledger.check("s", None, &older, "pane"), Ok(Verdict::Fresh));
    // Setting the same value again is not a change.
    assert!(!ledger.apply("s", Some(6), patch(&[("branch", Some("main"))]), None, now));
}

#[test]
fn a_resource_holds_at_most_thirty_two_keys_and_thirty_two_sequenced_sources() {
    let now = Instant::now();
    let mut ledger = Ledger::default();
    for chunk in 0..2 {
        let keys: Vec<(String, Option<String>)> =
            (0..16).map(|i| (format!("k{chunk}_{i}"), Some("v".into()))).collect();
        let p = normalize_tokens(&keys.into_iter().collect()).expect("16 keys");
        assert_eq!(ledger.check("s", None, &p, "workspace"), Ok(Verdict::Fresh));
        ledger.apply("s", None, p, None, now);
    }
    let one_more = patch(&[("extra", Some("v"))]);
    let err = ledger.check("s", None, &one_more, "workspace").expect_err("33rd key");
    assert_eq!(
        (err.code(), err.to_string().as_str()),
        ("metadata_token_limit", "workspace metadata may contain at most 32 tokens")
    );
    // Clearing one in the same report makes room.
    let swap = patch(&[("extra", Some("v")), ("k0_0", None)]);
    assert_eq!(ledger.check("s", None, &swap, "workspace"), Ok(Verdict::Fresh));

    let mut ledger = Ledger::default();
    for i in 0..32 {
        let p = patch(&[("k", Some("v"))]);
        assert_eq!(ledger.check(&format!("src{i}"), Some(1), &p, "pane"), Ok(Verdict::Fresh));
        ledger.apply(&format!("src{i}"), Some(1), p, None, now);
    }
    // Clearing every token does not give a sequence source back.
    ledger.apply("src0", Some(2), patch(&[("k", None)]), None, now);
    let err = ledger.check("src32", Some(1), &patch(&[("k", Some("v"))]), "pane").expect_err("33rd source");
    assert_eq!(err.code(), "metadata_sequence_source_limit");
    // A known source, and a report without seq, still pass.
    assert_eq!(ledger.check("src5", Some(9), &patch(&[("k", Some("v"))]), "pane"), Ok(Verdict::Fresh));
    assert_eq!(ledger.check("src32", None, &patch(&[("k", Some("v"))]), "pane"), Ok(Verdict::Fresh));
}

#[test]
fn a_ttl_applies_to_the_keys_its_report_set_and_expiry_removes_them() {
    let now = Instant::now();
    let mut ledger = Ledger::default();
    ledger.apply("s", None, patch(&[("keep", Some("1"))]), None, now);
    assert_eq!(ledger.next_expiry(), None, "nothing can expire: no timer");
    ledger.apply("s", None, patch(&[("brief", Some("2"))]), Some(Duration::from_millis(500)), now);
    assert_eq!(ledger.next_expiry(), Some(now + Duration::from_millis(500)));
    assert!(!ledger.expire(now + Duration::from_millis(499)));
    assert!(ledger.expire(now + Duration::from_millis(500)));
    assert_eq!(ledger.values(), BTreeMap::from([("keep".to_owned(), "1".to_owned())]));
    assert_eq!(ledger.next_expiry(), None);
    // Setting a key again without a ttl makes it permanent.
    ledger.apply("s", None, patch(&[("brief", Some("3"))]), Some(Duration::from_secs(1)), now);
    ledger.apply("s", None, patch(&[("brief", Some("3"))]), None, now);
    assert_eq!(ledger.next_expiry(), None);
}
