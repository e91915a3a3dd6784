//! Display-only metadata that scripts and hooks attach to panes and workspaces
//! (`pane.report_metadata`, `workspace.report_metadata`): the per-resource token ledger with its
//! limits, sequence numbers and expiry ([`tokens`]). Nothing here is saved in `session.json`.

pub mod tokens;
