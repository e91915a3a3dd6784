//! `herdr plugin install`'s pure parts: what an install source names (GitHub shorthand
//! `owner/repo[/subdir…]`, a git URL, or a local directory to copy), where a managed checkout
//! lives (`<config>/plugins/github/<id>` for git sources, `<config>/plugins/local/<id>` for
//! copies), and whether a path is one that install made (so uninstall never deletes a linked
//! development directory). No processes, no file writes.

use std::path::{Component, Path, PathBuf};

/// What `herdr plugin install SOURCE` fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallSource {
    /// `owner/repo[/subdir…]`: cloned from GitHub.
    Github { owner: String, repo: String, subdir: Option<String> },
    /// A git URL (`https://…`, `ssh://…`, `file://…`, `git@host:path`): cloned as is.
    Git { url: String },
    /// A local directory (absolute, `./…`, `../…` or `~/…`), copied.
    Local { path: PathBuf },
}

/// Why a source was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error(
        "usage: herdr plugin install <owner>/<repo>[/subdir...] | <git-url> | <path> [--ref REF] [--yes]"
    )]
    Shape,
    #[error("GitHub {label} must not be empty")]
    EmptySegment { label: &'static str },
    #[error("GitHub {label} is invalid: {value}")]
    InvalidSegment { label: &'static str, value: String },
    #[error("GitHub {label} contains invalid characters: {value}")]
    InvalidCharacters { label: &'static str, value: String },
    #[error("invalid plugin subdir segment: {0}")]
    InvalidSubdir(String),
    #[error("cannot make {0} absolute: no current or home directory")]
    NotAbsolute(String),
}

impl InstallSource {
    /// Parses an install source. `cwd` and `home` make a local path absolute.
    pub fn parse(raw: &str, cwd: Option<&Path>, home: Option<&Path>) -> Result<InstallSource, SourceError> {
        if raw.is_empty() {
            return Err(SourceError::Shape);
        }
        if is_git_url(raw) {
            return Ok(InstallSource::Git { url: raw.to_owned() });
        }
        if let Some(path) = local_path(raw, cwd, home)? {
            return Ok(InstallSource::Local { path });
        }
        parse_github(raw)
    }

    /// The clone URL, for git sources.
    pub fn clone_url(&self) -> Option<String> {
        match self {
            InstallSource::Github { owner, repo, .. } => {
                Some(format!("https://github.com/{owner}/{repo}.git"))
            }
            InstallSource::Git { url } => Some(url.clone()),
            InstallSource::Local { .. } => None,
        }
    }

    /// The directory inside the fetched tree that holds the manifest.
    pub fn manifest_root(&self, checkout: &Path) -> PathBuf {
        match self {
            InstallSource::Github { subdir: Some(subdir), .. } => checkout.join(subdir),
            _ => checkout.to_path_buf(),
        }
    }

    /// How the source is shown to the user (and matched by `uninstall`).
    pub fn display(&self) -> String {
        match self {
            InstallSource::Github { owner, repo, subdir: Some(subdir) } => format!("{owner}/{repo}/{subdir}"),
            InstallSource::Github { owner, repo, subdir: None } => format!("{owner}/{repo}"),
            InstallSource::Git { url } => url.clone(),
            InstallSource::Local { path } => path.display().to_string(),
        }
    }

    /// Whether the checkout is a git clone (so `--ref` applies).
    pub fn is_git(&self) -> bool {
        !matches!(self, InstallSource::Local { .. })
    }
}

fn is_git_url(raw: &str) -> bool {
    raw.contains("://") || (raw.starts_with("git@") && raw.contains(':'))
}

/// `Some(absolute path)` when `raw` is written as a path rather than `owner/repo`.
fn local_path(raw: &str, cwd: Option<&Path>, home: Option<&Path>) -> Result<Option<PathBuf>, SourceError> {
    let not_absolute = || SourceError::NotAbsolute(raw.to_owned());
    if raw == "~" {
        return home.map(|h| Some(h.to_path_buf())).ok_or_else(not_absolute);
    }
    if let Some(rest) = raw.strip_prefix("~/") {
        return home.map(|h| Some(h.join(rest))).ok_or_else(not_absolute);
    }
    if raw.starts_with('/') {
        return Ok(Some(PathBuf::from(raw)));
    }
    let relative = raw == "." || raw == ".." || raw.starts_with("./") || raw.starts_with("../");
    if relative {
        return cwd.map(|c| Some(c.join(raw))).ok_or_else(not_absolute);
    }
    Ok(None)
}

fn parse_github(raw: &str) -> Result<InstallSource, SourceError> {
    if raw.contains(':') {
        return Err(SourceError::Shape);
    }
    let parts: Vec<&str> = raw.split('/').collect();
    let [owner, repo, subdir @ ..] = parts.as_slice() else { return Err(SourceError::Shape) };
    segment("owner", owner)?;
    segment("repo", repo)?;
    for part in subdir {
        if part.is_empty() || *part == "." || *part == ".." || part.contains('\\') || part.contains('\0') {
            return Err(SourceError::InvalidSubdir((*part).to_owned()));
        }
    }
    Ok(InstallSource::Github {
        owner: (*owner).to_owned(),
        repo: (*repo).to_owned(),
        subdir: (!subdir.is_empty()).then(|| subdir.join("/")),
    })
}

fn segment(label: &'static str, value: &str) -> Result<(), SourceError> {
    if value.is_empty() {
        return Err(SourceError::EmptySegment { label });
    }
    if value == "." || value == ".." {
        return Err(SourceError::InvalidSegment { label, value: value.to_owned() });
    }
    if !value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return Err(SourceError::InvalidCharacters { label, value: value.to_owned() });
    }
    Ok(())
}

/// `<config>/plugins`: the root of everything install manages.
pub fn managed_root(herdr_config_dir: &Path) -> PathBuf {
    herdr_config_dir.join("plugins")
}

/// Where the managed checkout of `plugin_id` from `source` lives.
pub fn managed_path(herdr_config_dir: &Path, source: &InstallSource, plugin_id: &str) -> PathBuf {
    let kind = if source.is_git() { "github" } else { "local" };
    managed_root(herdr_config_dir).join(kind).join(path_component(plugin_id))
}

/// A scratch directory for one install under the managed root (same filesystem, so the finished
/// checkout is moved into place with a rename).
pub fn temp_dir(herdr_config_dir: &Path, pid: u32, unix_ms: u64) -> PathBuf {
    managed_root(herdr_config_dir).join(format!(".tmp-install-{pid}-{unix_ms}"))
}

/// Whether `path` is a checkout install made for `plugin_id` (either kind), compared lexically.
pub fn is_managed_path(herdr_config_dir: &Path, plugin_id: &str, path: &Path) -> bool {
    if path.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
        return false;
    }
    let component = path_component(plugin_id);
    ["github", "local"].iter().any(|kind| managed_root(herdr_config_dir).join(kind).join(&component) == path)
}

/// A plugin id as one readable, collision-free path component: lowercase ASCII letters, digits,
/// `.`, `_` and `-` stay, every other byte is `%XX`, and a trailing dot is escaped.
pub fn path_component(plugin_id: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(plugin_id.len());
    for byte in plugin_id.bytes() {
        if byte.is_ascii_lowercase() || byte.is_ascii_digit() || matches!(byte, b'.' | b'_' | b'-') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    if out.ends_with('.') {
        out.pop();
        out.push_str("%2E");
    }
    if out.is_empty() { "%plugin".to_owned() } else { out }
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;
