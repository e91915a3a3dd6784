//! The recorder example plugin (`e2e/tests/plugins/recorder`) as the suites see it: where its
//! scripts write (its `HERDR_PLUGIN_STATE_DIR`), and what its `record-context` action recorded.

use std::path::PathBuf;

use serde_json::Value;

use crate::{PATIENCE, TestServer, wait_until};

/// The recorder's plugin id.
pub const RECORDER: &str = "e2e.recorder";

/// The example plugin's directory in the repository.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/recorder")
}

/// File `name` in the recorder's state dir for `server`.
pub fn state_file(server: &TestServer, name: &str) -> PathBuf {
    let config = server.env().iter().find(|(k, _)| k == "XDG_CONFIG_HOME").map(|(_, v)| v.clone());
    PathBuf::from(config.expect("XDG_CONFIG_HOME")).join("herdr/plugins/state").join(RECORDER).join(name)
}

/// What one run of `record-context` wrote: its `HERDR_PLUGIN_ACTION_ID`, `HERDR_PANE_ID` (empty
/// when it had none) and `HERDR_PLUGIN_CONTEXT_JSON`.
#[derive(Debug)]
pub struct Recorded {
    pub action_id: String,
    pub pane_id: String,
    pub context: Value,
}

/// Waits for `record-context` to have written its file (it renames it into place whole), then
/// reads it.
pub fn recorded_context(server: &TestServer, what: &str) -> Recorded {
    let file = state_file(server, "context");
    let written = wait_until(what, PATIENCE, || {
        std::fs::read_to_string(&file).ok().filter(|t| !t.is_empty()).ok_or_else(|| "nothing yet".to_owned())
    });
    let (head, json) =
        written.split_at(written.find('{').unwrap_or_else(|| panic!("no context JSON: {written:?}")));
    let mut words = head.split(' ');
    let action_id = words.next().unwrap_or_default().to_owned();
    let pane_id = words.next().unwrap_or_default().to_owned();
    let context = serde_json::from_str(json.trim()).unwrap_or_else(|e| panic!("context JSON {json:?}: {e}"));
    Recorded { action_id, pane_id, context }
}
