"""The scale suite (issue 15): 200 panes a side (`--scale-panes`), 20 of them running a fake
agent that works, the rest idle shells: how long creating them takes, `pane.read` and
`agent.list` p99 against `capture-pane` and `list-panes`, idle CPU once the agents are done, and
how much the supervisor grows per pane. See bench/README.md (section 13).

Not here: the agents' detection latency (agents_suite.py) or scrollback memory (memory.py).
"""

import os
import time

from agents_suite import FAKES, log_events, wait_for
from procfs import percentile, pss_kib, rss_kib, runtime_seconds_by_pid, tree
from report import Row, against
from sessions import Herdr, Tmux

AGENTS = 20
WORK_MS = 20000


def launch(send, log):
    # tmux starts login shells, whose profile resets PATH: the fakes go first per command, and
    # herdr's panes get the same line so both sides run the same thing.
    send(f"PATH={FAKES}:$PATH FAKE_AGENT_LOG={log} claude")


def idle_count(log):
    return sum(e["event"] == "idle" for e in log_events(log))


def run(args, root):
    rows, notes = [], []
    count = args.scale_panes
    agents = min(AGENTS, count)
    herdr = Herdr(args.bin_dir, os.path.join(root, "herdr"))
    tmux = None
    try:
        herdr.start()
        tmux = Tmux(herdr.root, 120, 40, label="scale")
        tmux.start()
        tmux_pid = tmux.server_pid()
        time.sleep(1)  # both servers finish starting before their baselines (a measurement pause)
        h_base = (rss_kib(herdr.proc.pid), pss_kib(herdr.proc.pid))
        t_base = (rss_kib(tmux_pid), pss_kib(tmux_pid))

        # Creation: herdr workspace.create per pane over the API, tmux new-window per pane.
        started = time.perf_counter()
        h_panes = [herdr.new_pane() for _ in range(count)]
        h_created = time.perf_counter() - started
        for i, pane in enumerate(h_panes):
            herdr.run(pane, f"printf 'UP-%s\\n' {i}")
        for i, pane in enumerate(h_panes):
            herdr.wait(pane, f"UP-{i}", 60000)
        h_ready = time.perf_counter() - started
        started = time.perf_counter()
        t_panes = [tmux.new_pane(i + 1) for i in range(count)]
        t_created = time.perf_counter() - started
        for i, target in enumerate(t_panes):
            tmux.run(target, f"printf 'UP-%s\\n' {i}")
        for i, target in enumerate(t_panes):
            tmux.wait_visible(target, f"UP-{i}", 60)
        t_ready = time.perf_counter() - started
        rows.append(Row(f"create {count} panes: herdr `workspace.create` calls vs `tmux new-window` commands (s)",
                        h_created, t_created, "%.2f", against("< 10 s", h_created < 10)))
        rows.append(Row("… until every pane's shell printed a marker (s)", h_ready, t_ready, "%.2f",
                        against("< 10 s", h_ready < 10)))

        # 20 fake agents a side, each given one long turn.
        logs = {side: [os.path.join(root, f"{side}-agent{n}.log") for n in range(agents)] for side in ("h", "t")}
        for n in range(agents):
            launch(lambda text, p=h_panes[n]: herdr.run(p, text), logs["h"][n])
            launch(lambda text, t=t_panes[n]: tmux.run(t, text), logs["t"][n])
        wait_for(f"{agents} idle fakes a side", 120,
                 lambda: all(idle_count(log) >= 1 for log in logs["h"] + logs["t"]), every=0.2)
        for n in range(agents):
            herdr.run(h_panes[n], f"work-ms={WORK_MS} scale {n}")
            tmux.tmux("send-keys", "-t", t_panes[n], "-l", f"work-ms={WORK_MS} scale {n}")
            tmux.tmux("send-keys", "-t", t_panes[n], "Enter")
        wait_for("every fake to work", 30,
                 lambda: all(log_events(log)[-1]["event"] == "working" for log in logs["h"] + logs["t"]), every=0.2)

        # Reads while the agents work: one fresh connection per herdr call, one process per tmux call.
        h_read, t_read, h_list, t_list = [], [], [], []
        listed = 0
        for n in range(args.reads):
            pane, target = h_panes[n % count], t_panes[n % count]
            at = time.perf_counter()
            herdr.call("pane.read", {"pane_id": pane, "source": "visible"})
            h_read.append(time.perf_counter() - at)
            at = time.perf_counter()
            tmux.capture(target)
            t_read.append(time.perf_counter() - at)
            if n % 2 == 0:
                at = time.perf_counter()
                listed = len(herdr.call("agent.list", {})["agents"])
                h_list.append(time.perf_counter() - at)
                at = time.perf_counter()
                tmux.tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_current_command}")
                t_list.append(time.perf_counter() - at)
        still = sum(log_events(log)[-1]["event"] == "working" for log in logs["h"])
        for name, h, t in (("`pane.read` vs `tmux capture-pane -p`", h_read, t_read),
                           ("`agent.list` vs `tmux list-panes -a`", h_list, t_list)):
            for p in (50, 99):
                hp = 1000 * percentile(h, p)
                rows.append(Row(f"{name} p{p}, {count} panes, agents working (ms, n={len(h)})", hp,
                                1000 * percentile(t, p), "%.2f",
                                against("< 5 ms", hp < 5) if p == 99 else ""))
        notes.append(f"scale: agent.list listed {listed} agents; {still} of the {agents} herdr fakes were still "
                     "working when the reads ended.")

        # Quiet: every turn over, then one window of whole-tree CPU on both sides at once.
        wait_for("every fake to finish its turn", WORK_MS / 1000 + 60,
                 lambda: all(idle_count(log) >= 2 for log in logs["h"] + logs["t"]), every=0.5)
        time.sleep(2)  # let the last detection pass settle (a measurement pause)
        window = args.scale_idle_seconds
        h0, t0 = runtime_seconds_by_pid(tree(herdr.proc.pid)), runtime_seconds_by_pid(tree(tmux_pid))
        time.sleep(window)
        h1, t1 = runtime_seconds_by_pid(tree(herdr.proc.pid)), runtime_seconds_by_pid(tree(tmux_pid))
        if None not in (h0, h1, t0, t1):
            h_spent = {pid: v - h0.get(pid, 0.0) for pid, v in h1.items()}
            t_spent = {pid: v - t0.get(pid, 0.0) for pid, v in t1.items()}
            rows.append(Row(f"idle CPU once quiet, whole tree, {window} s ({count} panes, {agents} idle agents; "
                            "ms of CPU)", 1000 * sum(h_spent.values()), 1000 * sum(t_spent.values()), "%.1f"))
            # The shells and fakes run on both sides; what herdr itself spends is its own processes
            # against tmux's server, the process that does the same work.
            own = [herdr.proc.pid, *herdr.workers()]
            h_own = 1000 * sum(h_spent.get(pid, 0.0) for pid in own)
            rows.append(Row(f"… supervisor + {len(own) - 1} pane workers vs tmux server (ms of CPU)", h_own,
                            1000 * t_spent.get(tmux_pid, 0.0), "%.1f", against("0", h_own < 1)))
        else:
            notes.append("scale: no scheduler runtime in /proc (no CONFIG_SCHED_DEBUG): idle CPU not measured.")

        h_now = (rss_kib(herdr.proc.pid), pss_kib(herdr.proc.pid))
        t_now = (rss_kib(tmux_pid), pss_kib(tmux_pid))
        for i, name in enumerate(("RSS", "PSS")):
            h = (h_now[i] - h_base[i]) / count
            rows.append(Row(f"supervisor {name} growth per pane, 0 → {count} panes vs tmux server (KiB)", h,
                            (t_now[i] - t_base[i]) / count, "%.1f", against("< 20 KiB", h < 20) if i == 0 else ""))
        workers = herdr.workers()
        notes.append(f"scale: supervisor RSS {h_base[0]} → {h_now[0]} KiB, tmux server {t_base[0]} → {t_now[0]} KiB "
                     f"(tmux's server holds every pane itself; herdr's {len(workers)} pane workers add "
                     f"{sum(pss_kib(p) for p in workers) / max(1, len(workers)):.0f} KiB PSS each on top).")
    finally:
        herdr.stop()
        if tmux:
            tmux.stop()
    return rows, notes
