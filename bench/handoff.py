"""The handoff suite: `herdr server live-handoff` to a second copy of the binary with 1, 20 and
100 panes: how long the swap takes (the CLI call), the longest pause in a pane's own output
(timestamps the program prints every 20 ms, read back after the swap: the program never
notices a supervisor swap, so this stays near the print interval), and the longest time the API
did not answer a `pane.read` (a poller on fresh connections throughout). herdr only.
See bench/README.md (section 17).

Not here: tmux (it has no handoff), an attached terminal.
"""

import os
import shutil
import statistics
import threading
import time

from durability import DurableHerdr, become_subreaper
from report import Row

PANE_COUNTS = (1, 20, 100)
# Panes that print timestamps (the rest idle in their shell): a fork of `date` per line in 100
# panes would measure the CPU, not the handoff.
STAMPING = 3
STAMP_INTERVAL_S = 0.02


def longest_gap(text):
    stamps = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("ts-") and line[3:].isdigit():
            stamps.append(int(line[3:]) / 1e9)
    gaps = [b - a for a, b in zip(stamps, stamps[1:]) if b >= a]
    return max(gaps) if gaps else None


class Poller(threading.Thread):
    """`pane.read` on a fresh connection every 5 ms; the longest stretch without an answer."""

    def __init__(self, herdr, pane):
        super().__init__(daemon=True)
        self.herdr, self.pane = herdr, pane
        self.stopping = threading.Event()
        self.longest, self.failures = 0.0, 0

    def run(self):
        last = time.perf_counter()
        while not self.stopping.is_set():
            if self.herdr.answers("pane.read", {"pane_id": self.pane, "source": "visible"}) is not None:
                now = time.perf_counter()
                self.longest = max(self.longest, now - last)
                last = now
            else:
                self.failures += 1
            time.sleep(0.005)


def handoff_once(herdr, exe, stamping):
    poller = Poller(herdr, stamping[0])
    poller.start()
    time.sleep(0.3)
    started = time.perf_counter()
    herdr.cli("server", "live-handoff", "--import-exe", exe)
    took = time.perf_counter() - started
    time.sleep(0.5)
    poller.stopping.set()
    poller.join()
    pauses = []
    for pane in stamping:
        read = herdr.answers("pane.read", {"pane_id": pane, "source": "recent", "lines": 200})
        gap = longest_gap(read["read"]["text"]) if read else None
        if gap is not None:
            pauses.append(gap)
    return took, max(pauses) if pauses else None, poller.longest, poller.failures


def run(args, root):
    """Returns the handoff suite's rows and notes."""
    become_subreaper()
    rows, notes = [], []
    for count in PANE_COUNTS:
        herdr = DurableHerdr(args.bin_dir, os.path.join(root, f"panes-{count}"))
        exe = os.path.join(root, f"panes-{count}-second-build", "herdr")
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        shutil.copy2(herdr.bin, exe)
        try:
            herdr.start()
            panes = [herdr.new_pane() for _ in range(count)]
            stamping = panes[:STAMPING]
            for pane in stamping:
                herdr.run(pane, f"while :; do echo ts-$(date +%s%N); sleep {STAMP_INTERVAL_S}; done")
            for i, pane in enumerate(panes[STAMPING:]):
                herdr.run(pane, f"printf 'READY-%s\\n' {i}")
            for pane in stamping:
                herdr.wait(pane, "ts-")
            took, pause, api_gap, failures = [], [], [], 0
            for _ in range(args.durability_rounds):
                t, p, g, f = handoff_once(herdr, exe, stamping)
                took.append(t)
                api_gap.append(g)
                failures += f
                if p is not None:
                    pause.append(p)
            if failures:
                notes.append(f"handoff, {count} panes: {failures} pane.read calls failed during the swaps")
            label = f"{count} pane{'s' if count > 1 else ''}"
            n = len(took)
            rows.append(Row(f"live handoff, {label}: CLI call (ms, median of {n})",
                            1000 * statistics.median(took), None, "%.0f"))
            rows.append(Row(f"live handoff, {label}: longest pause in a pane's output (ms, max of {len(pause)})",
                            1000 * max(pause) if pause else None, None, "%.0f"))
            rows.append(Row(f"live handoff, {label}: longest API silence (ms, max of {n})",
                            1000 * max(api_gap), None, "%.0f"))
        finally:
            herdr.stop()
    notes.append(f"handoff: herdr only (tmux has none). Output pauses are measured in the program's own "
                 f"timestamps, printed every {int(STAMP_INTERVAL_S * 1000)} ms (plus a `date` fork each).")
    return rows, notes
