//! Agent detection manifests: one TOML file per agent in this folder, embedded at build and
//! overridable from the config dir.
//!
//! Not built yet: agent detection arrives with the agents work. Nothing here pretends to work.
