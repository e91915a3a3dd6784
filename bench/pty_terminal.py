"""A terminal for the TUI benchmarks: a pseudo-terminal this process holds the master side of,
with a client (`herdr`, `tmux attach`) running on the slave side as its controlling terminal.
What the client draws is read straight off the master, so nothing sits between the client and
the measurement (no outer tmux, no emulator). It answers no queries: both clients cope without.

Not here: what to type or what to look for (the TUI suite decides).
"""

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time

from procfs import kill_tree


class PtyTerminal:
    def __init__(self, argv, env, cols=120, rows=40):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(argv, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     preexec_fn=controlling_terminal, close_fds=True)
        os.close(slave)
        self.received = 0  # bytes read off the master so far

    @property
    def pid(self):
        return self.proc.pid

    def write(self, data):
        os.write(self.master, data)

    def _read(self, timeout):
        if not select.select([self.master], [], [], max(0.0, timeout))[0]:
            return b""
        try:
            chunk = os.read(self.master, 1 << 16)
        except OSError:
            return b""
        self.received += len(chunk)
        return chunk

    def drain(self, seconds):
        """Reads (and drops) everything for SECONDS; returns how many bytes came."""
        before = self.received
        deadline = time.perf_counter() + seconds
        while (left := deadline - time.perf_counter()) > 0:
            self._read(left)
        return self.received - before

    def wait_for(self, needle, timeout):
        """Reads until NEEDLE (bytes) shows in the output; the perf_counter time of the read that
        completed it, or None after TIMEOUT seconds."""
        deadline = time.perf_counter() + timeout
        tail = b""
        while (left := deadline - time.perf_counter()) > 0:
            chunk = self._read(left)
            if not chunk:
                continue
            at = time.perf_counter()
            window = tail + chunk
            if needle in window:
                return at
            tail = window[-(len(needle) - 1):] if len(needle) > 1 else b""
        return None

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGHUP)
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                kill_tree(self.proc.pid)
                self.proc.wait()
        os.close(self.master)


def drain_all(terminals, seconds):
    """Reads every terminal for SECONDS at once; [bytes received] in the same order."""
    before = [t.received for t in terminals]
    by_fd = {t.master: t for t in terminals}
    deadline = time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        ready = select.select(list(by_fd), [], [], left)[0]
        for fd in ready:
            by_fd[fd]._read(0)
    return [t.received - b for t, b in zip(terminals, before)]
