//! Agents in the supervisor: the pure per-pane core that turns what workers detect (agent
//! identity, screen verdicts) and what integrations report (hook authority, session refs) into
//! one effective agent and status per pane.
//!
//! Pure: plain data, no sockets, tokio or processes; time arrives as `Instant` arguments. The
//! session model stores one [`PaneAgent`] per pane and publishes its view; the API handlers in
//! `api::agents` / `api::hooks` drive it. Not here: the screen detector itself (pane worker,
//! `herdr-manifests`) and waits (they sleep on the event hub).
//!
//! Decisions where upstream leaves room:
//! - `done` needs a focused client that saw the completion: with no client attached (or its
//!   terminal unfocused) a completion becomes `done`; focusing the pane's tab (`pane.focus`,
//!   `tab.focus`, `workspace.focus`, `agent.focus`, any focus change, or a client gaining focus)
//!   marks it seen. [`Visibility`] carries whether a focused client shows the pane.
//! - Hook and screen observations are ordered by a per-pane logical clock, not wall time, so
//!   "the screen observation is not older than the hook report" is exact.
//! - Reports for an agent whose process just exited are ignored from every source until an
//!   agent is detected again (upstream suppresses the exited generation).

mod launch;
mod pane;
pub mod resume;
mod sources;

#[cfg(test)]
mod tests;

pub use pane::{Change, PaneAgent, Report, SessionReport, Visibility};
pub use sources::validate_name;
