//! Whether a process is asleep with nothing armed that could wake it, read from `/proc`.
//!
//! "An idle worker does not wake up" used to be checked by counting context switches across a
//! sleep, which only samples a window. This reads the state instead: every thread blocked in a
//! syscall that waits for ever (`epoll_wait` with timeout -1, a futex wait without a timeout, a
//! blocking read …) and no armed timerfd. Such a process cannot run again until one of its fds
//! or a signal wakes it, which a test controls; a pending timer shows up as a finite timeout, so
//! a periodic tick fails the check every time, not only when a window happens to catch it.

use std::{fs, time::Instant};

use super::DEADLINE;

/// How one thread is waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// Not blocked in a syscall (running, runnable, or between reads of `/proc`).
    Running,
    /// Blocked with no timeout: only an fd or a signal wakes it.
    Forever,
    /// Blocked with a timeout (milliseconds when the syscall takes them, else `None`).
    Timed(Option<u64>),
    /// Blocked in a syscall this reader does not classify.
    Unknown(String),
}

/// Syscall numbers of the waits classified here (x86_64 and aarch64).
#[cfg(target_arch = "x86_64")]
mod nr {
    pub const READ: u64 = 0;
    pub const POLL: u64 = 7;
    pub const PAUSE: u64 = 34;
    pub const RECVFROM: u64 = 45;
    pub const RECVMSG: u64 = 47;
    pub const WAIT4: u64 = 61;
    pub const NANOSLEEP: u64 = 35;
    pub const FUTEX: u64 = 202;
    pub const EPOLL_WAIT: u64 = 232;
    pub const WAITID: u64 = 247;
    pub const PPOLL: u64 = 271;
    pub const EPOLL_PWAIT: u64 = 281;
    pub const ACCEPT4: u64 = 288;
    pub const CLOCK_NANOSLEEP: u64 = 230;
    pub const EPOLL_PWAIT2: u64 = 441;
}

#[cfg(target_arch = "aarch64")]
mod nr {
    pub const READ: u64 = 63;
    pub const POLL: u64 = u64::MAX; // aarch64 has only ppoll
    pub const PAUSE: u64 = u64::MAX - 1; // nor pause
    pub const RECVFROM: u64 = 207;
    pub const RECVMSG: u64 = 212;
    pub const WAIT4: u64 = 260;
    pub const NANOSLEEP: u64 = 101;
    pub const FUTEX: u64 = 98;
    pub const EPOLL_WAIT: u64 = u64::MAX - 2; // nor epoll_wait
    pub const WAITID: u64 = 95;
    pub const PPOLL: u64 = 73;
    pub const EPOLL_PWAIT: u64 = 22;
    pub const ACCEPT4: u64 = 242;
    pub const CLOCK_NANOSLEEP: u64 = 115;
    pub const EPOLL_PWAIT2: u64 = 441;
}

/// Classifies one line of `/proc/<pid>/task/<tid>/syscall`: the number and six arguments.
pub fn classify(syscall_line: &str) -> Wait {
    let mut fields = syscall_line.split_whitespace();
    let Some(Ok(number)) = fields.next().map(str::parse::<u64>) else { return Wait::Running };
    let args: Vec<u64> =
        fields.take(6).map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap_or(0)).collect();
    let arg = |i: usize| args.get(i).copied().unwrap_or(0);
    // An `int` timeout in milliseconds: negative waits for ever.
    let millis = |v: u64| match v as u32 as i32 {
        t if t < 0 => Wait::Forever,
        t => Wait::Timed(Some(t as u64)),
    };
    // A `struct timespec *` timeout: NULL waits for ever.
    let timespec = |v: u64| if v == 0 { Wait::Forever } else { Wait::Timed(None) };
    match number {
        nr::EPOLL_WAIT | nr::EPOLL_PWAIT => millis(arg(3)),
        nr::POLL => millis(arg(2)),
        nr::EPOLL_PWAIT2 => timespec(arg(3)),
        nr::PPOLL => timespec(arg(2)),
        nr::FUTEX => {
            // FUTEX_WAIT (0) and FUTEX_WAIT_BITSET (9) take a timeout; the other ops do not wait
            // on a clock (a lock handoff, a wake).
            const CMD_MASK: u64 = 0x7f;
            match arg(1) & CMD_MASK {
                0 | 9 => timespec(arg(3)),
                _ => Wait::Forever,
            }
        }
        nr::NANOSLEEP | nr::CLOCK_NANOSLEEP => Wait::Timed(None),
        nr::READ | nr::PAUSE | nr::RECVFROM | nr::RECVMSG | nr::WAIT4 | nr::WAITID | nr::ACCEPT4 => {
            Wait::Forever
        }
        other => Wait::Unknown(format!("syscall {other}")),
    }
}

/// How each thread of `pid` waits right now, and the timerfds that are armed.
fn observe(pid: u32) -> (Vec<(String, Wait)>, Vec<String>) {
    let mut threads = Vec::new();
    for task in fs::read_dir(format!("/proc/{pid}/task")).expect("task dir").flatten() {
        let tid = task.file_name().to_string_lossy().into_owned();
        let stat = fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let sleeping = stat.rfind(')').is_some_and(|i| stat[i + 1..].trim_start().starts_with('S'));
        let wait = if sleeping {
            classify(&fs::read_to_string(task.path().join("syscall")).unwrap_or_default())
        } else {
            Wait::Running
        };
        threads.push((tid, wait));
    }
    let mut armed = Vec::new();
    for fd in fs::read_dir(format!("/proc/{pid}/fd")).expect("fd dir").flatten() {
        let target = fs::read_link(fd.path()).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        if target != "anon_inode:[timerfd]" {
            continue;
        }
        let name = fd.file_name().to_string_lossy().into_owned();
        let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{name}")).unwrap_or_default();
        if info.lines().any(|l| l.starts_with("it_value:") && !l.contains("(0, 0)")) {
            armed.push(format!("timerfd {name}"));
        }
    }
    (threads, armed)
}

/// Waits until every thread of `pid` is blocked with no timeout and no timerfd is armed: the
/// process will not run again until something is written to it. Fails with what was seen last
/// when that never happens (a timer that keeps being re-armed, a busy loop).
pub fn assert_asleep_without_timers(pid: u32, what: &str) {
    let deadline = Instant::now() + DEADLINE;
    let mut last;
    loop {
        let (threads, armed) = observe(pid);
        if armed.is_empty() && threads.iter().all(|(_, w)| *w == Wait::Forever) {
            return;
        }
        last = format!("threads {threads:?}, armed {armed:?}");
        assert!(Instant::now() < deadline, "{what}: never asleep without a timer; last seen: {last}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Waits until every thread of `pid` is blocked, then returns the shortest timeout any of them
/// sleeps with (`None`: all wait for ever). Fails on an armed timerfd or an unknown wait.
pub fn shortest_timeout_when_asleep(pid: u32, what: &str) -> Option<u64> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let (threads, armed) = observe(pid);
        assert!(armed.is_empty(), "{what}: armed {armed:?}");
        if threads.iter().all(|(_, w)| *w != Wait::Running) {
            let mut shortest = None;
            for (tid, wait) in &threads {
                match wait {
                    Wait::Forever => {}
                    Wait::Timed(Some(ms)) => shortest = Some(shortest.map_or(*ms, |s: u64| s.min(*ms))),
                    other => panic!("{what}: thread {tid} waits as {other:?}"),
                }
            }
            return shortest;
        }
        assert!(Instant::now() < deadline, "{what}: never asleep: {threads:?}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn classifies_the_waits_a_worker_can_be_in() {
        // What an idle worker showed: epoll_wait(4, buf, 1024, -1).
        let line = "232 0x4 0x55ca42ca6ea0 0x400 0xffffffff 0x0 0x3b9aca00 0x7fffeda5bc58 0x7f439684aef3";
        assert_eq!(classify(line), Wait::Forever);
        assert_eq!(classify("232 0x4 0x55 0x400 0x1f4 0x0 0x0 0x0 0x0"), Wait::Timed(Some(500)));
        // futex(addr, FUTEX_WAIT_PRIVATE, val, NULL) and with a timeout.
        assert_eq!(classify("202 0x5581 0x80 0x0 0x0 0x0 0x0 0x0 0x0"), Wait::Forever);
        assert_eq!(classify("202 0x5581 0x89 0x0 0x7ffd 0x0 0xffffffff 0x0 0x0"), Wait::Timed(None));
        assert_eq!(classify("running"), Wait::Running);
        assert_eq!(classify("35 0x7ffd 0x0 0x0 0x0 0x0 0x0 0x0 0x0"), Wait::Timed(None));
    }
}
