//! `plugin.link|list|unlink|enable|disable|action.list`: the registry side of plugins, over
//! `herdr-plugins` (manifest validation, `plugins.json`). The registry is global to the user
//! (`<config dir>/plugins.json`) and re-read on every call, so `herdr plugin link` made while no
//! server ran, or by another session, is seen at once.
//!
//! Running commands: [`run`] (process, time limit, log ring), [`invoke`] (`plugin.action.invoke`,
//! `plugin.log.list`), [`hooks`] (`[[events]]` on hub events), [`panes`] (`plugin.pane.*`) and
//! [`startup`] (`[[startup]]` once the server serves its socket).

pub mod hooks;
pub mod invoke;
pub mod panes;
pub mod run;
pub mod startup;

use std::path::{Path, PathBuf};

use herdr_plugins::registry::{Registry, RegistryEntry, RegistryError, Source};
use herdr_plugins::{ids, load_manifest};
use herdr_protocol::api::requests::{OptionalPlugin, PluginLinkParams, PluginSourceInfo, PluginTarget};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, InstalledPluginInfo};
use herdr_protocol::paths::{self, PathEnv};

use crate::api::envelope::Failure;

/// The herdr config dir of this server's user (`$XDG_CONFIG_HOME/herdr`, else `~/.config/herdr`).
pub fn config_dir() -> Result<PathBuf, Failure> {
    let env = PathEnv::from_process_env();
    let path = |v: &Option<std::ffi::OsString>| v.as_ref().map(PathBuf::from);
    paths::config_dir(path(&env.xdg_config_home).as_deref(), path(&env.home).as_deref())
        .map_err(|e| ApiError::new(ErrorCode::PluginRegistryLoadFailed, e.to_string()).into())
}

fn code(raw: &str) -> ErrorCode {
    ErrorCode::from_wire(raw)
}

fn registry_error(e: &RegistryError) -> Failure {
    ApiError::new(code(e.code()), e.to_string()).into()
}

fn load(config: &Path) -> Result<Registry, Failure> {
    Ok(Registry::load(config).map_err(|e| registry_error(&e))?.reloaded())
}

fn plugin_id(raw: &str) -> Result<String, Failure> {
    ids::normalize_plugin_id(raw).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidPluginId,
            "plugin id must be non-empty, <= 120 characters, and contain only ASCII letters, digits, colon, dot, underscore, or hyphen",
        )
        .into()
    })
}

fn optional_id(p: &OptionalPlugin) -> Result<Option<String>, Failure> {
    p.plugin_id.as_deref().map(plugin_id).transpose()
}

fn not_found() -> Failure {
    ApiError::new(ErrorCode::PluginNotFound, "plugin not found").into()
}

/// A registry entry in its wire shape (the plugins crate serializes to exactly it).
pub fn wire(entry: &RegistryEntry) -> Result<InstalledPluginInfo, Failure> {
    serde_json::to_value(entry)
        .and_then(serde_json::from_value)
        .map_err(|e| ApiError::internal(format!("plugin {}: {e}", entry.id())).into())
}

fn source(raw: PluginSourceInfo) -> Source {
    Source {
        kind: raw.kind.unwrap_or_default(),
        owner: raw.owner,
        repo: raw.repo,
        subdir: raw.subdir,
        requested_ref: raw.requested_ref,
        resolved_commit: raw.resolved_commit,
        managed_path: raw.managed_path,
        installed_unix_ms: raw.installed_unix_ms,
    }
}

/// `plugin.link`: validates the manifest, creates the plugin's config/state dirs, registers it.
pub fn link(config: &Path, p: PluginLinkParams) -> Result<ApiResult, Failure> {
    let enabled = p.enabled();
    let path = std::path::absolute(&p.path).unwrap_or_else(|_| PathBuf::from(&p.path));
    let loaded =
        load_manifest(&path).map_err(|e| Failure::from(ApiError::new(code(e.code()), e.to_string())))?;
    let entry = RegistryEntry::new(loaded, enabled, p.source.map(source).unwrap_or_default());
    herdr_plugins::env::ensure_user_dirs(config, entry.id())
        .map_err(|e| Failure::from(ApiError::new(ErrorCode::PluginUserDirCreateFailed, e.to_string())))?;
    let mut registry = Registry::load(config).map_err(|e| registry_error(&e))?;
    registry.upsert(entry.clone());
    registry.save().map_err(|e| registry_error(&e))?;
    Ok(ApiResult::PluginLinked { plugin: Box::new(wire(&entry)?) })
}

pub fn list(config: &Path, p: OptionalPlugin) -> Result<ApiResult, Failure> {
    let only = optional_id(&p)?;
    let registry = load(config)?;
    let plugins = registry
        .entries
        .iter()
        .filter(|e| only.as_deref().is_none_or(|id| e.id() == id))
        .map(wire)
        .collect::<Result<_, _>>()?;
    Ok(ApiResult::PluginList { plugins })
}

/// `plugin.unlink`: only unregisters; the plugin's files stay.
pub fn unlink(config: &Path, p: PluginTarget) -> Result<ApiResult, Failure> {
    let id = plugin_id(&p.plugin_id)?;
    let mut registry = Registry::load(config).map_err(|e| registry_error(&e))?;
    let removed = registry.remove(&id).is_some();
    if removed {
        registry.save().map_err(|e| registry_error(&e))?;
    }
    Ok(ApiResult::PluginUnlinked { plugin_id: id, removed })
}

/// `plugin.enable` / `plugin.disable`.
pub fn set_enabled(config: &Path, p: PluginTarget, enabled: bool) -> Result<ApiResult, Failure> {
    let id = plugin_id(&p.plugin_id)?;
    let mut registry = Registry::load(config).map_err(|e| registry_error(&e))?;
    let entry = registry.get_mut(&id).ok_or_else(not_found)?;
    entry.enabled = enabled;
    let entry = entry.clone().reload();
    registry.save().map_err(|e| registry_error(&e))?;
    let plugin = Box::new(wire(&entry)?);
    Ok(if enabled { ApiResult::PluginEnabled { plugin } } else { ApiResult::PluginDisabled { plugin } })
}

/// `plugin.action.list`: every available manifest's actions, sorted by qualified id.
pub fn action_list(config: &Path, p: OptionalPlugin) -> Result<ApiResult, Failure> {
    let only = optional_id(&p)?;
    let registry = load(config)?;
    let mut actions = Vec::new();
    for entry in registry.entries.iter().filter(|e| e.manifest_available()) {
        if only.as_deref().is_some_and(|id| entry.id() != id) {
            continue;
        }
        for action in &entry.manifest.actions {
            actions.push(invoke::action_info(entry, action)?);
        }
    }
    actions.sort_by_key(|a| ids::qualified_action_id(&a.plugin_id, &a.action_id));
    Ok(ApiResult::PluginActionList { actions })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
