#!/bin/sh
# herdr integration for {{LABEL}}: tells the herdr pane {{LABEL}} runs in which {{LABEL}} session
# it holds (so herdr can resume it after a restart){{LIFECYCLE_NOTE}}.
# Installed by `herdr integration install {{TARGET}}`; `herdr integration uninstall {{TARGET}}` removes it.
# Reinstalling overwrites this file: put hooks of your own beside it instead of editing it.
# HERDR_INTEGRATION_ID={{TARGET}}
# HERDR_INTEGRATION_VERSION={{VERSION}}
#
# Usage (as a {{LABEL}} hook command): herdr-agent-state.sh ACTION   (hook JSON on stdin)
#   session                  report the session the hook event names
#   working | idle | blocked report the agent's state (full-lifecycle integrations only)
# Outside a herdr pane this does nothing. It prints nothing, always exits 0, and spends at most
# half a second on herdr's socket: a hook must never slow down or fail the agent.

[ "${HERDR_ENV:-}" = "1" ] || exit 0
[ -n "${HERDR_SOCKET_PATH:-}" ] || exit 0
[ -n "${HERDR_PANE_ID:-}" ] || exit 0
command -v python3 >/dev/null 2>&1 || exit 0

# Python gives a Unix socket client with a timeout and a JSON encoder on every machine an agent
# runs on; the program is passed with -c so the hook JSON stays on its stdin.
HERDR_REPORT_PY='
import json
import os
import socket
import subprocess
import sys
import time

AGENT = "{{AGENT}}"
SOURCE = "herdr:{{TARGET}}"
# The events whose "session" action names the pane agent session (normalized); empty: any.
SESSION_EVENTS = {{SESSION_EVENTS}}
LIFECYCLE = {{LIFECYCLE}}
DEVIN_LIST = {{DEVIN_LIST}}
BUDGET_S = 0.5
MAX_ID_BYTES = 512
ID_KEYS = ("session_id", "sessionId", "conversation_id", "conversationId")
EVENT_KEYS = ("hook_event_name", "hookEventName", "event")
# Sub-agents run inside the main session and carry their own ids: they never name the pane.
SUBAGENT_KEYS = ("agent_id", "agentId", "subagent_id", "subagentId", "parent_session_id", "parentSessionId")
SUBAGENT_EVENTS = ("subagentstart", "subagentstop", "subagentend")
STATES = ("working", "idle", "blocked")


def normalized(name):
    return name.replace("_", "").replace("-", "").lower()


def text_field(event, keys):
    for key in keys:
        value = event.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def valid_id(value):
    if len(value.encode()) > MAX_ID_BYTES:
        return False
    return not any(ord(c) < 32 or ord(c) == 127 for c in value)


def devin_session():
    # Devin names its session only in `devin list`: the newest one of this directory.
    project = os.environ.get("DEVIN_PROJECT_DIR") or os.getcwd()
    try:
        listed = subprocess.run(["devin", "list", "--format", "json"], cwd=project, capture_output=True,
                                text=True, timeout=2, check=False)
        entries = json.loads(listed.stdout) if listed.returncode == 0 else []
    except Exception:
        return None
    here = os.path.realpath(project)
    fallback = None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        fallback = fallback or entry["id"]
        cwd = entry.get("working_directory")
        if isinstance(cwd, str) and os.path.realpath(cwd) == here:
            return entry["id"]
    return fallback


def build_request(action, event):
    if not isinstance(event, dict):
        event = {}
    if any(event.get(key) for key in SUBAGENT_KEYS):
        return None
    name = normalized(text_field(event, EVENT_KEYS) or "")
    if name in SUBAGENT_EVENTS:
        return None
    session_id = text_field(event, ID_KEYS)
    if session_id is None and DEVIN_LIST:
        session_id = devin_session()
    if session_id is not None and not valid_id(session_id):
        session_id = None
    seq = time.time_ns()
    params = {"pane_id": os.environ["HERDR_PANE_ID"], "source": SOURCE, "agent": AGENT, "seq": seq}
    if action == "session":
        if SESSION_EVENTS and name and name not in SESSION_EVENTS:
            return None
        if session_id is None:
            return None
        params["agent_session_id"] = session_id
        start = event.get("source")
        if isinstance(start, str) and start:
            params["session_start_source"] = start
        method = "pane.report_agent_session"
    elif LIFECYCLE and action in STATES:
        params["state"] = action
        if session_id is not None:
            params["agent_session_id"] = session_id
        method = "pane.report_agent"
    else:
        return None
    return {"id": SOURCE + ":" + action + ":" + str(seq), "method": method, "params": params}


def send(request):
    line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
    deadline = time.monotonic() + BUDGET_S
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def remaining():
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("herdr socket budget spent")
        return left

    try:
        sock.settimeout(remaining())
        sock.connect(os.environ["HERDR_SOCKET_PATH"])
        sock.settimeout(remaining())
        sock.sendall(line)
        # One request per connection: wait for the answer so the server reads the whole line.
        sock.settimeout(remaining())
        sock.recv(4096)
    finally:
        sock.close()


def main():
    action = sys.argv[1] if len(sys.argv) > 1 else "session"
    try:
        text = sys.stdin.read()
        event = json.loads(text) if text.strip() else {}
    except ValueError:
        return
    request = build_request(action, event)
    if request is not None:
        send(request)


try:
    main()
except Exception:
    pass
'
python3 -c "$HERDR_REPORT_PY" "${1:-session}" >/dev/null 2>&1
exit 0
