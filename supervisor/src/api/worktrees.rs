//! `worktree.list|create|open|remove`: git checkouts as workspaces, on the real `git`.
//!
//! Each method takes what it needs from the session under its lock (the origin workspace, every
//! workspace's probe), runs git and the path work on a blocking thread
//! (`herdr_worktree::source`, `herdr_worktree::git`), then changes the session under the lock
//! again and waits for the panes it started, as `workspace.create` does. Events, in order:
//! the parent repository's workspace (when one had to be opened or got its membership), the
//! checkout's `workspace_created`/`tab_created`/`pane_created` (+ focus), then `worktree_*`;
//! `remove` closes the workspace (`workspace_closed`) and then says `worktree_removed`.
//!
//! Choices where upstream is silent: recorded checkout paths are canonical (symlinks
//! resolved), so the same directory reached two ways is one checkout; a checkout is matched to a
//! workspace by its membership, else by a workspace directory that is the checkout itself.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use herdr_protocol::api::requests::{
    WorktreeCreateParams, WorktreeListParams, WorktreeOpenParams, WorktreeRemoveParams,
};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, Event, WorkspaceId, WorktreeInfo};
use herdr_worktree::git::{self, Checkout, Git, GitError, canonical};
use herdr_worktree::source::{self, Origin, Source};

use super::envelope::Failure;
use crate::session::{Effects, OpenedWorkspace, Session};
use crate::state::{Shared, wait_started};

/// Runs git and path work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("the git task failed: {e}")))?
}

/// A raw `cwd`/`path` param: `~` expands to `$HOME`; anything else must be absolute.
fn absolute(raw: &str) -> Result<PathBuf, ApiError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let path = git::expand_tilde(raw, home.as_deref());
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(ApiError::invalid_request("worktree path must be absolute"))
    }
}

/// `workspace_id` or `cwd` (never both), else the active workspace.
fn origin(
    shared: &Shared,
    workspace_id: Option<&WorkspaceId>,
    cwd: Option<&str>,
) -> Result<Origin, ApiError> {
    match (workspace_id, cwd) {
        (Some(_), Some(_)) => {
            Err(ApiError::invalid_request("only one of workspace_id or cwd may be supplied"))
        }
        (Some(id), None) => Ok(Origin::Workspace(shared.session().worktree_probe(id.as_str())?)),
        (None, Some(cwd)) => Ok(Origin::Directory(absolute(cwd)?)),
        (None, None) => shared.session().active_worktree_probe().map(Origin::Workspace).ok_or_else(|| {
            ApiError::invalid_request("workspace_id or cwd is required when no workspace is active")
        }),
    }
}

fn git_for(trust_repository: Option<bool>) -> Git {
    Git { trusted: trust_repository.unwrap_or(false) }
}

/// `[worktrees] directory`, `~` expanded.
fn worktrees_directory(shared: &Shared) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    git::expand_tilde(&shared.screens().config().worktrees_directory, home.as_deref())
}

fn code_of(code: ErrorCode) -> impl Fn(GitError) -> ApiError {
    move |e| ApiError::new(code.clone(), e.to_string())
}

/// The repository's main-checkout workspace: the source's, given its membership (announced
/// when new), or one opened on the main checkout now. Returns its id and whether it is new.
fn ensure_parent(
    session: &mut Session,
    source: &Source,
    fx: &mut Effects,
) -> Result<(String, bool), ApiError> {
    let space = source.space(&source.checkout, false);
    if let Some(id) = &source.workspace_id
        && let Ok(more) = session.set_worktree_space(id, space.clone())
    {
        fx.merge(more);
        return Ok((id.clone(), false));
    }
    let checkout = source.checkout.display().to_string();
    let (opened, more) = session.open_worktree_workspace(&checkout, space, None, false)?;
    fx.merge(more);
    Ok((opened.workspace.workspace_id, true))
}

/// Publishes `fx` and waits for the panes it starts; a pane that cannot start is
/// `worktree_open_failed`.
async fn apply(shared: &Shared, fx: Effects) -> Result<(), ApiError> {
    wait_started(shared.apply(fx))
        .await
        .map_err(|e| ApiError::new(ErrorCode::WorktreeOpenFailed, e.to_string()))
}

pub async fn list(shared: &Shared, p: WorktreeListParams) -> Result<ApiResult, Failure> {
    let origin = origin(shared, p.workspace_id.as_ref(), p.cwd.as_deref())?;
    let probes = shared.session().worktree_probes();
    let git = git_for(p.trust_repository);
    let result = blocking(move || {
        let source = source::for_list(&git, &origin, &probes)?;
        let checkouts = git.list(&source.repo_root).map_err(code_of(ErrorCode::WorktreeListFailed))?;
        let worktrees = checkouts.iter().map(|c| source.worktree(c, &probes)).collect();
        Ok(ApiResult::WorktreeList { source: Box::new(source.info()), worktrees })
    })
    .await?;
    Ok(result)
}

pub async fn create(shared: &Shared, p: WorktreeCreateParams) -> Result<ApiResult, Failure> {
    let branch = match p.branch.as_deref() {
        Some(branch) => branch.trim().to_owned(),
        None => git::generated_branch(now_micros()),
    };
    if branch.is_empty() {
        return Err(ApiError::invalid_request("branch is required").into());
    }
    let path = p.path.as_deref().map(absolute).transpose()?;
    let origin = origin(shared, p.workspace_id.as_ref(), p.cwd.as_deref())?;
    let probes = shared.session().worktree_probes();
    let git = git_for(p.trust_repository);
    let directory = worktrees_directory(shared);
    let (base, added_branch) = (p.base.clone(), branch.clone());
    let (source, checkout) = blocking(move || {
        let source = source::for_change(&git, &origin, &probes)?;
        let checkout =
            path.unwrap_or_else(|| git::default_path(&directory, &source.repo_name, &added_branch));
        let failed = |message: String| ApiError::new(ErrorCode::WorktreeCreateFailed, message);
        if let Some(parent) = checkout.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| failed(format!("cannot create {}: {e}", parent.display())))?;
        }
        git.add(&source.checkout, &checkout, &added_branch, base.as_deref())
            .map_err(code_of(ErrorCode::WorktreeCreateFailed))?;
        Ok((source, canonical(&checkout)))
    })
    .await?;

    let (opened, fx) = {
        let mut session = shared.session();
        let mut fx = Effects::default();
        ensure_parent(&mut session, &source, &mut fx)?;
        let path = checkout.display().to_string();
        let (opened, more) = match open_in(&session, &checkout) {
            Some(id) => {
                fx.merge(session.set_worktree_space(&id, source.space(&checkout, true))?);
                session.existing_worktree_workspace(&id, p.label.clone(), p.focus())?
            }
            None => session.open_worktree_workspace(
                &path,
                source.space(&checkout, true),
                p.label.clone(),
                p.focus(),
            )?,
        };
        fx.merge(more);
        let worktree = WorktreeInfo {
            path,
            branch: Some(branch),
            is_bare: false,
            is_detached: false,
            is_prunable: false,
            is_linked_worktree: true,
            open_workspace_id: Some(opened.workspace.workspace_id.clone()),
            label: source.repo_name.clone(),
        };
        fx.events.push(Event::WorktreeCreated {
            workspace: Box::new(opened.workspace.clone()),
            worktree: Box::new(worktree.clone()),
        });
        ((opened, worktree), fx)
    };
    apply(shared, fx).await?;
    let (OpenedWorkspace { workspace, tab, root_pane }, worktree) = opened;
    Ok(ApiResult::WorktreeCreated {
        workspace: Box::new(workspace),
        tab: Box::new(tab),
        root_pane: Box::new(root_pane),
        worktree: Box::new(worktree),
    })
}

/// The workspace open on `checkout` (canonical), judged from the session as it is now; plain
/// string comparisons, since the lock is held.
fn open_in(session: &Session, checkout: &Path) -> Option<String> {
    let wanted = checkout.display().to_string();
    let probes = session.worktree_probes();
    probes
        .iter()
        .find(|p| p.space.as_ref().is_some_and(|s| s.checkout_path == wanted))
        .or_else(|| probes.iter().find(|p| p.space.is_none() && p.cwds.contains(&wanted)))
        .map(|p| p.workspace_id.clone())
}

/// Which checkout `worktree.open` names.
enum Wanted {
    Path(PathBuf),
    Branch(String),
}

/// The checkout `wanted` names among `checkouts`.
fn find_checkout(checkouts: Vec<Checkout>, wanted: &Wanted) -> Result<Checkout, ApiError> {
    let not_found = |message: &str| ApiError::new(ErrorCode::WorktreeNotFound, message);
    match wanted {
        Wanted::Path(path) => {
            let path = canonical(path);
            checkouts
                .into_iter()
                .find(|c| canonical(&c.path) == path)
                .ok_or_else(|| not_found("worktree path not found"))
        }
        Wanted::Branch(branch) => {
            let mut matches: Vec<Checkout> = checkouts
                .into_iter()
                .filter(|c| {
                    !c.is_bare
                        && !c.is_prunable
                        && !c.is_detached
                        && c.branch.as_deref() == Some(branch.as_str())
                })
                .collect();
            match matches.len() {
                0 => Err(not_found("worktree branch not found")),
                1 => Ok(matches.remove(0)),
                _ => Err(ApiError::new(
                    ErrorCode::AmbiguousWorktreeBranch,
                    "multiple worktrees matched branch",
                )),
            }
        }
    }
}

pub async fn open(shared: &Shared, p: WorktreeOpenParams) -> Result<ApiResult, Failure> {
    let wanted = match (p.path.as_deref(), p.branch.as_deref()) {
        (Some(path), None) => Wanted::Path(absolute(path)?),
        (None, Some(branch)) => Wanted::Branch(branch.to_owned()),
        _ => return Err(ApiError::invalid_request("exactly one of path or branch is required").into()),
    };
    let origin = origin(shared, p.workspace_id.as_ref(), p.cwd.as_deref())?;
    let probes = shared.session().worktree_probes();
    let git = git_for(p.trust_repository);
    let (source, checkout, info) = blocking(move || {
        let source = source::for_change(&git, &origin, &probes)?;
        let checkouts = git.list(&source.repo_root).map_err(code_of(ErrorCode::WorktreeListFailed))?;
        let checkout = find_checkout(checkouts, &wanted)?;
        if checkout.is_bare || checkout.is_prunable {
            return Err(ApiError::new(ErrorCode::WorktreeNotFound, "worktree cannot be opened"));
        }
        let info = source.worktree(&checkout, &probes);
        Ok((source, canonical(&checkout.path), info))
    })
    .await?;

    let (result, fx) = {
        let mut session = shared.session();
        let mut fx = Effects::default();
        let is_source = checkout == canonical(&source.checkout);
        let already_open = open_in(&session, &checkout);
        let parent = ensure_parent(&mut session, &source, &mut fx)?;
        let space = source.space(&checkout, checkout != canonical(&source.repo_root));
        let (opened, more) = match (&already_open, is_source) {
            (Some(id), _) => {
                fx.merge(session.set_worktree_space(id, space)?);
                session.existing_worktree_workspace(id, p.label.clone(), p.focus())?
            }
            (None, true) => session.existing_worktree_workspace(&parent.0, p.label.clone(), p.focus())?,
            (None, false) => {
                let path = checkout.display().to_string();
                session.open_worktree_workspace(&path, space, p.label.clone(), p.focus())?
            }
        };
        fx.merge(more);
        let worktree =
            WorktreeInfo { open_workspace_id: Some(opened.workspace.workspace_id.clone()), ..info };
        fx.events.push(Event::WorktreeOpened {
            workspace: Box::new(opened.workspace.clone()),
            worktree: Box::new(worktree.clone()),
            already_open: already_open.is_some(),
        });
        let OpenedWorkspace { workspace, tab, root_pane } = opened;
        let result = ApiResult::WorktreeOpened {
            workspace: Box::new(workspace),
            tab: Box::new(tab),
            root_pane: Box::new(root_pane),
            worktree: Box::new(worktree),
            already_open: already_open.is_some(),
        };
        (result, fx)
    };
    apply(shared, fx).await?;
    Ok(result)
}

pub async fn remove(shared: &Shared, p: WorktreeRemoveParams) -> Result<ApiResult, Failure> {
    let probe = shared.session().worktree_probe(p.workspace_id.as_str())?;
    let Some(space) = probe.space else {
        let message = "workspace is not a Herdr-managed worktree checkout";
        return Err(ApiError::new(ErrorCode::NotLinkedWorktree, message).into());
    };
    if !space.is_linked_worktree {
        return Err(ApiError::new(
            ErrorCode::NotLinkedWorktree,
            "workspace is not a linked worktree checkout",
        )
        .into());
    }
    let force = p.force();
    let git = git_for(p.trust_repository);
    let (repo_root, checkout) = (PathBuf::from(&space.repo_root), PathBuf::from(&space.checkout_path));
    let removed = blocking(move || {
        // What was checked out, for the event; a listing failure leaves it unknown.
        let listed = git.list(&repo_root).unwrap_or_default();
        let entry = listed.into_iter().find(|c| canonical(&c.path) == canonical(&checkout));
        git.remove(&repo_root, &checkout, force).map_err(|e| match e {
            GitError::Dirty(_) => ApiError::new(ErrorCode::DirtyWorktreeRequiresForce, e.to_string()),
            GitError::NotLinked(_) => ApiError::new(ErrorCode::NotLinkedWorktree, e.to_string()),
            other => ApiError::new(ErrorCode::WorktreeRemoveFailed, other.to_string()),
        })?;
        Ok(entry)
    })
    .await?;

    let worktree = WorktreeInfo {
        path: space.checkout_path.clone(),
        branch: removed.as_ref().and_then(|c| c.branch.clone()),
        is_bare: false,
        is_detached: removed.as_ref().is_some_and(|c| c.is_detached),
        is_prunable: false,
        is_linked_worktree: true,
        open_workspace_id: None,
        label: space.label.clone(),
    };
    let closed = shared.session().close_worktree_workspace(&probe.workspace_id, &space.checkout_path);
    let (workspace, mut fx) = match closed {
        Some((info, fx)) => (Some(Box::new(info)), fx),
        None => (None, Effects::default()),
    };
    fx.events.push(Event::WorktreeRemoved {
        workspace_id: probe.workspace_id.clone(),
        workspace,
        worktree: Box::new(worktree),
        forced: force,
    });
    apply(shared, fx).await?;
    Ok(ApiResult::WorktreeRemoved {
        workspace_id: probe.workspace_id,
        path: space.checkout_path,
        forced: force,
    })
}

/// A seed for a generated branch name.
fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}
