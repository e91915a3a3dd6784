//! Agent integrations: the small hook scripts and plugins herdr installs into an agent's own config
//! directory so the agent tells the herdr pane it runs in who it is (its session, for native
//! resume) or what it is doing (working / idle / blocked), straight over the pane's API socket.
//!
//! Map:
//! - [`target`]: the integration targets (herdr-protocol's `IntegrationTarget`) and their names;
//! - [`spec`]: the target table — per target, the config dir, the files herdr owns, the edits it
//!   makes to the agent's own configs, the version it writes and the one resume needs;
//! - [`mod@env`]: the environment an install runs against (HOME and the agents' dir overrides), as
//!   plain data so tests use temp dirs;
//! - [`hook_config`], [`codex_features`], [`kimi_config`], [`hermes_config`]: pure edits of the
//!   agents' JSON hook configs (every agent's layout), Codex's and Kimi's `config.toml` and
//!   Hermes' `config.yaml` (only herdr-owned entries are added or removed);
//! - [`edits`]: one table edit planned on a file's text;
//! - [`assets`]: the hook script and plugin templates, with their `HERDR_INTEGRATION_VERSION=N`
//!   marker;
//! - [`mod@install`]: the file-system shell: install, uninstall, status;
//! - [`wire`]: the `integration.*` API results (herdr-protocol's `ApiResult`), built from the above.
//!
//! Not here: talking to a herdr server (the installed assets do that themselves, at agent run
//! time), the socket API dispatch (supervisor) and the command line (cli).

pub mod assets;
pub mod codex_features;
pub mod edits;
pub mod env;
mod error;
pub mod hermes_config;
pub mod hook_config;
pub mod install;
pub mod kimi_config;
pub mod spec;
pub mod target;
pub mod wire;

pub use env::Env;
pub use error::Error;
pub use herdr_protocol::api::{IntegrationDetails, IntegrationState};
pub use install::{Status, install, status, uninstall};
pub use target::{IMPLEMENTED, Target, parse_target};
