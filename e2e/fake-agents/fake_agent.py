"""The runtime shared by the scripted fake agents in this folder.

A fake agent is a small program named like a real agent CLI (`claude`, `codex`, ...) that draws
that agent's screens through its terminal so herdr's process identity and screen detection see
what they would see with the real one: an idle composer, a working spinner, a permission dialog.
It reads prompts from the terminal in raw mode (typed keys, bracketed paste, Enter), so it is
driven exactly like the real agent: `herdr agent prompt`, `agent send-keys`, `pane send-text`.

What it is not: a model of any agent's behaviour beyond its screens. The screens themselves live
in `agent_screens.py`; this module owns the terminal, the input decoder and the turn state machine.

Behaviour on a submitted prompt (case-insensitive words in the prompt text):
- `ignore`: nothing happens at all (the composer just clears) - for the stalled-prompt test;
- `needs-permission`: work for FAKE_AGENT_BLOCK_AFTER_MS, then show the permission dialog and wait
  for an answer key (approve: Enter, `y`, `1`; reject: Esc, `n`, or the dialog's "no" digit);
  approving works for FAKE_AGENT_WORK_MS more, rejecting returns to the composer at once;
- `work-ms=N`: this turn works for N ms instead of FAKE_AGENT_WORK_MS;
- `/exit` or `/quit`: the program exits (so does Ctrl+D, or Ctrl+C on an empty idle composer);
- anything else: work for FAKE_AGENT_WORK_MS, then print a reply and show the idle composer.

Knobs (environment, or `--work-ms=N`-style arguments, which win):
- FAKE_AGENT_WORK_MS (default 1500): how long a turn works;
- FAKE_AGENT_BLOCK_AFTER_MS (default 600): working time before the permission dialog shows;
- FAKE_AGENT_START_MS (default 200): startup time before the first idle screen;
- FAKE_AGENT_TITLES (default 1): 0 stops OSC window-title updates (for agents that set them);
- FAKE_AGENT_TRUST (default 0): 1 starts at the agent's folder-trust dialog (agents that have one);
  approving it shows the composer, rejecting it exits;
- FAKE_AGENT_LOG: a file that gets one JSON line per event, written right after the frame that
  shows it reached the terminal: `{"t_ms": <unix ms>, "agent", "pid", "event", ...}` with events
  `started`, `trust`, `prompt`, `ignored`, `idle`, `working`, `blocked`, `answered`, `exit`. Tests use the
  `blocked` line's `t_ms` to measure how fast herdr noticed the dialog.
"""

import fcntl
import json
import os
import re
import select
import signal
import struct
import sys
import termios
import time
import tty

# How often a working screen redraws its spinner (real agents animate at 80-120 ms).
SPINNER_INTERVAL = 0.1
# How long a lone ESC waits for the rest of an escape sequence before it counts as the Esc key.
ESC_SETTLE = 0.03


def _now():
    return time.monotonic()


class Config:
    """The knobs, from the environment first and `--name=value` arguments second."""

    def __init__(self, argv):
        env = os.environ
        self.work_ms = _int(env.get("FAKE_AGENT_WORK_MS"), 1500)
        self.block_after_ms = _int(env.get("FAKE_AGENT_BLOCK_AFTER_MS"), 600)
        self.start_ms = _int(env.get("FAKE_AGENT_START_MS"), 200)
        self.titles = env.get("FAKE_AGENT_TITLES", "1") != "0"
        self.trust = env.get("FAKE_AGENT_TRUST", "0") == "1"
        self.log_path = env.get("FAKE_AGENT_LOG") or None
        # Real agents take many flags (`--model x`); unknown ones are accepted and ignored.
        for arg in argv:
            name, _, value = arg.partition("=")
            if name == "--work-ms":
                self.work_ms = _int(value, self.work_ms)
            elif name == "--block-after-ms":
                self.block_after_ms = _int(value, self.block_after_ms)
            elif name == "--start-ms":
                self.start_ms = _int(value, self.start_ms)
            elif name == "--no-titles":
                self.titles = False
            elif name == "--trust":
                self.trust = True


def _int(text, default):
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


class EventLog:
    """Appends one JSON line per event to FAKE_AGENT_LOG (nothing when unset)."""

    def __init__(self, path, agent):
        self.path = path
        self.agent = agent

    def write(self, event, **fields):
        if not self.path:
            return
        record = {"t_ms": time.time() * 1000.0, "agent": self.agent, "pid": os.getpid(), "event": event}
        record.update(fields)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


class Terminal:
    """The controlling terminal: raw input, whole-frame output, size, title."""

    def __init__(self, alt_screen, extra_modes):
        self.fd_in = sys.stdin.fileno()
        self.fd_out = sys.stdout.fileno()
        self.alt_screen = alt_screen
        self.extra_modes = extra_modes
        self.saved = None
        self.title = None
        self.last_lines = 0

    def enter(self):
        if os.isatty(self.fd_in):
            self.saved = termios.tcgetattr(self.fd_in)
            tty.setraw(self.fd_in)
        setup = ""
        if self.alt_screen:
            setup += "\x1b[?1049h"
        # Bracketed paste (herdr pastes prompts when a program asks for it), hidden cursor.
        setup += "\x1b[?2004h\x1b[?25l" + "".join(f"\x1b[?{m}h" for m in self.extra_modes)
        setup += "\x1b[H\x1b[2J"
        self.write(setup)

    def leave(self):
        teardown = "".join(f"\x1b[?{m}l" for m in self.extra_modes) + "\x1b[?2004l\x1b[?25h"
        if self.alt_screen:
            teardown += "\x1b[?1049l"
        else:
            teardown += f"\x1b[{self.last_lines + 1};1H\r\n"
        self.write(teardown)
        if self.saved is not None:
            termios.tcsetattr(self.fd_in, termios.TCSADRAIN, self.saved)

    def size(self):
        try:
            packed = fcntl.ioctl(self.fd_out, termios.TIOCGWINSZ, b"\0" * 8)
            rows, cols = struct.unpack("HHHH", packed)[:2]
            if rows > 0 and cols > 0:
                return cols, rows
        except OSError:
            pass
        return 80, 24

    def write(self, text):
        data = text.encode("utf-8")
        while data:
            written = os.write(self.fd_out, data)
            data = data[written:]

    def draw(self, lines, title):
        """Redraws the whole screen from the top: every line cleared to its end, then the rest
        of the screen erased, in one write, so the screen never shows a half-old frame for long."""
        cols, rows = self.size()
        lines = [_fit(line, cols) for line in lines][-rows:]
        out = ""
        if title is not None and title != self.title:
            out += f"\x1b]0;{title}\x07"
            self.title = title
        out += "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J"
        self.last_lines = len(lines)
        self.write(out)


def _fit(line, cols):
    # One column spare: a line exactly as wide as the screen would leave the cursor pending a wrap.
    return line if len(line) < cols else line[: max(cols - 1, 1)]


class InputDecoder:
    """Turns raw terminal bytes into keys: ('text', str) for pastes and typed characters, or
    ('key', name) for enter, esc, backspace, ctrl+c, ctrl+d. Other escape sequences (arrows,
    focus in/out) are dropped."""

    def __init__(self):
        self.buffer = ""
        self.paste = None

    def feed(self, text, more_pending):
        self.buffer += text
        events = []
        while self.buffer:
            if self.paste is not None:
                end = self.buffer.find("\x1b[201~")
                if end < 0:
                    self.paste += self.buffer
                    self.buffer = ""
                    break
                self.paste += self.buffer[:end]
                self.buffer = self.buffer[end + 6 :]
                events.append(("text", self.paste.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")))
                self.paste = None
                continue
            char = self.buffer[0]
            if char == "\x1b":
                if len(self.buffer) == 1:
                    if more_pending:
                        break
                    events.append(("key", "esc"))
                    self.buffer = ""
                    continue
                if self.buffer.startswith("\x1b[200~"):
                    self.paste = ""
                    self.buffer = self.buffer[6:]
                    continue
                if self.buffer[1] in "[O":
                    # CSI / SS3: keep an unfinished one for the next read (PTY reads split them).
                    pattern = r"\x1b\[[0-?]*[ -/]*[@-~]" if self.buffer[1] == "[" else r"\x1bO."
                    match = re.match(pattern, self.buffer, re.S)
                    if match is None:
                        break
                    self.buffer = self.buffer[match.end() :]
                    continue
                # ESC + a character: Alt+key, which no fake uses.
                self.buffer = self.buffer[2:]
                continue
            self.buffer = self.buffer[1:]
            if char in "\r\n":
                events.append(("key", "enter"))
            elif char in "\x7f\x08":
                events.append(("key", "backspace"))
            elif char == "\x03":
                events.append(("key", "ctrl+c"))
            elif char == "\x04":
                events.append(("key", "ctrl+d"))
            elif char >= " ":
                events.append(("text", char))
        return events

    def pending_escape(self):
        return self.buffer.startswith("\x1b") and self.paste is None


class Turn:
    """One submitted prompt being worked on."""

    def __init__(self, text, now, config):
        self.text = text
        self.started = now
        match = re.search(r"work-ms=(\d+)", text)
        self.work = (int(match.group(1)) if match else config.work_ms) / 1000.0
        self.ends = now + self.work
        self.blocks_at = now + config.block_after_ms / 1000.0 if "needs-permission" in text.lower() else None
        if self.blocks_at is not None:
            self.ends = max(self.ends, self.blocks_at)


class FakeAgent:
    """The turn state machine: starting (-> trust) -> idle <-> working (-> blocked -> working | idle)."""

    def __init__(self, screens, argv):
        self.screens = screens
        self.config = Config(argv)
        self.log = EventLog(self.config.log_path, screens.name)
        self.term = Terminal(screens.alt_screen, screens.extra_modes)
        self.decoder = InputDecoder()
        self.state = "starting"
        self.started = _now()
        self.ready_at = self.started + self.config.start_ms / 1000.0
        self.history = []
        self.composer = ""
        self.queue = []
        self.turn = None
        self.frame = 0
        self.dirty = True
        self.shown_state = None
        self.running = True

    # -- main loop ------------------------------------------------------------------------

    def run(self):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda *_: self.stop("signal"))
        signal.signal(signal.SIGWINCH, lambda *_: self.mark_dirty())
        self.term.enter()
        self.log.write("started", argv=sys.argv[1:])
        try:
            while self.running:
                self.step()
        finally:
            self.term.leave()
            self.log.write("exit")

    def step(self):
        timeout = self.next_timeout()
        try:
            ready, _, _ = select.select([self.term.fd_in], [], [], timeout)
        except InterruptedError:
            ready = []
        if ready:
            try:
                data = os.read(self.term.fd_in, 4096)
            except OSError:
                data = b""
            if not data:
                self.stop("eof")
                return
            more = False
            if data.endswith(b"\x1b") or self.decoder.pending_escape():
                more = bool(select.select([self.term.fd_in], [], [], ESC_SETTLE)[0])
            for kind, value in self.decoder.feed(data.decode("utf-8", "replace"), more):
                self.on_input(kind, value)
        self.tick(_now())
        if self.dirty and self.running:
            self.draw()

    def next_timeout(self):
        if self.state in ("starting", "working"):
            return SPINNER_INTERVAL
        return 1.0

    def mark_dirty(self):
        self.dirty = True

    def stop(self, why):
        self.log.write("stopping", why=why)
        self.running = False

    # -- input ----------------------------------------------------------------------------

    def on_input(self, kind, value):
        if self.state == "trust":
            self.on_trust_key(kind, value)
            return
        if self.state == "blocked":
            self.on_dialog_key(kind, value)
            return
        if kind == "text":
            self.composer += value
        elif value == "backspace":
            self.composer = self.composer[:-1]
        elif value == "enter":
            text = self.composer.strip()
            self.composer = ""
            if text:
                self.submit(text)
        elif value == "esc" and self.state == "working":
            self.history += self.screens.interrupted()
            self.turn = None
            self.queue = []
            self.state = "idle"
        elif value == "ctrl+c":
            if self.state == "working":
                self.history += self.screens.interrupted()
                self.turn = None
                self.state = "idle"
            elif not self.composer:
                self.stop("ctrl+c")
            self.composer = ""
        elif value == "ctrl+d" and not self.composer:
            self.stop("ctrl+d")
        self.dirty = True

    def on_dialog_key(self, kind, value):
        key = value if kind == "key" else value.lower()
        if key in self.screens.approve_keys:
            self.log.write("answered", answer="approve")
            self.state = "working"
            now = _now()
            self.turn.blocks_at = None
            self.turn.ends = now + self.turn.work
            self.turn.approved = True
            self.dirty = True
        elif key in self.screens.reject_keys:
            self.log.write("answered", answer="reject")
            self.history += self.screens.rejected()
            self.turn = None
            self.state = "idle"
            self.dirty = True

    def on_trust_key(self, kind, value):
        key = value if kind == "key" else value.lower()
        if key in self.screens.approve_keys:
            self.log.write("answered", answer="trust")
            self.state = "idle"
            self.dirty = True
        elif key in self.screens.reject_keys:
            self.log.write("answered", answer="distrust")
            self.stop("folder not trusted")

    def submit(self, text):
        self.log.write("prompt", text=text)
        lowered = text.lower()
        if lowered in ("/exit", "/quit"):
            self.stop("exit command")
            return
        if "ignore" in lowered:
            # Nothing at all: no echo, no turn, no state change.
            self.log.write("ignored", text=text)
            return
        if self.state == "working":
            self.queue.append(text)
            return
        self.begin(text)

    def begin(self, text):
        self.history += self.screens.user_prompt(text)
        self.turn = Turn(text, _now(), self.config)
        self.turn.approved = False
        self.state = "working"
        self.dirty = True

    # -- time -----------------------------------------------------------------------------

    def tick(self, now):
        if self.state == "starting":
            if now >= self.ready_at:
                self.state = "trust" if self.config.trust and self.screens.has_trust else "idle"
                self.dirty = True
            return
        if self.state != "working":
            return
        self.frame += 1
        self.dirty = True
        turn = self.turn
        if turn.blocks_at is not None and now >= turn.blocks_at and self.screens.has_dialog:
            self.state = "blocked"
            return
        if now >= turn.ends:
            self.history += self.screens.reply(turn.text, turn.approved)
            self.turn = None
            self.state = "idle"
            if self.queue:
                self.begin(self.queue.pop(0))

    # -- output ---------------------------------------------------------------------------

    def draw(self):
        cols, rows = self.term.size()
        view = View(self, cols, rows, _now())
        if self.state == "starting":
            lines, title = self.screens.starting(view), None
        elif self.state == "idle":
            lines = self.screens.idle(view)
            title = self.screens.title("idle", view)
        elif self.state == "trust":
            lines = self.screens.trust(view)
            title = self.screens.title("idle", view)
        elif self.state == "working":
            lines = self.screens.working(view)
            title = self.screens.title("working", view)
        else:
            lines = self.screens.blocked(view)
            title = self.screens.title("blocked", view)
        self.term.draw(lines, title if self.config.titles else None)
        self.dirty = False
        if self.state != self.shown_state:
            self.shown_state = self.state
            if self.state != "starting":
                self.log.write(self.state)


class View:
    """What a screen function may look at."""

    def __init__(self, agent, cols, rows, now):
        self.cols = cols
        self.rows = rows
        self.history = list(agent.history)
        self.composer = agent.composer
        self.frame = agent.frame
        turn = agent.turn
        self.elapsed = int(now - turn.started) if turn is not None else 0
        self.prompt = turn.text if turn is not None else ""


def main(screens):
    FakeAgent(screens, sys.argv[1:]).run()
