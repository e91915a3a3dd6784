//! What `herdr plugin` does without a server: `link` and `list` read and write the registry
//! (`plugins.json`) directly, as upstream does, answering with the envelope the server would
//! have sent; `config-dir` is always local. Also the text form of `plugin list`.

use std::path::Path;

use serde_json::{Value, json};

use herdr_plugins::registry::{Registry, RegistryEntry, RegistryError, Source};
use herdr_plugins::{ids, load_manifest};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::PluginRequest;
use herdr_protocol::paths::PathEnv;

use super::ID;
use crate::output::{self, Rendered};
use crate::request::ApiRequest;

/// A registry failure as an error envelope with the registry's code.
pub fn registry_failure(e: &RegistryError) -> Rendered {
    output::cli_error(ID, e.code(), &e.to_string())
}

/// Adds (or replaces) `entry` in the registry and creates the plugin's config and state dirs.
pub fn register(config: &Path, entry: &RegistryEntry) -> Result<(), Rendered> {
    herdr_plugins::env::ensure_user_dirs(config, entry.id())
        .map_err(|e| output::cli_error(ID, "plugin_user_dir_create_failed", &e.to_string()))?;
    let mut registry = Registry::load(config).map_err(|e| registry_failure(&e))?;
    registry.upsert(entry.clone());
    registry.save().map_err(|e| registry_failure(&e))
}

/// Removes `plugin_id` from the registry; whether it was there.
pub fn unregister(config: &Path, plugin_id: &str) -> Result<bool, Rendered> {
    let mut registry = Registry::load(config).map_err(|e| registry_failure(&e))?;
    let removed = registry.remove(plugin_id).is_some();
    if removed {
        registry.save().map_err(|e| registry_failure(&e))?;
    }
    Ok(removed)
}

/// The registry's entry for `plugin_id`, if any.
pub fn entry(config: &Path, plugin_id: &str) -> Result<Option<RegistryEntry>, Rendered> {
    Ok(Registry::load(config).map_err(|e| registry_failure(&e))?.get(plugin_id).cloned())
}

/// Every registry entry.
pub fn entries(config: &Path) -> Result<Vec<RegistryEntry>, Rendered> {
    Ok(Registry::load(config).map_err(|e| registry_failure(&e))?.entries)
}

/// `plugin link` with no server: validate the manifest and register it.
pub fn link(config: &Path, request: &ApiRequest) -> Result<Value, Rendered> {
    let Request::Plugin(PluginRequest::Link(params)) = &request.request else {
        return Err(Rendered::usage("herdr plugin link: not a link request"));
    };
    let loaded = load_manifest(Path::new(&params.path))
        .map_err(|e| output::cli_error(ID, e.code(), &e.to_string()))?;
    let entry = RegistryEntry::new(loaded, params.enabled(), Source::default());
    register(config, &entry)?;
    Ok(json!({"id": ID, "result": {"type": "plugin_linked", "plugin": entry}}))
}

/// `plugin list` with no server: the registry with every manifest re-read.
pub fn list(config: &Path, request: &ApiRequest) -> Result<Value, Rendered> {
    let Request::Plugin(PluginRequest::List(params)) = &request.request else {
        return Err(Rendered::usage("herdr plugin list: not a list request"));
    };
    let registry = Registry::load(config).map_err(|e| registry_failure(&e))?.reloaded();
    let mut plugins: Vec<&RegistryEntry> = registry
        .entries
        .iter()
        .filter(|e| params.plugin_id.as_deref().is_none_or(|id| e.id() == id))
        .collect();
    plugins.sort_by(|a, b| a.id().cmp(b.id()));
    Ok(json!({"id": ID, "result": {"type": "plugin_list", "plugins": plugins}}))
}

/// `plugin config-dir ID`: creates the plugin's config and state dirs and prints the config one.
pub fn config_dir(config: &Path, plugin_id: &str) -> Result<Rendered, Rendered> {
    let Some(id) = ids::normalize_plugin_id(plugin_id) else {
        return Err(Rendered::usage(&format!("invalid plugin id: {plugin_id}")));
    };
    herdr_plugins::env::ensure_user_dirs(config, &id)
        .map_err(|e| output::cli_error(ID, "plugin_user_dir_create_failed", &e.to_string()))?;
    Ok(Rendered::stdout(format!("{}\n", herdr_plugins::env::config_dir(config, &id).display())))
}

/// Where a listed plugin came from: `github:owner/repo[/subdir]@ref` or `local:<root>`.
pub fn source_display(plugin: &Value) -> String {
    let source = &plugin["source"];
    let text = |key: &str| source[key].as_str();
    if text("kind") == Some("github") {
        let subdir = text("subdir").map(|s| format!("/{s}")).unwrap_or_default();
        let reference = text("requested_ref").or(text("resolved_commit")).unwrap_or("unknown");
        return format!(
            "github:{}/{}{subdir}@{reference}",
            text("owner").unwrap_or("unknown"),
            text("repo").unwrap_or("unknown")
        );
    }
    format!("local:{}", plugin["plugin_root"].as_str().unwrap_or_default())
}

/// `plugin list` without `--json`: a count line, then one line per plugin with its config dir
/// and warnings. An error envelope is printed as usual.
pub fn human(reply: &Value, env: &PathEnv) -> Rendered {
    let Some(plugins) = reply["result"]["plugins"].as_array().filter(|_| reply.get("error").is_none()) else {
        return output::render_reply(crate::request::Reply::Envelope, reply);
    };
    if plugins.is_empty() {
        return Rendered::stdout("No plugins installed.\n");
    }
    let config = super::config_dir(env).ok();
    let mut out =
        format!("{} plugin{} installed:\n", plugins.len(), if plugins.len() == 1 { "" } else { "s" });
    for plugin in plugins {
        let id = plugin["plugin_id"].as_str().unwrap_or_default();
        let warnings: Vec<&str> = plugin["warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let count =
            if warnings.is_empty() { String::new() } else { format!("; {} warning(s)", warnings.len()) };
        let state = if plugin["enabled"].as_bool() == Some(true) { "enabled" } else { "disabled" };
        let name = plugin["name"].as_str().unwrap_or_default();
        out.push_str(&format!("- {id} ({name}) {state} [{}{count}]\n", source_display(plugin)));
        if let Some(config) = &config {
            out.push_str(&format!("  config: {}\n", herdr_plugins::env::config_dir(config, id).display()));
        }
        for warning in warnings {
            out.push_str(&format!("  warning: {warning}\n"));
        }
    }
    Rendered::stdout(out)
}
