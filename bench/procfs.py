"""What the benchmarks read from /proc: process trees, CPU ticks, context switches, RSS and PSS, I/O
counters, and killing a tree. Linux only; no third-party modules.

Not here: what to measure or when (the suites decide), or any process starting.
"""

import os
import signal

CLK_TCK = os.sysconf("SC_CLK_TCK")


def stat_fields(pid):
    """Fields of /proc/PID/stat after the command name (index 0 = state, 1 = ppid, 11 = utime)."""
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rfind(")") + 2:].split()


def all_pids():
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def tree(root):
    """ROOT and every descendant alive now."""
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


def runtime_seconds_by_pid(pids):
    """{pid: CPU seconds of every thread} from the scheduler's own account (se.sum_exec_runtime in
    /proc/PID/task/TID/sched, nanosecond-precise), or None when the kernel does not expose it
    (no CONFIG_SCHED_DEBUG). Preferred over utime+stime for processes that run in many short
    bursts: tick-based accounting samples which task runs at each tick, and with an idle CPU
    waking for each burst it does not charge short bursts fairly."""
    seconds = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        total = 0.0
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/sched") as f:
                    for line in f:
                        if line.startswith("se.sum_exec_runtime"):
                            total += float(line.split(":")[1]) / 1000.0
                            break
                    else:
                        return None
            except OSError:
                if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                    continue  # the thread ended meanwhile
                return None
        seconds[pid] = total
    return seconds


def cpu_ticks(pids):
    """utime + stime of PIDS, in clock ticks (CLK_TCK per second)."""
    total = 0
    for pid in pids:
        try:
            fields = stat_fields(pid)
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total


def cpu_by_pid(pids):
    """{pid: utime + stime ticks}, for windows where processes must be told apart afterwards."""
    ticks = {}
    for pid in pids:
        try:
            fields = stat_fields(pid)
            ticks[pid] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


def context_switches(pids):
    """{(pid, tid): voluntary + nonvoluntary context switches} of every thread of every process."""
    counts = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    counts[(pid, tid)] = sum(int(line.split()[1]) for line in f
                                             if line.startswith(("voluntary_ctxt_switches",
                                                                 "nonvoluntary_ctxt_switches")))
            except OSError:
                pass
    return counts


def switches_since(before, pids):
    """(context switches since BEFORE, a context_switches() reading, of the threads alive now:
    new ones count whole; threads that ended since, whose last switches are lost with them)."""
    now = context_switches(pids)
    total = sum(n - before.get(thread, 0) for thread, n in now.items())
    return total, len(before.keys() - now.keys())


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pss_kib(pid):
    """Proportional set size (KiB) from /proc/PID/smaps_rollup: private pages in full, each
    shared page divided by the number of processes mapping it (so the shared libraries every
    pane worker maps count once in total, not once per worker). 0 when unreadable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def io_counters(pid):
    """{'rchar': bytes read by any read call (sockets included), 'wchar': ...} of one process."""
    counters = {}
    try:
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                name, _, value = line.partition(":")
                counters[name] = int(value)
    except (OSError, ValueError):
        pass
    return counters


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def kill_tree(root):
    for pid in tree(root):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def percentile(samples, p):
    """Nearest-rank percentile of SAMPLES (p in 0..100)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]
