//! The herdr session model, split out of the supervisor because it is pure: plain data and
//! functions, no sockets, tasks or processes (the supervisor owns those and drives this).
//!
//! - [`session`]: workspaces, tabs, panes and their layouts; applies API requests and returns
//!   results and events.
//! - [`persist`]: `session.json` and its recovery files (snapshot format, atomic writes, backups,
//!   pane history).
//! - [`agents`]: the per-pane agent core (detection, hook authority, session refs, resume).
//! - [`metadata`]: display-only metadata token ledgers and a pane's presentation.
//! - [`events`]: reading the event stream: the ring of recent events, subscription filters, and
//!   what an event means for an agent wait.

pub mod agents;
pub mod events;
pub mod metadata;
pub mod persist;
pub mod session;
