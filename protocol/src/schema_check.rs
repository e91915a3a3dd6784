//! Validation of wire JSON against the bundled protocol-22 schema
//! (`schema/herdr-api-p22.schema.json`), for tests: this crate's own, and the end-to-end tests
//! (feature `schema-check`). Not used at runtime.
//!
//! The schema document keeps its sub-schemas under `schemas.<name>` and refers to shared
//! definitions with absolute pointers (`#/schemas/success_response/$defs/...`), so each validator
//! is compiled from the WHOLE document with a root `$ref` to the wanted sub-schema.

use std::sync::OnceLock;

use serde_json::Value;

const SCHEMA_TEXT: &str = include_str!("../schema/herdr-api-p22.schema.json");

/// The top-level shapes the schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// A request line `{id, method, params}`.
    Request,
    /// `{id, result}`.
    SuccessResponse,
    /// `{id, error}`.
    ErrorResponse,
    /// A lifecycle event line `{event, data}`.
    Event,
    /// A parameterised subscription event line (`pane.output_matched`, ...).
    SubscriptionEvent,
}

impl SchemaKind {
    const ALL: [SchemaKind; 5] = [
        SchemaKind::Request,
        SchemaKind::SuccessResponse,
        SchemaKind::ErrorResponse,
        SchemaKind::Event,
        SchemaKind::SubscriptionEvent,
    ];

    /// The key under `schemas` in the document.
    pub fn name(self) -> &'static str {
        match self {
            SchemaKind::Request => "request",
            SchemaKind::SuccessResponse => "success_response",
            SchemaKind::ErrorResponse => "error_response",
            SchemaKind::Event => "event",
            SchemaKind::SubscriptionEvent => "subscription_event",
        }
    }

    fn index(self) -> usize {
        match self {
            SchemaKind::Request => 0,
            SchemaKind::SuccessResponse => 1,
            SchemaKind::ErrorResponse => 2,
            SchemaKind::Event => 3,
            SchemaKind::SubscriptionEvent => 4,
        }
    }
}

fn validators() -> &'static Vec<jsonschema::Validator> {
    static VALIDATORS: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let document: Value = serde_json::from_str(SCHEMA_TEXT).expect("the bundled schema is valid JSON");
        SchemaKind::ALL
            .iter()
            .map(|kind| {
                let mut root = document.clone();
                if let Value::Object(map) = &mut root {
                    map.insert("$ref".into(), Value::String(format!("#/schemas/{}", kind.name())));
                }
                jsonschema::validator_for(&root).expect("the bundled schema compiles")
            })
            .collect()
    })
}

/// Checks `value` against the `kind` sub-schema; the error lists every violation as
/// `<instance path>: <message>`.
pub fn validate(kind: SchemaKind, value: &Value) -> Result<(), Vec<String>> {
    let validator = &validators()[kind.index()];
    let errors: Vec<String> =
        validator.iter_errors(value).map(|e| format!("{}: {}", e.instance_path, e)).collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// The `methods` the schema's `request` sub-schema lists (its `oneOf[].properties.method.const`).
pub fn request_methods() -> Vec<String> {
    let document: Value = serde_json::from_str(SCHEMA_TEXT).expect("the bundled schema is valid JSON");
    document["schemas"]["request"]["oneOf"]
        .as_array()
        .map(|alts| {
            alts.iter()
                .filter_map(|alt| alt["properties"]["method"]["const"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
