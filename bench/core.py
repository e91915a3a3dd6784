"""The core suite: 20 shell panes a side; output consumption, read latency, idle cost, memory.
See bench/README.md (sections 1-4) for the method behind each figure.

Not here: agents (agents_suite.py) or an attached terminal (tui_suite.py).
"""

import os
import random
import statistics
import subprocess
import time

from procfs import CLK_TCK, context_switches, cpu_ticks, percentile, rss_kib, switches_since, tree
from report import Row
from sessions import Herdr, Tmux

PANES = 20


def mixed_output(path, megabytes):
    """Deterministic text: words, SGR colours and attributes, CJK, long lines that wrap."""
    rng = random.Random(22)
    words = ["herdr", "pane", "worker", "agent", "build", "ok", "error:", "warning", "src/lib.rs:42",
             "漢字", "テスト", "终端", "한국어", "✓", "→", "{\"k\": 1}", "0x7f3a", "lorem", "ipsum"]
    pool = []
    for n in range(4096):
        parts = []
        for _ in range(rng.randint(3, 40)):
            word = rng.choice(words)
            style = rng.random()
            if style < 0.15:
                word = f"\x1b[{rng.choice([31, 32, 33, 34, 35, 36])}m{word}\x1b[0m"
            elif style < 0.2:
                word = f"\x1b[1;38;5;{rng.randint(0, 255)}m{word}\x1b[0m"
            elif style < 0.22:
                word = f"\x1b[48;2;{rng.randint(0, 255)};{rng.randint(0, 255)};40m{word}\x1b[0m"
            parts.append(word)
        pool.append(f"{n:05d} " + " ".join(parts) + "\n")
    target = megabytes * 1024 * 1024
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            line = pool[rng.randrange(len(pool))]
            f.write(line)
            written += len(line.encode())
    return written


def engine_ceiling(bin_dir, data):
    """MB/s of the parser alone on DATA (the `engine_feed` example beside the binaries), or None
    when it was not built: how much of the pane's throughput the terminal engine leaves."""
    exe = os.path.join(bin_dir, "examples", "engine_feed")
    if not os.path.exists(exe):
        return None
    out = subprocess.run([exe, data], check=True, capture_output=True, text=True).stdout
    return float(out.strip())


def herdr_pane_size(herdr, pane):
    layout = herdr.call("pane.layout", {"pane_id": pane})["layout"]
    rect = next(p["rect"] for p in layout["panes"] if p["pane_id"] == pane)
    return rect["width"], rect["height"]


def run(args, root):
    """Returns the core suite's rows and notes."""
    rows, notes = [], []
    herdr = Herdr(args.bin_dir, root)
    tmux = None
    try:
        herdr.start()
        herdr_panes = [herdr.new_pane() for _ in range(PANES)]
        cols, height = herdr_pane_size(herdr, herdr_panes[0])
        tmux = Tmux(herdr.root, cols, height, label="core")
        tmux.start()
        tmux_panes = [tmux.new_pane(i) for i in range(PANES)]
        # Same screenful in every pane on both sides, then let everything settle.
        for i, (hp, tp) in enumerate(zip(herdr_panes, tmux_panes)):
            herdr.run(hp, f"seq 1 2000; printf 'READY-%s\\n' {i}")
            tmux.run(tp, f"seq 1 2000; printf 'READY-%s\\n' {i}")
        for i, (hp, tp) in enumerate(zip(herdr_panes, tmux_panes)):
            herdr.wait(hp, f"READY-{i}")
            tmux.wait_visible(tp, f"READY-{i}")
        time.sleep(2)  # let startup work finish before measuring idle cost (a measurement pause)

        # 3. idle CPU and wakeups over the same window for both trees.
        tmux_pid = tmux.server_pid()
        h_pids, t_pids = herdr.pids(), tree(tmux_pid)
        h_cpu0, t_cpu0 = cpu_ticks(h_pids), cpu_ticks(t_pids)
        h_cs0, t_cs0 = context_switches(h_pids), context_switches(t_pids)
        time.sleep(args.idle_seconds)
        h_pids, t_pids = herdr.pids(), tree(tmux_pid)
        h_cpu = (cpu_ticks(h_pids) - h_cpu0) / CLK_TCK
        t_cpu = (cpu_ticks(t_pids) - t_cpu0) / CLK_TCK
        (h_cs, h_gone), (t_cs, t_gone) = switches_since(h_cs0, h_pids), switches_since(t_cs0, t_pids)
        if h_gone or t_gone:
            notes.append(f"core: threads ended during the idle window (herdr {h_gone}, tmux {t_gone}); "
                         "their switches in it are not counted")
        window = args.idle_seconds
        rows.append(Row(f"idle CPU over {window} s, whole tree, 20 shells (ms; tick = {1000 // CLK_TCK} ms)",
                        1000 * h_cpu, 1000 * t_cpu, "%.0f"))
        rows.append(Row(f"idle wakeups over {window} s (context switches, all threads)", h_cs, t_cs, "%.0f"))

        # 4. memory.
        worker_rss = [rss_kib(p) for p in herdr.workers()]
        server_rss = rss_kib(herdr.proc.pid)
        tmux_rss = rss_kib(tmux_pid)
        rows.append(Row("RSS per pane: pane-worker VmRSS vs tmux server / 20 (KiB)",
                        statistics.mean(worker_rss) if worker_rss else None, tmux_rss / PANES, "%.0f"))
        rows.append(Row("RSS per pane incl. supervisor: (server + workers) / 20 (KiB)",
                        (server_rss + sum(worker_rss)) / PANES, tmux_rss / PANES, "%.0f"))

        # 2. read latency: one connection per read, round-robin over the 20 panes.
        h_lat, c_lat, t_lat = [], [], []
        for n in range(args.reads):
            pane = herdr_panes[n % PANES]
            started = time.perf_counter()
            herdr.call("pane.read", {"pane_id": pane, "source": "visible"})
            h_lat.append(time.perf_counter() - started)
            started = time.perf_counter()
            tmux.capture(tmux_panes[n % PANES])
            t_lat.append(time.perf_counter() - started)
        for n in range(min(args.reads, 100)):
            started = time.perf_counter()
            herdr.cli("pane", "read", herdr_panes[n % PANES], "--source", "visible")
            c_lat.append(time.perf_counter() - started)
        for p in (50, 99):
            rows.append(Row(f"pane read p{p}: API socket vs `tmux capture-pane -p` (ms)",
                            1000 * percentile(h_lat, p), 1000 * percentile(t_lat, p), "%.2f"))
        for p in (50, 99):
            rows.append(Row(f"pane read p{p}: `herdr pane read` CLI vs `tmux capture-pane -p` (ms)",
                            1000 * percentile(c_lat, p), 1000 * percentile(t_lat, p), "%.2f"))

        # 1. throughput, last so the big scrollback does not colour the other figures.
        data = os.path.join(root, "mixed.txt")
        size = mixed_output(data, args.size_mb)
        hp, tp = herdr_panes[0], tmux_panes[0]
        started = time.perf_counter()
        herdr.cli("pane", "run", hp, f"cat {data}; printf 'DONE-%s\\n' MARK")
        herdr.cli("pane", "wait-output", hp, "--match", "DONE-MARK", "--timeout", "900000")
        h_time = time.perf_counter() - started
        started = time.perf_counter()
        # tmux wait-for blocks until the pane's shell signals after cat; the waiter starts first
        # so the signal cannot be missed, and the screen check confirms tmux parsed the marker.
        waiter = subprocess.Popen(tmux.command("wait-for", "bench-done"), env=tmux.env)
        tmux.run(tp, f"cat {data}; printf 'DONE-%s\\n' TMUX; tmux -L {tmux.name} wait-for -S bench-done")
        waiter.wait(timeout=900)
        tmux.wait_visible(tp, "DONE-TMUX")
        t_time = time.perf_counter() - started
        mb = size / (1024 * 1024)
        rows.insert(0, Row(f"consume {mb:.0f} MB mixed output (s)", h_time, t_time, "%.2f"))
        rows.insert(1, Row("consume throughput (MB/s)", mb / h_time, mb / t_time, "%.1f"))
        ceiling = engine_ceiling(args.bin_dir, data)
        if ceiling is not None:
            rows.insert(2, Row("… the same bytes fed straight to the pane's libghostty-vt terminal, "
                               "no PTY (MB/s; `engine_feed`)", ceiling, None, "%.1f"))
    finally:
        herdr.stop()
        if tmux:
            tmux.stop()
    return rows, notes
