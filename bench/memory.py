"""The memory suite (issue 15): what a pane costs in proportional set size (PSS), empty and
holding 10,000 styled 100-column lines, herdr beside tmux in the same run. See bench/README.md
(section 10) for the method.

Not here: RSS per pane with 20 short panes (core.py), or supervisor growth at 200 panes (scale.py).
"""

import os
import statistics
import time

from procfs import pss_kib, rss_kib
from report import Row, against
from sessions import Herdr, Tmux

LINES = 10000
COLUMNS = 100
WORDS = ["herdr", "pane", "build", "error", "warning", "ok", "agent", "worker", "lorem", "ipsum", "0x7f3a",
         "src/lib.rs", "tests"]


def styled_lines(path):
    """LINES lines of exactly COLUMNS visible ASCII columns, ten 10-column segments a line, each
    with its own SGR (256-colour foreground, some bold, some true-colour background)."""
    with open(path, "w") as f:
        for i in range(LINES):
            parts = []
            for k in range(COLUMNS // 10):
                text = f"{WORDS[(i + k) % len(WORDS)]}{i % 1000:03d}"[:9].ljust(9) + " "
                sgr = f"38;5;{(i * 7 + k) % 256}"
                if k % 3 == 0:
                    sgr = "1;" + sgr
                if k % 5 == 4:
                    sgr += f";48;2;{(i + k) % 256};{(i * 3) % 256};40"
                parts.append(f"\x1b[{sgr}m{text}\x1b[0m")
            f.write("".join(parts) + "\n")


def run(args, root):
    rows, notes = [], []
    count = args.memory_panes
    os.makedirs(root, exist_ok=True)
    data = os.path.join(root, "styled.txt")
    styled_lines(data)
    herdr = Herdr(args.bin_dir, os.path.join(root, "herdr"))
    tmux = None
    try:
        herdr.start()
        time.sleep(1)  # let the supervisor finish starting before its baseline (a measurement pause)
        sup_base = pss_kib(herdr.proc.pid)
        panes = [herdr.new_pane() for _ in range(count)]
        tmux = Tmux(herdr.root, 120, 40, label="memory")
        tmux.start()
        tmux_pid = tmux.server_pid()
        for i, pane in enumerate(panes):
            herdr.run(pane, f"printf 'EMPTY-%s\\n' {i}")
        for i, pane in enumerate(panes):
            herdr.wait(pane, f"EMPTY-{i}", 20000)
        tmux.run("bench:0", "printf 'EMPTY-%s\\n' BASE")
        tmux.wait_visible("bench:0", "EMPTY-BASE", 20)
        tmux_base = pss_kib(tmux_pid)
        targets = [tmux.new_pane(i + 1) for i in range(count)]  # after history-limit 10000 was set
        for i, target in enumerate(targets):
            tmux.run(target, f"printf 'EMPTY-%s\\n' {i}")
        for i, target in enumerate(targets):
            tmux.wait_visible(target, f"EMPTY-{i}", 20)
        time.sleep(1)  # a measurement pause: the new shells' first output settles

        def herdr_sample():
            workers = herdr.workers()
            return (statistics.mean(pss_kib(p) for p in workers), pss_kib(herdr.proc.pid),
                    statistics.mean(rss_kib(p) for p in workers))

        h_empty, sup_empty, h_empty_rss = herdr_sample()
        t_empty = (pss_kib(tmux_pid) - tmux_base) / count
        for i, pane in enumerate(panes):
            herdr.run(pane, f"cat {data}; printf 'FULL-%s\\n' {i}")
        for i, target in enumerate(targets):
            tmux.run(target, f"cat {data}; printf 'FULL-%s\\n' {i}")
        for i, pane in enumerate(panes):
            herdr.wait(pane, f"FULL-{i}", 120000)
        for i, target in enumerate(targets):
            tmux.wait_visible(target, f"FULL-{i}", 120)
        time.sleep(1)  # a measurement pause: the last output is parsed and freed memory settles
        h_full, sup_full, h_full_rss = herdr_sample()
        t_full = (pss_kib(tmux_pid) - tmux_base) / count
        history = tmux.tmux("display-message", "-p", "-t", targets[0], "#{history_size}").stdout.strip()

        mib = 1024.0
        sup_empty_share = (sup_empty - sup_base) / count
        sup_full_share = (sup_full - sup_base) / count
        rows.append(Row(f"PSS per pane, {LINES:,} styled {COLUMNS}-column lines: pane worker vs tmux server "
                        "growth per pane (MiB)", h_full / mib, t_full / mib, "%.2f",
                        against("≤ 2 MiB", h_full / mib <= 2.0)))
        rows.append(Row("… incl. the supervisor's growth per pane (MiB)", (h_full + sup_full_share) / mib,
                        t_full / mib, "%.2f", against("≤ 2 MiB", (h_full + sup_full_share) / mib <= 2.0)))
        rows.append(Row("PSS per pane, empty shell pane: pane worker vs tmux server growth per pane (MiB)",
                        h_empty / mib, t_empty / mib, "%.2f"))
        rows.append(Row("… incl. the supervisor's growth per pane (MiB)", (h_empty + sup_empty_share) / mib,
                        t_empty / mib, "%.2f"))
        rows.append(Row(f"the {LINES:,} lines' own cost: full − empty pane (MiB)", (h_full - h_empty) / mib,
                        (t_full - t_empty) / mib, "%.2f"))
        notes.append(f"memory: {count} panes a side; herdr worker RSS meanwhile {h_empty_rss / mib:.1f} MiB empty, "
                     f"{h_full_rss / mib:.1f} MiB full (RSS counts every shared library page each worker maps); "
                     f"supervisor PSS {sup_base / mib:.1f} MiB with no pane, {sup_full / mib:.1f} MiB with "
                     f"{count} full ones; tmux history_size of a full pane: {history} lines.")
    finally:
        herdr.stop()
        if tmux:
            tmux.stop()
    return rows, notes
