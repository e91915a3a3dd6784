//! `[[startup]]` commands: run once for every enabled plugin when a server has restored its
//! session and serves its API socket (a fresh start and the importing side of a live handoff
//! both pass there), as upstream does; not when a client attaches, config reloads, or a plugin
//! is linked or enabled. Each command goes through the same runner as actions (time limit,
//! process group, `plugin.log.list`) with `HERDR_PLUGIN_EVENT=startup`; they run concurrently
//! and a failing one only leaves a failed log entry.

use std::path::Path;

use herdr_plugins::compat;
use herdr_plugins::env::Invocation;
use herdr_plugins::registry::Registry;
use herdr_protocol::api::requests::PluginInvocationContext;

use super::invoke::environment;
use super::run::{self, Spec};
use crate::state::Shared;

/// The `invocation_source` startup commands see in `HERDR_PLUGIN_CONTEXT_JSON`.
pub const INVOCATION_SOURCE: &str = "startup";

/// Starts every enabled plugin's supported `[[startup]]` commands; returns how many started.
pub fn run_all(shared: &Shared) -> usize {
    let Ok(config) = super::config_dir() else { return 0 };
    let registry = match Registry::load(&config) {
        Ok(registry) => registry.reloaded(),
        Err(e) => {
            log::warn!("plugin startup: cannot read the plugin registry: {e}");
            return 0;
        }
    };
    let context = PluginInvocationContext {
        invocation_source: Some(INVOCATION_SOURCE.to_owned()),
        ..Default::default()
    };
    let mut started = 0;
    for entry in registry.entries.iter().filter(|e| e.enabled && e.manifest_available()) {
        for startup in &entry.manifest.startup {
            if !compat::supported(compat::effective(&startup.platforms, &entry.manifest.platforms)) {
                continue;
            }
            let Ok(env) = environment(shared, &config, entry, &context, &Invocation::Startup) else {
                continue;
            };
            let spec = Spec {
                plugin_id: entry.id().to_owned(),
                action_id: None,
                event: Some(INVOCATION_SOURCE.to_owned()),
                command: startup.command.clone(),
                root: Path::new(&entry.plugin_root).to_path_buf(),
                env,
                limit: run::command_limit(),
            };
            drop(shared.plugins.logs.start(spec));
            started += 1;
        }
    }
    if started > 0 {
        log::info!("plugin startup: {started} command(s) started");
    }
    started
}
