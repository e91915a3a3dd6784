"""The busy suite (issue 15): CPU of herdr's whole tree against tmux's with 20 panes of 30 Hz
spinners on screen, first with no client (detached) and then with a client attached in a python
pty, and an RSS soak of the same 20 spinners. See bench/README.md (sections 11, 12).

Not here: the one-spinner figure (tui_suite.py) or idle cost (core.py).
"""

import os
import statistics

from procfs import CLK_TCK, cpu_by_pid, rss_kib, runtime_seconds_by_pid
from pty_terminal import PtyTerminal, drain_all
from report import Row, against
from sessions import Herdr, Tmux
from tui_suite import SPINNER

COLS, ROWS = 120, 40
PANES = 20
RATE = 30


def grid_shape(count):
    """(columns, rows) of tmux's `tiled` layout for COUNT panes: the smallest square that holds
    them, with empty rows dropped."""
    columns = 1
    while columns * columns < count:
        columns += 1
    return columns, -(-count // columns)


def herdr_grid(herdr, count):
    """COUNT panes in one workspace, tiled as tmux's `tiled` layout tiles them (grid_shape: equal
    rows, each split into equal columns; the last row takes what is left), so both sides show
    the same spinner text in panes of about the same size. A split heuristic of its own made
    herdr panes as narrow as 9 columns, where the spinner's line wraps and scrolls the pane on
    every frame: another workload than tmux's. [pane ids]."""
    columns, rows = grid_shape(count)

    def split_evenly(pane, direction, parts):
        """PANE split into PARTS equal panes along DIRECTION: [pane ids], first to last."""
        made = [pane]
        for k in range(parts - 1):
            # The pane being split keeps 1/(what is left) of it, the new one the rest.
            left = parts - k
            new = herdr.call("pane.split", {"direction": direction, "target_pane_id": made[-1],
                                            "ratio": 1 / left, "focus": False})
            made.append(new["pane"]["pane_id"])
        return made

    first = herdr.new_pane()
    panes = []
    for row, pane in enumerate(split_evenly(first, "down", rows)):
        in_row = min(columns, count - row * columns)
        panes += split_evenly(pane, "right", in_row)
    return panes


def tmux_grid(tmux, count):
    """COUNT panes in window 0, re-tiled after each split. [targets]."""
    for _ in range(count - 1):
        tmux.tmux("split-window", "-d", "-t", "bench:0")
        tmux.tmux("select-layout", "-t", "bench:0", "tiled")
    listed = tmux.tmux("list-panes", "-t", "bench:0", "-F", "#{pane_id}").stdout.split()
    return listed


def own_cpu(roles, window, measure):
    """% of one core per role over WINDOW seconds while MEASURE() runs: [{role: %}], one per side."""
    before = [runtime_seconds_by_pid(r) for r in roles]
    ticks_before = [cpu_by_pid(r) for r in roles]
    measure()
    after = [runtime_seconds_by_pid(r) for r in roles]
    ticks_after = [cpu_by_pid(r) for r in roles]
    precise = all(x is not None for x in before + after)
    split = []
    for i, side in enumerate(roles):
        by_role = {}
        for pid, role in side.items():
            if precise:
                used = after[i].get(pid, 0.0) - before[i].get(pid, 0.0)
            else:
                used = (ticks_after[i].get(pid, 0) - ticks_before[i].get(pid, 0)) / CLK_TCK
            # A thread that ended inside the window takes its runtime with it: never below 0.
            by_role[role] = by_role.get(role, 0.0) + 100.0 * max(0.0, used) / window
        split.append(by_role)
    return split, precise


def describe(split):
    return "; ".join(f"{side} " + ", ".join(f"{role} {value:.2f}" for role, value in by_role.items())
                     for side, by_role in zip(("herdr", "tmux"), split))


def run(args, root):
    rows, notes = [], []
    os.makedirs(root, exist_ok=True)
    spinner = os.path.join(root, "spinner.py")
    with open(spinner, "w") as f:
        f.write(SPINNER.replace("/ 60", f"/ {RATE}").replace("n // 60", f"n // {RATE}"))
    herdr = Herdr(args.bin_dir, os.path.join(root, "herdr"))
    tmux, terms = None, []
    try:
        herdr.start()
        tmux = Tmux(herdr.root, COLS, ROWS, label="busy")
        tmux.start()
        h_panes, t_panes = herdr_grid(herdr, PANES), tmux_grid(tmux, PANES)
        for pane in h_panes:
            herdr.run(pane, f"python3 {spinner}")
        for target in t_panes:
            tmux.run(target, f"python3 {spinner}")
        for pane in h_panes:
            herdr.wait(pane, "working", 20000)
        for target in t_panes:
            tmux.wait_visible(target, "working", 20)
        tmux_pid = tmux.server_pid()
        window = args.busy_seconds

        def side_roles(clients):
            h = {pid: "workers" for pid in herdr.workers()}
            h[herdr.proc.pid] = "supervisor"
            t = {tmux_pid: "server"}
            if clients:
                h[clients[0].pid], t[clients[1].pid] = "client", "client"
            return [h, t]

        def sleep_window():
            drain_all(terms, window)

        detached, precise = own_cpu(side_roles(None), window, sleep_window)
        terms = [PtyTerminal([herdr.bin], herdr.env, COLS, ROWS),
                 PtyTerminal(tmux.command("attach-session", "-t", "bench"), tmux.env, COLS, ROWS)]
        drain_all(terms, 1.5)  # first frames
        received = [t.received for t in terms]
        attached, precise_attached = own_cpu(side_roles(terms), window, sleep_window)
        received = [(t.received - r) / window for t, r in zip(terms, received)]
        for label, split in (("detached (no client)", detached), ("attached (a client in a pty)", attached)):
            h, t = sum(split[0].values()), sum(split[1].values())
            rows.append(Row(f"CPU, {PANES} panes of {RATE} Hz spinners on screen, {label}, {window} s: "
                            "supervisor + workers (+ client) vs tmux server (+ client) (% of one core)",
                            h, t, "%.2f", against("≤ tmux", h <= t)))
        rows.append(Row("… bytes/s to the attached terminal meanwhile", received[0], received[1], "%.0f"))
        notes.append(f"busy: CPU by process (% of one core, {'scheduler runtime' if precise and precise_attached else 'utime+stime ticks'}; "
                     "the spinners and shells are the same programs on both sides and not counted): detached: "
                     f"{describe(detached)}; attached: {describe(attached)}.")

        # RSS soak: the same 20 spinners with the clients attached, RSS sampled every second.
        soak = args.soak_seconds
        samples = []
        for _ in range(soak):
            drain_all(terms, 1.0)
            h_rss = rss_kib(herdr.proc.pid) + sum(rss_kib(p) for p in herdr.workers())
            samples.append((h_rss, rss_kib(tmux_pid)))
        # A worker's RSS climbs for about its first minute of output (allocator and terminal
        # pages warming up) and then stays; a leak keeps climbing. The row compares windows past
        # a warm-up; the note keeps the very first seconds too.
        warm = min(120, soak // 5)
        span = max(1, min(60, (soak - warm) // 3))
        first = [statistics.mean(s[i] for s in samples[warm:warm + span]) for i in (0, 1)]
        last = [statistics.mean(s[i] for s in samples[-span:]) for i in (0, 1)]
        start = [statistics.mean(s[i] for s in samples[:span]) for i in (0, 1)]
        rows.append(Row(f"RSS soak, {PANES} spinner panes attached, {soak} s: mean of the last {span} s − the "
                        f"{span} s after a {warm} s warm-up (KiB; herdr supervisor + workers, tmux server)",
                        last[0] - first[0], last[1] - first[1], "%.0f", "flat (issue: over 600 s)"))
        notes.append(f"busy: soak RSS (KiB) first {span} s / after the {warm} s warm-up / last {span} s: herdr "
                     f"{start[0]:.0f} / {first[0]:.0f} / {last[0]:.0f}, tmux {start[1]:.0f} / {first[1]:.0f} / "
                     f"{last[1]:.0f}; `--soak-seconds 600` runs the issue's 10 minutes "
                     f"(default {soak} s keeps bench/run near its usual length).")
    finally:
        for term in terms:
            term.close()
        herdr.stop()
        if tmux:
            tmux.stop()
    return rows, notes
