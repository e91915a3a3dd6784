//! Reading processes from `/proc`: the harness uses it to find the test's pane-workers (by the
//! test's marker in their environment), to kill every process of a test on drop, and (in the benchmark's spirit) to sum CPU time.
//!
//! Linux only. Processes can vanish between listing and reading; every reader treats that as
//! "not there" rather than as an error.

use std::fs;
use std::path::Path;

/// One process as `/proc/<pid>/stat` and `/proc/<pid>/cmdline` describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Single-letter state (`R`, `S`, `Z`, ...).
    pub state: char,
    /// The kernel's short name (`comm`, at most 15 bytes).
    pub comm: String,
    /// The argv, empty for kernel threads and zombies.
    pub cmdline: Vec<String>,
    /// User and system CPU time in clock ticks.
    pub utime: u64,
    pub stime: u64,
}

impl ProcInfo {
    /// Whether `argv[0]`'s file name is `name` (`argv[0]` may be a full path).
    pub fn is_program(&self, name: &str) -> bool {
        self.cmdline
            .first()
            .and_then(|arg0| Path::new(arg0).file_name())
            .is_some_and(|file| file.to_string_lossy() == name)
            || self.comm == name
    }
}

/// Parses the text of `/proc/<pid>/stat`. `comm` may contain spaces and parentheses, so the
/// fields after it are found from the last `)`.
pub fn parse_stat(text: &str) -> Option<ProcInfo> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let comm = text[open + 1..close].to_owned();
    let rest: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // rest[0] is field 3 (state); utime/stime are fields 14/15.
    Some(ProcInfo {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        session: rest.get(3)?.parse().ok()?,
        state: rest.first()?.chars().next()?,
        comm,
        cmdline: Vec::new(),
        utime: rest.get(11)?.parse().ok()?,
        stime: rest.get(12)?.parse().ok()?,
    })
}

/// Reads one process, `None` if it is gone.
pub fn read(pid: i32) -> Option<ProcInfo> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut info = parse_stat(&stat)?;
    info.cmdline = fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|&b| b == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default();
    Some(info)
}

/// Every process visible in `/proc`.
pub fn all() -> Vec<ProcInfo> {
    let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read)
        .collect()
}

/// `root` and everything below it, by following parent pids (breadth first).
pub fn tree(root: i32) -> Vec<ProcInfo> {
    let everyone = all();
    let mut found: Vec<ProcInfo> = everyone.iter().filter(|p| p.pid == root).cloned().collect();
    let mut index = 0;
    while index < found.len() {
        let parent = found[index].pid;
        for child in everyone.iter().filter(|p| p.ppid == parent) {
            if !found.iter().any(|known| known.pid == child.pid) {
                found.push(child.clone());
            }
        }
        index += 1;
    }
    found
}

/// The direct children of `pid`.
pub fn children(pid: i32) -> Vec<ProcInfo> {
    all().into_iter().filter(|p| p.ppid == pid).collect()
}

/// Whether the environment of `pid` contains the exact `KEY=VALUE` entry (false when unreadable).
pub fn environ_has(pid: i32, entry: &str) -> bool {
    fs::read(format!("/proc/{pid}/environ"))
        .map(|raw| raw.split(|&b| b == 0).any(|item| item == entry.as_bytes()))
        .unwrap_or(false)
}

/// Whether `pid` runs (exists and is not a zombie).
pub fn alive(pid: i32) -> bool {
    read(pid).is_some_and(|p| p.state != 'Z')
}

/// Waits until none of `pids` runs any more (`what` names the condition).
pub fn wait_gone(what: &str, pids: &[i32]) {
    crate::wait_until(what, crate::PATIENCE, || {
        let running: Vec<i32> = pids.iter().copied().filter(|&pid| alive(pid)).collect();
        if running.is_empty() { Ok(()) } else { Err(format!("still running: {running:?}")) }
    });
}

/// The working directory of `pid` (`/proc/<pid>/cwd`), `None` when unreadable.
pub fn cwd(pid: i32) -> Option<std::path::PathBuf> {
    fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// `VmRSS` in KiB, from `/proc/<pid>/status`.
pub fn rss_kib(pid: i32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:")?.trim().strip_suffix("kB")?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_stat_line_with_an_awkward_name() {
        let line = "4242 (herdr (pane) w) S 4000 4242 4242 0 -1 4194560 300 0 0 0 17 5 0 0 20 0 1 0 \
                    1234 5000000 600 18446744073709551615";
        let info = parse_stat(line).expect("a well-formed stat line");
        assert_eq!(info.pid, 4242);
        assert_eq!(info.comm, "herdr (pane) w");
        assert_eq!(info.state, 'S');
        assert_eq!((info.ppid, info.pgrp, info.session), (4000, 4242, 4242));
        assert_eq!((info.utime, info.stime), (17, 5));
    }

    #[test]
    fn finds_itself_and_its_children() {
        let me = i32::try_from(std::process::id()).expect("pids fit in i32");
        let mut child = std::process::Command::new("sleep").arg("30").spawn().expect("spawn sleep");
        let child_pid = i32::try_from(child.id()).expect("pids fit in i32");
        let below = tree(me);
        assert!(below.iter().any(|p| p.pid == child_pid && p.is_program("sleep")), "{below:?}");
        assert!(rss_kib(me).is_some_and(|kib| kib > 0));
        child.kill().expect("kill sleep");
        child.wait().expect("reap sleep");
    }
}
