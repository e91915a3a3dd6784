//! `herdr config reset-keys`: back up `config.toml` to `config.toml.bak`, then remove every
//! table under `keys` (`[keys]`, `[keys.indexed]`, `[[keys.command]]`, …) and top-level
//! `keys.…` lines, leaving the rest of the file — comments included — as it was. The edit is
//! checked before it is written: the result must still be TOML and have no `keys` left.

use std::fmt;
use std::path::{Path, PathBuf};

/// What `reset-keys` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResetOutcome {
    /// No config file: the defaults already apply.
    NoFile(PathBuf),
    /// The file has no custom keys; nothing was written.
    NothingToReset(PathBuf),
    Reset {
        path: PathBuf,
        backup: PathBuf,
    },
}

impl fmt::Display for ResetOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResetOutcome::NoFile(path) => {
                write!(f, "no config file at {}; key bindings are already the defaults", path.display())
            }
            ResetOutcome::NothingToReset(path) => {
                write!(f, "no custom key bindings in {}; nothing changed", path.display())
            }
            ResetOutcome::Reset { path, backup } => write!(
                f,
                "Removed [keys], [keys.indexed], and [[keys.command]] from {} (backup: {})",
                path.display(),
                backup.display()
            ),
        }
    }
}

/// Why `reset-keys` changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid TOML; fix it first (see `herdr config check`)")]
    NotToml { path: PathBuf },
    #[error("cannot remove the keys of {path} without rewriting other settings; edit it by hand")]
    Unsafe { path: PathBuf },
    #[error("cannot write the backup {path}: {source}")]
    Backup { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// The dotted name of a table header line (`[keys.indexed]`, `[[keys.command]]  # c`).
fn header_name(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let inner = trimmed.strip_prefix("[[").or_else(|| trimmed.strip_prefix('['))?;
    let end = inner.find(']')?;
    Some(
        inner[..end]
            .split('.')
            .map(|part| part.trim().trim_matches('"').trim_matches('\''))
            .collect::<Vec<_>>()
            .join("."),
    )
}

fn is_keys(name: &str) -> bool {
    name == "keys" || name.starts_with("keys.")
}

/// `text` without its `keys` tables and top-level `keys…` assignments.
pub fn without_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    let mut top_level = true;
    for line in text.split_inclusive('\n') {
        if let Some(name) = header_name(line) {
            skipping = is_keys(&name);
            top_level = false;
            if skipping {
                continue;
            }
        }
        let assignment = line.trim_start();
        let top_keys = top_level
            && (assignment.starts_with("keys.")
                || assignment.starts_with("keys ")
                || assignment.starts_with("keys="));
        if !skipping && !top_keys {
            out.push_str(line);
        }
    }
    out
}

fn has_keys(text: &str) -> Option<bool> {
    let table: toml::Table = text.parse().ok()?;
    Some(table.contains_key("keys"))
}

/// Runs `reset-keys` on the file at `path`.
pub fn reset_keys(path: &Path) -> Result<ResetOutcome, ResetError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ResetOutcome::NoFile(path.into()));
        }
        Err(source) => return Err(ResetError::Read { path: path.into(), source }),
    };
    match has_keys(&text) {
        None => return Err(ResetError::NotToml { path: path.into() }),
        Some(false) => return Ok(ResetOutcome::NothingToReset(path.into())),
        Some(true) => {}
    }
    let edited = without_keys(&text);
    if has_keys(&edited) != Some(false) {
        return Err(ResetError::Unsafe { path: path.into() });
    }
    let mut backup = path.as_os_str().to_owned();
    backup.push(".bak");
    let backup = PathBuf::from(backup);
    std::fs::write(&backup, &text).map_err(|source| ResetError::Backup { path: backup.clone(), source })?;
    std::fs::write(path, edited).map_err(|source| ResetError::Write { path: path.into(), source })?;
    Ok(ResetOutcome::Reset { path: path.into(), backup })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUSTOM: &str = "# my config\n[ui]\nsidebar_width = 30\n\n[keys]\nprefix = \"ctrl+a\"\nnew_tab = \"prefix+t\"\n\n\
                          [keys.indexed]\nswitch_tab = \"alt+1..9\"\n\n[[keys.command]]\nkey = \"prefix+y\"\ncommand = \"htop\"\n\n\
                          [theme]\nname = \"nord\" # keep\n";

    #[test]
    fn every_keys_table_goes_and_everything_else_stays() {
        let edited = without_keys(CUSTOM);
        assert_eq!(edited, "# my config\n[ui]\nsidebar_width = 30\n\n[theme]\nname = \"nord\" # keep\n");
        assert_eq!(without_keys("keys.prefix = \"ctrl+a\"\n[ui]\nkeys = 1\n"), "[ui]\nkeys = 1\n");
    }

    #[test]
    fn reset_backs_up_the_file_and_rewrites_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        assert_eq!(reset_keys(&path).expect("no file"), ResetOutcome::NoFile(path.clone()));
        std::fs::write(&path, CUSTOM).expect("write");
        let outcome = reset_keys(&path).expect("reset");
        let backup = dir.path().join("config.toml.bak");
        assert_eq!(outcome, ResetOutcome::Reset { path: path.clone(), backup: backup.clone() });
        assert_eq!(std::fs::read_to_string(&backup).expect("backup"), CUSTOM);
        let rewritten = std::fs::read_to_string(&path).expect("rewritten");
        assert_eq!(has_keys(&rewritten), Some(false));
        assert_eq!(reset_keys(&path).expect("again"), ResetOutcome::NothingToReset(path.clone()));
        std::fs::write(&path, "[keys\n").expect("write");
        assert!(matches!(reset_keys(&path), Err(ResetError::NotToml { .. })));
    }
}
