//! Git worktrees as workspaces (`worktree.*`): the git layer ([`git`]) that lists, adds and
//! removes checkouts with the real `git`. The API methods that open them as workspaces build on
//! it.

pub mod git;
