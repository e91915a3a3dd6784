//! The supervisor process's place in its host, split out of the supervisor because none of it
//! knows the session, the event hub or the API: it is how one Linux process runs as herdr's
//! server.
//!
//! - [`sd_notify`]: readiness and stopping for systemd (`Type=notify`).
//! - [`logging`]: the log sink, journald when stderr is the journal, else lines on stderr.
//! - [`logind`]: the shutdown delay inhibitor that saves before a power-off or reboot.
//! - [`reaper`]: the child subreaper, and running children whose exit status a caller needs.
//! - [`runtime`]: the session's runtime dir, its secret, the workers' sockets and the session lock.
//! - [`socket`]: binding a private Unix socket (stale and busy ones told apart) and peer checks.
//! - [`stream`]: a socket registered for reading only, so writes cost no readiness wake-ups.
//! - [`link`]: the supervisor's end of a worker link, read at a shared tick while its pane waits.
//! - [`pidfd`]: waiting for a process that is not our child to end.
//! - [`procfs`]: where a pane's program and its foreground job run, as `/proc` says.
//! - [`build_info`]: which binary runs and how it was started, for `ping` and `herdr status`.

pub mod build_info;
pub mod link;
pub mod logging;
pub mod logind;
pub mod pidfd;
pub mod procfs;
pub mod reaper;
pub mod runtime;
pub mod sd_notify;
pub mod socket;
pub mod stream;
