//! Checks every line herdr sends against the protocol-22 JSON Schema
//! (`protocol/schema/herdr-api-p22.schema.json`).
//!
//! The schema document bundles five schemas under `schemas` (request, success_response,
//! error_response, event, subscription_event) whose `$ref`s point into the whole document
//! (`#/schemas/success_response/$defs/X`). So each validator is compiled from a copy of the whole
//! document with a root `$ref` to the one sub-schema it checks.
//!
//! This module does not decide whether a response is the *right* answer to a request; it only
//! says whether the line is a well-formed protocol-22 message.

use std::fmt;
use std::sync::OnceLock;

use serde_json::Value;

const SCHEMA_TEXT: &str = include_str!("../../protocol/schema/herdr-api-p22.schema.json");

/// Which of the schema's message shapes a line was validated as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// `{"id", "result"}`.
    Success,
    /// `{"id", "error"}`.
    Error,
    /// A lifecycle event line `{"event": "pane_created", "data": {...}}`.
    Event,
    /// A parameterised subscription event `{"event": "pane.output_matched", "data": {...}}`.
    SubscriptionEvent,
}

impl LineKind {
    fn schema_name(self) -> &'static str {
        match self {
            LineKind::Success => "success_response",
            LineKind::Error => "error_response",
            LineKind::Event => "event",
            LineKind::SubscriptionEvent => "subscription_event",
        }
    }
}

/// A line that is not a valid protocol-22 message, with every violation the validator found.
#[derive(Debug, Clone)]
pub struct SchemaViolation {
    pub kind: Option<LineKind>,
    pub problems: Vec<String>,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Some(kind) => write!(f, "not a valid {}: ", kind.schema_name())?,
            None => write!(f, "not a protocol message: ")?,
        }
        write!(f, "{}", self.problems.join("; "))
    }
}

struct Validators {
    success: jsonschema::Validator,
    error: jsonschema::Validator,
    event: jsonschema::Validator,
    subscription_event: jsonschema::Validator,
    request: jsonschema::Validator,
}

fn validators() -> &'static Validators {
    static VALIDATORS: OnceLock<Validators> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let document: Value =
            serde_json::from_str(SCHEMA_TEXT).expect("the bundled protocol-22 schema is valid JSON");
        Validators {
            success: compile(&document, "success_response"),
            error: compile(&document, "error_response"),
            event: compile(&document, "event"),
            subscription_event: compile(&document, "subscription_event"),
            request: compile(&document, "request"),
        }
    })
}

fn compile(document: &Value, schema: &str) -> jsonschema::Validator {
    let mut root = document.clone();
    if let Value::Object(map) = &mut root {
        map.insert("$ref".to_owned(), Value::String(format!("#/schemas/{schema}")));
    }
    jsonschema::draft202012::new(&root)
        .unwrap_or_else(|error| panic!("the protocol-22 schema `{schema}` does not compile: {error}"))
}

fn check(
    validator: &jsonschema::Validator,
    kind: LineKind,
    value: &Value,
) -> Result<LineKind, SchemaViolation> {
    let problems: Vec<String> =
        validator.iter_errors(value).map(|error| format!("at {}: {}", error.instance_path, error)).collect();
    if problems.is_empty() { Ok(kind) } else { Err(SchemaViolation { kind: Some(kind), problems }) }
}

/// Classifies a line by its top-level keys and validates it against the matching schema.
pub fn validate_line(value: &Value) -> Result<LineKind, SchemaViolation> {
    let Some(object) = value.as_object() else {
        return Err(SchemaViolation {
            kind: None,
            problems: vec!["a line must be a JSON object".to_owned()],
        });
    };
    let validators = validators();
    if object.contains_key("error") {
        check(&validators.error, LineKind::Error, value)
    } else if object.contains_key("result") {
        check(&validators.success, LineKind::Success, value)
    } else if let Some(event) = object.get("event") {
        // Parameterised subscription events use dotted names, lifecycle events underscored ones.
        if event.as_str().is_some_and(|name| name.contains('.')) {
            check(&validators.subscription_event, LineKind::SubscriptionEvent, value)
        } else {
            check(&validators.event, LineKind::Event, value)
        }
    } else {
        Err(SchemaViolation {
            kind: None,
            problems: vec!["a line needs `result`, `error` or `event` at the top level".to_owned()],
        })
    }
}

/// Validates a line and panics with the raw text and every violation if it is not valid.
/// The harness calls this on everything it receives, as it receives it.
pub fn assert_valid_line(raw: &str, value: &Value) -> LineKind {
    validate_line(value).unwrap_or_else(|violation| panic!("schema violation: {violation}\n  line: {raw}"))
}

/// Whether a request we are about to send is a valid protocol-22 request (used to keep the
/// tour honest: it must send what real clients send).
pub fn validate_request(value: &Value) -> Result<(), SchemaViolation> {
    check(&validators().request, LineKind::Success, value).map(|_| ()).map_err(|mut violation| {
        violation.kind = None;
        violation.problems.insert(0, "invalid request".to_owned());
        violation
    })
}

/// Every method name the protocol-22 request schema lists, in schema order.
pub fn request_methods() -> Vec<String> {
    let document: Value =
        serde_json::from_str(SCHEMA_TEXT).expect("the bundled protocol-22 schema is valid JSON");
    document["schemas"]["request"]["oneOf"]
        .as_array()
        .map(|variants| {
            variants
                .iter()
                .filter_map(|variant| variant["properties"]["method"]["const"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_a_pong_and_an_error() {
        let pong = json!({"id": "1", "result": {"type": "pong", "version": "0.1.0", "protocol": 22}});
        assert_eq!(validate_line(&pong).expect("pong is valid"), LineKind::Success);
        let error = json!({"id": "", "error": {"code": "invalid_request", "message": "invalid request: x"}});
        assert_eq!(validate_line(&error).expect("error is valid"), LineKind::Error);
    }

    #[test]
    fn rejects_wrong_shapes() {
        let numeric_id = json!({"id": 1, "result": {"type": "pong", "version": "0.1.0", "protocol": 22}});
        assert!(validate_line(&numeric_id).is_err());
        let unknown_type = json!({"id": "1", "result": {"type": "no_such_result"}});
        assert!(validate_line(&unknown_type).is_err());
        let missing_message = json!({"id": "1", "error": {"code": "timeout"}});
        assert!(validate_line(&missing_message).is_err());
        let read_without_text = json!({"id": "1", "result": {"type": "pane_read", "read": {
            "pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "source": "visible",
            "format": "text", "revision": 0, "truncated": false}}});
        assert!(validate_line(&read_without_text).is_err());
        assert!(validate_line(&json!([1, 2])).is_err());
    }

    #[test]
    fn checks_events_by_their_spelling() {
        let closed = json!({"event": "pane_closed", "data": {"type": "pane_closed", "pane_id": "w1:p2",
            "workspace_id": "w1"}});
        assert_eq!(validate_line(&closed).expect("pane_closed is valid"), LineKind::Event);
        let bad = json!({"event": "pane_closed", "data": {"type": "pane_closed"}});
        assert!(validate_line(&bad).is_err());
    }

    #[test]
    fn knows_the_protocol_22_methods() {
        let methods = request_methods();
        assert!(methods.len() >= 100, "expected about 103 methods, got {}", methods.len());
        assert!(methods.iter().any(|m| m == "pane.wait_for_output"));
        let ping = json!({"id": "a", "method": "ping", "params": {}});
        validate_request(&ping).expect("ping request is valid");
        assert!(validate_request(&json!({"id": "a", "method": "ping"})).is_err());
    }
}
