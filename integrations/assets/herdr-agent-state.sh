#!/bin/sh
# herdr integration for {{LABEL}}: at session start, tells the herdr pane {{LABEL}} runs in which
# {{LABEL}} session it holds, so herdr can resume that session after a restart.
# Installed by `herdr integration install {{TARGET}}`; `herdr integration uninstall {{TARGET}}` removes it.
# HERDR_INTEGRATION_VERSION={{VERSION}}
#
# Usage (as a {{LABEL}} hook command): herdr-agent-state.sh session   (hook JSON on stdin)
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
import sys
import time

AGENT = "{{AGENT}}"
SOURCE = "herdr:" + AGENT
BUDGET_S = 0.5
MAX_ID_BYTES = 512


def session_request(event):
    if not isinstance(event, dict):
        return None
    # Only the main session start names the pane agent; sub-agent events carry their own ids.
    if event.get("hook_event_name", "SessionStart") != "SessionStart":
        return None
    if event.get("agent_id") or event.get("parent_session_id"):
        return None
    session_id = event.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        return None
    if len(session_id.encode()) > MAX_ID_BYTES or any(ord(c) < 32 or ord(c) == 127 for c in session_id):
        return None
    seq = time.time_ns()
    params = {
        "pane_id": os.environ["HERDR_PANE_ID"],
        "source": SOURCE,
        "agent": AGENT,
        "seq": seq,
        "agent_session_id": session_id,
    }
    start = event.get("source")
    if isinstance(start, str) and start:
        params["session_start_source"] = start
    return {"id": SOURCE + ":session:" + str(seq), "method": "pane.report_agent_session", "params": params}


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
    if action != "session":
        return
    try:
        event = json.load(sys.stdin)
    except ValueError:
        return
    request = session_request(event)
    if request is not None:
        send(request)


try:
    main()
except Exception:
    pass
'
python3 -c "$HERDR_REPORT_PY" "${1:-session}" >/dev/null 2>&1
exit 0
