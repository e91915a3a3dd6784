//! Git worktrees as workspaces (`worktree.*`): the git layer ([`git`]) that lists, adds and
//! removes checkouts with the real `git`, and [`source`], which repository a call is about and
//! which workspace has a checkout open. The API methods (`crate::api::worktrees`) build on them.

pub mod git;
pub mod source;
