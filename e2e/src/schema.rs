//! Checks every line herdr sends against the protocol-22 JSON Schema
//! (`protocol/schema/herdr-api-p22.schema.json`).
//!
//! The validators themselves are `herdr_protocol::schema_check` (feature `schema-check`); this
//! module decides which schema a received line must satisfy (success, error, lifecycle event,
//! subscription event) and turns violations into test failures that show the raw line.
//!
//! This module does not decide whether a response is the *right* answer to a request; it only
//! says whether the line is a well-formed protocol-22 message.

use std::fmt;

use herdr_protocol::schema_check::{self, SchemaKind};
use serde_json::Value;

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
    fn schema(self) -> SchemaKind {
        match self {
            LineKind::Success => SchemaKind::SuccessResponse,
            LineKind::Error => SchemaKind::ErrorResponse,
            LineKind::Event => SchemaKind::Event,
            LineKind::SubscriptionEvent => SchemaKind::SubscriptionEvent,
        }
    }
}

/// A line that is not a valid protocol-22 message, with every violation the validator found.
#[derive(Debug, Clone)]
pub struct SchemaViolation {
    pub kind: Option<SchemaKind>,
    pub problems: Vec<String>,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Some(kind) => write!(f, "not a valid {}: ", kind.name())?,
            None => write!(f, "not a protocol message: ")?,
        }
        write!(f, "{}", self.problems.join("; "))
    }
}

fn check(kind: SchemaKind, value: &Value) -> Result<(), SchemaViolation> {
    schema_check::validate(kind, value).map_err(|problems| SchemaViolation { kind: Some(kind), problems })
}

/// Classifies a line by its top-level keys and validates it against the matching schema.
pub fn validate_line(value: &Value) -> Result<LineKind, SchemaViolation> {
    let Some(object) = value.as_object() else {
        return Err(SchemaViolation {
            kind: None,
            problems: vec!["a line must be a JSON object".to_owned()],
        });
    };
    let kind = if object.contains_key("error") {
        LineKind::Error
    } else if object.contains_key("result") {
        LineKind::Success
    } else if let Some(event) = object.get("event") {
        // Parameterised subscription events use dotted names, lifecycle events underscored ones.
        if event.as_str().is_some_and(|name| name.contains('.')) {
            LineKind::SubscriptionEvent
        } else {
            LineKind::Event
        }
    } else {
        return Err(SchemaViolation {
            kind: None,
            problems: vec!["a line needs `result`, `error` or `event` at the top level".to_owned()],
        });
    };
    check(kind.schema(), value).map(|()| kind)
}

/// Validates a line and panics with the raw text and every violation if it is not valid.
/// The harness calls this on everything it receives, as it receives it.
pub fn assert_valid_line(raw: &str, value: &Value) -> LineKind {
    validate_line(value).unwrap_or_else(|violation| panic!("schema violation: {violation}\n  line: {raw}"))
}

/// Whether a request we are about to send is a valid protocol-22 request (keeps the tour
/// honest: it must send what real clients send).
pub fn validate_request(value: &Value) -> Result<(), SchemaViolation> {
    check(SchemaKind::Request, value)
}

/// Every method name the protocol-22 request schema lists, in schema order.
pub fn request_methods() -> Vec<String> {
    schema_check::request_methods()
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
