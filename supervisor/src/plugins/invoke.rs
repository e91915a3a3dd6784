//! `plugin.action.invoke` and `plugin.log.list`: resolves an action of the registry, starts its
//! command through [`super::run`] with the invocation context, and lists the command log.
//! `plugin.action.invoke` answers once the command started; how it ended is in the log.

use std::path::Path;

use herdr_plugins::env::{EnvInput, Invocation};
use herdr_plugins::manifest::Action;
use herdr_plugins::registry::{Registry, RegistryEntry};
use herdr_plugins::{compat, ids};
use herdr_protocol::api::requests::{PluginActionInvokeParams, PluginInvocationContext, PluginLogListParams};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, PluginActionInfo};

use super::run::{self, Spec};
use super::{config_dir, load, not_found, plugin_id};
use crate::api::envelope::Failure;
use crate::state::Shared;

fn error(code: ErrorCode, message: impl Into<String>) -> Failure {
    ApiError::new(code, message.into()).into()
}

/// An action in its wire shape, with its effective platforms.
pub fn action_info(entry: &RegistryEntry, action: &Action) -> Result<PluginActionInfo, Failure> {
    let platforms = compat::effective(&action.platforms, &entry.manifest.platforms)
        .as_ref()
        .map(|list| list.iter().map(|p| p.as_str().to_owned()).collect());
    let contexts = serde_json::to_value(&action.contexts)
        .and_then(serde_json::from_value)
        .map_err(|e| Failure::from(ApiError::internal(e.to_string())))?;
    Ok(PluginActionInfo {
        plugin_id: entry.id().to_owned(),
        action_id: action.id.clone(),
        title: action.title.clone(),
        description: action.description.clone(),
        contexts,
        command: action.command.clone(),
        platforms,
    })
}

fn find<'a>(entry: &'a RegistryEntry, local: &str) -> Option<&'a Action> {
    entry.manifest.actions.iter().find(|a| a.id == local)
}

fn local_id(raw: &str) -> Result<String, Failure> {
    ids::normalize_local_id(raw).ok_or_else(|| {
        error(
            ErrorCode::InvalidPluginActionId,
            "action id must be a local id (no dots) with plugin_id, or a qualified plugin.id.action",
        )
    })
}

/// The plugin and action `p` names: a local id with `plugin_id`, a qualified
/// `plugin.id.action`, or a bare local id that exactly one available plugin declares.
pub(super) fn resolve<'a>(
    registry: &'a Registry,
    p: &PluginActionInvokeParams,
) -> Result<(&'a RegistryEntry, &'a Action), Failure> {
    let raw = p.action_id.trim();
    let not_declared = || error(ErrorCode::PluginActionNotFound, format!("plugin action {raw} not found"));
    if let Some(plugin) = p.plugin_id.as_deref() {
        let plugin = plugin_id(plugin)?;
        let entry = registry.get(&plugin).ok_or_else(not_found)?;
        let local = raw.strip_prefix(&format!("{plugin}.")).unwrap_or(raw);
        let local = local_id(local)?;
        return Ok((entry, find(entry, &local).ok_or_else(not_declared)?));
    }
    if let Some((plugin, local)) = raw.rsplit_once('.') {
        let plugin = plugin_id(plugin)?;
        let local = local_id(local)?;
        let entry = registry.get(&plugin).ok_or_else(not_declared)?;
        return Ok((entry, find(entry, &local).ok_or_else(not_declared)?));
    }
    let local = local_id(raw)?;
    let mut matches = registry
        .entries
        .iter()
        .filter(|e| e.manifest_available())
        .filter_map(|e| Some((e, find(e, &local)?)));
    match (matches.next(), matches.next()) {
        (Some(found), None) => Ok(found),
        (None, _) => Err(not_declared()),
        (Some(_), Some(_)) => Err(error(
            ErrorCode::AmbiguousPluginAction,
            format!("several plugins declare action {local}; name it as plugin.id.{local}"),
        )),
    }
}

/// The environment of a command of `entry` (see `herdr_plugins::env`).
pub fn environment(
    shared: &Shared,
    config: &Path,
    entry: &RegistryEntry,
    context: &PluginInvocationContext,
    invocation: &Invocation,
) -> Result<Vec<(String, String)>, Failure> {
    let context_json =
        serde_json::to_string(context).map_err(|e| Failure::from(ApiError::internal(e.to_string())))?;
    Ok(herdr_plugins::env::build(&EnvInput {
        plugin_id: entry.id(),
        plugin_root: Path::new(&entry.plugin_root),
        herdr_config_dir: config,
        socket_path: &shared.config.api_socket,
        bin_path: &shared.config.bin_path,
        context_json: &context_json,
        workspace_id: context.workspace_id.as_ref().map(|id| id.as_str()),
        tab_id: context.tab_id.as_ref().map(|id| id.as_str()),
        pane_id: context.focused_pane_id.as_ref().map(|id| id.as_str()),
        clicked_url: context.clicked_url.as_deref(),
        link_handler_id: context.link_handler_id.as_deref(),
        invocation,
    }))
}

/// `plugin.action.invoke`.
pub fn invoke(shared: &Shared, p: PluginActionInvokeParams) -> Result<ApiResult, Failure> {
    let config = config_dir()?;
    let registry = load(&config)?;
    let (entry, action) = resolve(&registry, &p)?;
    if !entry.enabled {
        return Err(error(ErrorCode::PluginDisabled, format!("plugin {} is disabled", entry.id())));
    }
    if !entry.manifest_available() {
        return Err(error(
            ErrorCode::PluginManifestUnavailable,
            format!("the manifest of plugin {} is unavailable", entry.id()),
        ));
    }
    if !compat::supported(compat::effective(&action.platforms, &entry.manifest.platforms)) {
        return Err(error(
            ErrorCode::PlatformUnsupported,
            format!("action {} does not support this platform", action.id),
        ));
    }
    let context = p.context.unwrap_or_default();
    let invocation = Invocation::Action { action_id: action.id.clone() };
    let env = environment(shared, &config, entry, &context, &invocation)?;
    let spec = Spec {
        plugin_id: entry.id().to_owned(),
        action_id: Some(action.id.clone()),
        event: None,
        command: action.command.clone(),
        root: entry.plugin_root.clone().into(),
        env,
        limit: run::command_limit(),
    };
    let (log, _finished) = shared.plugins.logs.start(spec);
    Ok(ApiResult::PluginActionInvoked {
        action: Box::new(action_info(entry, action)?),
        context: Box::new(context),
        log: Box::new(log),
    })
}

/// `url` for the first plugin link handler that takes it ([`herdr_plugins::links`]): the
/// handler's action runs with `context` marked `invocation_source = "link_click"` and given
/// `clicked_url` and `link_handler_id`. `None` when no handler matches (or there is no readable
/// registry), so the caller opens the URL itself.
pub fn link(
    shared: &Shared,
    url: &str,
    context: PluginInvocationContext,
) -> Option<Result<ApiResult, Failure>> {
    let registry = match config_dir().and_then(|config| load(&config)) {
        Ok(registry) => registry,
        Err(e) => {
            log::debug!("no plugin link handlers: {e:?}");
            return None;
        }
    };
    let (entry, handler) = herdr_plugins::links::handler_for(&registry, url)?;
    let context = PluginInvocationContext {
        invocation_source: Some("link_click".to_owned()),
        clicked_url: Some(url.to_owned()),
        link_handler_id: Some(handler.id.clone()),
        ..context
    };
    let params = PluginActionInvokeParams {
        action_id: handler.action.trim().to_owned(),
        plugin_id: Some(entry.id().to_owned()),
        context: Some(context),
    };
    Some(invoke(shared, params))
}

/// `plugin.log.list`: this server's command log, oldest first (the newest `limit` entries).
pub fn log_list(shared: &Shared, p: PluginLogListParams) -> Result<ApiResult, Failure> {
    let only = p.plugin_id.as_deref().map(plugin_id).transpose()?;
    let limit = p.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    Ok(ApiResult::PluginLogList { logs: shared.plugins.logs.list(only.as_deref(), limit) })
}
