//! Which repository a `worktree.*` call is about ([`Source`]), and which workspace has a
//! checkout open. A call names a workspace (or none: the active one) or a directory; the
//! repository is the workspace's membership when it has one, else the one its directory is in.
//! `create` and `open` start from the repository's main checkout, so a linked checkout as the
//! origin is `linked_worktree_source`; `list` accepts either and lists the whole repository.
//!
//! Blocking (git, canonical paths): the API calls this on a blocking thread with a copy of the
//! workspaces' probes taken under the session lock.

use std::path::{Path, PathBuf};

use herdr_protocol::api::{ApiError, ErrorCode, WorktreeInfo, WorktreeSourceInfo};

use super::git::{Checkout, Git, GitError, Space, canonical};
use herdr_session::session::{WorkspaceProbe, WorktreeSpace};

/// Where a call starts: a workspace, or a directory (absolute).
#[derive(Debug, Clone)]
pub enum Origin {
    Workspace(WorkspaceProbe),
    Directory(PathBuf),
}

/// The repository a call is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The repository's main-checkout workspace, when one is open.
    pub workspace_id: Option<String>,
    /// The checkout new worktrees are made from: the main one.
    pub checkout: PathBuf,
    /// The repository's main checkout (where `git worktree` runs).
    pub repo_root: PathBuf,
    pub repo_key: String,
    pub repo_name: String,
}

impl Source {
    /// A workspace membership of `checkout` in this repository.
    pub fn space(&self, checkout: &Path, is_linked_worktree: bool) -> WorktreeSpace {
        WorktreeSpace {
            key: self.repo_key.clone(),
            label: self.repo_name.clone(),
            repo_root: self.repo_root.display().to_string(),
            checkout_path: checkout.display().to_string(),
            is_linked_worktree,
        }
    }

    pub fn info(&self) -> WorktreeSourceInfo {
        WorktreeSourceInfo {
            repo_key: self.repo_key.clone(),
            repo_name: self.repo_name.clone(),
            repo_root: self.repo_root.display().to_string(),
            source_checkout_path: self.checkout.display().to_string(),
            source_workspace_id: self.workspace_id.clone(),
        }
    }

    /// The public record of one of the repository's checkouts.
    pub fn worktree(&self, checkout: &Checkout, probes: &[WorkspaceProbe]) -> WorktreeInfo {
        let path = canonical(&checkout.path);
        WorktreeInfo {
            path: checkout.path.display().to_string(),
            branch: checkout.branch.clone(),
            is_bare: checkout.is_bare,
            is_detached: checkout.is_detached,
            is_prunable: checkout.is_prunable,
            is_linked_worktree: path != canonical(&self.repo_root),
            open_workspace_id: open_workspace(probes, &path),
            label: self.repo_name.clone(),
        }
    }
}

fn linked_source() -> ApiError {
    ApiError::new(
        ErrorCode::LinkedWorktreeSource,
        "New and open worktree actions start from the repo parent workspace.",
    )
}

/// The repository a path is in; `not_git_worktree` when none (git's reason in the message).
fn space_of(git: &Git, path: &Path, what: &str) -> Result<Space, ApiError> {
    git.space(path).map_err(|e| {
        let message = format!("Herdr worktree actions require {what} inside a Git work tree");
        match e {
            GitError::NotRepository(_) => ApiError::new(ErrorCode::NotGitWorktree, message),
            other => ApiError::new(ErrorCode::NotGitWorktree, format!("{message}: {other}")),
        }
    })
}

/// The first of a workspace's directories that is inside a repository.
fn workspace_space(git: &Git, probe: &WorkspaceProbe) -> Result<Space, ApiError> {
    let mut last = None;
    for cwd in &probe.cwds {
        match space_of(git, Path::new(cwd), "a workspace") {
            Ok(space) => return Ok(space),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        ApiError::new(
            ErrorCode::NotGitWorktree,
            "Herdr worktree actions require a workspace inside a Git work tree",
        )
    }))
}

fn from_membership(space: &WorktreeSpace, workspace_id: Option<String>, checkout: PathBuf) -> Source {
    Source {
        workspace_id,
        checkout,
        repo_root: PathBuf::from(&space.repo_root),
        repo_key: space.key.clone(),
        repo_name: space.label.clone(),
    }
}

fn from_space(space: Space, workspace_id: Option<String>) -> Source {
    Source {
        workspace_id,
        checkout: space.repo_root.clone(),
        repo_root: space.repo_root,
        repo_key: space.repo_key,
        repo_name: space.repo_name,
    }
}

/// The source of `create` and `open`: the origin must be the repository's main checkout.
pub fn for_change(git: &Git, origin: &Origin, probes: &[WorkspaceProbe]) -> Result<Source, ApiError> {
    match origin {
        Origin::Workspace(probe) => {
            if let Some(space) = &probe.space {
                if space.is_linked_worktree {
                    return Err(linked_source());
                }
                let checkout = PathBuf::from(&space.checkout_path);
                return Ok(from_membership(space, Some(probe.workspace_id.clone()), checkout));
            }
            let space = workspace_space(git, probe)?;
            if space.is_linked_worktree {
                return Err(linked_source());
            }
            Ok(from_space(space, Some(probe.workspace_id.clone())))
        }
        Origin::Directory(path) => {
            let space = space_of(git, path, "a path")?;
            if space.is_linked_worktree {
                return Err(linked_source());
            }
            let workspace = parent_workspace(probes, &space.repo_key, &space.repo_root);
            Ok(from_space(space, workspace))
        }
    }
}

/// The source of `list`: any checkout of the repository will do; the source is its main one.
pub fn for_list(git: &Git, origin: &Origin, probes: &[WorkspaceProbe]) -> Result<Source, ApiError> {
    let (space, own) = match origin {
        Origin::Workspace(probe) => {
            if let Some(space) = &probe.space {
                let root = PathBuf::from(&space.repo_root);
                let (checkout, workspace) = if space.is_linked_worktree {
                    let open = open_workspace(probes, &canonical(&root));
                    (root, open)
                } else {
                    (PathBuf::from(&space.checkout_path), Some(probe.workspace_id.clone()))
                };
                return Ok(from_membership(space, workspace, checkout));
            }
            (workspace_space(git, probe)?, Some(probe.workspace_id.clone()))
        }
        Origin::Directory(path) => (space_of(git, path, "a path")?, None),
    };
    let workspace = match (space.is_linked_worktree, own) {
        (false, Some(own)) => Some(own),
        (true, _) => open_workspace(probes, &space.repo_root),
        (false, None) => parent_workspace(probes, &space.repo_key, &space.repo_root),
    };
    Ok(from_space(space, workspace))
}

/// The workspace of the repository's main checkout: a member of it on the main checkout, else
/// one open on `repo_root`.
pub fn parent_workspace(probes: &[WorkspaceProbe], repo_key: &str, repo_root: &Path) -> Option<String> {
    probes
        .iter()
        .find(|p| p.space.as_ref().is_some_and(|s| s.key == repo_key && !s.is_linked_worktree))
        .map(|p| p.workspace_id.clone())
        .or_else(|| open_workspace(probes, &canonical(repo_root)))
}

/// The workspace that has `checkout` (canonical) open: the member on it, else one whose
/// directory is it.
pub fn open_workspace(probes: &[WorkspaceProbe], checkout: &Path) -> Option<String> {
    let member = probes
        .iter()
        .find(|p| p.space.as_ref().is_some_and(|s| canonical(Path::new(&s.checkout_path)) == checkout));
    member
        .or_else(|| {
            probes
                .iter()
                .find(|p| p.space.is_none() && p.cwds.iter().any(|cwd| canonical(Path::new(cwd)) == checkout))
        })
        .map(|p| p.workspace_id.clone())
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
