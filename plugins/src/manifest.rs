//! The `herdr-plugin.toml` model and its validation. Every problem is a [`ManifestError`] naming
//! the file and the field (`actions[1].id`), never a panic; the serialized form of [`Manifest`]
//! is the manifest part of protocol 22's `InstalledPluginInfo`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compat::{self, Platform, Version};
use crate::ids::{normalize_local_id, normalize_plugin_id};

/// `PluginActionContext`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionContext {
    Global,
    Workspace,
    Tab,
    Pane,
    Selection,
}

/// A pane's placement and its popup sizes are the wire's own types (`PluginPanePlacement`,
/// `PopupSize`): the manifest and `plugin.pane.open` say them the same way.
pub use herdr_protocol::api::requests::{PluginPanePlacement as Placement, PopupSize};

/// `[[build]]` / `[[startup]]`: a command and where it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSpec {
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
}

/// `[[actions]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub contexts: Vec<ActionContext>,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
}

/// `[[events]]`: a hook on a hub event (`on` is its dotted name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventHook {
    pub on: String,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
}

/// `[[panes]]`: a pane entrypoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pane {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub placement: Placement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<PopupSize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<PopupSize>,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
}

/// `[[link_handlers]]`: clicked URLs matching `pattern` run the plugin's `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkHandler {
    pub id: String,
    pub title: String,
    pub pattern: String,
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
}

/// A validated manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(rename = "plugin_id", alias = "id")]
    pub id: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub min_herdr_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platforms: Option<Vec<Platform>>,
    #[serde(default)]
    pub build: Vec<CommandSpec>,
    #[serde(default)]
    pub startup: Vec<CommandSpec>,
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub events: Vec<EventHook>,
    #[serde(default)]
    pub panes: Vec<Pane>,
    #[serde(default)]
    pub link_handlers: Vec<LinkHandler>,
}

/// Why a manifest was refused.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", .path.display())]
    Syntax { path: PathBuf, message: String },
    #[error("{}: {field}: {message}", .path.display())]
    Invalid { path: PathBuf, field: String, message: String },
    #[error("{}: plugin needs herdr {required}; this build is compatible with herdr {}.{}.x", .path.display(), compat::COMPATIBLE_UPSTREAM.0, compat::COMPATIBLE_UPSTREAM.1)]
    VersionUnsupported { path: PathBuf, required: String },
    #[error("{}: plugin supports {platforms}, not {}", .path.display(), Platform::current().map_or("this platform", Platform::as_str))]
    PlatformUnsupported { path: PathBuf, platforms: String },
}

impl ManifestError {
    /// The API error code (upstream's `plugin_*` / `invalid_plugin_*` family).
    pub fn code(&self) -> &'static str {
        match self {
            ManifestError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                "plugin_manifest_not_found"
            }
            ManifestError::Read { .. } => "plugin_manifest_unavailable",
            ManifestError::Syntax { .. } | ManifestError::Invalid { .. } => "invalid_plugin_manifest",
            ManifestError::VersionUnsupported { .. } => "plugin_version_unsupported",
            ManifestError::PlatformUnsupported { .. } => "platform_unsupported",
        }
    }
}

/// A loaded manifest with the non-fatal findings (e.g. no top-level `platforms`).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub manifest: Manifest,
    pub manifest_path: PathBuf,
    pub root: PathBuf,
    pub warnings: Vec<String>,
}

/// Reads `<dir>/herdr-plugin.toml` (or the file itself when `path` names it) and validates it.
pub fn load_manifest(path: &Path) -> Result<Loaded, ManifestError> {
    let manifest_path = if path.is_dir() { path.join(crate::MANIFEST_FILE) } else { path.to_path_buf() };
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|source| ManifestError::Read { path: manifest_path.clone(), source })?;
    let (manifest, warnings) = parse_manifest(&manifest_path, &text)?;
    let root = manifest_path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(Loaded { manifest, manifest_path, root, warnings })
}

/// Parses and validates manifest text; `path` is only for diagnostics.
pub fn parse_manifest(path: &Path, text: &str) -> Result<(Manifest, Vec<String>), ManifestError> {
    let mut manifest: Manifest = toml::from_str(text)
        .map_err(|e| ManifestError::Syntax { path: path.to_path_buf(), message: e.to_string() })?;
    let invalid = |field: String, message: &str| ManifestError::Invalid {
        path: path.to_path_buf(),
        field,
        message: message.to_owned(),
    };
    manifest.id = normalize_plugin_id(&manifest.id).ok_or_else(|| {
        invalid("id".into(), "must be 1-120 ASCII letters, digits, dot, colon, underscore or hyphen")
    })?;
    for (field, value) in [("name", &manifest.name), ("version", &manifest.version)] {
        if value.trim().is_empty() {
            return Err(invalid(field.into(), "is required"));
        }
    }
    let min = Version::parse(&manifest.min_herdr_version)
        .ok_or_else(|| invalid("min_herdr_version".into(), "must be a version like 0.7.0"))?;
    if !compat::satisfies_min_version(&min) {
        return Err(ManifestError::VersionUnsupported {
            path: path.to_path_buf(),
            required: manifest.min_herdr_version.clone(),
        });
    }
    let mut warnings = Vec::new();
    match &manifest.platforms {
        None => warnings.push("manifest declares no top-level platforms".to_owned()),
        Some(list) if !compat::supported(&manifest.platforms) => {
            let platforms = list.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
            return Err(ManifestError::PlatformUnsupported { path: path.to_path_buf(), platforms });
        }
        Some(_) => {}
    }
    let command = |field: String, argv: &[String]| {
        if argv.first().is_none_or(|p| p.trim().is_empty()) {
            Err(invalid(field, "command must be a non-empty argv array"))
        } else {
            Ok(())
        }
    };
    for (i, b) in manifest.build.iter().enumerate() {
        command(format!("build[{i}].command"), &b.command)?;
    }
    for (i, s) in manifest.startup.iter().enumerate() {
        command(format!("startup[{i}].command"), &s.command)?;
    }
    let local = |kind: &str, i: usize, id: &mut String, seen: &mut BTreeSet<String>| {
        *id = normalize_local_id(id).ok_or_else(|| {
            invalid(format!("{kind}[{i}].id"), "must be ASCII letters, digits, colon, underscore or hyphen")
        })?;
        if !seen.insert(id.clone()) {
            return Err(invalid(format!("{kind}[{i}].id"), "is declared twice"));
        }
        Ok(())
    };
    let mut seen = BTreeSet::new();
    for (i, a) in manifest.actions.iter_mut().enumerate() {
        local("actions", i, &mut a.id, &mut seen)?;
        command(format!("actions[{i}].command"), &a.command)?;
    }
    for (i, e) in manifest.events.iter().enumerate() {
        if e.on.trim().is_empty() {
            return Err(invalid(format!("events[{i}].on"), "is required"));
        }
        command(format!("events[{i}].command"), &e.command)?;
    }
    let mut seen = BTreeSet::new();
    for (i, p) in manifest.panes.iter_mut().enumerate() {
        local("panes", i, &mut p.id, &mut seen)?;
        command(format!("panes[{i}].command"), &p.command)?;
        for (name, size) in [("width", &p.width), ("height", &p.height)] {
            if let Some(size @ PopupSize::Percent(_)) = size
                && size.percent().is_none()
            {
                return Err(invalid(
                    format!("panes[{i}].{name}"),
                    "must be cells or a percentage like \"80%\"",
                ));
            }
        }
    }
    let actions: BTreeSet<String> = manifest.actions.iter().map(|a| a.id.clone()).collect();
    let mut seen = BTreeSet::new();
    for (i, h) in manifest.link_handlers.iter_mut().enumerate() {
        local("link_handlers", i, &mut h.id, &mut seen)?;
        if !actions.contains(h.action.trim()) {
            return Err(invalid(format!("link_handlers[{i}].action"), "names no action of this plugin"));
        }
        if let Err(e) = regex::Regex::new(&h.pattern) {
            return Err(invalid(
                format!("link_handlers[{i}].pattern"),
                &format!("is not a regular expression: {e}"),
            ));
        }
    }
    Ok((manifest, warnings))
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
