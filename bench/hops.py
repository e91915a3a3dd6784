#!/usr/bin/env python3
"""Where a keystroke's echo spends its time (issue 15): the tui suite's echo measurement, herdr
and tmux side by side, under `perf trace`, with every syscall on the echo's path labelled by
process and fd role, and each keystroke's chain rebuilt hop by hop (who wrote, who woke, who
read, who wrote next). Prints a markdown table of p50/p99 per hop and writes bench/out/hops.md.

    python3 bench/hops.py [--samples N] [--scenario idle|hidden-flood|visible-400|all] [--binary DIR]

Not here: the untraced echo figures of record (the tui suite, bench/bench.py --only tui); this
runs a few hundred untraced samples only to show how much perf distorts the traced ones.
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from procfs import cmdline, percentile, stat_fields, tree  # noqa: E402
from pty_terminal import drain_all  # noqa: E402
from tui_suite import FLOOD, GLYPHS, PER_LINE, VISIBLE_RATE, HerdrSide, TmuxSide, echo_latencies, kill_matching  # noqa: E402

SYSCALLS = ("read,write,readv,writev,recvmsg,sendmsg,recvfrom,sendto,epoll_wait,epoll_pwait,epoll_pwait2,"
            "ppoll,poll,select,pselect6")
IN_CALLS = {"read", "readv", "recvmsg", "recvfrom"}
OUT_CALLS = {"write", "writev", "sendmsg", "sendto"}
WAIT_CALLS = {"epoll_wait", "epoll_pwait", "epoll_pwait2", "ppoll", "poll", "select", "pselect6"}
SCENARIOS = {"idle": (None, None), "hidden-flood": ("hidden", 0), "visible-400": ("neighbour", VISIBLE_RATE)}
# Marker writes of the benchmark to /dev/null, told apart by length: they bracket each sample in
# the trace, on perf's clock, without guessing which read carried the echo.
START, END = 1, 2

# A keystroke's chain, step by step: (name, process role, in/out, fd roles the syscall may be on).
# "pty" is the focused pane's PTY master, "tty" the client's terminal (the benchmark's pty
# slave), "master" the benchmark's end of it, "sock:R" a socket whose peer is process role R.
# A local herdr client hands its terminal to the supervisor (ARCHITECTURE.md, "The client's
# terminal"): like tmux's server, the supervisor reads the keys and writes the frames itself, and
# the client process is off the echo's path.
HERDR_IN = [("bench writes the key", "bench", "out", {"master"}),
            ("supervisor reads the key", "supervisor", "in", {"tty"}),
            ("supervisor sends input", "supervisor", "out", {"sock:worker"}),
            ("worker reads input", "worker", "in", {"sock:supervisor"}),
            ("worker writes the PTY", "worker", "out", {"pty"})]
HERDR_OUT = [("worker reads the echo", "worker", "in", {"pty"}),
             ("worker sends damage", "worker", "out", {"sock:supervisor"}),
             ("supervisor reads damage", "supervisor", "in", {"sock:worker"}),
             ("supervisor writes the terminal", "supervisor", "out", {"tty"}),
             ("bench reads the echo", "bench", "in", {"master"})]
# tmux's server opens the client's terminal itself: keys and frames skip the client process.
TMUX_IN = [("bench writes the key", "bench", "out", {"master"}),
           ("server reads the key", "server", "in", {"tty"}),
           ("server writes the PTY", "server", "out", {"pty"})]
TMUX_OUT = [("server reads the echo", "server", "in", {"pty"}),
            ("server writes the terminal", "server", "out", {"tty"}),
            ("bench reads the echo", "bench", "in", {"master"})]

LINE = re.compile(r"^\s*(?P<ts>\d+\.\d+) \(\s*(?P<dur>\d+\.\d+)?\s*(?:ms)?\): (?P<comm>.+?)/(?P<tid>\d+) +(?P<rest>.*)$")
CALL = re.compile(r"^(?P<call>\w+)\((?P<args>.*)\)\s+= (?P<ret>-?\d+)")
ENTRY = re.compile(r"^(?P<call>\w+)\((?P<args>.*)")
CONTINUED = re.compile(r"^\.\.\. \[continued\]: (?P<call>\w+)\(\)?\)?.*?= (?P<ret>-?\d+)")
FD = re.compile(r"\b(?:fd|epfd): (\d+)")


class Ev:
    """One completed syscall: start and end (µs, perf's clock), process, call, fd, result."""
    __slots__ = ("start", "end", "tid", "pid", "call", "fd", "ret", "kind")

    def __init__(self, start, end, tid, call, fd, ret):
        self.start, self.end, self.tid, self.call, self.fd, self.ret = start, end, tid, call, fd, ret
        self.pid = None
        self.kind = "in" if call in IN_CALLS else "out" if call in OUT_CALLS else "wait"


def parse_trace(path):
    """[Ev] of the syscalls that moved bytes or reported readiness; (events, lost-event count)."""
    events, pending, lost = [], {}, 0
    with open(path, errors="replace") as f:
        for raw in f:
            if "LOST" in raw:
                lost += int(m.group(1)) if (m := re.search(r"LOST (\d+)", raw)) else 1
                continue
            m = LINE.match(raw)
            if not m:
                continue
            ts, tid, rest = float(m["ts"]) * 1000, int(m["tid"]), m["rest"].strip()
            if rest.startswith("..."):
                c = CONTINUED.match(rest)
                if not c or tid not in pending or m["dur"] is None:
                    continue
                call, fd = pending.pop(tid)
                ret = int(c["ret"])
            else:
                c = CALL.match(rest) or ENTRY.match(rest)
                if not c:
                    continue
                call = c["call"]
                fd = int(f[1]) if (f := FD.search(c["args"] or "")) else None
                if fd is None and call in IN_CALLS | OUT_CALLS:
                    fd = 0  # perf leaves out arguments that are zero
                if "ret" not in c.groupdict() or m["dur"] is None:
                    pending[tid] = (call, fd)
                    continue
                ret = int(c["ret"])
            if ret <= 0:
                continue
            events.append(Ev(ts, ts + float(m["dur"]) * 1000, tid, call, fd, ret))
    events.sort(key=lambda e: e.end)
    return events, lost


# --- processes and fd roles ------------------------------------------------------------------

def parent(pid):
    try:
        return int(stat_fields(pid)[1])
    except (OSError, IndexError, ValueError):
        return None


def threads(pid):
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def fd_links(pid):
    out = {}
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for name in names:
        try:
            out[int(name)] = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            pass
    return out


def tty_index(pid, fd):
    """The pty number a /dev/ptmx fd is the master of (fdinfo's tty-index), or None."""
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}") as f:
            for line in f:
                if line.startswith("tty-index:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def pts_number(link):
    return int(link.rsplit("/", 1)[1]) if link.startswith("/dev/pts/") and link[9:].isdigit() else None


def unix_peers():
    """{socket inode: peer inode} of every connected Unix socket (ss reads sock_diag)."""
    peers = {}
    listing = subprocess.run(["ss", "-x", "-a", "-n"], capture_output=True, text=True).stdout
    for line in listing.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 8 and cols[5].isdigit() and cols[7].isdigit() and cols[7] != "0":
            peers[int(cols[5])] = int(cols[7])
    return peers


class Roles:
    """Which traced process is which, and what each of their fds is on the echo's path."""

    def __init__(self, procs, bench_fds, term_pts, pane_pts):
        self.procs = procs  # {pid: role}
        self.bench_fds = bench_fds  # {fd: role} of this process
        self.term_pts, self.pane_pts = term_pts, pane_pts
        self.fds, self.tids = {}, {}
        self.snapshot()

    def snapshot(self):
        """Reads /proc now; fds and threads already known keep their first role."""
        owner = {}
        links = {pid: fd_links(pid) for pid in self.procs}
        for pid in self.procs:
            for t in threads(pid):
                self.tids.setdefault(t, pid)
        for pid, fds in links.items():
            for fd, link in fds.items():
                if link.startswith("socket:["):
                    owner[int(link[8:-1])] = pid
        peers = unix_peers()
        for pid, fds in links.items():
            for fd, link in fds.items():
                role = None
                if pts_number(link) is not None:
                    role = "tty" if pts_number(link) == self.term_pts else None
                elif link in ("/dev/ptmx", "/dev/pts/ptmx"):
                    role = "pty" if tty_index(pid, fd) == self.pane_pts else "pty:other"
                elif link.startswith("socket:["):
                    peer = owner.get(peers.get(int(link[8:-1]), -1))
                    role = f"sock:{self.procs[peer]}" if peer is not None else "sock:other"
                self.fds.setdefault((pid, fd), role)
        for fd, role in self.bench_fds.items():
            self.fds[os.getpid(), fd] = role

    def label(self, events):
        """Sets each event's pid (from its tid) and returns [(event, process role, fd role)]."""
        out = []
        for e in events:
            pid = self.tids.get(e.tid)
            if pid is None:
                try:
                    with open(f"/proc/{e.tid}/status") as f:
                        pid = next(int(x.split()[1]) for x in f if x.startswith("Tgid:"))
                except (OSError, StopIteration):
                    pid = -1
                self.tids[e.tid] = pid
            if pid not in self.procs:
                continue
            e.pid = pid
            out.append((e, self.procs[pid], self.fds.get((pid, e.fd))))
        return out


def find_cat(pids):
    cats = [p for p in pids if cmdline(p) == ["cat"]]
    if len(cats) != 1:
        raise SystemExit(f"expected one `cat` in the session, found {len(cats)}")
    return cats[0]


def herdr_roles(side, master, marker):
    cat = find_cat(side.tree())
    worker = parent(cat)
    while worker and not any(os.path.basename(a) == "herdr-pane-worker" for a in cmdline(worker)[:1]):
        worker = parent(worker)
    if not worker:
        raise SystemExit("the focused pane's `cat` has no herdr-pane-worker above it")
    procs = {os.getpid(): "bench", side.term.pid: "client", side.server.proc.pid: "supervisor",
             worker: "worker", cat: "cat"}
    return Roles(procs, {master: "master", marker: "marker"}, pts_number(os.readlink(f"/proc/{side.term.pid}/fd/0")),
                 pts_number(os.readlink(f"/proc/{cat}/fd/0")))


def tmux_roles(side, master, marker):
    cat = find_cat(side.tree())
    procs = {os.getpid(): "bench", side.term.pid: "client", side.pid: "server", cat: "cat"}
    return Roles(procs, {master: "master", marker: "marker"}, pts_number(os.readlink(f"/proc/{side.term.pid}/fd/0")),
                 pts_number(os.readlink(f"/proc/{cat}/fd/0")))


# --- sampling under perf ---------------------------------------------------------------------

def traced_samples(side, roles, samples, rng, trace_path):
    """Types SAMPLES glyphs under perf trace, bracketing each with marker writes; returns the
    untraced-method latencies (ms) seen by this process while traced."""
    pids = sorted(roles.procs)
    perf = subprocess.Popen(["perf", "trace", "-T", "-o", trace_path, "-e", SYSCALLS, "-p",
                             ",".join(map(str, pids))], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(trace_path + ".err", "w"))
    side.term.drain(2.0)  # perf attaches to every thread; samples typed before it did are dropped
    # One key before the first sample, so every read that carries a sample began under perf
    # (perf cannot say which fd a call it saw only the end of was on).
    side.term.write(GLYPHS[-1].encode())
    side.term.wait_for(GLYPHS[-1].encode(), 3.0)
    side.term.write(b"\x15")
    side.term.drain(0.05)
    marker = next(fd for fd, r in roles.bench_fds.items() if r == "marker")
    seen = []
    try:
        for n in range(samples):
            if n and n % PER_LINE == 0:
                side.term.write(b"\x15")
                side.term.drain(0.05)
            glyph = GLYPHS[n % len(GLYPHS)].encode()
            side.term.drain(rng.uniform(0.01, 0.03))
            os.write(marker, b"s" * START)
            typed = time.perf_counter()
            side.term.write(glyph)
            echoed = side.term.wait_for(glyph, 3.0)
            os.write(marker, b"e" * END)
            if echoed is not None:
                seen.append(1000 * (echoed - typed))
        side.term.write(b"\x15")
        side.term.drain(0.3)
    finally:
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=120)
    return seen


def windows(labelled):
    """[(events in the window)] between each START marker and the END marker after it."""
    out, current = [], None
    for item in labelled:
        e, proc, fd = item
        if proc == "bench" and fd == "marker" and e.kind == "out":
            if e.ret == START:
                current = []
            elif e.ret == END and current is not None:
                out.append(current)
                current = None
            continue
        if current is not None:
            current.append(item)
    return out


def matches(item, step):
    e, proc, fd = item
    return proc == step[1] and e.kind == step[2] and fd in step[3]


def chain(window, steps_in, steps_out, procs):
    """The events of one keystroke's chain, or the name of the first step not found."""
    found, after = [], None
    for step in steps_in:  # forwards from the key: the first event of each step after the last
        hit = next((it for it in window if matches(it, step) and (after is None or
                    (it[0].start >= after.end if it[1] == procs.get(after.pid) else it[0].end >= after.start))), None)
        if hit is None:
            return step[0]
        found.append(hit[0])
        after = hit[0]
    tail, before = [], None
    for step in reversed(steps_out):  # backwards from the echo: the last event before the next
        if before is None:
            hit = next((it for it in reversed(window) if matches(it, step)), None)
        else:
            hit = next((it for it in reversed(window) if matches(it, step) and
                        (it[0].end <= before.start if it[1] == procs.get(before.pid) else it[0].start <= before.end)),
                       None)
        if hit is None:
            return step[0]
        tail.append(hit[0])
        before = hit[0]
    tail.reverse()
    if tail[0].start < found[-1].end:
        return f"{steps_out[0][0]} (no read of the echo after the PTY write)"
    return found + tail


def wake(window, pid, trigger, reader):
    """When READER's process woke for TRIGGER: its first readiness report (epoll/poll/select)
    ending after TRIGGER started and no later than READER's read; READER itself if the read was
    already blocked when the bytes came (or the process was busy and read without waiting). A
    report on the reading thread wins over one on another thread of the process."""
    if reader.start <= trigger.start:
        return reader.end
    woke = [e for e, _, _ in window if e.pid == pid and e.kind == "wait" and trigger.start <= e.end <= reader.end]
    same_thread = [e for e in woke if e.tid == reader.tid]
    return (same_thread or woke or [reader])[0].end


def segments(window, events, names, procs):
    """[(segment name, µs)] of one chain, telescoping: they add up to the traced total."""
    out = []
    for i in range(1, len(events)):
        prev, cur = events[i - 1], events[i]
        if cur.kind == "in" and (cur.pid != prev.pid or prev.kind == "out"):
            woke = wake(window, cur.pid, prev, cur)
            who = procs[cur.pid]
            out.append((f"{names[i - 1]} → {who} wakes", woke - prev.end))
            out.append((f"{who} wakes → {names[i].split(' ', 1)[1]}", cur.end - woke))
        else:
            out.append((f"{names[i - 1]} → {names[i].split(' ', 1)[1]}", cur.end - prev.end))
    return out


# --- one side, one scenario ------------------------------------------------------------------

def measure(side, roles_of, scenario, flood, samples, untraced_n, rng, outdir):
    which, rate = SCENARIOS[scenario]
    if which:
        side.run_in(which, f"python3 {flood} {rate}")
        side.term.drain(0.5)
    try:
        untraced = echo_latencies(side.term, untraced_n, rng)
        marker = os.open(os.devnull, os.O_WRONLY)
        try:
            roles = roles_of(side, side.term.master, marker)
            path = os.path.join(outdir, f"hops-{side.name}-{scenario}.trace")
            seen = traced_samples(side, roles, samples, rng, path)
            roles.snapshot()
        finally:
            os.close(marker)
    finally:
        if which:
            kill_matching(side.tree(), flood)
            side.term.drain(0.5)
    events, lost = parse_trace(path)
    labelled = roles.label(events)
    steps_in, steps_out = (HERDR_IN, HERDR_OUT) if side.name == "herdr" else (TMUX_IN, TMUX_OUT)
    names = [s[0] for s in steps_in + steps_out]
    result = {"untraced": untraced or [], "seen": seen, "lost": lost, "dropped": {}, "segments": {},
              "total": [], "groups": {"input path": [], "tty echo + wake": [], "output path": []},
              "cat_reads": sum(1 for e, p, _ in labelled if p == "cat" and e.kind == "in"), "windows": 0}
    result["missing"] = samples - len(wins := windows(labelled))
    for window in wins:
        result["windows"] += 1
        got = chain(window, steps_in, steps_out, roles.procs)
        if isinstance(got, str):
            result["dropped"][got] = result["dropped"].get(got, 0) + 1
            continue
        result["total"].append(got[-1].end - got[0].start)
        k = len(steps_in)
        result["groups"]["input path"].append(got[k - 1].end - got[0].start)
        result["groups"]["tty echo + wake"].append(got[k].end - got[k - 1].end)
        result["groups"]["output path"].append(got[-1].end - got[k].end)
        parts = segments(window, got, names, roles.procs)
        for name, us in parts:
            result["segments"].setdefault(name, []).append(us)
        if result["total"][-1] >= result.get("worst", (0, []))[0]:
            result["worst"] = (result["total"][-1], parts)
    return result


# --- report ----------------------------------------------------------------------------------

def pcts(values):
    return (percentile(values, 50), percentile(values, 99)) if values else (None, None)


def cell(values, scale=1.0):
    p50, p99 = pcts(values)
    return "n/a" if p50 is None else f"{p50 * scale:.0f} / {p99 * scale:.0f}"


def scenario_table(scenario, samples, results):
    h, t = results.get("herdr"), results.get("tmux")
    lines = [f"### {scenario} ({samples} samples each; p50 / p99 in µs)", "",
             "| hop | herdr p50 / p99 | tmux p50 / p99 |", "|---|---|---|"]
    for name, values in (h["segments"] if h else {}).items():
        tv = t["segments"].get(name) if t else None
        lines.append(f"| {name} | {cell(values)} | {cell(tv) if tv else '—'} |")
    if t:
        lines.append("| *tmux's own hops* | | |")
        for name, values in t["segments"].items():
            if not (h and name in h["segments"]):
                lines.append(f"| {name} | — | {cell(values)} |")
    for group in ("input path", "tty echo + wake", "output path"):
        lines.append(f"| **{group}** | {cell(h['groups'][group]) if h else '—'} | "
                     f"{cell(t['groups'][group]) if t else '—'} |")
    lines.append(f"| **total, traced (chain)** | {cell(h['total']) if h else '—'} | {cell(t['total']) if t else '—'} |")
    lines.append(f"| total, traced (bench's clock) | {cell(h['seen'], 1000) if h else '—'} | "
                 f"{cell(t['seen'], 1000) if t else '—'} |")
    lines.append(f"| total, untraced (tui suite's method, n={len(h['untraced']) if h else 0}) | "
                 f"{cell(h['untraced'], 1000) if h else '—'} | {cell(t['untraced'], 1000) if t else '—'} |")
    lines.append("")
    for side_name, side in (("herdr", h), ("tmux", t)):
        if not side:
            continue
        kept = len(side["total"])
        drops = ", ".join(f"{n} × no “{why}”" for why, n in side["dropped"].items()) or "none"
        lines.append(f"- {side_name}: {kept} of {samples} chains complete; dropped: {drops}; "
                     f"{side['missing']} samples with no markers in the trace; perf lost {side['lost']} events; "
                     f"`cat` returned from read {side['cat_reads']} times (the echo is the tty's, not cat's)")
        if "worst" in side:
            total, parts = side["worst"]
            top = sorted(parts, key=lambda p: -p[1])[:3]
            lines.append(f"  - slowest {side_name} chain: {total:.0f} µs, most of it in "
                         + "; ".join(f"{name} {us:.0f} µs" for name, us in top))
    lines.append("")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--untraced", type=int, default=300, help="untraced samples per side and scenario")
    parser.add_argument("--scenario", default="all", choices=[*SCENARIOS, "all"])
    parser.add_argument("--binary", default="target/release", help="directory holding herdr and herdr-pane-worker")
    parser.add_argument("--out", default="bench/out/hops.md")
    args = parser.parse_args()
    args.bin_dir = args.binary
    if os.geteuid() != 0 and open("/proc/sys/kernel/perf_event_paranoid").read().strip() not in ("-1", "0"):
        print("note: perf trace may need root or kernel.perf_event_paranoid <= 0", file=sys.stderr)
    scenarios = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    outdir = os.path.abspath(os.path.dirname(args.out) or ".")
    os.makedirs(outdir, exist_ok=True)
    root = os.path.join("/tmp", f"herdr-hops-{os.getpid()}")
    os.makedirs(root, exist_ok=True)
    flood = os.path.join(root, "flood.py")
    with open(flood, "w") as f:
        f.write(FLOOD)
    rng = random.Random(15)
    sides, tables = [], {}
    try:
        herdr = HerdrSide(args, os.path.join(root, "herdr"))
        sides.append(herdr)
        tmux = TmuxSide(os.path.join(root, "tmux"))
        sides.append(tmux)
        drain_all([s.term for s in sides], 1.5)
        for scenario in scenarios:
            results = {}
            for side, roles_of in ((herdr, herdr_roles), (tmux, tmux_roles)):
                print(f"hops: {side.name}, {scenario}…", file=sys.stderr, flush=True)
                results[side.name] = measure(side, roles_of, scenario, flood, args.samples, args.untraced, rng,
                                             outdir)
            tables[scenario] = scenario_table(scenario, args.samples, results)
    finally:
        for side in sides:
            side.stop()
        shutil.rmtree(root, ignore_errors=True)
    text = "\n".join(["## Keystroke echo, hop by hop (bench/hops.py)", "",
                      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, binaries from `{args.binary}`. "
                      "Hops from `perf trace` (syscall return times, one clock); \"wakes\" is the write that "
                      "should wake a process to its epoll/poll (or blocked read) returning, the rest is time "
                      "inside the process. perf slows every traced syscall, so compare the traced total with "
                      "the untraced one below it.", ""]
                     + [line for s in scenarios for line in tables[s]])
    print(text)
    with open(args.out, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
