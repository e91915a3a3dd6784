//! Display-only metadata that scripts and hooks attach to panes and workspaces
//! (`pane.report_metadata`, `workspace.report_metadata`): the per-resource token ledger with its
//! limits, sequence numbers and expiry ([`tokens`]), a pane's presentation ([`pane`]), and the one
//! timer that removes expired tokens ([`expiry`]). Nothing here is saved in `session.json`.

pub mod expiry;
pub mod pane;
pub mod tokens;

pub use pane::{AgentNow, Changed, PaneMetadata, PaneReport};
pub use tokens::{Ledger, MetadataError};
