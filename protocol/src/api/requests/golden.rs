//! Golden request files (`protocol/tests/golden/requests/<method>.json`, one per method): each
//! is a whole request line that validates against the schema, parses into the typed request of
//! its method, and serializes back to the same JSON.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{METHODS, RequestEnvelope};
use crate::schema_check::{SchemaKind, validate};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/requests")
}

fn read(path: &Path) -> (String, Value) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text, value)
}

#[test]
fn every_method_has_a_golden_request_and_every_file_is_a_method() {
    let files: BTreeSet<String> = std::fs::read_dir(golden_dir())
        .expect("the golden requests folder")
        .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    let wanted: BTreeSet<String> = METHODS.iter().map(|m| format!("{m}.json")).collect();
    let missing: Vec<_> = wanted.difference(&files).collect();
    let extra: Vec<_> = files.difference(&wanted).collect();
    assert!(missing.is_empty(), "methods without a golden request: {missing:?}");
    assert!(extra.is_empty(), "golden requests of no method: {extra:?}");
}

#[test]
fn golden_requests_validate_parse_and_round_trip() {
    let mut failures = Vec::new();
    for method in METHODS {
        let path = golden_dir().join(format!("{method}.json"));
        if !path.exists() {
            continue; // reported by the test above
        }
        let (text, value) = read(&path);
        if let Err(errors) = validate(SchemaKind::Request, &value) {
            failures.push(format!("{method}: the schema rejects it: {errors:?}"));
            continue;
        }
        let envelope = match RequestEnvelope::parse_line(&text) {
            Ok(envelope) => envelope,
            Err(e) => {
                failures.push(format!("{method}: does not parse: {e}"));
                continue;
            }
        };
        if envelope.request.method() != *method {
            failures.push(format!("{method}: parsed as {}", envelope.request.method()));
        }
        match envelope.to_value() {
            Ok(back) if back == value => {}
            Ok(back) => {
                failures.push(format!("{method}: round trip differs:\n  file {value}\n  back {back}"))
            }
            Err(e) => failures.push(format!("{method}: does not serialize: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
