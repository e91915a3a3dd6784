//! Helpers for the session methods' params (the params types themselves are
//! `herdr_protocol::api::requests`, parsed once from the envelope).

use std::collections::BTreeMap;

/// Caller env for a new pane, in a stable order.
pub(super) fn env_pairs(env: BTreeMap<String, String>) -> Vec<(String, String)> {
    env.into_iter().collect()
}
