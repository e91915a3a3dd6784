"""The durability suite: how long a killed supervisor's panes take to come back, and what a
session.json save costs. herdr only: tmux has no equivalent (a tmux server killed with -9 takes
every pane with it, and tmux keeps no layout on disk), so the tmux column is n/a.
See bench/README.md (sections 15-16) for the method.

Not here: anything tmux, or an attached terminal (tui_suite.py).
"""

import ctypes
import json
import os
import re
import signal
import statistics
import subprocess
import time

from procfs import all_pids, percentile, stat_fields
from report import Row
from sessions import Herdr

PANE_COUNTS = (1, 20, 100)
SAVE_PANES = 100
MARKER_VAR = "HERDR_BENCH_MARKER"
PERSIST_SAVE = re.compile(r"persist\.save path=(\S+) bytes=(\d+) elapsed_us=(\d+)")
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Orphaned workers (their supervisor was killed) become our children, not PID 1's, so they
    are reaped at the end instead of lingering as zombies where PID 1 never reaps."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def environ_has(pid, entry):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return entry.encode() in f.read().split(b"\0")
    except OSError:
        return False


class DurableHerdr(Herdr):
    """A herdr session whose supervisor is killed and started again. Workers outlive it, so its
    processes are found by a marker in their environment, not below the supervisor's pid; the
    log is appended to by every supervisor of the session."""

    def __init__(self, bin_dir, root):
        super().__init__(bin_dir, root)
        self.marker = f"{MARKER_VAR}={root}"
        self.env[MARKER_VAR] = root
        self.log_path = os.path.join(root, "herdr-server.log")

    def spawn(self):
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen([self.bin, "server"], env=self.env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, start_new_session=True)

    def answers(self, method, params):
        """The result, or None while nothing answers or the answer is an error."""
        try:
            return self.request(method, params, timeout=30).get("result")
        except (OSError, ValueError):
            return None

    def start(self):
        self.spawn()
        deadline = time.monotonic() + 30
        while self.answers("ping", {}) is None:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"herdr server did not start; see {self.log_path}")
            time.sleep(0.05)

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def marked(self):
        return [pid for pid in all_pids() if pid != os.getpid() and environ_has(pid, self.marker)]

    def saved_panes(self):
        """How many panes session.json lists (0 while it is missing or unreadable)."""
        try:
            with open(os.path.join(self.root, "config", "herdr", "session.json")) as f:
                saved = json.load(f)
        except (OSError, ValueError):
            return 0
        return sum(len(tab.get("panes", {})) for ws in saved.get("workspaces", []) for tab in ws.get("tabs", []))

    def log_saves(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return [(m[1], int(m[2]), int(m[3])) for m in PERSIST_SAVE.finditer(f.read())]
        except OSError:
            return []

    def stop(self):
        pids = self.marked()
        if self.proc:
            pids.append(self.proc.pid)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.proc:
            self.proc.wait()
        for pid in pids:  # ours only: orphans re-parented to this process by the subreaper bit
            try:
                os.waitpid(pid, 0)
            except (ChildProcessError, OSError):
                pass
        reap_orphans()


def reap_orphans():
    """Reaps zombie children of this process: workers that ended while orphaned to it (their
    environment, and so the marker, is gone once they are zombies)."""
    for pid in all_pids():
        try:
            fields = stat_fields(pid)
            if fields[0] == "Z" and int(fields[1]) == os.getpid():
                os.waitpid(pid, 0)
        except (OSError, IndexError, ValueError, ChildProcessError):
            pass


def readopt_once(herdr, panes, timeout=60):
    """kill -9 of the supervisor, a new one started at once; returns (seconds to the first ping,
    seconds until pane.read answered for every pane), or None with the reason."""
    started = time.perf_counter()
    herdr.kill9()
    herdr.spawn()
    deadline = started + timeout
    while herdr.answers("ping", {}) is None:
        if time.perf_counter() > deadline or herdr.proc.poll() is not None:
            return None, "the new supervisor never answered ping"
        time.sleep(0.002)
    pinged = time.perf_counter() - started
    for pane in panes:
        while herdr.answers("pane.read", {"pane_id": pane, "source": "visible"}) is None:
            if time.perf_counter() > deadline:
                return None, f"pane {pane} never answered pane.read after the restart"
            time.sleep(0.002)
    return (pinged, time.perf_counter() - started), None


def measure_saves(herdr, samples, notes):
    """Rows for session.json saves with the session as it is: renames one workspace per sample
    and waits for the persist.save log line it causes."""
    workspaces = [w["workspace_id"] for w in herdr.call("workspace.list", {})["workspaces"]]
    before = len(herdr.log_saves())
    for n in range(samples):
        seen = len(herdr.log_saves())
        herdr.call("workspace.rename", {"workspace_id": workspaces[n % len(workspaces)], "label": f"save-{n}"})
        deadline = time.monotonic() + 10
        while len(herdr.log_saves()) <= seen and time.monotonic() < deadline:
            time.sleep(0.02)
    saves = herdr.log_saves()[before:]
    if not saves:
        notes.append("durability: no `persist.save … elapsed_us=` line in the server log after "
                     f"{samples} renames; the save time and size could not be measured")
        return [Row(f"session.json save, {SAVE_PANES} panes: p50 (ms)", None, None, "%.2f")]
    elapsed = [us / 1000.0 for _, _, us in saves]
    path = saves[-1][0]
    size = os.path.getsize(path) if os.path.exists(path) else saves[-1][1]
    return [
        Row(f"session.json save, {SAVE_PANES} panes: p50 of {len(saves)} (ms)", percentile(elapsed, 50), None, "%.2f"),
        Row(f"session.json save, {SAVE_PANES} panes: max (ms)", max(elapsed), None, "%.2f"),
        Row(f"session.json size, {SAVE_PANES} panes (KiB)", size / 1024, None, "%.1f"),
    ]


def run(args, root):
    """Returns the durability suite's rows and notes."""
    become_subreaper()
    rows, notes = [], []
    rounds = args.durability_rounds
    for count in PANE_COUNTS:
        herdr = DurableHerdr(args.bin_dir, os.path.join(root, f"panes-{count}"))
        try:
            herdr.start()
            panes = [herdr.new_pane() for _ in range(count)]
            for i, pane in enumerate(panes):
                herdr.run(pane, f"printf 'READY-%s\\n' {i}")
            for i, pane in enumerate(panes):
                herdr.wait(pane, f"READY-{i}")
            # A crash drill starts from a saved layout (session.json follows changes within about
            # a second; panes it does not list yet are adopted into a "recovered" workspace).
            deadline = time.monotonic() + 30
            while herdr.saved_panes() != count and time.monotonic() < deadline:
                time.sleep(0.05)
            pinged, answered, failure = [], [], None
            if herdr.saved_panes() != count:
                failure = f"session.json never listed the {count} panes"
            for _ in range(rounds if not failure else 0):
                result, failure = readopt_once(herdr, panes)
                if result is None:
                    break
                pinged.append(result[0])
                answered.append(result[1])
            if failure:
                notes.append(f"durability, {count} panes: {failure} (see {herdr.log_path})")
            label = f"{count} pane{'s' if count > 1 else ''}"
            rows.append(Row(f"kill -9 → new supervisor answers ping, {label} (ms, median of {len(pinged)})",
                            1000 * statistics.median(pinged) if pinged else None, None, "%.0f"))
            rows.append(Row(f"kill -9 → pane.read answered for all {label} (ms, median of {len(answered)})",
                            1000 * statistics.median(answered) if answered else None, None, "%.0f"))
            if count == SAVE_PANES and not failure:
                rows.extend(measure_saves(herdr, args.save_samples, notes))
        finally:
            herdr.stop()
    notes.append("durability: herdr only. tmux has no equivalent: a tmux server killed with -9 takes "
                 "its panes with it, and tmux keeps no layout on disk (tmux column n/a).")
    return rows, notes
