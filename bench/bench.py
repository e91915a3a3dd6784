#!/usr/bin/env python3
"""herdr vs tmux on this machine, in one run. Prints a markdown table and writes it to --out.

Figures (see bench/README.md for the method behind each):
  1. time for a pane to consume N MB of mixed output (text + SGR + CJK)
  2. pane read latency p50/p99 with 20 panes
  3. idle CPU and wakeups of the whole process tree, 20 idle shells, over --idle-seconds
  4. RSS per pane

Public tools only: tmux, python3, /proc. No timed assertions: this measures, it never fails on
a number. Everything it starts is killed at the end (own process group + /proc tree walk).
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PANES = 20
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- /proc

def stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rfind(")") + 2:].split()


def all_pids():
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def tree(root):
    parents = {}
    for pid in all_pids():
        try:
            parents[pid] = int(stat_fields(pid)[1])
        except (OSError, IndexError, ValueError):
            pass
    found, index = [root], 0
    while index < len(found):
        found.extend(pid for pid, ppid in parents.items() if ppid == found[index] and pid not in found)
        index += 1
    return found


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        try:
            fields = stat_fields(pid)
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total


def context_switches(pids):
    """voluntary + nonvoluntary context switches of every thread of every process."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    for line in f:
                        if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                            total += int(line.split()[1])
            except OSError:
                pass
    return total


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def kill_tree(root):
    pids = tree(root)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# ---------------------------------------------------------------- input data

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


# ---------------------------------------------------------------- herdr

class Herdr:
    def __init__(self, bin_dir, root):
        self.bin = os.path.abspath(os.path.join(bin_dir, "herdr"))
        self.root = root
        self.socket = os.path.join(root, "sock", "herdr.sock")
        self.env = hermetic_env(root)
        self.env["HERDR_SOCKET_PATH"] = self.socket
        self.proc = None

    def start(self):
        log = open(os.path.join(self.root, "herdr-server.log"), "w")
        self.proc = subprocess.Popen([self.bin, "server"], env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.request("ping", {})["result"]["type"] == "pong":
                    return
            except (OSError, KeyError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"herdr server did not start; see {log.name}")
            time.sleep(0.05)

    def request(self, method, params, timeout=600):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(timeout)
            s.connect(self.socket)
            s.sendall((json.dumps({"id": "bench", "method": method, "params": params}) + "\n").encode())
            buf = b""
            while b"\n" not in buf:
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                buf += chunk
        return json.loads(buf.split(b"\n", 1)[0])

    def call(self, method, params):
        answer = self.request(method, params)
        if "result" not in answer:
            raise SystemExit(f"herdr {method} failed: {answer}")
        return answer["result"]

    def cli(self, *args):
        return subprocess.run([self.bin, *args], env=self.env, check=True, capture_output=True, text=True)

    def new_pane(self):
        created = self.call("workspace.create", {"cwd": self.root})
        return created["root_pane"]["pane_id"]

    def run(self, pane, command):
        self.call("pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]})

    def wait(self, pane, word):
        self.call("pane.wait_for_output", {"pane_id": pane, "source": "recent",
                                           "match": {"type": "substring", "value": word}, "timeout_ms": 600000})

    def pids(self):
        return tree(self.proc.pid)

    def workers(self):
        return [p for p in self.pids() if any(os.path.basename(a) == "herdr-pane-worker" for a in cmdline(p)[:1])]

    def stop(self):
        if self.proc:
            kill_tree(self.proc.pid)
            self.proc.wait()


# ---------------------------------------------------------------- tmux

class Tmux:
    def __init__(self, root, cols, rows):
        self.name = f"herdr-bench-{os.getpid()}"
        self.env = hermetic_env(root)
        self.cols, self.rows = cols, rows

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args], env=self.env, check=check,
                              capture_output=True, text=True)

    def start(self):
        self.tmux("new-session", "-d", "-s", "bench", "-x", str(self.cols), "-y", str(self.rows))
        self.tmux("set-option", "-g", "history-limit", "10000")

    def new_pane(self, index):
        if index > 0:
            self.tmux("new-window", "-t", "bench")
        return f"bench:{index}"

    def server_pid(self):
        return int(self.tmux("display-message", "-p", "#{pid}").stdout.strip())

    def run(self, target, command):
        self.tmux("send-keys", "-t", target, command, "Enter")

    def capture(self, target):
        return self.tmux("capture-pane", "-p", "-t", target).stdout

    def wait_visible(self, target, word, timeout=600):
        deadline = time.monotonic() + timeout
        while word not in self.capture(target):
            if time.monotonic() > deadline:
                raise SystemExit(f"tmux pane {target} never showed {word}")
            time.sleep(0.02)

    def stop(self):
        try:
            pid = self.server_pid()
        except (subprocess.CalledProcessError, ValueError):
            return
        self.tmux("kill-server", check=False)
        kill_tree(pid)


def hermetic_env(root):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LD_LIBRARY_PATH")}
    for name in ("home", "config", "runtime", "state", "data", "cache"):
        os.makedirs(os.path.join(root, name), mode=0o700, exist_ok=True)
    env.update(HOME=os.path.join(root, "home"), XDG_CONFIG_HOME=os.path.join(root, "config"),
               XDG_RUNTIME_DIR=os.path.join(root, "runtime"), XDG_STATE_HOME=os.path.join(root, "state"),
               XDG_DATA_HOME=os.path.join(root, "data"), XDG_CACHE_HOME=os.path.join(root, "cache"),
               SHELL="/bin/sh", PS1="$ ", LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color",
               TMUX_TMPDIR=os.path.join(root, "runtime"))
    return env


# ---------------------------------------------------------------- measurements

def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def herdr_pane_size(herdr, pane):
    layout = herdr.call("pane.layout", {"pane_id": pane})["layout"]
    rect = next(p["rect"] for p in layout["panes"] if p["pane_id"] == pane)
    return rect["width"], rect["height"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default="target/release")
    parser.add_argument("--out", default="bench/out/latest.md")
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--idle-seconds", type=int, default=30)
    parser.add_argument("--reads", type=int, default=400)
    args = parser.parse_args()
    if not shutil.which("tmux"):
        raise SystemExit("tmux is required (scripts/install-test-deps.sh installs it)")

    root = tempfile.mkdtemp(prefix="herdr-bench-")
    herdr = Herdr(args.bin_dir, root)
    tmux = None
    rows = []
    try:
        herdr.start()
        herdr_panes = [herdr.new_pane() for _ in range(PANES)]
        cols, height = herdr_pane_size(herdr, herdr_panes[0])
        tmux = Tmux(root, cols, height)
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
        h_cs = (context_switches(h_pids) - h_cs0) / args.idle_seconds
        t_cs = (context_switches(t_pids) - t_cs0) / args.idle_seconds
        window = args.idle_seconds
        rows.append((f"idle CPU over {window} s, whole tree, 20 shells (ms; tick = {1000 // CLK_TCK} ms)",
                     1000 * h_cpu, 1000 * t_cpu, "%.0f"))
        rows.append((f"idle wakeups over {window} s (context switches, all threads)", h_cs * window,
                     t_cs * window, "%.0f"))

        # 4. memory.
        workers = herdr.workers()
        worker_rss = [rss_kib(p) for p in workers]
        server_rss = rss_kib(herdr.proc.pid)
        tmux_rss = rss_kib(tmux_pid)
        rows.append(("RSS per pane: pane-worker VmRSS vs tmux server / 20 (KiB)",
                     statistics.mean(worker_rss) if worker_rss else float("nan"), tmux_rss / PANES, "%.0f"))
        rows.append(("RSS per pane incl. supervisor: (server + workers) / 20 (KiB)",
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
            rows.append((f"pane read p{p}: API socket vs `tmux capture-pane -p` (ms)",
                         1000 * percentile(h_lat, p), 1000 * percentile(t_lat, p), "%.2f"))
        for p in (50, 99):
            rows.append((f"pane read p{p}: `herdr pane read` CLI vs `tmux capture-pane -p` (ms)",
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
        waiter = subprocess.Popen(["tmux", "-L", tmux.name, "wait-for", "bench-done"], env=tmux.env)
        tmux.run(tp, f"cat {data}; printf 'DONE-%s\\n' TMUX; tmux -L {tmux.name} wait-for -S bench-done")
        waiter.wait(timeout=900)
        tmux.wait_visible(tp, "DONE-TMUX")
        t_time = time.perf_counter() - started
        mb = size / (1024 * 1024)
        rows.insert(0, (f"consume {mb:.0f} MB mixed output (s)", h_time, t_time, "%.2f"))
        rows.insert(1, ("consume throughput (MB/s)", mb / h_time, mb / t_time, "%.1f"))
    finally:
        herdr.stop()
        if tmux:
            tmux.stop()
        shutil.rmtree(root, ignore_errors=True)

    lines = [f"# herdr vs tmux ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} cores, {PANES} panes, {args.idle_seconds} s idle window)", "",
             "| measure | herdr | tmux | herdr/tmux |", "|---|---:|---:|---:|"]
    for name, h, t, fmt in rows:
        if t:
            ratio = f"{h / t:.2f}"
        else:
            ratio = "both 0" if not h else "tmux 0"
        lines.append(f"| {name} | {fmt % h} | {fmt % t} | {ratio} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
