//! `plugin.pane.open|focus|close`: a plugin's `[[panes]]` entrypoint run as a terminal.
//!
//! The entrypoint's `command` runs as an argv (no shell) in the plugin's root (or the request's
//! `cwd`), with the `HERDR_PLUGIN_*` environment of its commands plus
//! `HERDR_PLUGIN_ENTRYPOINT_ID`; the request's `env` is added first, minus the variables herdr
//! sets itself. The placement (the request's, else the manifest pane's) decides where:
//!
//! * `split`: a new pane beside `target_pane_id` (else the focused pane), `direction` (default
//!   right); `zoomed`: the same, focused and zoomed; `overlay`: the same over the focused pane
//!   (no target or direction allowed), so it covers the tab until it closes and the layout
//!   under it comes back.
//! * `tab`: a new tab (its only pane) in `workspace_id`, else the focused workspace.
//! * `popup`: the session's popup ([`crate::popups::open`]) with the pane's or request's
//!   width/height; answered `ok` as upstream does, it closes with its program or `popup.close`.
//!
//! Layout panes are normal panes (`pane.list` shows them, labelled with the entrypoint's
//! title; protocol 22's pane record has no plugin field). The server remembers which panes
//! plugins opened ([`Registry`], by pane key, for this server's life): only those answer
//! `plugin.pane.focus|close`. The pane's program is not recorded in the layout, so a restored
//! session brings such a pane back as a shell rather than rerunning it without its plugin.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use herdr_plugins::compat;
use herdr_plugins::env::Invocation;
use herdr_plugins::ids;
use herdr_plugins::manifest::Pane;
use herdr_plugins::registry::RegistryEntry;
use herdr_protocol::api::requests::{
    PaneRenameParams, PaneRequest, PaneSplitParams, PaneTarget, PaneZoomParams, PluginInvocationContext,
    PluginPaneOpenParams, PluginPanePlacement as Placement, PluginPaneTarget, PopupSize, Request,
    TabCreateParams, TabRequest, ZoomMode,
};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, PaneId, PaneInfo, PluginPaneInfo, SplitDirection};

use super::invoke::environment;
use super::{config_dir, load, not_found, plugin_id};
use crate::api::envelope::Failure;
use crate::popups::{self, PopupSpec};
use crate::session::{Effects, HandleError, PaneKey};
use crate::state::Shared;
use crate::workers::StartError;

/// Variables herdr sets for a plugin pane, which the request's `env` cannot override.
const PROTECTED: &[&str] = &["HERDR_SOCKET_PATH", "HERDR_ENV", "HERDR_BIN_PATH"];

/// The pane's own ids, which its worker's environment gets from the layout, not the context.
const PANE_IDS: &[&str] = &["HERDR_WORKSPACE_ID", "HERDR_TAB_ID", "HERDR_PANE_ID"];

/// Which plugin entrypoint each pane opened by `plugin.pane.open` runs.
#[derive(Debug, Default)]
pub struct Registry {
    panes: Mutex<HashMap<PaneKey, Record>>,
}

#[derive(Debug, Clone)]
struct Record {
    plugin_id: String,
    entrypoint: String,
}

impl Registry {
    fn insert(&self, key: PaneKey, record: Record) {
        self.panes.lock().unwrap_or_else(PoisonError::into_inner).insert(key, record);
    }

    fn get(&self, key: PaneKey) -> Option<Record> {
        self.panes.lock().unwrap_or_else(PoisonError::into_inner).get(&key).cloned()
    }

    fn remove(&self, key: PaneKey) {
        self.panes.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
    }
}

fn error(code: &str, message: impl Into<String>) -> Failure {
    ApiError::new(ErrorCode::from_wire(code), message.into()).into()
}

fn invalid_params(message: &str) -> Failure {
    error("invalid_params", message)
}

fn pane_not_found() -> Failure {
    error("plugin_pane_not_found", "plugin pane not found")
}

/// `plugin.pane.open`.
pub async fn open(shared: &Shared, p: PluginPaneOpenParams) -> Result<ApiResult, Failure> {
    let config = config_dir()?;
    let registry = load(&config)?;
    let id = plugin_id(&p.plugin_id)?;
    let entry = registry.get(&id).ok_or_else(not_found)?;
    if !entry.manifest_available() {
        return Err(error("plugin_manifest_unavailable", format!("plugin {id} manifest is unavailable")));
    }
    if !entry.enabled {
        return Err(error("plugin_disabled", format!("plugin {id} is disabled")));
    }
    let local = ids::normalize_local_id(&p.entrypoint)
        .ok_or_else(|| error("invalid_plugin_entrypoint", "invalid entrypoint id"))?;
    let pane = entry.manifest.panes.iter().find(|pane| pane.id == local).ok_or_else(|| {
        error("plugin_pane_not_found", format!("plugin pane entrypoint '{local}' not found"))
    })?;
    if !compat::supported(compat::effective(&pane.platforms, &entry.manifest.platforms)) {
        return Err(error(
            "platform_unsupported",
            format!("plugin pane {local} does not support this platform"),
        ));
    }
    let placement = p.placement.unwrap_or(pane.placement);
    check_placement(placement, &p)?;
    let open = Open { shared, config: &config, entry, pane, cwd: cwd_of(entry, p.cwd.clone()) };
    match placement {
        Placement::Popup => open.popup(p).await,
        Placement::Tab => open.tab(p).await,
        Placement::Split | Placement::Zoomed | Placement::Overlay => open.split(p, placement).await,
    }
}

/// Upstream's rules for which params go with which placement.
fn check_placement(placement: Placement, p: &PluginPaneOpenParams) -> Result<(), Failure> {
    if placement != Placement::Popup && (p.width.is_some() || p.height.is_some()) {
        return Err(invalid_params("width and height are only supported when placement is popup"));
    }
    let targeted = p.target_pane_id.is_some() || p.direction.is_some();
    match placement {
        Placement::Overlay | Placement::Popup if targeted || p.workspace_id.is_some() => {
            Err(invalid_params("overlay and popup plugin panes target the active pane"))
        }
        Placement::Split | Placement::Zoomed if p.workspace_id.is_some() => {
            Err(invalid_params("split and zoomed plugin panes target an existing pane; use target_pane_id"))
        }
        Placement::Tab if targeted => {
            Err(invalid_params("tab plugin panes support workspace_id but not target_pane_id or direction"))
        }
        _ => Ok(()),
    }
}

fn cwd_of(entry: &RegistryEntry, cwd: Option<String>) -> String {
    cwd.unwrap_or_else(|| entry.plugin_root.clone())
}

/// The request's `env` minus what herdr sets.
fn caller_env(env: BTreeMap<String, String>) -> BTreeMap<String, String> {
    env.into_iter()
        .filter(|(k, _)| !PROTECTED.contains(&k.as_str()) && !herdr_plugins::env::is_stripped(k))
        .collect()
}

/// One `plugin.pane.open` being carried out.
struct Open<'a> {
    shared: &'a Shared,
    config: &'a Path,
    entry: &'a RegistryEntry,
    pane: &'a Pane,
    cwd: String,
}

impl Open<'_> {
    /// The plugin environment of the pane, with `context` as `HERDR_PLUGIN_CONTEXT_JSON`.
    fn plugin_env(&self, context: &PluginInvocationContext) -> Result<Vec<(String, String)>, Failure> {
        herdr_plugins::env::ensure_user_dirs(self.config, self.entry.id())
            .map_err(|e| error("plugin_user_dir_create_failed", e.to_string()))?;
        let invocation = Invocation::Pane { entrypoint: self.pane.id.clone() };
        environment(self.shared, self.config, self.entry, context, &invocation)
    }

    async fn popup(self, p: PluginPaneOpenParams) -> Result<ApiResult, Failure> {
        let size = |raw: Option<&PopupSize>| {
            raw.map(herdr_ui::popup::PopupSize::from_wire)
                .transpose()
                .map_err(|_| invalid_params("popup sizes are cells or a percentage like \"80%\""))
        };
        let width = size(p.width.as_ref().or(self.pane.width.as_ref()))?;
        let height = size(p.height.as_ref().or(self.pane.height.as_ref()))?;
        let context = {
            let session = self.shared.session();
            let focused = session.focused_pane().and_then(|key| session.pane_ids(key));
            context(focused.map(|(ws, tab, pane)| (ws, tab, pane, None)))
        };
        let mut env: Vec<(String, String)> = caller_env(p.env).into_iter().collect();
        env.extend(self.plugin_env(&context)?);
        let spec = PopupSpec {
            argv: self.pane.command.clone(),
            cwd: Some(self.cwd.clone()),
            env,
            title: self.pane.title.clone(),
            width,
            height,
        };
        popups::open(self.shared, spec).await.map_err(|e| error("plugin_pane_open_failed", e.to_string()))?;
        Ok(ApiResult::Ok)
    }

    async fn tab(self, p: PluginPaneOpenParams) -> Result<ApiResult, Failure> {
        let workspace = match &p.workspace_id {
            Some(id) => id.as_str().to_owned(),
            None => {
                let session = self.shared.session();
                let focused = session.focused_pane().and_then(|key| session.pane_ids(key));
                focused.map(|(ws, _, _)| ws).ok_or_else(ApiError::no_active_workspace)?
            }
        };
        let context = context(Some((workspace.clone(), String::new(), String::new(), None)));
        let request = Request::Tab(TabRequest::Create(TabCreateParams {
            workspace_id: Some(workspace.as_str().into()),
            cwd: Some(self.cwd.clone()),
            focus: Some(p.focus.unwrap_or(false)),
            label: None,
            env: caller_env(p.env),
        }));
        let result = self.start(request, &context).await?;
        let ApiResult::TabCreated { root_pane, .. } = result else {
            return Err(ApiError::internal("tab.create answered something else").into());
        };
        self.finish(root_pane.pane_id.as_str()).await
    }

    async fn split(self, p: PluginPaneOpenParams, placement: Placement) -> Result<ApiResult, Failure> {
        let target = match &p.target_pane_id {
            Some(id) => id.as_str().to_owned(),
            None => {
                let session = self.shared.session();
                let focused = session.focused_pane().and_then(|key| session.pane_ids(key));
                focused.map(|(_, _, pane)| pane).ok_or_else(ApiError::no_active_pane)?
            }
        };
        let info = pane_info(self.shared, &target).await?;
        let context = context(Some((
            info.workspace_id.as_str().to_owned(),
            info.tab_id.as_str().to_owned(),
            info.pane_id.as_str().to_owned(),
            info.cwd.clone(),
        )));
        let zoom = placement != Placement::Split;
        let request = Request::Pane(PaneRequest::Split(PaneSplitParams {
            direction: p.direction.unwrap_or(SplitDirection::Right),
            target_pane_id: Some(target.as_str().into()),
            workspace_id: None,
            ratio: None,
            cwd: Some(self.cwd.clone()),
            focus: Some(p.focus.unwrap_or(false) || zoom),
            env: caller_env(p.env),
            right_click: None,
        }));
        let result = self.start(request, &context).await?;
        let ApiResult::PaneInfo { pane } = result else {
            return Err(ApiError::internal("pane.split answered something else").into());
        };
        if zoom {
            let zoom =
                PaneZoomParams { pane_id: Some(pane.pane_id.as_str().into()), mode: Some(ZoomMode::On) };
            session(self.shared, Request::Pane(PaneRequest::Zoom(zoom))).await?;
        }
        self.finish(pane.pane_id.as_str()).await
    }

    /// Runs the session request that makes the pane, giving its spawn the entrypoint's program
    /// and environment before its worker starts; resolves once the program runs.
    async fn start(&self, request: Request, context: &PluginInvocationContext) -> Result<ApiResult, Failure> {
        let mut plugin_env = self.plugin_env(context)?;
        plugin_env.retain(|(k, _)| !PANE_IDS.contains(&k.as_str()));
        let outcome = self.shared.session().handle(request);
        let (result, mut effects): (ApiResult, Effects) = match outcome {
            Some(Ok(done)) => done,
            Some(Err(e)) => return Err(handle_error(e)),
            None => return Err(ApiError::internal("not a session request").into()),
        };
        for spawn in &mut effects.spawns {
            spawn.argv = Some(self.pane.command.clone());
            spawn.env.extend(plugin_env.iter().cloned());
        }
        for (_, started) in self.shared.apply(effects) {
            let outcome = match started.await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(StartError::TaskGone),
            };
            outcome.map_err(|e| error("plugin_pane_open_failed", e.to_string()))?;
        }
        Ok(result)
    }

    /// Labels the new pane with the entrypoint's title, remembers it and answers its record.
    async fn finish(self, pane_id: &str) -> Result<ApiResult, Failure> {
        let rename = PaneRenameParams { pane_id: pane_id.into(), label: Some(self.pane.title.clone()) };
        session(self.shared, Request::Pane(PaneRequest::Rename(rename))).await?;
        let key = self.shared.session().resolve_pane(pane_id).map_err(Failure::from)?;
        let record = Record { plugin_id: self.entry.id().to_owned(), entrypoint: self.pane.id.clone() };
        self.shared.plugins.panes.insert(key, record.clone());
        let pane = pane_info(self.shared, pane_id).await?;
        Ok(ApiResult::PluginPaneOpened { plugin_pane: Box::new(wire(record, pane)) })
    }
}

/// The invocation context of a pane opened at `(workspace, tab, pane, cwd)` (empty ids are
/// left out).
fn context(at: Option<(String, String, String, Option<String>)>) -> PluginInvocationContext {
    let mut context =
        PluginInvocationContext { invocation_source: Some("plugin-pane".to_owned()), ..Default::default() };
    if let Some((workspace, tab, pane, cwd)) = at {
        let some = |s: String| (!s.is_empty()).then_some(s);
        context.workspace_id = some(workspace).map(|s| s.as_str().into());
        context.tab_id = some(tab).map(|s| s.as_str().into());
        context.focused_pane_id = some(pane).map(PaneId::new);
        context.focused_pane_cwd = cwd;
    }
    context
}

fn wire(record: Record, pane: PaneInfo) -> PluginPaneInfo {
    PluginPaneInfo { plugin_id: record.plugin_id, entrypoint: record.entrypoint, pane }
}

fn handle_error(e: HandleError) -> Failure {
    match e {
        HandleError::BadParams(msg) => Failure::BadRequest(msg),
        HandleError::Api(e) => Failure::Api(e),
    }
}

async fn session(shared: &Shared, request: Request) -> Result<ApiResult, Failure> {
    match shared.session_call(request).await {
        Some(outcome) => outcome,
        None => Err(ApiError::internal("not a session request").into()),
    }
}

async fn pane_info(shared: &Shared, pane_id: &str) -> Result<PaneInfo, Failure> {
    match session(shared, Request::Pane(PaneRequest::Get(PaneTarget { pane_id: pane_id.into() }))).await? {
        ApiResult::PaneInfo { pane } => Ok(*pane),
        _ => Err(ApiError::internal("pane.get answered something else").into()),
    }
}

/// The key and record of a pane `plugin.pane.open` opened, else `plugin_pane_not_found`.
fn plugin_pane(shared: &Shared, pane_id: &str) -> Result<(PaneKey, Record), Failure> {
    let key = shared.session().resolve_pane(pane_id).map_err(|_| pane_not_found())?;
    let record = shared.plugins.panes.get(key).ok_or_else(pane_not_found)?;
    Ok((key, record))
}

/// `plugin.pane.focus`.
pub async fn focus(shared: &Shared, p: PluginPaneTarget) -> Result<ApiResult, Failure> {
    let (_, record) = plugin_pane(shared, p.pane_id.as_str())?;
    let focus = Request::Pane(PaneRequest::Focus(PaneTarget { pane_id: p.pane_id.clone() }));
    let ApiResult::PaneInfo { pane } = session(shared, focus).await? else {
        return Err(ApiError::internal("pane.focus answered something else").into());
    };
    Ok(ApiResult::PluginPaneFocused { plugin_pane: Box::new(wire(record, *pane)) })
}

/// `plugin.pane.close`: ends the program and removes the pane (as `pane.close`).
pub async fn close(shared: &Shared, p: PluginPaneTarget) -> Result<ApiResult, Failure> {
    let (key, _) = plugin_pane(shared, p.pane_id.as_str())?;
    session(shared, Request::Pane(PaneRequest::Close(PaneTarget { pane_id: p.pane_id.clone() }))).await?;
    shared.plugins.panes.remove(key);
    Ok(ApiResult::PluginPaneClosed { pane_id: p.pane_id.as_str().to_owned() })
}
