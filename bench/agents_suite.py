"""The agents suite (issue 3): how fast a subscribed client hears that an agent is blocked, and
what agent detection costs with 20 agent panes. The agents are the scripted fakes in
`e2e/fake-agents/` (programs named like the real CLIs drawing their real screens through a real
PTY); their event log stamps the moment each frame reached the PTY. See bench/README.md (5, 6).

Not here: herdr's detection itself, or any imitation of it. tmux detects nothing, so it appears
only as the CPU baseline for the same 20 fakes.
"""

import json
import os
import subprocess
import sys
import threading
import time

from procfs import CLK_TCK, cmdline, cpu_by_pid, percentile, tree
from report import Row, against
from sessions import Herdr, Tmux

FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "fake-agents")
FAKES = os.path.normpath(FAKES)
AGENTS = 20
SETTLED = ("idle", "done")


def fake_env(base_path, log, **knobs):
    env = {"PATH": f"{FAKES}:{base_path}", "FAKE_AGENT_LOG": log}
    env.update({k: str(v) for k, v in knobs.items()})
    return env


def log_events(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def wait_for(what, timeout, probe, every=0.05):
    """Polls PROBE until it returns something truthy; a deadline, never a bare wait."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: timed out waiting for {what}")
        time.sleep(every)


def herdr_status(herdr, name):
    answer = herdr.request("agent.get", {"target": name})
    return answer.get("result", {}).get("agent", {}).get("agent_status")


def start_herdr_agents(herdr, named_envs):
    """One workspace per (name, env) with a settled shell, then `herdr agent start NAME --kind
    claude` in each, all at once (each CLI waits ~3 s for the agent to come up). {name: pane}."""
    panes = {name: herdr.new_pane(env) for name, env in named_envs}
    for name, pane in panes.items():
        herdr.run(pane, f"printf 'READY-%s\\n' {name}")
    for name, pane in panes.items():
        herdr.wait(pane, f"READY-{name}", 20000)
    starts = [subprocess.Popen([herdr.bin, "agent", "start", name, "--kind", "claude", "--pane", pane,
                                "--timeout", "20000"], env=herdr.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
              for name, pane in panes.items()]
    for start in starts:
        _, err = start.communicate(timeout=60)
        if start.returncode != 0:
            raise SystemExit(f"bench: herdr agent start failed: {err.decode(errors='replace')}")
    return panes


# ---------------------------------------------------------------- 5. blocker latency

def next_status(subscription, wanted, timeout=15):
    deadline = time.monotonic() + timeout
    while True:
        got = subscription.next(max(0.0, deadline - time.monotonic()))
        if got is None:
            raise SystemExit(f"bench: no pane.agent_status_changed to {wanted} within {timeout} s")
        at, line = got
        if line.get("event") == "pane.agent_status_changed" and line["data"].get("agent_status") in wanted:
            return at


def blocker_latency(herdr, samples):
    """[ms] from the permission dialog reaching the PTY to the status event reaching a subscriber."""
    log = os.path.join(herdr.root, "fake-latency.log")
    env = fake_env(herdr.env["PATH"], log, FAKE_AGENT_BLOCK_AFTER_MS=300, FAKE_AGENT_WORK_MS=300)
    pane = start_herdr_agents(herdr, [("lat", env)])["lat"]
    wait_for("the fake claude to settle", 20, lambda: herdr_status(herdr, "lat") in SETTLED)
    subscription = herdr.subscribe([{"type": "pane.agent_status_changed", "pane_id": pane}])
    latencies = []
    try:
        for n in range(samples):
            mark = len(log_events(log))
            herdr.call("agent.prompt", {"target": "lat", "text": f"needs-permission: sample {n}"})
            arrived = next_status(subscription, ("blocked",))
            shown = wait_for("the fake to log its dialog", 5,
                             lambda: next((e for e in log_events(log)[mark:] if e["event"] == "blocked"), None))
            latencies.append(arrived - shown["t_ms"])
            herdr.call("pane.send_keys", {"pane_id": pane, "keys": ["Esc"]})  # reject: back to idle
            next_status(subscription, SETTLED)
    finally:
        subscription.close()
    return latencies


# ---------------------------------------------------------------- 6. detection CPU

class Reprompter(threading.Thread):
    """Keeps one fake working: whenever its log says the turn ended, sends the next long turn."""

    def __init__(self, log, send, turn_ms):
        super().__init__(daemon=True)
        self.log, self.send, self.turn_ms = log, send, turn_ms
        self.stop = threading.Event()
        self.turns = 0
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set():
                events = log_events(self.log)
                if events and events[-1]["event"] == "idle":
                    self.turns += 1
                    self.send(f"work-ms={self.turn_ms} keep working {self.turns}")
                    wait_for("the turn to start", 10,
                             lambda: log_events(self.log)[-1]["event"] != "idle" or self.stop.is_set())
                self.stop.wait(0.1)
        except (Exception, SystemExit) as error:  # reported by the suite, not lost in a thread
            self.error = error

    def finish(self):
        self.stop.set()
        self.join(timeout=20)
        return self.error


def classify(pid):
    argv = cmdline(pid)
    if any("fake-agents" in a for a in argv[:2]):
        return "fakes"
    if argv and os.path.basename(argv[0]).lstrip("-") in ("sh", "dash", "bash"):
        return "shells"
    if argv and os.path.basename(argv[0]) == "herdr-pane-worker":
        return "workers"
    return "own"


def tree_cpu(root_pid):
    pids = tree(root_pid)
    return {pid: (classify(pid), ticks) for pid, ticks in cpu_by_pid(pids).items()}


def cpu_split(before, after, seconds):
    """% of one core per class (own = supervisor or tmux server, workers, fakes, shells) between
    two tree_cpu samples."""
    used = {"own": 0, "workers": 0, "fakes": 0, "shells": 0}
    for pid, (kind, ticks) in after.items():
        used[kind] += ticks - before.get(pid, (kind, 0))[1]
    return {kind: 100.0 * ticks / CLK_TCK / seconds for kind, ticks in used.items()}


def detection_cpu(herdr, root, seconds):
    """Starts 20 fakes on each side (19 idle, one kept working), measures both trees at once."""
    started = time.monotonic()
    h_idle_log, h_work_log = os.path.join(root, "herdr-idle.log"), os.path.join(root, "herdr-work.log")
    t_idle_log, t_work_log = os.path.join(root, "tmux-idle.log"), os.path.join(root, "tmux-work.log")
    start_herdr_agents(herdr, [(f"cpu{n}", fake_env(herdr.env["PATH"], h_work_log if n == 0 else h_idle_log))
                               for n in range(AGENTS)])
    tmux = Tmux(root, 100, 30, label="agents")
    try:
        tmux.start()
        for n in range(AGENTS):
            target = tmux.new_pane(n)
            log = t_work_log if n == 0 else t_idle_log
            # tmux starts login shells, whose profile resets PATH: the fakes go first per command.
            tmux.run(target, f"PATH={FAKES}:$PATH FAKE_AGENT_LOG={log} claude")

        def ready(log, count):
            return sum(e["event"] == "idle" for e in log_events(log)) >= count

        wait_for("20 idle fakes in herdr and in tmux", 60,
                 lambda: ready(h_idle_log, AGENTS - 1) and ready(t_idle_log, AGENTS - 1)
                 and ready(h_work_log, 1) and ready(t_work_log, 1), every=0.2)
        wait_for("every herdr agent to be settled", 30,
                 lambda: all(herdr_status(herdr, f"cpu{n}") in SETTLED for n in range(AGENTS)), every=0.3)

        def tmux_prompt(text):
            tmux.tmux("send-keys", "-t", "bench:0", "-l", text)
            tmux.tmux("send-keys", "-t", "bench:0", "Enter")

        workers = [Reprompter(h_work_log, lambda text: herdr.call("agent.prompt", {"target": "cpu0", "text": text}),
                              5000),
                   Reprompter(t_work_log, tmux_prompt, 5000)]
        for worker in workers:
            worker.start()
        print(f"bench: agents: 2 x {AGENTS} fakes started in {time.monotonic() - started:.0f} s", file=sys.stderr)
        wait_for("both working fakes to work", 20,
                 lambda: log_events(h_work_log)[-1]["event"] == "working"
                 and log_events(t_work_log)[-1]["event"] == "working")
        time.sleep(2)  # let the first detection of the turn pass before the window (a measurement pause)
        tmux_pid = tmux.server_pid()
        h0, t0 = tree_cpu(herdr.proc.pid), tree_cpu(tmux_pid)
        time.sleep(seconds)
        h1, t1 = tree_cpu(herdr.proc.pid), tree_cpu(tmux_pid)
        errors = [worker.finish() for worker in workers]
        if any(errors):
            raise SystemExit(f"bench: keeping the fakes working failed: {errors}")
        turns = (workers[0].turns, workers[1].turns)
        return cpu_split(h0, h1, seconds), cpu_split(t0, t1, seconds), turns
    finally:
        tmux.stop()


def run(args, root):
    rows, notes = [], []
    herdr = Herdr(args.bin_dir, root)
    try:
        herdr.start()
        phase = time.monotonic()
        latencies = blocker_latency(herdr, args.agent_samples)
        print(f"bench: agents: {len(latencies)} blocker samples in {time.monotonic() - phase:.0f} s",
              file=sys.stderr)
        for p, limit in ((50, 100), (99, 400)):
            value = percentile(latencies, p)
            rows.append(Row(f"blocker on screen → `pane.agent_status_changed` received, p{p} "
                            f"(ms, n={len(latencies)})", value, None, "%.1f",
                            against(f"< {limit} ms", value < limit)))
        rows.append(Row("… worst sample (ms)", max(latencies), None, "%.1f"))
        herdr_cpu, tmux_cpu, turns = detection_cpu(herdr, herdr.root, args.agent_cpu_seconds)
        window = args.agent_cpu_seconds
        herdr_own = herdr_cpu["own"] + herdr_cpu["workers"]
        rows.append(Row(f"20 agent panes (19 idle, 1 working), {window} s: herdr supervisor + workers "
                        "vs tmux server (% of one core)", herdr_own, tmux_cpu["own"], "%.2f",
                        against("< 1 %", herdr_own < 1.0)))
        rows.append(Row("… whole tree incl. the 20 fakes and their shells (% of one core)",
                        sum(herdr_cpu.values()), sum(tmux_cpu.values()), "%.2f"))
        rows.append(Row("… the fakes + shells alone, subtracted above (% of one core)",
                        herdr_cpu["fakes"] + herdr_cpu["shells"], tmux_cpu["fakes"] + tmux_cpu["shells"],
                        "%.2f"))
        notes.append(f"agents: herdr's share split: supervisor {herdr_cpu['own']:.2f} %, 20 pane workers "
                     f"{herdr_cpu['workers']:.2f} % of one core.")
        notes.append(f"agents: the working fake was re-prompted {turns[0]} times in herdr and {turns[1]} "
                     f"in tmux during the {window} s window (5 s turns).")
    finally:
        herdr.stop()
    return rows, notes
