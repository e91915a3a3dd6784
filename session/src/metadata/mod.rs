//! Display-only metadata that scripts and hooks attach to panes and workspaces
//! (`pane.report_metadata`, `workspace.report_metadata`): the per-resource token ledger with its
//! limits, sequence numbers and expiry ([`tokens`]) and a pane's presentation ([`pane`]). The
//! timer that removes expired tokens is the supervisor's (`metadata::expiry` there). Nothing here
//! is saved in `session.json`.

pub mod pane;
pub mod tokens;

pub use pane::{AgentNow, Changed, PaneMetadata, PaneReport};
pub use tokens::{Ledger, MetadataError};
