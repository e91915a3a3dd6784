//! `plugins.json` in the config dir: every linked or installed plugin (global to the user, for
//! every session) with its enabled state and the manifest as last read. Written atomically:
//! a 0600 temp file in the same dir, then a rename.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::manifest::{Loaded, Manifest};

/// The registry file's name in the config dir.
pub const REGISTRY_FILE: &str = "plugins.json";
/// Warnings starting with this mark an entry whose manifest could not be read on load.
pub const MANIFEST_UNAVAILABLE_WARNING_PREFIX: &str = "manifest unavailable: ";

/// Where a plugin came from: the wire's own kind.
pub use herdr_protocol::api::requests::PluginSourceKind as SourceKind;

/// `PluginSourceInfo` as the registry keeps it: like the wire's, but the kind is always
/// recorded (a GitHub install keeps its checkout's facts).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    #[serde(default)]
    pub kind: SourceKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subdir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_unix_ms: Option<u64>,
}

/// One plugin: protocol 22's `InstalledPluginInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryEntry {
    #[serde(flatten)]
    pub manifest: Manifest,
    pub manifest_path: String,
    pub plugin_root: String,
    pub enabled: bool,
    #[serde(default)]
    pub source: Source,
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl RegistryEntry {
    /// The entry for a freshly loaded manifest.
    pub fn new(loaded: Loaded, enabled: bool, source: Source) -> RegistryEntry {
        RegistryEntry {
            manifest: loaded.manifest,
            manifest_path: loaded.manifest_path.display().to_string(),
            plugin_root: loaded.root.display().to_string(),
            enabled,
            source,
            warnings: loaded.warnings,
        }
    }

    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// False when the manifest could not be read on the last reload: its actions and panes are
    /// not offered.
    pub fn manifest_available(&self) -> bool {
        !self.warnings.iter().any(|w| w.starts_with(MANIFEST_UNAVAILABLE_WARNING_PREFIX))
    }

    /// Re-reads the manifest from `manifest_path`, keeping the registry's own facts (enabled,
    /// source). A manifest that no longer loads keeps the old copy, marked unavailable.
    pub fn reload(mut self) -> RegistryEntry {
        match crate::manifest::load_manifest(Path::new(&self.manifest_path)) {
            Ok(loaded) if loaded.manifest.id == self.manifest.id => {
                self.manifest = loaded.manifest;
                self.warnings = loaded.warnings;
            }
            Ok(loaded) => {
                self.warnings = vec![format!(
                    "{MANIFEST_UNAVAILABLE_WARNING_PREFIX}manifest now declares id {}",
                    loaded.manifest.id
                )];
            }
            Err(e) => self.warnings = vec![format!("{MANIFEST_UNAVAILABLE_WARNING_PREFIX}{e}")],
        }
        self
    }
}

/// Why the registry could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{} is not a plugin registry: {source}", .path.display())]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl RegistryError {
    /// The API error code.
    pub fn code(&self) -> &'static str {
        match self {
            RegistryError::Read { .. } | RegistryError::Parse { .. } => "plugin_registry_load_failed",
            RegistryError::Write { .. } => "plugin_registry_save_failed",
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    plugins: Vec<RegistryEntry>,
}

/// The registry file and its entries, sorted by plugin id.
#[derive(Debug, Clone)]
pub struct Registry {
    path: PathBuf,
    pub entries: Vec<RegistryEntry>,
}

impl Registry {
    /// Reads `<config_dir>/plugins.json`; a missing file is an empty registry.
    pub fn load(config_dir: &Path) -> Result<Registry, RegistryError> {
        let path = config_dir.join(REGISTRY_FILE);
        let entries = match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice::<File>(&bytes)
                    .map_err(|source| RegistryError::Parse { path: path.clone(), source })?
                    .plugins
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(RegistryError::Read { path, source }),
        };
        let mut registry = Registry { path, entries };
        registry.sort();
        Ok(registry)
    }

    /// Every entry with its manifest read again from disk.
    pub fn reloaded(mut self) -> Registry {
        self.entries = self.entries.into_iter().map(RegistryEntry::reload).collect();
        self
    }

    pub fn get(&self, plugin_id: &str) -> Option<&RegistryEntry> {
        self.entries.iter().find(|e| e.id() == plugin_id)
    }

    pub fn get_mut(&mut self, plugin_id: &str) -> Option<&mut RegistryEntry> {
        self.entries.iter_mut().find(|e| e.id() == plugin_id)
    }

    /// Adds `entry`, replacing one with the same id.
    pub fn upsert(&mut self, entry: RegistryEntry) {
        self.entries.retain(|e| e.id() != entry.id());
        self.entries.push(entry);
        self.sort();
    }

    /// Removes `plugin_id`'s entry; whether there was one.
    pub fn remove(&mut self, plugin_id: &str) -> Option<RegistryEntry> {
        let at = self.entries.iter().position(|e| e.id() == plugin_id)?;
        Some(self.entries.remove(at))
    }

    /// Writes the file atomically (0600 temp file + rename), creating the config dir.
    pub fn save(&self) -> Result<(), RegistryError> {
        let write = |source| RegistryError::Write { path: self.path.clone(), source };
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        std::fs::create_dir_all(dir).map_err(write)?;
        let file = File { plugins: self.entries.clone() };
        let mut json = serde_json::to_vec_pretty(&file).map_err(|e| write(std::io::Error::other(e)))?;
        json.push(b'\n');
        let tmp = dir.join(format!(".{REGISTRY_FILE}.{}.tmp", std::process::id()));
        let result = (|| {
            let mut f =
                std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
            f.write_all(&json)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map_err(write)
    }

    fn sort(&mut self) {
        self.entries.sort_by(|a, b| a.id().cmp(b.id()));
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn plugin_dir(root: &Path, id: &str) -> PathBuf {
        let dir = root.join(id);
        std::fs::create_dir_all(&dir).expect("dir");
        let text = format!(
            "id = \"{id}\"\nname = \"N\"\nversion = \"1\"\nmin_herdr_version = \"0.7.0\"\nplatforms = [\"linux\", \"macos\"]\n"
        );
        std::fs::write(dir.join(crate::MANIFEST_FILE), text).expect("manifest");
        dir
    }

    #[test]
    fn entries_survive_a_save_and_load_with_a_private_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let config = tmp.path().join("herdr");
        let mut registry = Registry::load(&config).expect("empty");
        assert!(registry.entries.is_empty());
        for id in ["b.two", "a.one"] {
            let loaded = crate::load_manifest(&plugin_dir(tmp.path(), id)).expect("loads");
            registry.upsert(RegistryEntry::new(loaded, true, Source::default()));
        }
        registry.get_mut("b.two").expect("b").enabled = false;
        registry.save().expect("save");
        let mode = std::fs::metadata(config.join(REGISTRY_FILE)).expect("file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = Registry::load(&config).expect("load");
        let ids: Vec<_> = again.entries.iter().map(|e| (e.id().to_owned(), e.enabled)).collect();
        assert_eq!(ids, vec![("a.one".to_owned(), true), ("b.two".to_owned(), false)]);
        let leftovers = std::fs::read_dir(&config).expect("dir").count();
        assert_eq!(leftovers, 1, "no temp file is left behind");
    }

    #[test]
    fn a_vanished_manifest_marks_the_entry_unavailable_and_garbage_is_an_error() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = plugin_dir(tmp.path(), "a.one");
        let mut registry = Registry::load(tmp.path()).expect("empty");
        registry.upsert(RegistryEntry::new(
            crate::load_manifest(&dir).expect("loads"),
            true,
            Source::default(),
        ));
        std::fs::remove_file(dir.join(crate::MANIFEST_FILE)).expect("rm");
        let registry = registry.reloaded();
        assert!(!registry.entries[0].manifest_available());
        std::fs::write(tmp.path().join(REGISTRY_FILE), "not json").expect("write");
        let e = Registry::load(tmp.path()).expect_err("garbage");
        assert_eq!(e.code(), "plugin_registry_load_failed");
    }
}
