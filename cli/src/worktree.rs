//! `herdr worktree …`: git worktrees as workspaces, one `worktree.*` request each. Unlike the
//! workspace/tab/pane `--cwd` (passed through verbatim), worktree paths are made absolute here
//! because the server rejects relative ones.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use herdr_protocol::api::requests::{
    WorktreeCreateParams, WorktreeListParams, WorktreeOpenParams, WorktreeRemoveParams, WorktreeRequest,
};
use herdr_protocol::api::{Request, WorkspaceId};

use crate::request::{ApiCall, ApiRequest, Caller, UsageError};

#[derive(Debug, Subcommand)]
pub enum WorktreeCommand {
    /// List the git worktrees of a workspace's repository
    List(SourceArgs),
    /// Create a git worktree and open it as a workspace
    Create(CreateArgs),
    /// Open an existing git worktree as a workspace
    Open(OpenArgs),
    /// Remove a worktree checkout (never deletes the branch)
    Remove {
        #[arg(long, value_name = "ID", required = true)]
        workspace: String,
        /// Remove even with uncommitted changes
        #[arg(long)]
        force: bool,
        #[arg(long = "trust-repository")]
        trust_repository: bool,
    },
}

/// Which repository: a workspace's, or the one containing a directory.
#[derive(Debug, Args)]
pub struct SourceArgs {
    #[arg(long, value_name = "ID", conflicts_with = "cwd")]
    pub workspace: Option<String>,
    /// A directory inside the repository (made absolute)
    #[arg(long, value_name = "PATH")]
    pub cwd: Option<String>,
    #[arg(long = "trust-repository")]
    pub trust_repository: bool,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// Start a new branch from this ref (default: HEAD)
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Checkout location (made absolute)
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus")]
    pub no_focus: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").args(["path", "branch"]).required(true).multiple(false)))]
pub struct OpenArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    /// The worktree's checkout (made absolute)
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus")]
    pub no_focus: bool,
}

/// `raw` as an absolute path: `~` and `~/…` expand to `home`, relative paths join `cwd`.
pub fn absolute_path(raw: &str, cwd: Option<&Path>, home: Option<&Path>) -> Result<String, UsageError> {
    let expanded: PathBuf = match (raw, raw.strip_prefix("~/"), home) {
        ("~", _, Some(home)) => home.to_path_buf(),
        (_, Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(raw),
    };
    if expanded.is_absolute() {
        return Ok(expanded.display().to_string());
    }
    let cwd =
        cwd.ok_or_else(|| UsageError::new(format!("cannot make {raw} absolute: no current directory")))?;
    Ok(cwd.join(expanded).display().to_string())
}

/// `workspace_id`, `cwd` (made absolute) and `trust_repository` (sent only when set).
struct Source {
    workspace_id: Option<WorkspaceId>,
    cwd: Option<String>,
    trust_repository: Option<bool>,
}

impl SourceArgs {
    fn resolve(&self, caller: &Caller) -> Result<Source, UsageError> {
        let cwd = self.cwd.as_deref().map(|raw| caller.absolute(raw)).transpose()?;
        Ok(Source {
            workspace_id: self.workspace.as_deref().map(Into::into),
            cwd,
            trust_repository: self.trust_repository.then_some(true),
        })
    }
}

impl Caller {
    fn absolute(&self, raw: &str) -> Result<String, UsageError> {
        absolute_path(raw, self.cwd.as_deref(), self.home.as_deref())
    }
}

pub fn call(command: &WorktreeCommand, caller: &Caller) -> Result<ApiCall, UsageError> {
    let request = match command {
        WorktreeCommand::List(source) => {
            let Source { workspace_id, cwd, trust_repository } = source.resolve(caller)?;
            ApiRequest::new(
                "cli:worktree:list",
                Request::Worktree(WorktreeRequest::List(WorktreeListParams {
                    workspace_id,
                    cwd,
                    trust_repository,
                })),
            )
        }
        WorktreeCommand::Create(args) => {
            let path = args.path.as_deref().map(|raw| caller.absolute(raw)).transpose()?;
            let Source { workspace_id, cwd, trust_repository } = args.source.resolve(caller)?;
            ApiRequest::new(
                "cli:worktree:create",
                Request::Worktree(WorktreeRequest::Create(WorktreeCreateParams {
                    workspace_id,
                    cwd,
                    branch: args.branch.clone(),
                    base: args.base.clone(),
                    path,
                    label: args.label.clone(),
                    focus: Some(args.focus && !args.no_focus),
                    trust_repository,
                })),
            )
        }
        WorktreeCommand::Open(args) => {
            let path = args.path.as_deref().map(|raw| caller.absolute(raw)).transpose()?;
            let Source { workspace_id, cwd, trust_repository } = args.source.resolve(caller)?;
            ApiRequest::new(
                "cli:worktree:open",
                Request::Worktree(WorktreeRequest::Open(WorktreeOpenParams {
                    workspace_id,
                    cwd,
                    branch: args.branch.clone(),
                    path,
                    label: args.label.clone(),
                    focus: Some(args.focus && !args.no_focus),
                    trust_repository,
                })),
            )
        }
        WorktreeCommand::Remove { workspace, force, trust_repository } => ApiRequest::new(
            "cli:worktree:remove",
            Request::Worktree(WorktreeRequest::Remove(WorktreeRemoveParams {
                workspace_id: workspace.as_str().into(),
                force: Some(*force),
                trust_repository: trust_repository.then_some(true),
            })),
        ),
    };
    Ok(ApiCall::envelope(request))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_absolute() {
        let cwd = Some(Path::new("/work/repo"));
        let home = Some(Path::new("/home/u"));
        assert_eq!(absolute_path("/abs/x", cwd, home), Ok("/abs/x".into()));
        assert_eq!(absolute_path("../wt", cwd, home), Ok("/work/repo/../wt".into()));
        assert_eq!(absolute_path("~", cwd, home), Ok("/home/u".into()));
        assert_eq!(absolute_path("~/wt/a", cwd, home), Ok("/home/u/wt/a".into()));
        assert_eq!(absolute_path("~other", cwd, home), Ok("/work/repo/~other".into()));
        assert!(absolute_path("rel", None, home).is_err());
    }
}
