//! `herdr api snapshot` (one `session.snapshot` request) and `herdr api schema` (CLI-local: the
//! protocol-22 JSON Schema embedded at build time; there is no socket method for it).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::output::{EXIT_ERROR, Rendered};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{EmptyParams, SessionRequest};

use crate::request::{ApiCall, ApiRequest};

/// The bundled schema document, byte for byte.
pub const SCHEMA_JSON: &str = include_str!("../../protocol/schema/herdr-api-p22.schema.json");

#[derive(Debug, Subcommand)]
pub enum ApiCommand {
    /// Print the live session snapshot
    Snapshot,
    /// Print or write the bundled API schema
    Schema(SchemaArgs),
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Print the full schema document
    #[arg(long, conflicts_with = "output")]
    pub json: bool,
    /// Write the full schema document to PATH
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

pub fn snapshot_call() -> ApiCall {
    ApiCall::envelope(ApiRequest::new(
        "cli:api:snapshot",
        Request::Session(SessionRequest::Snapshot(EmptyParams {})),
    ))
}

/// Why the bundled schema document could not be summarised.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("bundled API schema is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A top-level field the summary shows is absent (or not of its type).
    #[error("bundled API schema has no {0}")]
    Missing(&'static str),
}

/// The short human summary: protocol, schema version and the schema names.
pub fn schema_summary(document: &str) -> Result<String, SchemaError> {
    let value: Value = serde_json::from_str(document).map_err(SchemaError::NotJson)?;
    let protocol = value["protocol"].as_u64().ok_or(SchemaError::Missing("protocol"))?;
    let schema_version = value["schema_version"].as_u64().ok_or(SchemaError::Missing("schema_version"))?;
    let mut names: Vec<&str> = value["schemas"]
        .as_object()
        .ok_or(SchemaError::Missing("schemas"))?
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    Ok(format!(
        "Herdr API schema\nprotocol: {protocol}\nschema_version: {schema_version}\nschemas: {}\n\n\
         Print the full schema with `herdr api schema --json`.\n\
         Write it to a file with `herdr api schema --output PATH`.\n",
        names.join(", ")
    ))
}

/// `herdr api schema [--json | --output PATH]`.
pub fn schema(args: &SchemaArgs) -> Rendered {
    if args.json {
        return Rendered::stdout(SCHEMA_JSON);
    }
    if let Some(path) = &args.output {
        return write_schema(path);
    }
    match schema_summary(SCHEMA_JSON) {
        Ok(summary) => Rendered::stdout(summary),
        Err(message) => Rendered::stderr(format!("{message}\n"), EXIT_ERROR),
    }
}

fn write_schema(path: &Path) -> Rendered {
    match std::fs::write(path, SCHEMA_JSON) {
        Ok(()) => Rendered::stdout(format!("wrote API schema to {}\n", path.display())),
        Err(err) => Rendered::stderr(format!("cannot write {}: {err}\n", path.display()), EXIT_ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lists_protocol_version_and_names() {
        let summary = schema_summary(SCHEMA_JSON).expect("bundled schema parses");
        assert!(summary.starts_with("Herdr API schema\nprotocol: 22\nschema_version: 1\n"), "{summary}");
        assert!(
            summary
                .contains("schemas: error_response, event, request, subscription_event, success_response\n"),
            "{summary}"
        );
    }

    #[test]
    fn json_prints_the_document_verbatim() {
        let rendered = schema(&SchemaArgs { json: true, output: None });
        assert_eq!(rendered.stdout, SCHEMA_JSON);
        let value: Value = serde_json::from_str(&rendered.stdout).expect("valid JSON");
        assert_eq!(value["protocol"], 22);
        assert!(value["schemas"]["request"]["oneOf"].as_array().is_some_and(|methods| methods.len() > 90));
    }

    #[test]
    fn output_writes_the_document() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("schema.json");
        let rendered = schema(&SchemaArgs { json: false, output: Some(path.clone()) });
        assert_eq!(rendered.exit, 0);
        assert_eq!(rendered.stdout, format!("wrote API schema to {}\n", path.display()));
        assert_eq!(std::fs::read_to_string(&path).expect("written"), SCHEMA_JSON);
    }

    #[test]
    fn unwritable_output_is_an_error() {
        let rendered =
            schema(&SchemaArgs { json: false, output: Some(PathBuf::from("/nonexistent-dir/x.json")) });
        assert_eq!(rendered.exit, EXIT_ERROR);
    }
}
