#!/usr/bin/env python3
"""herdr vs tmux on this machine, in one run. Prints a markdown table and writes it to --out.

Suites (select with --only core,agents,tui,memory,busy,scale,startup,durability,handoff,remote; default all; bench/README.md has each
method):
  core    output consumption, pane read latency, idle CPU and wakeups, RSS (20 shell panes)
  agents  blocker-to-event latency, detection CPU with 20 agent panes (scripted fake agents)
  tui     keystroke echo latency (idle / hidden flood / visible flood), idle bytes to an
          attached client, CPU of server + client under a 60 Hz spinner (a python pty is the
          terminal for both)
  memory  PSS per pane, empty and holding 10,000 styled 100-column lines
  busy    CPU of the whole tree for 20 panes of 30 Hz spinners, detached and attached; RSS soak
  scale   200 panes (20 fake agents working): creation time, read / agent.list p99, idle CPU,
          supervisor growth per pane
  startup server start -> first pane output, client attach -> first frame
  durability  kill -9 of the supervisor with 1/20/100 panes until every pane answers again
          (re-adoption), session.json save time and size with 100 panes (herdr only)
  handoff     `herdr server live-handoff` with 1/20/100 panes: swap time, output pause, API silence
  remote      `herdr --remote` against plain ssh to the same private sshd: echo p50/p99 over
          loopback and a 300 ms RTT relay, link bytes/s for a 400 lines/s pane and a 60 Hz
          spinner against ssh + `tmux attach` (needs root and openssh-server)

Public tools only: tmux, python3, /proc. No timed assertions: this measures, it never fails on
a number. Everything it starts is killed at the end (own process group + /proc tree walk; the
durability suite, whose workers outlive their supervisor, by a marker in their environment).
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the repo free of __pycache__

import agents_suite  # noqa: E402
import core  # noqa: E402
import durability  # noqa: E402
import busy  # noqa: E402
import handoff  # noqa: E402
import memory  # noqa: E402
import remote  # noqa: E402
import report  # noqa: E402
import scale  # noqa: E402
import startup  # noqa: E402
import tui_suite  # noqa: E402

SUITES = {
    "core": ("Core: 20 shell panes", core.run),
    "agents": ("Agents (issue 3): scripted fake agents", agents_suite.run),
    "tui": ("Terminal UI (issue 4): attached in a python pty", tui_suite.run),
    "memory": ("Memory (issue 15): PSS per pane, empty and with 10,000 styled lines", memory.run),
    "busy": ("Busy CPU (issue 15): 20 panes of 30 Hz spinners; RSS soak", busy.run),
    "scale": ("Scale (issue 15): --scale-panes panes (default 200), 20 of them fake agents working", scale.run),
    "startup": ("Startup (issue 15): server start → first output, attach → first frame", startup.run),
    "durability": ("Durability: supervisor kill -9 and session.json (herdr only)", durability.run),
    "handoff": ("Live handoff to a second binary (herdr only)", handoff.run),
    "remote": ("Remote (issue 11): herdr --remote; the tmux column is plain ssh to the same sshd", remote.run),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default="target/release")
    parser.add_argument("--out", default="bench/out/latest.md")
    parser.add_argument("--only", default=",".join(SUITES),
                        help="comma-separated suites to run: " + ", ".join(SUITES))
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--idle-seconds", type=int, default=30)
    parser.add_argument("--reads", type=int, default=400)
    parser.add_argument("--agent-samples", type=int, default=40)
    parser.add_argument("--agent-cpu-seconds", type=int, default=30)
    parser.add_argument("--echo-samples", type=int, default=200)
    parser.add_argument("--tui-seconds", type=int, default=10)
    # tmux's default status line redraws every 15 s (status-interval); a longer window sees it.
    parser.add_argument("--idle-bytes-seconds", type=int, default=16)
    parser.add_argument("--memory-panes", type=int, default=5)
    parser.add_argument("--busy-seconds", type=int, default=10)
    parser.add_argument("--soak-seconds", type=int, default=60,
                        help="the 20-spinner RSS soak; the issue's figure is 600 (10 minutes)")
    parser.add_argument("--scale-panes", type=int, default=200)
    parser.add_argument("--scale-idle-seconds", type=int, default=10)
    parser.add_argument("--startup-rounds", type=int, default=5)
    parser.add_argument("--durability-rounds", type=int, default=3)
    parser.add_argument("--save-samples", type=int, default=10)
    remote.add_arguments(parser)
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SUITES]
    if unknown:
        raise SystemExit(f"unknown suite(s) {unknown}; choose from {', '.join(SUITES)}")
    if not shutil.which("tmux"):
        raise SystemExit("tmux is required (scripts/install-test-deps.sh installs it)")

    root = tempfile.mkdtemp(prefix="herdr-bench-")
    sections, notes = [], []
    started = time.monotonic()
    try:
        for name in chosen:
            heading, run = SUITES[name]
            suite_started = time.monotonic()
            print(f"bench: running {name} …", file=sys.stderr, flush=True)
            result = run(args, os.path.join(root, name))
            rows, suite_notes = result if isinstance(result, tuple) else (result, [])
            sections.append((f"{heading} ({time.monotonic() - suite_started:.0f} s)", rows))
            notes.extend(suite_notes)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    title = (f"herdr vs tmux ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
             f"suites: {', '.join(chosen)}, {time.monotonic() - started:.0f} s)")
    text = report.markdown(title, sections, notes)
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
