//! Git worktrees as workspaces (`worktree.*`): the git layer ([`git`]) that lists, adds and
//! removes checkouts with the real `git`, and [`source`], which repository a call is about and
//! which workspace has a checkout open. The supervisor's API methods (`api/worktrees.rs`) build
//! on them, running these blocking calls on a blocking thread between two short session-lock
//! sections; nothing here holds supervisor state.

pub mod git;
pub mod source;
