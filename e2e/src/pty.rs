//! A program on a pseudo-terminal that the test holds the master side of, for timing what a
//! person would feel: the time from writing a keystroke to the master until its echo comes back
//! in what the program draws. Nothing sits between (no tmux, no emulator), so two programs
//! (`herdr --remote` and plain `ssh`) are compared on equal terms. It answers no terminal
//! queries; the clients measured cope without.
//!
//! Each glyph typed is a Greek letter that nothing else on the screens contains, erased with
//! Ctrl-U before the next, so its first appearance after the write is its echo.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::pty::{Winsize, openpty};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const GLYPHS: &str = "αβγδεζηθικλμνξοπρστυφχψω";
/// How much of the output is kept for failure messages.
const TAIL: usize = 4096;

pub struct PtyProgram {
    master: File,
    child: Child,
    /// The last bytes read, for failure messages.
    tail: Vec<u8>,
}

impl PtyProgram {
    /// Starts `command` on a new `cols`×`rows` pseudo-terminal as its controlling terminal.
    pub fn spawn(mut command: Command, cols: u16, rows: u16) -> PtyProgram {
        let size = Winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        let pty = openpty(Some(&size), None).expect("openpty");
        let slave: OwnedFd = pty.slave;
        command
            .stdin(Stdio::from(slave.try_clone().expect("dup the pty")))
            .stdout(Stdio::from(slave.try_clone().expect("dup the pty")))
            .stderr(Stdio::from(slave));
        // SAFETY: between fork and exec only async-signal-safe calls: setsid and an ioctl on
        // the child's own stdin (the pty slave) to make it the controlling terminal.
        unsafe {
            command.pre_exec(|| {
                nix::unistd::setsid().map_err(std::io::Error::from)?;
                if libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start the program on the pty");
        PtyProgram { master: File::from(pty.master), child, tail: Vec::new() }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).expect("write to the pty");
    }

    /// Reads what comes within `wait`; the bytes read (empty when nothing came).
    fn read(&mut self, wait: Duration) -> Vec<u8> {
        let timeout = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
        let mut fds = [PollFd::new(self.master.as_fd(), PollFlags::POLLIN)];
        if !matches!(poll(&mut fds, timeout), Ok(n) if n > 0) {
            return Vec::new();
        }
        let mut buf = vec![0u8; 64 * 1024];
        match self.master.read(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                self.tail.extend_from_slice(&buf);
                let excess = self.tail.len().saturating_sub(TAIL);
                self.tail.drain(..excess);
                buf
            }
            // EIO: the program closed the terminal; give the caller's deadline a chance.
            Err(_) => {
                std::thread::sleep(wait.min(Duration::from_millis(10)));
                Vec::new()
            }
        }
    }

    /// Reads and drops everything for `span`.
    pub fn drain(&mut self, span: Duration) {
        let until = Instant::now() + span;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            self.read(left);
        }
    }

    /// Reads until `needle` shows in the output; when the read completing it returned, or
    /// `None` after `timeout`.
    pub fn wait_for(&mut self, needle: &[u8], timeout: Duration) -> Option<Instant> {
        let until = Instant::now() + timeout;
        let mut window: Vec<u8> = Vec::new();
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let chunk = self.read(left);
            let at = Instant::now();
            window.extend_from_slice(&chunk);
            if window.windows(needle.len()).any(|w| w == needle) {
                return Some(at);
            }
            let keep = window.len().saturating_sub(needle.len());
            window.drain(..keep);
        }
        None
    }

    /// Like [`Self::wait_for`], panicking with `what` and the recent output after `timeout`.
    pub fn expect(&mut self, what: &str, needle: &[u8], timeout: Duration) -> Instant {
        self.wait_for(needle, timeout).unwrap_or_else(|| {
            panic!("timed out after {timeout:?} waiting for {what}; recent output:\n{}", self.recent())
        })
    }

    /// Types glyph `n` (of a cycle of 24), waits for its echo (panicking after `timeout`),
    /// erases it (Ctrl-U) and gives the erasure `settle` to arrive; the time from the write to
    /// the echo.
    pub fn echo_latency(&mut self, n: usize, settle: Duration, timeout: Duration) -> Duration {
        let glyphs: Vec<char> = GLYPHS.chars().collect();
        let mut glyph = [0u8; 4];
        let glyph = glyphs[n % glyphs.len()].encode_utf8(&mut glyph).as_bytes().to_vec();
        let typed = Instant::now();
        self.write(&glyph);
        let echoed = self.expect(&format!("the echo of sample {n}"), &glyph, timeout);
        self.write(b"\x15");
        self.drain(settle);
        echoed.duration_since(typed)
    }

    /// The last output as text (escapes included), for messages.
    pub fn recent(&self) -> String {
        String::from_utf8_lossy(&self.tail).into_owned()
    }

    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("a pid")
    }
}

impl Drop for PtyProgram {
    fn drop(&mut self) {
        // Our own child, by its pid: a hang-up first (what closing a terminal does), then kill.
        let pid = Pid::from_raw(self.pid());
        let _ = kill(pid, Signal::SIGHUP);
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `p`-th percentile (0–100) of `samples`, nearest rank.
pub fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = (p * sorted.len()).div_ceil(100).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_and_tail_of_samples() {
        let ms = |v: &[u64]| v.iter().map(|&m| Duration::from_millis(m)).collect::<Vec<_>>();
        let samples = ms(&[5, 1, 4, 2, 3]);
        assert_eq!(percentile(&samples, 50), Duration::from_millis(3));
        assert_eq!(percentile(&samples, 99), Duration::from_millis(5));
        assert_eq!(percentile(&ms(&[7]), 50), Duration::from_millis(7));
    }

    #[test]
    fn a_shell_on_the_pty_echoes_what_is_typed() {
        let mut command = Command::new("sh");
        command.env_clear().env("PATH", "/usr/bin:/bin").env("PS1", "pty$ ");
        let mut shell = PtyProgram::spawn(command, 80, 24);
        shell.expect("the prompt", b"pty$ ", Duration::from_secs(10));
        for n in 0..3 {
            shell.echo_latency(n, Duration::from_millis(20), Duration::from_secs(10));
        }
        shell.write(b"echo done-$((2+3))\r");
        shell.expect("the command's output", b"done-5", Duration::from_secs(10));
    }
}
