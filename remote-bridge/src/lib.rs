//! `herdr --remote <ssh-target>`: ssh with `ssh2` (libssh2), never the `ssh` program. What is
//! here:
//!
//! - [`target`] and [`ssh_config`]: the target forms (`host`, `user@host`,
//!   `ssh://user@host:port`) and their resolution through `~/.ssh/config`;
//! - [`connect`] and [`host_key`]: an authenticated session (agent, then key files), the host
//!   key checked against `known_hosts` (unknown or changed keys are refused with the
//!   fingerprint and the line to add), keepalives;
//! - [`exec`], [`remote_host`] and [`provision`]: commands on the far host, finding its `herdr`
//!   and reading its supervisor's status into a decision, copying this build there (checked by
//!   sha256);
//! - [`bridge`] and [`relay`]: the private local socket the ordinary terminal client attaches
//!   to, and the non-blocking relay of each of its connections over an ssh channel running
//!   `herdr remote-client-bridge`.
//!
//! Not here: the terminal client (`herdr-client`), the far side's relay (`herdr
//! remote-client-bridge` in the CLI, which is a plain stdin/stdout copy), asking the user (the
//! CLI). Depends on `herdr-protocol` only, like every process crate.

pub mod bridge;
pub mod connect;
pub mod digest;
pub mod exec;
pub mod host_key;
pub mod provision;
pub mod relay;
pub mod remote_host;
pub mod ssh_config;
pub mod target;
