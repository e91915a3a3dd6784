//! What `/proc` says about a pane's program, read by the supervisor itself: where the program
//! and its terminal's foreground job run. Agent records show both, and reading them here costs
//! three small reads where asking the pane's worker costs a wake-up of its process.

use std::fs;

/// The working directory of process `pid` as the kernel reports it (`/proc/<pid>/cwd`); `None`
/// when it is gone, unreadable, or its directory was deleted (no place to show or restore).
pub fn cwd(pid: i32) -> Option<String> {
    if pid <= 0 {
        return None;
    }
    let link = fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    let link = link.to_str()?;
    (link.starts_with('/') && !link.ends_with(" (deleted)")).then(|| link.to_owned())
}

/// The foreground process group of the terminal that controls `pid` (what `tcgetpgrp` on it
/// answers); `None` when `pid` is gone or has no controlling terminal.
pub fn terminal_foreground(pid: i32) -> Option<i32> {
    if pid <= 0 {
        return None;
    }
    tpgid(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Field 8 of a `/proc/<pid>/stat` line (`tpgid`), counted after the command name: the name
/// sits in parentheses and may itself hold spaces and parentheses, so the fields start after
/// the last `)`. `-1` (no controlling terminal) and `0` are no group.
fn tpgid(stat: &str) -> Option<i32> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // state, ppid, pgrp, session, tty_nr, tpgid
    let group: i32 = after_name.split_ascii_whitespace().nth(5)?.parse().ok()?;
    (group > 0).then_some(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpgid_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let line = "4242 (my (odd) prog) S 1 4242 4242 34817 4300 4194304 120 0 0 0 1 0 0 0 20 0 1 0";
        assert_eq!(tpgid(line), Some(4300));
        assert_eq!(tpgid("7 (daemon) S 1 7 7 0 -1 4194624 0 0"), None, "no controlling terminal");
        assert_eq!(tpgid("7 (cut"), None);
        assert_eq!(tpgid("7 (x) S 1 7"), None, "too short");
    }

    #[test]
    fn this_process_has_a_cwd_and_the_dead_none() {
        let ours = std::process::id().try_into().expect("pid fits");
        let expected = std::env::current_dir().expect("cwd").to_str().map(str::to_owned);
        assert_eq!(cwd(ours), expected);
        assert_eq!(cwd(0), None);
        assert_eq!(terminal_foreground(0), None);
        assert_eq!(cwd(i32::MAX), None, "no such process");
    }

    #[test]
    fn a_child_on_a_terminal_reports_its_foreground_group() {
        // A session leader on a fresh PTY is its terminal's foreground group.
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let slave = pty.slave;
        let mut command = std::process::Command::new("sleep");
        command.arg("5").stdin(fs::File::from(slave.try_clone().expect("dup")));
        // SAFETY: setsid and TIOCSCTTY between fork and exec touch only the child's own state.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                nix::unistd::setsid()?;
                if libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().expect("start sleep");
        let pid = i32::try_from(child.id()).expect("pid fits");
        let mut seen = None;
        for _ in 0..200 {
            seen = terminal_foreground(pid);
            if seen == Some(pid) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(seen, Some(pid));
        drop(pty.master);
    }
}
