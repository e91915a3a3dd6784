//! Reading the session's event stream, pure: the ring of recent events with their sequence
//! numbers ([`Ring`]: catching up from a cursor, where a resuming subscriber starts), which hub
//! events an `events.subscribe` stream wants and the line it writes for each ([`Filter`]), and
//! what an event means for an `agent.wait` or `agent.prompt` that follows one agent
//! ([`AgentWait`]). The supervisor's hub holds the ring under its lock, wakes readers with a watch
//! channel and stamps each run with its epoch; its handlers sleep and write.

mod agent_wait;
mod filter;
mod ring;

pub use agent_wait::{AgentWait, Goal, Seen, not_running};
pub use filter::{Filter, StatusWatch};
pub use ring::{Batch, RING_CAPACITY, Resume, Ring};
