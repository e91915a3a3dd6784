//! The file-system shell: install, uninstall and status of any target, by interpreting its row
//! of the target table (`spec`). Every file is read and its new text planned before anything is
//! written, so a config herdr cannot edit safely stops the install with nothing half-done.
//!
//! Invariant (tested for every target): `status` is `current` exactly when `install` would
//! change nothing.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use herdr_protocol::api::{IntegrationDetails, IntegrationState};

use crate::assets;
use crate::edits::{self, Removal, Script};
use crate::env::Env;
use crate::error::Error;
use crate::spec::{self, Dir, Edit, Spec, Template};
use crate::target::Target;

/// One target's install state, and where its (primary) script or plugin is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub target: Target,
    pub state: IntegrationState,
    /// The installed (or to-be-installed) hook script or plugin.
    pub path: PathBuf,
    /// The version the installed file declares.
    pub installed_version: Option<u32>,
    /// The version this build installs.
    pub current_version: u32,
    /// The oldest version whose session refs native resume uses.
    pub resume_min: u32,
}

impl Status {
    /// Whether the installed integration reports sessions that native resume uses.
    pub fn meets_resume_min(&self) -> bool {
        self.installed_version.is_some_and(|v| v >= self.resume_min)
    }
}

/// Where one target's files are.
#[derive(Debug, Clone)]
struct Layout {
    spec: &'static Spec,
    /// The agent's own config dir; install refuses when it is missing (unless the table says
    /// herdr creates it).
    dir: PathBuf,
}

impl Layout {
    fn of(target: Target, env: &Env) -> Result<Self, Error> {
        let spec = spec::spec(target);
        let dir = spec.dir.resolve(env, spec.label)?;
        Ok(Layout { spec, dir })
    }

    /// OMP under `PI_CODING_AGENT_DIR` shares Pi's dir: one extensions folder would load both
    /// extensions into both agents, so install refuses.
    fn check_not_shared(&self, env: &Env) -> Result<(), Error> {
        if self.spec.dir == Dir::Omp && spec::spec(Target::Pi).dir.resolve(env, self.spec.label)? == self.dir
        {
            return Err(Error::SharedDir { label: self.spec.label, other: "Pi", path: self.dir.clone() });
        }
        Ok(())
    }

    fn primary(&self) -> PathBuf {
        self.dir.join(self.spec.assets[0].path)
    }

    /// The hook script the agent's config points at (the primary asset for plugin targets).
    fn script(&self) -> (String, &'static str) {
        let name = self.spec.hook_script().unwrap_or("");
        let asset = self.spec.assets.iter().find(|a| matches!(a.template, Template::Hook(_)));
        let path = asset.map_or_else(|| self.primary(), |a| self.dir.join(a.path));
        (path.to_string_lossy().into_owned(), name)
    }
}

/// The agent's own config dir for `target` (install refuses while it is missing).
pub fn agent_dir(target: Target, env: &Env) -> Result<PathBuf, Error> {
    Ok(Layout::of(target, env)?.dir)
}

/// Whether installing would work here: the agent's dir exists, or herdr creates it.
pub fn available(target: Target, env: &Env) -> Result<bool, Error> {
    let layout = Layout::of(target, env)?;
    Ok(layout.check_not_shared(env).is_ok() && (layout.spec.creates_dir || layout.dir.is_dir()))
}

/// Installs (or brings up to date) `target`'s integration.
pub fn install(target: Target, env: &Env) -> Result<IntegrationDetails, Error> {
    let layout = Layout::of(target, env)?;
    layout.check_not_shared(env)?;
    let spec = layout.spec;
    if !layout.dir.is_dir() && !spec.creates_dir {
        return Err(Error::AgentDirMissing { label: spec.label, path: layout.dir });
    }
    let (script_path, script_name) = layout.script();
    let script = Script { path: &script_path, name: script_name };
    let mut configs = Vec::new();
    for edit in spec.edits {
        let path = layout.dir.join(edits::file(edit));
        let current = read_optional(&path)?;
        let planned = edits::install_text(edit, &path, current.as_deref(), script)?;
        configs.push((edit, path, planned));
    }

    fs::create_dir_all(&layout.dir).map_err(|e| Error::io(&layout.dir, e))?;
    let mut messages = Vec::new();
    for asset in spec.assets {
        messages.push(write_asset(spec, &layout.dir.join(asset.path), asset.template)?);
    }
    for (edit, path, planned) in configs {
        messages.push(match planned {
            Some(text) => {
                write_config(&path, &text)?;
                installed_message(edit, &path)
            }
            None => format!("{} already {}", path.display(), already(edit)),
        });
    }
    Ok(IntegrationDetails { messages })
}

fn installed_message(edit: &Edit, path: &Path) -> String {
    match edit {
        Edit::JsonHooks { .. } | Edit::KimiHooks { .. } => {
            format!("added herdr's hooks to {}", path.display())
        }
        Edit::LegacyJsonHooks { .. } => format!("removed herdr's old hooks from {}", path.display()),
        Edit::CodexFeatures { .. } => {
            format!("enabled hooks ([features] hooks = true) in {}", path.display())
        }
        Edit::HermesPlugin { .. } => format!("enabled herdr's plugin in {}", path.display()),
        Edit::GrokHooks { .. } => format!("wrote {}", path.display()),
    }
}

fn already(edit: &Edit) -> &'static str {
    match edit {
        Edit::JsonHooks { .. } | Edit::KimiHooks { .. } | Edit::GrokHooks { .. } => "has herdr's hooks",
        Edit::LegacyJsonHooks { .. } => "has no old herdr hooks",
        Edit::CodexFeatures { .. } => "enables hooks",
        Edit::HermesPlugin { .. } => "enables herdr's plugin",
    }
}

/// Removes `target`'s integration: herdr's files and herdr's entries in the agent's config,
/// nothing else. Not being installed is not an error.
pub fn uninstall(target: Target, env: &Env) -> Result<IntegrationDetails, Error> {
    let layout = Layout::of(target, env)?;
    let spec = layout.spec;
    let (_, script_name) = layout.script();
    let mut configs = Vec::new();
    for edit in spec.edits {
        let path = layout.dir.join(edits::file(edit));
        let current = read_optional(&path)?;
        configs.push((path.clone(), edits::uninstall_text(edit, &path, current.as_deref(), script_name)?));
    }
    let mut messages = Vec::new();
    for (path, removal) in configs {
        match removal {
            Removal::Keep => {}
            Removal::Write(text) => {
                write_config(&path, &text)?;
                messages.push(format!("removed herdr's entries from {}", path.display()));
            }
            Removal::Delete => {
                if remove_optional(&path)? {
                    messages.push(format!("removed {}", path.display()));
                }
            }
        }
    }
    for asset in spec.assets {
        let path = layout.dir.join(asset.path);
        if remove_optional(&path)? {
            messages.push(format!("removed {}", path.display()));
        }
        remove_own_dir(&path);
    }
    if messages.is_empty() {
        messages.push(format!("{} integration is not installed", spec.label));
    } else if let Some(Edit::CodexFeatures { file }) =
        spec.edits.iter().find(|e| matches!(e, Edit::CodexFeatures { .. }))
    {
        let path = layout.dir.join(file);
        messages.push(format!("left [features] hooks = true in {} as it was", path.display()));
    }
    Ok(IntegrationDetails { messages })
}

/// Whether `target` is installed, at which version, and whether it is what this build would
/// install.
pub fn status(target: Target, env: &Env) -> Result<Status, Error> {
    let layout = Layout::of(target, env)?;
    let spec = layout.spec;
    let (script_path, script_name) = layout.script();
    let script = Script { path: &script_path, name: script_name };
    let primary = read_optional(&layout.primary())?;
    let mut current = true;
    let mut anything = primary.is_some();
    for asset in spec.assets {
        let text = read_optional(&layout.dir.join(asset.path))?;
        anything |= text.is_some();
        current &= text.as_deref() == Some(assets::render(spec, asset.template).as_str());
    }
    for edit in spec.edits {
        let text = read_optional(&layout.dir.join(edits::file(edit)))?;
        current &= edits::is_current(edit, text.as_deref(), script);
        anything |= edits::has_owned(edit, text.as_deref(), script_name);
    }
    let state = match (anything, current) {
        (false, _) => IntegrationState::NotInstalled,
        (true, true) => IntegrationState::Current,
        (true, false) => IntegrationState::Outdated,
    };
    Ok(Status {
        target,
        state,
        path: layout.primary(),
        installed_version: primary.as_deref().and_then(assets::version_of),
        current_version: spec.version,
        resume_min: spec.resume_min,
    })
}

fn write_asset(spec: &Spec, path: &Path, template: Template) -> Result<String, Error> {
    let wanted = assets::render(spec, template);
    let existing = read_optional(path)?;
    if existing.as_deref() == Some(wanted.as_str()) {
        return Ok(format!("{} is up to date (version {})", path.display(), spec.version));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let mode = if path.extension().is_some_and(|ext| ext == "sh") { 0o755 } else { 0o644 };
    write_atomically(path, &wanted, mode)?;
    let version = spec.version;
    Ok(match existing.map(|text| assets::version_of(&text)) {
        None => format!("installed {} (version {version})", path.display()),
        Some(Some(old)) => format!("updated {} (version {old} -> {version})", path.display()),
        Some(None) => format!("replaced {} with version {version}", path.display()),
    })
}

/// A folder herdr made for its own files (`plugins/herdr-agent-state/`) goes with them.
fn remove_own_dir(asset: &Path) {
    let Some(parent) = asset.parent() else { return };
    if parent.file_name().is_some_and(|name| name.to_string_lossy().starts_with("herdr")) {
        // Fails, as it should, while anything else is in it.
        let _ = fs::remove_dir(parent);
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, Error> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn remove_optional(path: &Path) -> Result<bool, Error> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
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
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
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
