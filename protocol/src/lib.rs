//! Everything that crosses a socket in herdr, and nothing else.
//!
//! - [`ipc`]: frames between the supervisor and its pane-workers (length-prefixed bincode,
//!   version handshake first, PTY master fds passed beside frames).
//! - [`api`]: the public JSON API records, results, errors and events (protocol 22).
//! - [`paths`]: where a session's sockets and state live (shared by server and CLI).
//! - [`client`]: the terminal client protocol on `herdr-client.sock` (input up, paints down).
//! - [`grid`]: screen cells on the wire (pane grids, frame updates and their ANSI encoding).
//! - [`handoff`]: the live-handoff conversation's steps between two supervisors.
//!
//! This crate does no I/O: no sockets, no tokio. Process crates own their edges.

pub mod api;
pub mod client;
pub mod grid;
pub mod handoff;
pub mod ipc;
pub mod paths;
#[cfg(any(test, feature = "schema-check"))]
pub mod schema_check;

/// The public API protocol generation we are wire-compatible with.
pub const PROTOCOL_VERSION: u32 = 22;

/// The herdr version reported by `ping` and `session.snapshot`.
pub const HERDR_VERSION: &str = env!("CARGO_PKG_VERSION");
