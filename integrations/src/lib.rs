//! Agent integrations: the small hook scripts and plugins herdr installs into an agent's own config
//! directory so the agent tells the herdr pane it runs in who it is (its session, for resume) or
//! what it is doing (working / idle / blocked), straight over the pane's API socket.
//!
//! Map:
//! - [`target`]: the integration targets (herdr-protocol's `IntegrationTarget`), their parsing,
//!   which of them this build supports, their labels, commands and current asset versions;
//! - [`mod@env`]: the environment an install runs against (HOME and the agents' dir overrides), as
//!   plain data so tests use temp dirs;
//! - [`hook_config`]: pure edits of Claude/Codex-style JSON hook configs (only herdr-owned entries
//!   are added or removed; everything else keeps its keys and order);
//! - [`codex_features`]: pure edit of Codex's `config.toml` ensuring `[features] hooks = true`;
//! - [`assets`]: the hook script and plugin texts, with their `HERDR_INTEGRATION_VERSION=N` marker;
//! - [`mod@install`]: the file-system shell: install, uninstall, status;
//! - [`wire`]: the `integration.*` API results (herdr-protocol's `ApiResult`), built from the above.
//!
//! Not here: talking to a herdr server (the installed assets do that themselves, at agent run
//! time), the socket API dispatch (supervisor) and the command line (cli).

pub mod assets;
pub mod codex_features;
pub mod env;
mod error;
pub mod hook_config;
pub mod install;
pub mod target;
pub mod wire;

pub use env::Env;
pub use error::Error;
pub use herdr_protocol::api::{IntegrationDetails, IntegrationState};
pub use install::{Status, install, status, uninstall};
pub use target::{IMPLEMENTED, Installable, Target, parse_target};
