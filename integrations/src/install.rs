//! The file-system shell: where each implemented target's files live, and install / uninstall /
//! status over an [`Env`]. Every user config is read and its edit planned before anything is
//! written, so a config herdr cannot edit safely stops the install with nothing half-done.
//!
//! Invariant (tested): `status` is `current` exactly when `install` would change nothing.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use herdr_protocol::api::{IntegrationDetails, IntegrationState};
use serde_json::Value;

use crate::assets;
use crate::codex_features::{self, FeatureEditError};
use crate::env::Env;
use crate::error::Error;
use crate::hook_config::{self, SCRIPT_NAME};
use crate::target::{Implemented, Installable, Target};

/// The hook event Claude Code and Codex report their session identity from.
const SESSION_EVENT: &str = "SessionStart";
/// The action argument of that hook's command.
const SESSION_ACTION: &str = "session";

/// One implemented target's install state, and where its script or plugin is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub target: Target,
    pub state: IntegrationState,
    /// The installed (or to-be-installed) hook script or plugin.
    pub path: PathBuf,
}

/// Where one target's files are.
#[derive(Debug, Clone)]
struct Layout {
    target: Implemented,
    /// The agent's own config dir; install refuses when it is missing.
    agent_dir: PathBuf,
    /// The script or plugin herdr writes.
    asset: PathBuf,
    /// Claude's `settings.json` / Codex's `hooks.json`.
    hook_config: Option<PathBuf>,
    /// Codex's `config.toml`.
    codex_config: Option<PathBuf>,
}

fn layout(target: Implemented, env: &Env) -> Result<Layout, Error> {
    let home = || env.home.clone().ok_or(Error::NoHome { label: target.label() });
    Ok(match target {
        Implemented::Claude => {
            let dir = env.claude_config_dir.clone().map_or_else(|| home().map(|h| h.join(".claude")), Ok)?;
            Layout {
                target,
                asset: dir.join("hooks").join(SCRIPT_NAME),
                hook_config: Some(dir.join("settings.json")),
                codex_config: None,
                agent_dir: dir,
            }
        }
        Implemented::Codex => {
            let dir = env.codex_home.clone().map_or_else(|| home().map(|h| h.join(".codex")), Ok)?;
            Layout {
                target,
                asset: dir.join(SCRIPT_NAME),
                hook_config: Some(dir.join("hooks.json")),
                codex_config: Some(dir.join("config.toml")),
                agent_dir: dir,
            }
        }
        Implemented::Pi => {
            let dir = env
                .pi_coding_agent_dir
                .clone()
                .map_or_else(|| home().map(|h| h.join(".pi").join("agent")), Ok)?;
            Layout {
                target,
                asset: dir.join("extensions").join("herdr-agent-state.ts"),
                hook_config: None,
                codex_config: None,
                agent_dir: dir,
            }
        }
        Implemented::Opencode => {
            let config = env.xdg_config_home.clone().map_or_else(|| home().map(|h| h.join(".config")), Ok)?;
            let dir = config.join("opencode");
            Layout {
                target,
                asset: dir.join("plugins").join("herdr-agent-state.js"),
                hook_config: None,
                codex_config: None,
                agent_dir: dir,
            }
        }
    })
}

/// The agent's own config dir for `target` (install refuses while it is missing).
pub fn agent_dir(target: Target, env: &Env) -> Result<PathBuf, Error> {
    Ok(layout(target.implemented()?, env)?.agent_dir)
}

/// Installs (or brings up to date) `target`'s integration.
pub fn install(target: Target, env: &Env) -> Result<IntegrationDetails, Error> {
    let layout = layout(target.implemented()?, env)?;
    if !layout.agent_dir.is_dir() {
        return Err(Error::AgentDirMissing { label: layout.target.label(), path: layout.agent_dir });
    }
    let script = layout.asset.to_string_lossy().into_owned();
    let hook_edit = match &layout.hook_config {
        Some(path) => Some((path, plan_hook_install(path, &script)?)),
        None => None,
    };
    let toml_edit = match &layout.codex_config {
        Some(path) => Some((path, plan_features(path)?)),
        None => None,
    };

    let mut messages = vec![write_asset(&layout)?];
    if let Some((path, edit)) = hook_edit {
        messages.push(match edit {
            Some(text) => {
                write_config(path, &text)?;
                format!("added herdr's {SESSION_EVENT} hook to {}", path.display())
            }
            None => format!("{} already has herdr's {SESSION_EVENT} hook", path.display()),
        });
    }
    if let Some((path, edit)) = toml_edit {
        messages.push(match edit {
            Some(text) => {
                write_config(path, &text)?;
                format!("enabled hooks ([features] hooks = true) in {}", path.display())
            }
            None => format!("{} already enables hooks", path.display()),
        });
    }
    Ok(IntegrationDetails { messages })
}

/// Removes `target`'s integration: herdr's file and herdr's entries in the agent's config, nothing
/// else. Not being installed is not an error.
pub fn uninstall(target: Target, env: &Env) -> Result<IntegrationDetails, Error> {
    let layout = layout(target.implemented()?, env)?;
    let hook_edit = match &layout.hook_config {
        Some(path) => plan_hook_uninstall(path)?.map(|text| (path, text)),
        None => None,
    };
    let mut messages = Vec::new();
    if let Some((path, text)) = hook_edit {
        write_config(path, &text)?;
        messages.push(format!("removed herdr's hooks from {}", path.display()));
    }
    match fs::remove_file(&layout.asset) {
        Ok(()) => messages.push(format!("removed {}", layout.asset.display())),
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&layout.asset, e)),
    }
    if messages.is_empty() {
        messages.push(format!("{} integration is not installed", layout.target.label()));
    } else if let Some(path) = &layout.codex_config {
        // Other hooks may rely on the flag, and Codex enables hooks by default nowadays.
        messages.push(format!("left [features] hooks = true in {} as it was", path.display()));
    }
    Ok(IntegrationDetails { messages })
}

/// Whether `target` is installed, and whether it is what this build would install.
pub fn status(target: Target, env: &Env) -> Result<Status, Error> {
    let layout = layout(target.implemented()?, env)?;
    let script = layout.asset.to_string_lossy().into_owned();
    let asset = read_optional(&layout.asset)?;
    let (hook_current, hook_owned) = match &layout.hook_config {
        Some(path) => match read_optional(path)?.map(|text| parse_json(path, &text)) {
            Some(Ok(doc)) => (
                hook_config::is_current(
                    &doc,
                    SESSION_EVENT,
                    &hook_config::herdr_group(&script, SESSION_ACTION),
                ),
                hook_config::has_owned(&doc),
            ),
            // A config that does not parse cannot hold a working entry.
            Some(Err(_)) | None => (false, false),
        },
        None => (true, false),
    };
    let features_current = match &layout.codex_config {
        Some(path) => read_optional(path)?
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|doc| codex_features::hooks_enabled(&doc)),
        None => true,
    };
    let state = match asset {
        None if hook_owned => IntegrationState::Outdated,
        None => IntegrationState::NotInstalled,
        Some(text) => {
            let asset_current = text == assets::render(layout.target);
            if asset_current && hook_current && features_current {
                IntegrationState::Current
            } else {
                IntegrationState::Outdated
            }
        }
    };
    Ok(Status { target: layout.target.target(), state, path: layout.asset })
}

fn write_asset(layout: &Layout) -> Result<String, Error> {
    let path = &layout.asset;
    let wanted = assets::render(layout.target);
    let existing = read_optional(path)?;
    if existing.as_deref() == Some(wanted.as_str()) {
        return Ok(format!("{} is up to date (version {})", path.display(), layout.target.version()));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let mode = if path.extension().is_some_and(|ext| ext == "sh") { 0o755 } else { 0o644 };
    write_atomically(path, &wanted, mode)?;
    let version = layout.target.version();
    Ok(match existing.map(|text| assets::version_of(&text)) {
        None => format!("installed {} (version {version})", path.display()),
        Some(Some(old)) => format!("updated {} (version {old} -> {version})", path.display()),
        Some(None) => format!("replaced {} with version {version}", path.display()),
    })
}

/// The new text of a hook config with herdr's session hook, or `None` if it is already so.
fn plan_hook_install(path: &Path, script: &str) -> Result<Option<String>, Error> {
    let original = read_optional(path)?;
    let mut doc = match &original {
        Some(text) => parse_json(path, text)?,
        None => Value::Object(serde_json::Map::new()),
    };
    let group = hook_config::herdr_group(script, SESSION_ACTION);
    if original.is_some() && hook_config::is_current(&doc, SESSION_EVENT, &group) {
        return Ok(None);
    }
    hook_config::install(&mut doc, SESSION_EVENT, &group)
        .map_err(|e| Error::UnexpectedShape { path: path.to_owned(), problem: e.0 })?;
    Ok(Some(hook_config::render(&doc, original.as_deref())))
}

/// The new text of a hook config without herdr's entries, or `None` if there were none.
fn plan_hook_uninstall(path: &Path) -> Result<Option<String>, Error> {
    let Some(original) = read_optional(path)? else { return Ok(None) };
    let mut doc = parse_json(path, &original)?;
    let changed = hook_config::uninstall(&mut doc)
        .map_err(|e| Error::UnexpectedShape { path: path.to_owned(), problem: e.0 })?;
    Ok(changed.then(|| hook_config::render(&doc, Some(&original))))
}

fn plan_features(path: &Path) -> Result<Option<String>, Error> {
    let original = read_optional(path)?.unwrap_or_default();
    codex_features::ensure_hooks_enabled(&original).map_err(|e| match e {
        FeatureEditError::Invalid(message) => Error::InvalidToml { path: path.to_owned(), message },
        FeatureEditError::Unsafe(why) => Error::UnexpectedShape {
            path: path.to_owned(),
            problem: format!("{why}; add `hooks = true` under `[features]` yourself"),
        },
    })
}

/// An empty (or blank) config counts as `{}`, as agents treat it.
fn parse_json(path: &Path, text: &str) -> Result<Value, Error> {
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(text).map_err(|source| Error::InvalidJson { path: path.to_owned(), source })
}

fn read_optional(path: &Path) -> Result<Option<String>, Error> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Writes a user config, keeping its permissions, and writing through a symlink (dotfile repos
/// link these files) rather than replacing the link.
fn write_config(path: &Path, text: &str) -> Result<(), Error> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| Error::io(path, e))?
        }
        _ => path.to_owned(),
    };
    let mode = fs::metadata(&target).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0o644);
    write_atomically(&target, text, mode)
}

/// Write-then-rename, so an agent starting meanwhile never reads half a file.
fn write_atomically(path: &Path, text: &str, mode: u32) -> Result<(), Error> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.herdr-{}.tmp", std::process::id()));
    let result = fs::write(&temp, text)
        .and_then(|()| fs::set_permissions(&temp, fs::Permissions::from_mode(mode)))
        .and_then(|()| fs::rename(&temp, path));
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(Error::io(path, e));
    }
    Ok(())
}
