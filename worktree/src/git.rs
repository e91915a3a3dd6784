//! The `git` commands behind `worktree.*`: which repository a path is in, the checkouts it has
//! (`git worktree list --porcelain`), adding one (an existing local branch is checked out, else a
//! new branch is made from the base), and removing one (`git worktree remove`, which never
//! deletes the branch).
//!
//! Every command runs the real `git` without a terminal (`GIT_TERMINAL_PROMPT=0`, stdin
//! closed) and in the C locale, so its messages can be recognised. Calls block: the API runs
//! them on a blocking thread.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// What a `git` call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The path is not inside a Git work tree (the API's `not_git_worktree`).
    #[error("{} is not inside a Git work tree", .0.display())]
    NotRepository(PathBuf),
    /// `git` itself could not be run.
    #[error("cannot run git: {0}")]
    Spawn(#[source] io::Error),
    /// Git refused (its message, trimmed).
    #[error("{0}")]
    Refused(String),
    /// `git worktree remove` without force on a checkout with changes
    /// (`dirty_worktree_requires_force`).
    #[error("{} has modified or untracked files; remove it with force to discard them", .0.display())]
    Dirty(PathBuf),
    /// The checkout is the repository's main work tree, which `git worktree remove` cannot remove
    /// (`not_linked_worktree`).
    #[error("{} is the repository's main work tree, not a linked worktree", .0.display())]
    NotLinked(PathBuf),
    /// The path is not one of the repository's checkouts (`worktree_not_found`).
    #[error("{} is not a worktree of this repository", .0.display())]
    NotAWorktree(PathBuf),
}

/// The repository a path belongs to, as the workspace's `worktree` record names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Space {
    /// Stable identity of the repository: its canonical common git dir.
    pub repo_key: String,
    /// The main work tree's directory name (`.git` suffix dropped for a bare repository).
    pub repo_name: String,
    /// The main work tree (or the bare repository's directory).
    pub repo_root: PathBuf,
    /// The checkout the path is in.
    pub checkout_path: PathBuf,
    /// Whether that checkout is a linked worktree rather than the main work tree.
    pub is_linked_worktree: bool,
}

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub path: PathBuf,
    /// The branch checked out, without `refs/heads/`.
    pub branch: Option<String>,
    pub is_bare: bool,
    pub is_detached: bool,
    pub is_prunable: bool,
}

/// Runs `git` for one repository. `trusted` adds `safe.directory` for that repository, so a
/// repository owned by another user (git's "dubious ownership") can be used when the caller
/// says it trusts it (the API's `trust_repository`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Git {
    pub trusted: bool,
}

impl Git {
    fn command(&self, dir: &Path) -> Command {
        let mut command = Command::new("git");
        if self.trusted {
            command.arg("-c").arg(format!("safe.directory={}", dir.display()));
        }
        command.arg("-C").arg(dir);
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::null());
        command
    }

    fn run<I, S>(&self, dir: &Path, args: I) -> Result<Output, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = self.command(dir);
        command.args(args);
        // The supervisor reaps every child; git's exit status must reach us, not the reaper.
        herdr_host::reaper::own_child(|| command.output()).map_err(GitError::Spawn)
    }

    /// Runs and returns trimmed stdout, or git's message as [`GitError::Refused`].
    fn text<I, S>(&self, dir: &Path, args: I) -> Result<String, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let output = self.run(dir, args)?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim_end_matches('\n').to_owned())
        } else {
            Err(GitError::Refused(message_of(&output)))
        }
    }

    /// The repository `path` is in. A path outside any work tree (or inside a `.git` dir) is
    /// [`GitError::NotRepository`].
    pub fn space(&self, path: &Path) -> Result<Space, GitError> {
        let output = self.run(
            path,
            ["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--git-dir", "--git-common-dir"],
        )?;
        if !output.status.success() {
            let message = message_of(&output);
            return Err(if message.contains("not a git repository") || !path.is_dir() {
                GitError::NotRepository(path.to_owned())
            } else {
                GitError::Refused(message)
            });
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut lines = stdout.lines();
        if lines.next() != Some("true") {
            return Err(GitError::NotRepository(path.to_owned()));
        }
        let (Some(top), Some(git_dir), Some(common_dir)) = (lines.next(), lines.next(), lines.next()) else {
            return Err(GitError::Refused(format!("unexpected `git rev-parse` output: {stdout}")));
        };
        let checkout = canonical(Path::new(top));
        let git_dir = canonical(&checkout.join(git_dir));
        let common_dir = canonical(&checkout.join(common_dir));
        let is_linked_worktree = git_dir != common_dir;
        // The main work tree is listed first; a bare repository's "main" entry is the repo dir.
        let main = self.list(&checkout)?.into_iter().next();
        let repo_root = main.map(|m| canonical(&m.path)).unwrap_or_else(|| checkout.clone());
        let name = repo_root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let repo_name = name.strip_suffix(".git").filter(|n| !n.is_empty()).unwrap_or(&name).to_owned();
        Ok(Space {
            repo_key: common_dir.display().to_string(),
            repo_name,
            repo_root,
            checkout_path: checkout,
            is_linked_worktree,
        })
    }

    /// Every checkout of the repository `repo` is in, the main work tree first.
    pub fn list(&self, repo: &Path) -> Result<Vec<Checkout>, GitError> {
        Ok(parse_porcelain(&self.text(repo, ["worktree", "list", "--porcelain"])?))
    }

    /// Whether `refs/heads/<branch>` exists.
    pub fn local_branch_exists(&self, repo: &Path, branch: &str) -> Result<bool, GitError> {
        let output = self.run(repo, ["show-ref", "--verify", "--quiet", &format!("refs/heads/{branch}")])?;
        match output.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(GitError::Refused(message_of(&output))),
        }
    }

    /// Adds a checkout of `branch` at `path`: the existing local branch, or a new branch made
    /// from `base` (HEAD when `None`). Returns whether the branch was created.
    pub fn add(&self, repo: &Path, path: &Path, branch: &str, base: Option<&str>) -> Result<bool, GitError> {
        let path_arg = path.as_os_str();
        if self.local_branch_exists(repo, branch)? {
            self.text(repo, [OsStr::new("worktree"), OsStr::new("add"), path_arg, OsStr::new(branch)])?;
            Ok(false)
        } else {
            let base = base.unwrap_or("HEAD");
            self.text(
                repo,
                [
                    OsStr::new("worktree"),
                    OsStr::new("add"),
                    OsStr::new("-b"),
                    OsStr::new(branch),
                    path_arg,
                    OsStr::new(base),
                ],
            )?;
            Ok(true)
        }
    }

    /// Removes the linked checkout at `path` with `git worktree remove` (`--force` discards its
    /// changes). The branch is kept.
    pub fn remove(&self, repo: &Path, path: &Path, force: bool) -> Result<(), GitError> {
        let wanted = canonical(path);
        let checkouts = self.list(repo)?;
        let Some(index) = checkouts.iter().position(|c| canonical(&c.path) == wanted) else {
            return Err(GitError::NotAWorktree(path.to_owned()));
        };
        if index == 0 {
            return Err(GitError::NotLinked(path.to_owned()));
        }
        let mut args = vec![OsStr::new("worktree"), OsStr::new("remove")];
        if force {
            args.push(OsStr::new("--force"));
        }
        args.push(path.as_os_str());
        match self.text(repo, args) {
            Err(GitError::Refused(message)) if is_dirty_refusal(&message) => {
                Err(GitError::Dirty(path.to_owned()))
            }
            other => other.map(drop),
        }
    }
}

/// Git's own message from a failed command: stderr, else stdout, else the exit status.
fn message_of(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if !stderr.is_empty() {
        return stderr;
    }
    let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !stdout.is_empty() { stdout } else { format!("git exited with {}", output.status) }
}

fn is_dirty_refusal(message: &str) -> bool {
    message.contains("contains modified or untracked files")
}

/// `path` with symlinks resolved, or as given when it does not exist.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Parses `git worktree list --porcelain`: blank-line separated records of `worktree <path>`,
/// `HEAD <oid>`, `branch refs/heads/<name>`, `bare`, `detached`, `locked`, `prunable <why>`.
pub fn parse_porcelain(text: &str) -> Vec<Checkout> {
    let mut out = Vec::new();
    let mut current: Option<Checkout> = None;
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            out.extend(current.take());
            continue;
        }
        if let Some(path) = line.strip_prefix("worktree ") {
            out.extend(current.take());
            current = Some(Checkout {
                path: PathBuf::from(path),
                branch: None,
                is_bare: false,
                is_detached: false,
                is_prunable: false,
            });
            continue;
        }
        let Some(entry) = current.as_mut() else { continue };
        if let Some(branch) = line.strip_prefix("branch ") {
            entry.branch = Some(branch.strip_prefix("refs/heads/").unwrap_or(branch).to_owned());
        } else if line == "bare" {
            entry.is_bare = true;
        } else if line == "detached" {
            entry.is_detached = true;
        } else if line == "prunable" || line.starts_with("prunable ") {
            entry.is_prunable = true;
        }
    }
    out
}

/// A branch name as a directory name: lowercase ASCII letters and digits, every other run of
/// characters one `-`, none at the ends; `worktree` when nothing is left.
pub fn path_slug(branch: &str) -> String {
    let mut slug = String::with_capacity(branch.len());
    for c in branch.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() { "worktree".to_owned() } else { slug.to_owned() }
}

/// Where a new checkout goes when no path is given: `<directory>/<repo>/<branch slug>`.
pub fn default_path(directory: &Path, repo_name: &str, branch: &str) -> PathBuf {
    directory.join(repo_name).join(path_slug(branch))
}

/// A branch name for a checkout created without one: `worktree/<adjective>-<noun>-<hex4>`,
/// picked by `seed`.
pub fn generated_branch(seed: u64) -> String {
    const ADJECTIVES: [&str; 8] = ["brave", "calm", "clear", "green", "lucky", "quiet", "rapid", "silver"];
    const NOUNS: [&str; 8] = ["river", "cloud", "field", "forest", "harbor", "meadow", "stone", "valley"];
    let adjective = ADJECTIVES[(seed % 8) as usize];
    let noun = NOUNS[((seed / 8) % 8) as usize];
    format!("worktree/{adjective}-{noun}-{:04x}", seed & 0xffff)
}

/// `~` and `~/…` against `home`; any other path unchanged.
pub fn expand_tilde(path: &str, home: Option<&Path>) -> PathBuf {
    match (path, home) {
        ("~", Some(home)) => home.to_owned(),
        (p, Some(home)) if p.starts_with("~/") => home.join(&p[2..]),
        (p, _) => PathBuf::from(p),
    }
}

#[cfg(test)]
#[path = "git_tests.rs"]
mod tests;
