//! Display-only metadata that scripts and hooks attach to panes and workspaces: the pure token
//! ledger and a pane's presentation live in `herdr-session` (re-exported here); this module adds
//! the one timer that removes expired tokens ([`expiry`]), which needs the supervisor's state.

pub mod expiry;

pub use herdr_session::metadata::*;
