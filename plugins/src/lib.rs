//! Plugins' pure parts, shared by the supervisor's `plugin.*` methods and `herdr plugin …`:
//! the `herdr-plugin.toml` manifest model and its validation ([`manifest`]), the `plugins.json`
//! registry ([`registry`]), platform matching and the `min_herdr_version` check ([`compat`]),
//! the environment a plugin command runs with ([`mod@env`]), which link handler takes a clicked
//! URL ([`links`]), and install sources and managed checkout paths ([`install`]). No sockets,
//! no processes.

pub mod compat;
pub mod env;
pub mod ids;
pub mod install;
pub mod links;
pub mod manifest;
pub mod registry;

pub use manifest::{Manifest, ManifestError, load_manifest, parse_manifest};
pub use registry::{Registry, RegistryEntry, RegistryError};

/// The manifest file a plugin directory holds.
pub const MANIFEST_FILE: &str = "herdr-plugin.toml";
