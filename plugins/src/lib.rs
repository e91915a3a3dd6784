//! Plugins' pure parts, shared by the supervisor's `plugin.*` methods and `herdr plugin …`:
//! the `herdr-plugin.toml` manifest model and its validation ([`manifest`]), the `plugins.json`
//! registry ([`registry`]), platform matching and the `min_herdr_version` check ([`compat`]),
//! and the environment a plugin command runs with ([`mod@env`]). No sockets, no processes.

pub mod compat;
pub mod env;
pub mod ids;
pub mod manifest;
pub mod registry;

pub use manifest::{Manifest, ManifestError, load_manifest, parse_manifest};
pub use registry::{Registry, RegistryEntry, RegistryError};

/// The manifest file a plugin directory holds.
pub const MANIFEST_FILE: &str = "herdr-plugin.toml";
