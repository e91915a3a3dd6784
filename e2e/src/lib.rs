//! The end-to-end harness for herdr: real binaries, real PTYs, a hermetic temp runtime.
//!
//! - [`server::TestServer`]: one session per test (the foreground `herdr server`, and the next
//!   one after [`server::TestServer::kill9`] / [`server::TestServer::stop`] and
//!   [`server::TestServer::restart`]); on drop every process carrying the test's marker is
//!   killed, workers re-parented to the test process included; raw socket requests ([`server::TestServer::request`]) and CLI runs
//!   ([`server::TestServer::cli`]), every answer schema-checked as it arrives.
//! - [`schema`]: the protocol-22 JSON Schema check used on every line.
//! - [`wire`]: raw NDJSON exchanges for transport tests.
//! - [`git`]: real `git` in a test directory, and a one-commit repository.
//! - [`wait`]: `wait_until`, the only synchronisation the suites use.
//! - [`pty`]: a program on a pseudo-terminal the test holds, and keystroke echo timing on it.
//! - [`procs`]: `/proc` reading (process trees, worker discovery, RSS).
//! - [`panes`]: pane-level conveniences built on the public API (markers, counters, reads).
//! - [`layout`]: a session's layout through the API minus what legitimately differs between two
//!   supervisors of it, for comparing before and after a crash or a restore.
//! - [`session_file`]: `session.json` read from disk (its panes, uids, shape), the upstream
//!   fixtures, and the supervisor's `persist.save` log lines.
//! - [`sshd`]: a real `sshd` on a loopback port with its own keys, and a delaying relay that can be
//!   cut and restored in front of it, for the `herdr --remote` suite.
//! - [`lossy_link`]: a slow link that drops packets, between two network namespaces joined by
//!   TUN devices and a userspace relay, for remote tests that need TCP to really retransmit.
//! - [`terminal`]: a client-protocol terminal client that keeps its screen as text.
//! - [`agents`]: workspaces whose panes run the scripted fake agents (`e2e/fake-agents/`),
//!   agent status probes and timestamped status subscriptions, for the agent suites.
//!
//! This crate is test support only: it ships no product code, and the suites live in `tests/`.

pub mod agents;
pub mod binaries;
pub mod cli;
pub mod git;
pub mod layout;
pub mod lossy_link;
pub mod panes;
pub mod procs;
pub mod pty;
pub mod recorder;
pub mod schema;
pub mod server;
pub mod session_file;
pub mod sshd;
pub mod terminal;
pub mod wait;
pub mod wire;

pub use server::TestServer;
pub use wait::{PATIENCE, wait_until};
