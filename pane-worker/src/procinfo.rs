//! The processes in a pane's foreground process group, read from `/proc`. Parsing is pure and
//! tested on sample text; only [`foreground_processes`] touches the filesystem.

use std::{fs, path::Path};

use herdr_protocol::ipc::ForegroundProcess;

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
    fn finds_this_process_group() {
        let me = std::process::id();
        // SAFETY: getpgrp has no preconditions.
        let pgrp = unsafe { libc::getpgrp() };
        let procs = foreground_processes(pgrp);
        let mine = procs.iter().find(|p| p.pid == me).expect("the test process is in its own group");
        assert!(!mine.name.is_empty());
        assert!(mine.cwd.is_some());
    }
}
