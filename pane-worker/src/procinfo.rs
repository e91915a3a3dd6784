//! The processes in a pane's foreground process group, read from `/proc`: the full records for
//! `ProcessInfo`, and the lighter identity facts (argv, comm, `HERDR_AGENT`) the agent detector
//! probes. Parsing is pure and tested on sample text; the `*_in` walkers take the proc root.

use std::{fs, path::Path};

use herdr_protocol::ipc::ForegroundProcess;

/// The environment variable a sandbox wrapper sets to say which agent it runs.
pub const AGENT_HINT_ENV: &str = "HERDR_AGENT";

/// Most processes an identity probe reads (a runaway process tree must not stall the pane).
const MAX_GROUP_MEMBERS: usize = 64;

/// The process group field of `/proc/<pid>/stat`. The command name sits in parentheses and may
/// itself contain spaces and parentheses, so fields are counted after the last `)`.
pub fn stat_pgrp(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: state, ppid, pgrp.
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// `/proc/<pid>/cmdline`: NUL-separated arguments, usually NUL-terminated.
pub fn parse_cmdline(raw: &[u8]) -> Vec<String> {
    let raw = raw.strip_suffix(&[0]).unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0).map(|arg| String::from_utf8_lossy(arg).into_owned()).collect()
}

/// Builds the record for one process from what `/proc` gave (any part may be unreadable).
pub fn describe(
    pid: u32,
    comm: Option<String>,
    cmdline: Option<&[u8]>,
    cwd: Option<String>,
) -> ForegroundProcess {
    let argv = cmdline.map(parse_cmdline).filter(|a| !a.is_empty());
    let name = comm
        .map(|c| c.trim_end_matches('\n').to_string())
        .or_else(|| argv.as_ref().and_then(|a| a.first()).map(|a0| basename(a0).to_string()))
        .unwrap_or_default();
    ForegroundProcess {
        pid,
        name,
        argv0: argv.as_ref().and_then(|a| a.first().cloned()),
        cmdline: argv.as_ref().map(|a| a.join(" ")),
        argv,
        cwd,
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Every process whose process group is `pgrp`, by pid. Processes that vanish mid-scan are
/// skipped.
pub fn foreground_processes(pgrp: i32) -> Vec<ForegroundProcess> {
    foreground_processes_in(Path::new("/proc"), pgrp)
}

fn foreground_processes_in(proc_root: &Path, pgrp: i32) -> Vec<ForegroundProcess> {
    let Ok(entries) = fs::read_dir(proc_root) else { return Vec::new() };
    let mut found: Vec<ForegroundProcess> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let dir = proc_root.join(pid.to_string());
            let stat = fs::read_to_string(dir.join("stat")).ok()?;
            (stat_pgrp(&stat)? == pgrp).then(|| {
                describe(
                    pid,
                    fs::read_to_string(dir.join("comm")).ok(),
                    fs::read(dir.join("cmdline")).ok().as_deref(),
                    fs::read_link(dir.join("cwd")).ok().map(|p| p.to_string_lossy().into_owned()),
                )
            })
        })
        .collect();
    found.sort_by_key(|p| p.pid);
    found
}

/// The working directory of process `pid` as the kernel reports it (`/proc/<pid>/cwd`); `None`
/// when it is gone, unreadable, or its directory was deleted (a deleted path is no place to
/// restore a pane to).
pub fn live_cwd(pid: i32) -> Option<String> {
    let link = fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    usable_cwd(link.to_str()?)
}

fn usable_cwd(link: &str) -> Option<String> {
    (link.starts_with('/') && !link.ends_with(" (deleted)")).then(|| link.to_string())
}

/// The value of `name` in a raw `/proc/<pid>/environ` (NUL-separated `KEY=value`).
pub fn environ_value(raw: &[u8], name: &str) -> Option<String> {
    raw.split(|&b| b == 0).find_map(|entry| {
        let value = entry.strip_prefix(name.as_bytes())?.strip_prefix(b"=")?;
        Some(String::from_utf8_lossy(value).into_owned())
    })
}

/// The identity facts of one process; None when it is gone (its cmdline cannot be read).
fn identity_facts_in(proc_root: &Path, pid: u32) -> Option<herdr_manifests::ForegroundProcess> {
    let dir = proc_root.join(pid.to_string());
    let argv = parse_cmdline(&fs::read(dir.join("cmdline")).ok()?);
    let comm = fs::read_to_string(dir.join("comm")).ok().map(|c| c.trim_end_matches('\n').to_string());
    // Unreadable for other users' processes; the hint is then simply absent.
    let agent_hint = fs::read(dir.join("environ")).ok().and_then(|raw| environ_value(&raw, AGENT_HINT_ENV));
    Some(herdr_manifests::ForegroundProcess { pid, argv, comm, agent_hint })
}

/// The members of process group `pgrp` as identity facts, leader first. Walks the leader's
/// descendants through `/proc/<pid>/task/<tid>/children` (a few small reads); falls back to
/// scanning every process when the leader is gone or the kernel lacks the children files.
pub fn identity_group(pgrp: i32) -> Vec<herdr_manifests::ForegroundProcess> {
    identity_group_in(Path::new("/proc"), pgrp)
}

fn identity_group_in(proc_root: &Path, pgrp: i32) -> Vec<herdr_manifests::ForegroundProcess> {
    let Ok(leader) = u32::try_from(pgrp) else { return Vec::new() };
    let pids = descendants_in_group(proc_root, leader, pgrp).unwrap_or_else(|| {
        let mut all = group_members_in(proc_root, pgrp);
        // Leader first when it is still there.
        all.sort_by_key(|&pid| (pid != leader, pid));
        all
    });
    pids.into_iter().take(MAX_GROUP_MEMBERS).filter_map(|pid| identity_facts_in(proc_root, pid)).collect()
}

/// The leader and its descendants that are still in `pgrp`, breadth first; None when the
/// children files cannot be read (leader gone, or no CONFIG_PROC_CHILDREN).
fn descendants_in_group(proc_root: &Path, leader: u32, pgrp: i32) -> Option<Vec<u32>> {
    let mut found = vec![leader];
    let mut next = 0;
    while next < found.len() && found.len() < MAX_GROUP_MEMBERS {
        let pid = found[next];
        next += 1;
        let tasks = fs::read_dir(proc_root.join(pid.to_string()).join("task"));
        let Ok(tasks) = tasks else {
            if pid == leader {
                return None;
            }
            continue;
        };
        for task in tasks.filter_map(Result::ok) {
            let Ok(children) = fs::read_to_string(task.path().join("children")) else {
                if pid == leader {
                    return None;
                }
                continue;
            };
            for child in children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()) {
                let stat = fs::read_to_string(proc_root.join(child.to_string()).join("stat"));
                if stat.ok().and_then(|s| stat_pgrp(&s)) == Some(pgrp) && !found.contains(&child) {
                    found.push(child);
                }
            }
        }
    }
    Some(found)
}

/// Every pid whose process group is `pgrp` (a scan of all of `/proc`).
fn group_members_in(proc_root: &Path, pgrp: i32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir(proc_root) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = fs::read_to_string(proc_root.join(pid.to_string()).join("stat"));
            stat.ok().and_then(|s| stat_pgrp(&s)) == Some(pgrp)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgrp_is_read_after_the_command_name() {
        assert_eq!(stat_pgrp("1234 (bash) S 1 1234 1234 34816 5678 4194560"), Some(1234));
        assert_eq!(stat_pgrp("99 (weird ) name) (x) R 7 42 42 0"), Some(42));
        assert_eq!(stat_pgrp("garbage"), None);
    }

    #[test]
    fn cmdline_splits_on_nul() {
        assert_eq!(parse_cmdline(b"vi\0file name.txt\0"), vec!["vi", "file name.txt"]);
        assert_eq!(parse_cmdline(b"sleep\x0010"), vec!["sleep", "10"]);
        assert!(parse_cmdline(b"").is_empty());
    }

    #[test]
    fn describe_fills_optional_fields() {
        let p = describe(7, Some("node\n".into()), Some(b"/usr/bin/node\0cli.js\0"), Some("/tmp".into()));
        assert_eq!(p.name, "node");
        assert_eq!(p.argv0.as_deref(), Some("/usr/bin/node"));
        assert_eq!(p.argv, Some(vec!["/usr/bin/node".to_string(), "cli.js".to_string()]));
        assert_eq!(p.cmdline.as_deref(), Some("/usr/bin/node cli.js"));
        assert_eq!(p.cwd.as_deref(), Some("/tmp"));
        // A zombie or kernel thread has no cmdline.
        let z = describe(8, None, Some(b""), None);
        assert_eq!((z.name.as_str(), z.argv0, z.argv, z.cmdline), ("", None, None, None));
    }

    #[test]
    fn environ_lookup_is_exact() {
        let raw = b"HERDR_AGENT_X=no\0PATH=/bin\0HERDR_AGENT=claude\0EMPTY=\0";
        assert_eq!(environ_value(raw, "HERDR_AGENT").as_deref(), Some("claude"));
        assert_eq!(environ_value(raw, "EMPTY").as_deref(), Some(""));
        assert_eq!(environ_value(raw, "HOME"), None);
    }

    #[test]
    fn identity_group_walks_children_in_the_group() {
        // A child that stays in our group and one that leaves it (setsid: its own group).
        let mut same = std::process::Command::new("sleep").arg("30").spawn().expect("sleep");
        let mut other = std::process::Command::new("setsid").args(["sleep", "31"]).spawn().expect("setsid");
        // SAFETY: getpgrp has no preconditions.
        let pgrp = unsafe { libc::getpgrp() };
        let me = std::process::id();
        let wanted = |p: &herdr_manifests::ForegroundProcess| p.argv == ["sleep", "30"];
        // setsid leaves our group before it execs sleep: wait for the exec, then look.
        let left =
            || fs::read(format!("/proc/{}/cmdline", other.id())).is_ok_and(|c| c.starts_with(b"sleep"));
        let mut group = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if left() {
                group = identity_group(pgrp);
                if group.iter().any(wanted) {
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = (same.kill(), other.kill(), same.wait(), other.wait());
        assert!(group.iter().any(wanted), "{group:?}");
        assert!(!group.iter().any(|p| p.argv.last().is_some_and(|a| a == "31")), "{group:?}");
        // Under a test harness we are rarely the leader; when we are, we come first.
        if u32::try_from(pgrp).ok() == Some(me) {
            assert_eq!(group[0].pid, me);
        }
    }

    #[test]
    fn finds_this_process_group() {
        let me = std::process::id();
        // SAFETY: getpgrp has no preconditions.
        let pgrp = unsafe { libc::getpgrp() };
        let procs = foreground_processes(pgrp);
        let mine = procs.iter().find(|p| p.pid == me).expect("the test process is in its own group");
        assert!(!mine.name.is_empty());
        assert!(mine.cwd.is_some());
    }

    #[test]
    fn live_cwd_of_this_process_and_unusable_links() {
        let here = std::env::current_dir().expect("cwd");
        let pid = i32::try_from(std::process::id()).expect("pid");
        assert_eq!(live_cwd(pid).as_deref(), here.to_str());
        assert_eq!(usable_cwd("/tmp/x (deleted)"), None);
        assert_eq!(usable_cwd("relative"), None);
        assert_eq!(usable_cwd("/srv/a b").as_deref(), Some("/srv/a b"));
    }
}
