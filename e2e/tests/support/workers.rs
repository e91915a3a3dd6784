//! Which worker serves a pane, found through the PTY rather than the process tree: after a
//! per-pane restart or an upgrade the pane's program is no longer its worker's child (it was
//! re-parented when its first worker exited), but its worker still holds the PTY's master, and
//! the kernel says which terminal a master is (`tty-index` in `/proc/<pid>/fdinfo`).

use std::path::PathBuf;

use herdr_e2e::TestServer;
use herdr_e2e::panes;
use serde_json::json;

/// A pane, its program, and the worker holding its PTY master.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub pane: String,
    pub shell: i32,
    pub worker: i32,
}

impl Served {
    /// The executable the worker runs (`/proc/<pid>/exe`).
    pub fn worker_exe(&self) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/{}/exe", self.worker)).ok()
    }
}

/// The pts number of the pane's terminal (`pane.process_info`'s `tty`, `/dev/pts/N`).
fn pts(server: &TestServer, pane: &str) -> Result<u32, String> {
    let info = server.call("pane.process_info", json!({"pane_id": pane}));
    let tty = info["process_info"]["tty"].as_str().ok_or_else(|| format!("no tty for {pane}: {info}"))?;
    tty.strip_prefix("/dev/pts/").and_then(|n| n.parse().ok()).ok_or_else(|| format!("{pane}'s tty is {tty}"))
}

/// The pts numbers of the PTY masters process `pid` holds.
fn masters(pid: i32) -> Vec<u32> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else { return Vec::new() };
    fds.flatten()
        .filter_map(|fd| std::fs::read_to_string(fd.path()).ok())
        .filter_map(|info| info.lines().find_map(|l| l.strip_prefix("tty-index:")?.trim().parse().ok()))
        .collect()
}

/// Each pane's program and the one worker of this test holding its PTY master; `Err` while a
/// pane has none or two (a swap in progress).
pub fn served(server: &TestServer, pane_ids: &[String]) -> Result<Vec<Served>, String> {
    let workers: Vec<(i32, Vec<u32>)> = server.worker_pids().into_iter().map(|w| (w, masters(w))).collect();
    pane_ids
        .iter()
        .map(|pane| {
            let pts = pts(server, pane)?;
            let holders: Vec<i32> =
                workers.iter().filter(|(_, ptys)| ptys.contains(&pts)).map(|(w, _)| *w).collect();
            match holders.as_slice() {
                [worker] => {
                    Ok(Served { pane: pane.clone(), shell: panes::shell_pid(server, pane), worker: *worker })
                }
                other => Err(format!("{pane} (pts {pts}) is held by workers {other:?}")),
            }
        })
        .collect()
}
