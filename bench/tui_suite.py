"""The terminal UI suite (issue 4): herdr and tmux each attached in a python pty (pty_terminal.py)
that plays the terminal: keystroke echo latency idle, with a hidden pane flooding and with a
visible neighbour flooding at 400 lines/s; bytes reaching an idle attached client; CPU of server
+ client while one visible pane draws a 60 Hz spinner. See bench/README.md (7-9).

Not here: any rendering check (the e2e suite asserts what is drawn); this only times bytes.
"""

import os
import random
import signal
import time

from procfs import CLK_TCK, cmdline, cpu_by_pid, percentile, runtime_seconds_by_pid, tree
from pty_terminal import PtyTerminal, drain_all
from report import Row, against
from sessions import Herdr, Tmux

COLS, ROWS = 120, 40
# Typed glyphs: two-byte UTF-8 sequences that nothing else on either screen contains (the
# floods print digits, the chrome is ASCII and box drawing), so the first time one shows in the
# output stream after it was typed is its echo. 24 of them, and the line is cleared (Ctrl-U)
# every 10, so a glyph is never still on screen when it is typed again.
GLYPHS = "αβγδεζηθικλμνξοπρστυφχψω"
PER_LINE = 10
VISIBLE_RATE = 400  # lines/s of the visible neighbour

FLOOD = '''import os, sys, time
rate = float(sys.argv[1])
line = lambda n: f"{n:09d} 0123456789 0123456789 0123456789 0123456789\\n"
n = 0
if rate <= 0:
    while True:
        os.write(1, "".join(line(n + i) for i in range(100)).encode())
        n += 100
start = time.monotonic()
while True:
    due = int((time.monotonic() - start) * rate)
    if due > n:
        os.write(1, "".join(line(i) for i in range(n, due)).encode())
        n = due
    time.sleep(0.005)
'''

SPINNER = '''import os, time
frames = "\u280b\u2819\u2839\u2838\u283c\u2834\u2826\u2827\u2807\u280f"
start, n = time.monotonic(), 0
while True:
    os.write(1, f"\\r{frames[n % len(frames)]} working {n // 60} s ".encode())
    n += 1
    time.sleep(max(0.0, start + n / 60 - time.monotonic()))
'''


def echo_latencies(term, samples, rng):
    """[ms] from writing a glyph to the terminal to its echo arriving; None if no echo came."""
    latencies = []
    for n in range(samples):
        if n and n % PER_LINE == 0:
            term.write(b"\x15")  # Ctrl-U: the tty erases the typed line
            term.drain(0.05)
        glyph = GLYPHS[n % len(GLYPHS)].encode()
        term.drain(rng.uniform(0.01, 0.03))  # spread the keystrokes over the output's phases
        typed = time.perf_counter()
        term.write(glyph)
        echoed = term.wait_for(glyph, 3.0)
        if echoed is None:
            return None
        latencies.append(1000 * (echoed - typed))
    term.write(b"\x15")
    term.drain(0.1)
    return latencies


def kill_matching(pids, word):
    for pid in pids:
        if any(word in arg for arg in cmdline(pid)):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


class HerdrSide:
    name = "herdr"

    def __init__(self, args, root):
        self.server = Herdr(args.bin_dir, root)
        self.server.start()
        try:
            self._lay_out()
        except BaseException:
            self.server.stop()
            raise

    def _lay_out(self):
        self.pane = self.server.new_pane()
        self.server.run(self.pane, "printf 'CAT-%s\\n' READY; cat")
        self.server.wait(self.pane, "CAT-READY", 20000)
        self.hidden = self.server.new_pane()  # its own workspace, not the one on screen
        self.neighbour = self.server.call("pane.split", {"direction": "right", "target_pane_id": self.pane,
                                                         "focus": False})["pane"]["pane_id"]
        self.term = PtyTerminal([self.server.bin], self.server.env, COLS, ROWS)

    def run_in(self, which, command):
        self.server.run(self.hidden if which == "hidden" else self.neighbour, command)

    def tree(self):
        return self.server.pids()

    def roles(self):
        """{pid: role} of the processes whose CPU counts: supervisor, pane workers, client."""
        roles = {pid: "workers" for pid in self.server.workers()}
        roles.update({self.server.proc.pid: "supervisor", self.term.pid: "client"})
        return roles

    def stop(self):
        self.term.close()
        self.server.stop()


class TmuxSide:
    name = "tmux"

    def __init__(self, root):
        self.server = Tmux(root, COLS, ROWS, label="tui")
        self.server.start()
        try:
            self._lay_out()
        except BaseException:
            self.server.stop()
            raise

    def _lay_out(self):
        self.server.run("bench:0", "printf 'CAT-%s\\n' READY; cat")
        self.server.wait_visible("bench:0", "CAT-READY", 20)
        self.server.tmux("new-window", "-d", "-t", "bench:1")
        self.server.tmux("split-window", "-h", "-d", "-t", "bench:0.0")
        self.term = PtyTerminal(self.server.command("attach-session", "-t", "bench"), self.server.env, COLS, ROWS)
        self.pid = self.server.server_pid()

    def run_in(self, which, command):
        self.server.run("bench:1" if which == "hidden" else "bench:0.1", command)

    def tree(self):
        return tree(self.pid)

    def roles(self):
        return {self.pid: "server", self.term.pid: "client"}

    def stop(self):
        self.term.close()
        self.server.stop()


def run(args, root):
    rows, notes = [], []
    os.makedirs(root, exist_ok=True)
    flood, spinner = os.path.join(root, "flood.py"), os.path.join(root, "spinner.py")
    with open(flood, "w") as f:
        f.write(FLOOD)
    with open(spinner, "w") as f:
        f.write(SPINNER)
    sides = []
    try:
        sides.append(HerdrSide(args, os.path.join(root, "herdr")))
        sides.append(TmuxSide(os.path.join(root, "tmux")))
        drain_all([s.term for s in sides], 1.5)  # first frames
        rng = random.Random(4)

        # 7. echo latency, one side at a time, three conditions.
        echo = {}
        for side in sides:
            for condition, which, rate in (("idle", None, None), ("hidden pane flooding at full speed", "hidden", 0),
                                           (f"visible neighbour at {VISIBLE_RATE} lines/s", "neighbour",
                                            VISIBLE_RATE)):
                if which:
                    side.run_in(which, f"python3 {flood} {rate}")
                    side.term.drain(0.5)
                echo[side.name, condition] = echo_latencies(side.term, args.echo_samples, rng)
                if which:
                    kill_matching(side.tree(), flood)
                    side.term.drain(0.5)
        for condition in [c for (n, c) in echo if n == "herdr"]:
            h, t = echo["herdr", condition], echo["tmux", condition]
            for p in (50, 99):
                hp, tp = (percentile(h, p) if h else None), (percentile(t, p) if t else None)
                target = ""
                if p == 50 and hp is not None and tp is not None:
                    target = against(f"within 1 ms of tmux (Δ {hp - tp:+.2f} ms)", hp - tp <= 1.0)
                elif p == 50:
                    target = "within 1 ms of tmux"
                elif condition.startswith("visible"):
                    target = against("< 20 ms", None if hp is None else hp < 20)
                rows.append(Row(f"keystroke echo p{p}, {condition} (ms, n={args.echo_samples})", hp, tp, "%.2f",
                                target))
        for side in sides:
            if any(echo[side.name, c] is None for c in [c for (n, c) in echo if n == side.name]):
                notes.append(f"tui: in some condition no echo reached the {side.name} client within 3 s of a "
                             "keystroke, so that echo latency is n/a (the pane's contents never reached the "
                             "terminal).")
                break

        # 8. bytes to an idle attached client (both at once: they do not compete when idle).
        terms = [s.term for s in sides]
        drain_all(terms, 1.0)
        window = args.idle_bytes_seconds
        received = drain_all(terms, window)
        rows.append(Row(f"bytes/s to the terminal, idle attached client ({window} s)",
                        received[0] / window, received[1] / window, "%.1f", against("0", received[0] == 0)))

        # 9. CPU of server + client with a 60 Hz spinner in the visible neighbour (both at once).
        for side in sides:
            side.run_in("neighbour", f"python3 {spinner}")
        drain_all(terms, 1.0)
        window = args.tui_seconds
        roles = [s.roles() for s in sides]
        before = [cpu_by_pid(r) for r in roles]
        precise_before = [runtime_seconds_by_pid(r) for r in roles]
        received = drain_all(terms, window)
        precise_after = [runtime_seconds_by_pid(r) for r in roles]
        after = [cpu_by_pid(r) for r in roles]
        precise = all(x is not None for x in precise_before + precise_after)
        split, tick_split = [], []
        for i, side_roles in enumerate(roles):
            by_role, by_role_ticks = {}, {}
            for pid, role in side_roles.items():
                ticks = after[i].get(pid, 0) - before[i].get(pid, 0)
                by_role_ticks[role] = by_role_ticks.get(role, 0.0) + 100.0 * ticks / CLK_TCK / window
                if precise:
                    used = precise_after[i].get(pid, 0.0) - precise_before[i].get(pid, 0.0)
                    by_role[role] = by_role.get(role, 0.0) + 100.0 * used / window
            split.append(by_role if precise else by_role_ticks)
            tick_split.append(by_role_ticks)
        if precise:
            notes.append("tui: spinner CPU is the scheduler's runtime (se.sum_exec_runtime); by utime+stime "
                         "ticks the same window read " + "; ".join(
                             f"{side.name} {sum(t.values()):.2f}" for side, t in zip(sides, tick_split)) +
                         " % (ticks charge short bursts that wake an idle CPU unevenly).")
        cpu = [sum(by_role.values()) for by_role in split]
        notes.append("tui: spinner CPU by process (% of one core): " + "; ".join(
            f"{side.name} " + ", ".join(f"{role} {value:.2f}" for role, value in by_role.items())
            for side, by_role in zip(sides, split)) + ".")
        rows.append(Row(f"CPU, server + client, one visible 60 Hz spinner, {window} s (% of one core)",
                        cpu[0], cpu[1], "%.2f", against("≤ tmux", cpu[0] <= cpu[1])))
        # The same without herdr's pane workers: supervisor + client against tmux's server + client.
        # The workers do what tmux's server does for the pane (read, parse), so the row above is the
        # like-for-like one; this one isolates what the split design adds on top.
        ui_only = split[0].get("supervisor", 0.0) + split[0].get("client", 0.0)
        rows.append(Row(f"… herdr supervisor + client only (workers left out), {window} s (% of one core)",
                        ui_only, cpu[1], "%.2f", against("≤ tmux", ui_only <= cpu[1])))
        rows.append(Row("… bytes/s to the terminal meanwhile", received[0] / window, received[1] / window,
                        "%.0f"))
        for side in sides:
            kill_matching(side.tree(), spinner)
    finally:
        for side in sides:
            side.stop()
    return rows, notes
