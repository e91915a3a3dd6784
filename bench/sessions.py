"""The two servers under test, each hermetic: a herdr server (temp HOME/XDG dirs, its own API
socket) and a private tmux server (`tmux -L <name> -f /dev/null`, same kind of temp env).

Not here: measurements. These classes start, drive and stop the servers, nothing more.
"""

import json
import os
import queue
import socket
import subprocess
import threading
import time

from procfs import cmdline, kill_tree, tree


def hermetic_env(root, **extra):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LD_LIBRARY_PATH")}
    for name in ("home", "config", "runtime", "state", "data", "cache"):
        os.makedirs(os.path.join(root, name), mode=0o700, exist_ok=True)
    env.update(HOME=os.path.join(root, "home"), XDG_CONFIG_HOME=os.path.join(root, "config"),
               XDG_RUNTIME_DIR=os.path.join(root, "runtime"), XDG_STATE_HOME=os.path.join(root, "state"),
               XDG_DATA_HOME=os.path.join(root, "data"), XDG_CACHE_HOME=os.path.join(root, "cache"),
               SHELL="/bin/sh", PS1="$ ", LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color",
               TMUX_TMPDIR=os.path.join(root, "runtime"))
    env.update(extra)
    return env


class Herdr:
    def __init__(self, bin_dir, root):
        self.bin = os.path.abspath(os.path.join(bin_dir, "herdr"))
        self.root = root
        self.socket = os.path.join(root, "sock", "herdr.sock")
        self.env = hermetic_env(root)
        self.env["HERDR_SOCKET_PATH"] = self.socket
        self.proc = None

    def start(self, poll=0.05):
        """Spawns `herdr server` and returns once it answers `ping` (polled every POLL s)."""
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
            time.sleep(poll)

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

    def new_pane(self, env=None):
        params = {"cwd": self.root}
        if env:
            params["env"] = env
        created = self.call("workspace.create", params)
        return created["root_pane"]["pane_id"]

    def run(self, pane, command):
        self.call("pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]})

    def wait(self, pane, word, timeout_ms=600000):
        self.call("pane.wait_for_output", {"pane_id": pane, "source": "recent",
                                           "match": {"type": "substring", "value": word},
                                           "timeout_ms": timeout_ms})

    def subscribe(self, subscriptions):
        return Subscription(self.socket, subscriptions)

    def pids(self):
        return tree(self.proc.pid)

    def workers(self):
        return [p for p in self.pids() if any(os.path.basename(a) == "herdr-pane-worker" for a in cmdline(p)[:1])]

    def own_pids(self):
        """The supervisor and its pane workers: herdr's processes, not the programs in the panes."""
        return [self.proc.pid] + self.workers()

    def stop(self):
        if self.proc:
            kill_tree(self.proc.pid)
            self.proc.wait()


class Subscription:
    """An `events.subscribe` connection read by its own thread, so each event line is stamped
    (wall clock, ms since the epoch: the clock the fake agents log with) the moment it arrives."""

    def __init__(self, socket_path, subscriptions):
        self.lines = queue.Queue()
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(socket_path)
        request = {"id": "bench:subscribe", "method": "events.subscribe",
                   "params": {"subscriptions": subscriptions}}
        self.sock.sendall((json.dumps(request) + "\n").encode())
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        ack = self.next(10)
        if not ack or ack[1].get("result", {}).get("type") != "subscription_started":
            raise SystemExit(f"events.subscribe failed: {ack}")

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError:
                return
            if not chunk:
                return
            at = time.time() * 1000.0
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    self.lines.put((at, json.loads(line)))
                except ValueError:
                    pass

    def next(self, timeout):
        """(arrival unix ms, line) or None after TIMEOUT seconds."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self):
        self.sock.close()


class Tmux:
    def __init__(self, root, cols, rows, label="main", **env):
        self.name = f"herdr-bench-{os.getpid()}-{label}"
        self.env = hermetic_env(root, **env)
        self.cols, self.rows = cols, rows

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args], env=self.env, check=check,
                              capture_output=True, text=True)

    def command(self, *args):
        """The argv of a tmux client for this server (for processes the caller starts itself)."""
        return ["tmux", "-L", self.name, "-f", "/dev/null", *args]

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

    def wait_visible(self, target, word, timeout=600, every=0.02):
        deadline = time.monotonic() + timeout
        while word not in self.capture(target):
            if time.monotonic() > deadline:
                raise SystemExit(f"tmux pane {target} never showed {word}")
            time.sleep(every)

    def stop(self):
        try:
            pid = self.server_pid()
        except (subprocess.CalledProcessError, ValueError):
            return
        self.tmux("kill-server", check=False)
        kill_tree(pid)
