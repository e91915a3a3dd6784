"""The startup suite (issue 15): server start → a pane's first output, and a client's attach →
its first frame, herdr beside tmux, each round on a fresh server. See bench/README.md
(section 14) for the method.

Not here: what is drawn (the e2e suite checks that); this only times bytes.
"""

import os
import statistics
import time

from pty_terminal import PtyTerminal
from report import Row, against
from sessions import Herdr, Tmux

COLS, ROWS = 120, 40
MARK = "FRAME-MARK"


def herdr_server_to_output(args, root):
    """Seconds from spawning `herdr server` to the first pane's prompt: ping answered, a
    workspace created, and its shell's first output (the prompt: any non-blank character) parsed
    (pane.wait_for_output)."""
    herdr = Herdr(args.bin_dir, root)
    started = time.perf_counter()
    herdr.start(poll=0.002)
    try:
        pane = herdr.new_pane()
        herdr.call("pane.wait_for_output", {"pane_id": pane, "source": "visible",
                                            "match": {"type": "regex", "value": "\\S"}, "timeout_ms": 20000})
        return time.perf_counter() - started, herdr, pane
    except BaseException:
        herdr.stop()
        raise


def tmux_server_to_output(root):
    """Seconds from `tmux new-session -d` (which starts the server) to the shell's first output
    (any non-blank character) in `capture-pane -p`, polled back to back."""
    tmux = Tmux(root, COLS, ROWS, label=f"startup-{os.path.basename(root)}")
    started = time.perf_counter()
    tmux.tmux("new-session", "-d", "-s", "bench", "-x", str(COLS), "-y", str(ROWS))
    try:
        deadline = time.monotonic() + 20
        while not tmux.capture("bench:0").strip():
            if time.monotonic() > deadline:
                raise SystemExit("bench: the tmux pane never printed anything")
        return time.perf_counter() - started, tmux
    except BaseException:
        tmux.stop()
        raise


def first_frame(argv, env):
    """Seconds from spawning the client on a pty to the pty receiving the pane's MARK (the first
    frame showing the pane's contents), or None within 10 s."""
    started = time.perf_counter()
    term = PtyTerminal(argv, env, COLS, ROWS)
    try:
        at = term.wait_for(MARK.encode(), 10.0)
        return None if at is None else at - started
    finally:
        term.close()


def run(args, root):
    rows, notes = [], []
    h_start, t_start, h_attach, t_attach = [], [], [], []
    for n in range(args.startup_rounds):
        seconds, herdr, pane = herdr_server_to_output(args, os.path.join(root, f"herdr{n}"))
        h_start.append(seconds)
        try:
            herdr.run(pane, f"clear; printf '{MARK[:5]}%s\\n' {MARK[5:]}")
            herdr.wait(pane, MARK, 20000)
            h_attach.append(first_frame([herdr.bin], herdr.env))
        finally:
            herdr.stop()
        seconds, tmux = tmux_server_to_output(os.path.join(root, f"tmux{n}"))
        t_start.append(seconds)
        try:
            tmux.run("bench:0", f"clear; printf '{MARK[:5]}%s\\n' {MARK[5:]}")
            tmux.wait_visible("bench:0", MARK, 20)
            t_attach.append(first_frame(tmux.command("attach-session", "-t", "bench"), tmux.env))
        finally:
            tmux.stop()

    def median_ms(samples):
        samples = [s for s in samples if s is not None]
        return 1000 * statistics.median(samples) if samples else None

    n = args.startup_rounds
    hs, ts = median_ms(h_start), median_ms(t_start)
    rows.append(Row(f"server start → first pane output (ms, median of {n})", hs, ts, "%.1f",
                    against("≤ tmux", hs <= ts)))
    ha, ta = median_ms(h_attach), median_ms(t_attach)
    rows.append(Row(f"client attach → first frame with the pane's contents (ms, median of {n})", ha, ta, "%.1f",
                    against("≤ tmux", None if ha is None or ta is None else ha <= ta)))
    if None in h_attach + t_attach:
        notes.append("startup: some attach never showed the pane's contents within 10 s; those rounds are left out.")
    notes.append("startup: server start rounds (ms): herdr " + ", ".join(f"{1000 * s:.1f}" for s in h_start) +
                 "; tmux " + ", ".join(f"{1000 * s:.1f}" for s in t_start) + ".")
    return rows, notes
