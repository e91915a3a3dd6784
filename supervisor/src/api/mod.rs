//! The public JSON API on `herdr.sock`: transport limits, the envelope, and one module per
//! domain of methods. `dispatch` is the table that routes a method to its handler.

mod agents;
mod client_methods;
mod command_invoke;
mod copy_methods;
pub mod dispatch;
pub mod envelope;
mod events;
mod hooks;
mod integrations;
pub(crate) mod links;
mod metadata;
mod pane_facts;
mod panes;
mod server_methods;
pub mod transport;
mod ui_methods;
mod worktrees;

#[cfg(test)]
mod tests;
