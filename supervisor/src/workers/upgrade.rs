//! Moving every pane to this supervisor's own `herdr-pane-worker` after a live handoff (or any
//! start that adopted workers): a worker that speaks an older link version, or runs another
//! executable (another path, or one an install deleted), hands its terminal to a new worker of
//! ours (`pane_task/upgrade.rs`). The panes go a few at a time in the background, each logged;
//! the API keeps answering, and a pane's own requests wait only for its own swap.
//!
//! What decides is pure ([`needs_upgrade`]); reading `/proc/<pid>/exe` is the only I/O here.

use std::path::{Path, PathBuf};
use std::time::Instant;

use herdr_protocol::ipc::IPC_VERSION;
use tokio::sync::watch;

use super::PaneHandle;

/// Panes upgraded at once: each swap dumps and replays a terminal, which costs CPU, and a
/// session of a hundred panes should not stall the machine.
const PARALLEL: usize = 4;

/// How one pane's upgrade went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upgrade {
    /// Its worker already is ours.
    NotNeeded,
    /// A new worker runs the pane with the old one's terminal.
    Upgraded { from: i32, to: i32 },
    /// Nothing changed: the old worker serves on (it refused, the dump never came, our binary
    /// is missing).
    Kept(String),
    /// The old worker left but the new one failed: the per-pane restart took over, on a blank
    /// terminal the program redraws.
    Restarted(String),
    /// The pane is gone (its program died meanwhile, or no worker could be started).
    Lost(String),
}

/// Why the worker `pid` speaking `link_version` and running `running_exe` must move to
/// `own_exe`, or `None` when it already is ours.
pub fn needs_upgrade(link_version: u32, running_exe: Option<&Path>, own_exe: &Path) -> Option<String> {
    if link_version < IPC_VERSION {
        return Some(format!("it speaks link version {link_version}, this supervisor {IPC_VERSION}"));
    }
    match running_exe {
        Some(exe) if exe == own_exe => None,
        Some(exe) => Some(format!("it runs {}, not {}", exe.display(), own_exe.display())),
        // Gone already, or not ours to look at: the swap would find out the same.
        None => None,
    }
}

/// The executable worker `pid` runs, as the kernel names it (`/path (deleted)` after an install
/// replaced the file).
pub fn running_exe(pid: i32) -> Option<PathBuf> {
    (pid > 0).then(|| std::fs::read_link(format!("/proc/{pid}/exe")).ok()).flatten()
}

/// `exe` as `/proc/<pid>/exe` would name it once started (symlinks resolved).
pub fn canonical_exe(exe: &Path) -> PathBuf {
    std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf())
}

/// Upgrades every pane of `handles` that needs it, [`PARALLEL`] at a time; starts no new one
/// once a live handoff of this supervisor begins (`swapping`).
pub async fn upgrade_outdated(handles: Vec<PaneHandle>, swapping: watch::Receiver<bool>) {
    let started = Instant::now();
    let mut pending = handles.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let (mut upgraded, mut kept, mut restarted, mut lost) = (0, 0, 0, 0);
    loop {
        while running.len() < PARALLEL && !*swapping.borrow() {
            let Some(handle) = pending.next() else { break };
            running.spawn(async move { handle.upgrade().await });
        }
        let Some(done) = running.join_next().await else { break };
        match done {
            Ok(Some(Upgrade::Upgraded { .. })) => upgraded += 1,
            Ok(Some(Upgrade::Kept(_))) => kept += 1,
            Ok(Some(Upgrade::Restarted(_))) => restarted += 1,
            Ok(Some(Upgrade::Lost(_))) => lost += 1,
            Ok(Some(Upgrade::NotNeeded) | None) | Err(_) => {}
        }
    }
    if upgraded + kept + restarted + lost > 0 {
        log::info!(
            "upgrade: {upgraded} workers moved to this binary, {kept} kept their old worker, {restarted} restarted blank, {lost} lost, in {} ms",
            started.elapsed().as_millis()
        );
    }
}

#[cfg(test)]
#[path = "upgrade_tests.rs"]
mod upgrade_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_older_link_or_another_executable_is_upgraded() {
        let ours = Path::new("/opt/herdr/bin/herdr-pane-worker");
        assert_eq!(needs_upgrade(IPC_VERSION, Some(ours), ours), None);
        assert_eq!(needs_upgrade(IPC_VERSION, None, ours), None);
        let older = needs_upgrade(IPC_VERSION - 1, Some(ours), ours).expect("older link");
        assert!(older.contains(&format!("link version {}", IPC_VERSION - 1)), "{older}");
        let elsewhere = Path::new("/home/me/build/herdr-pane-worker");
        assert!(needs_upgrade(IPC_VERSION, Some(elsewhere), ours).is_some());
        let deleted = Path::new("/opt/herdr/bin/herdr-pane-worker (deleted)");
        let replaced = needs_upgrade(IPC_VERSION, Some(deleted), ours).expect("an install replaced it");
        assert!(replaced.contains("(deleted)"), "{replaced}");
    }
}
