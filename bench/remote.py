#!/usr/bin/env python3
"""The remote suite (issue 11): `herdr --remote` against plain OpenSSH on the same sshd, in one
run: keystroke echo p50/p99 over loopback and over a delayed link, and the bytes per second the
link carries to the client for one visible pane printing 400 lines/s and for a 60 Hz spinner,
herdr against `ssh` running `tmux attach`. Part of bench/run (`bench/run --only remote`; see
bench/README.md, 18-20); also runs alone:

    python3 bench/remote.py [--bin-dir target/release] [--remote-samples 60] [--remote-rtt-ms 300]
                            [--remote-seconds 5]

It starts its own sshd (root login with a throw-away key, everything in a temp dir), a delaying
TCP relay in front of it that counts the bytes going to the client, and plays the terminal in a
python pty (pty_terminal.py). Needs root, openssh-server, tmux, python3; without root or sshd it
measures nothing and says why in the notes.

Not here: packet loss (the e2e suite's lossy link, e2e/src/lossy_link.rs, covers the issue's
300 ms + 2 % acceptance); this relay delays bytes, it never drops them.
"""

import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep the repo free of __pycache__
from procfs import kill_tree, percentile  # noqa: E402
from pty_terminal import PtyTerminal  # noqa: E402
from report import Row, against, markdown  # noqa: E402
from tui_suite import FLOOD, GLYPHS, SPINNER  # noqa: E402

SSHD = "/usr/sbin/sshd"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Relay:
    """127.0.0.1:port → 127.0.0.1:target, each chunk delayed by one_way seconds; counts the
    bytes that go back to the client."""

    def __init__(self, target, one_way):
        self.target, self.one_way, self.to_client = target, one_way, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(("127.0.0.1", self.target))
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._pipe(client, server, False)
            self._pipe(server, client, True)

    def _pipe(self, src, dst, counted):
        queue, cond = [], threading.Condition()

        def reader():
            while chunk := src.recv(65536):
                with cond:
                    queue.append((time.monotonic() + self.one_way, chunk))
                    cond.notify()
            with cond:
                queue.append((0, b""))
                cond.notify()

        def writer():
            while True:
                with cond:
                    while not queue:
                        cond.wait()
                    due, chunk = queue.pop(0)
                if not chunk:
                    try:
                        dst.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass  # the other side already went away
                    return
                time.sleep(max(0.0, due - time.monotonic()))
                if counted:
                    self.to_client += len(chunk)
                try:
                    dst.sendall(chunk)
                except OSError:
                    return

        threading.Thread(target=reader, daemon=True).start()
        threading.Thread(target=writer, daemon=True).start()


class Host:
    """An sshd whose root sessions run in a private HOME with the herdr under test on PATH."""

    def __init__(self, root, bin_dir):
        self.root = root
        run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)
        os.makedirs(f"{root}/client/.ssh")
        for d in ("rhome", "rrun", "lrun"):
            os.makedirs(f"{root}/{d}", mode=0o700)
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{root}/host_key")
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{root}/client/.ssh/id_ed25519")
        os.rename(f"{root}/client/.ssh/id_ed25519.pub", f"{root}/authorized_keys")
        os.makedirs("/run/sshd", exist_ok=True)
        self.port = free_port()
        env = {"HOME": f"{root}/rhome", "XDG_RUNTIME_DIR": f"{root}/rrun", "SHELL": "/bin/sh",
               "PATH": f"{bin_dir}:/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"}
        with open(f"{root}/sshd_config", "w") as f:
            f.write(f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {root}/host_key\n"
                    f"AuthorizedKeysFile {root}/authorized_keys\nPasswordAuthentication no\n"
                    "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nUsePAM no\n"
                    "StrictModes no\nPidFile none\nPrintMotd no\n"
                    "SetEnv " + " ".join(f'"{k}={v}"' for k, v in env.items()) + "\n")
        self.sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", f"{root}/sshd_config"],
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port)).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        key = open(f"{root}/host_key.pub").read().split()
        self.known_hosts = f"{root}/client/.ssh/known_hosts"
        self.key_line = f"{key[0]} {key[1]}"
        self.bin_dir = bin_dir

    def trust(self, port):
        with open(self.known_hosts, "a") as f:
            f.write(f"[127.0.0.1]:{port} {self.key_line}\n")

    def herdr(self, port, session):
        env = {"HOME": f"{self.root}/client", "XDG_RUNTIME_DIR": f"{self.root}/lrun",
               "TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}
        argv = [f"{self.bin_dir}/herdr", "--remote", f"ssh://root@127.0.0.1:{port}", "--session", session]
        return PtyTerminal(argv, env)

    def ssh(self, port, command):
        argv = ["ssh", "-tt", "-F", "/dev/null", "-i", f"{self.root}/client/.ssh/id_ed25519",
                "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "BatchMode=yes",
                "-p", str(port), "root@127.0.0.1", command]
        return PtyTerminal(argv, {"TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})

    def stop(self):
        # Everything the sessions started carries this run's HOME; the remote servers first.
        for session in ("echo-direct", "echo-relay", "bytes"):
            subprocess.run([f"{self.bin_dir}/herdr", "--session", session, "server", "stop"],
                           env={"HOME": f"{self.root}/rhome", "XDG_RUNTIME_DIR": f"{self.root}/rrun"},
                           capture_output=True)
        subprocess.run(["tmux", "-S", f"{self.root}/tmux.sock", "kill-server"], capture_output=True)
        kill_tree(self.sshd.pid)
        self.sshd.wait()


def echo_latencies(term, samples, rng):
    """[ms] from writing a glyph to its echo arriving, None if one never came. Each glyph is
    erased (Ctrl-U) before the next, so a server that only sends what changed must send it."""
    latencies = []
    for n in range(samples):
        glyph = GLYPHS[n % len(GLYPHS)].encode()
        term.drain(rng.uniform(0.02, 0.05))
        typed = time.perf_counter()
        term.write(glyph)
        echoed = term.wait_for(glyph, 5.0)
        if echoed is None:
            print(f"sample {n}: no echo of {glyph!r}", file=sys.stderr)
            return None
        latencies.append(1000 * (echoed - typed))
        term.write(b"\x15")
        term.drain(0.05)
    return latencies


def attached(term, needle, what):
    if term.wait_for(needle, 60) is None:
        raise SystemExit(f"{what} did not come up")
    term.drain(1.0)


def echo(host, port, samples, rng, session):
    herdr = host.herdr(port, session)
    attached(herdr, b"spaces", "herdr --remote")
    h = echo_latencies(herdr, samples, rng)
    herdr.close()
    if h is None:
        raise SystemExit("no echo through herdr --remote")
    ssh = host.ssh(port, "exec sh")
    attached(ssh, b"# ", "ssh")
    s = echo_latencies(ssh, samples, rng)
    ssh.close()
    return h, s


def link_bytes(relay, term, command, seconds):
    term.write(command.encode() + b"\r")
    term.drain(1.0)
    before = relay.to_client
    term.drain(seconds)
    rate = (relay.to_client - before) / seconds
    term.write(b"\x03")
    term.drain(0.5)
    return rate


def add_arguments(parser):
    """The suite's options (bench.py and the standalone run share them)."""
    parser.add_argument("--remote-samples", type=int, default=60,
                        help="remote: echo samples per side and link")
    parser.add_argument("--remote-rtt-ms", type=int, default=300, help="remote: the delayed link's RTT")
    parser.add_argument("--remote-seconds", type=float, default=5.0,
                        help="remote: each link-bytes window")


def unavailable():
    if os.geteuid() != 0:
        return "the remote suite logs in as root through its own sshd and needs root"
    if not os.path.exists(SSHD):
        return f"{SSHD} is missing (scripts/install-test-deps.sh installs openssh-server)"
    return None


def run(args, _suite_dir):
    """Rows (herdr --remote in the herdr column, plain ssh in the tmux one) and notes."""
    reason = unavailable()
    if reason:
        return [], [f"remote: not measured: {reason}"]
    # The remote session's sockets (pane workers included) live under this dir, and a Unix
    # socket path has at most 108 bytes: the suite dir bench.py offers is too deep for them.
    root = tempfile.mkdtemp(prefix="hbr-")
    bin_dir = os.path.abspath(args.bin_dir)
    rng = random.Random(11)
    rtt = args.remote_rtt_ms
    rows = []
    host = Host(root, bin_dir)
    try:
        for name, script in (("flood.py", FLOOD), ("spinner.py", SPINNER)):
            with open(f"{root}/{name}", "w") as f:
                f.write(script)
        host.trust(host.port)
        relay = Relay(host.port, rtt / 2000)
        host.trust(relay.port)
        for label, port, session in (("loopback", host.port, "echo-direct"),
                                     (f"{rtt} ms RTT relay", relay.port, "echo-relay")):
            h, s = echo(host, port, args.remote_samples, rng, session)
            if h is None or s is None:
                raise SystemExit(f"an echo never came ({label})")
            p50 = (percentile(h, 50), percentile(s, 50))
            # The bound for a slow link: herdr's p50 within 20 ms of plain ssh's.
            target = against("p50 <= ssh + 20 ms", p50[0] <= p50[1] + 20) if port == relay.port else ""
            rows.append(Row(f"keystroke echo p50, {label} (ms)", *p50, "%.2f", target))
            rows.append(Row(f"keystroke echo p99, {label} (ms)", percentile(h, 99), percentile(s, 99), "%.2f"))
        counter = Relay(host.port, 0)
        host.trust(counter.port)
        herdr = host.herdr(counter.port, "bytes")
        attached(herdr, b"spaces", "herdr --remote")
        subprocess.run(["tmux", "-S", f"{root}/tmux.sock", "-f", "/dev/null", "new-session", "-d",
                        "-x", "120", "-y", "40", "sh"], check=True,
                       env={"HOME": f"{root}/rhome", "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"})
        tmux = host.ssh(counter.port, f"tmux -S {root}/tmux.sock attach")
        tmux.drain(2.0)
        for label, command in (("one visible pane at 400 lines/s", f"python3 {root}/flood.py 400"),
                               ("one visible 60 Hz spinner", f"python3 {root}/spinner.py")):
            h = link_bytes(counter, herdr, command, args.remote_seconds)
            t = link_bytes(counter, tmux, command, args.remote_seconds)
            rows.append(Row(f"link bytes/s to the client, {label}", h, t, "%.0f"))
        herdr.close()
        tmux.close()
    finally:
        host.stop()
        shutil.rmtree(root, ignore_errors=True)
    notes = [f"remote: the tmux column is plain OpenSSH `ssh` to the same sshd (`exec sh` for echo, "
             f"`tmux attach` for link bytes); {args.remote_samples} echo samples per side and link, "
             f"bytes over {args.remote_seconds:g} s windows counted by the relay."]
    return rows, notes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default="target/release")
    add_arguments(parser)
    args = parser.parse_args()
    rows, notes = run(args, None)
    title = f"herdr --remote vs plain ssh ({os.path.basename(os.path.abspath(args.bin_dir))} build)"
    sys.stdout.write(markdown(title, [("Remote (issue 11); tmux column: plain ssh", rows)], notes))


if __name__ == "__main__":
    main()
