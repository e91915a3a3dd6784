//! Session snapshots the UI's tests draw and act on, read from
//! `ui/tests/fixtures/sessions/<name>.json`, and session method results
//! (`ui/tests/fixtures/results/<name>.json`). The supervisor writes them from its real session
//! model and fails when one drifts from what the model produces
//! (`supervisor/src/clients/tests_ui_fixtures.rs`; regenerate with `UPDATE_FIXTURES=1`), so these
//! tests see the layouts, ids and labels the session really makes without depending on it.

use herdr_protocol::api::{ApiResult, SessionSnapshot};
use serde::de::DeserializeOwned;

/// The session snapshot fixture `name`.
pub(crate) fn session(name: &str) -> SessionSnapshot {
    read("sessions", name)
}

/// The method result fixture `name`.
pub(crate) fn result(name: &str) -> ApiResult {
    read("results", name)
}

fn read<T: DeserializeOwned>(kind: &str, name: &str) -> T {
    let path = format!("{}/tests/fixtures/{kind}/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}
