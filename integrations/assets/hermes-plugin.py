"""herdr integration for Hermes Agent: tells the herdr pane Hermes runs in which Hermes session it
holds, so herdr can resume it after a restart (`hermes --resume <id>`).

Installed by `herdr integration install hermes`; `herdr integration uninstall hermes` removes it.
Reinstalling overwrites this file: put plugins of your own beside it instead of editing it.
Outside a herdr pane it does nothing; it never raises into Hermes and waits at most half a second.
"""

# HERDR_INTEGRATION_ID=hermes
# HERDR_INTEGRATION_VERSION={{VERSION}}

from __future__ import annotations

import json
import os
import socket
import time

_SOURCE = "herdr:hermes"
_AGENT = "hermes"
_BUDGET_S = 0.5
_MAX_ID_BYTES = 512
# Sessions of the gateway platforms (chat bots) are not the pane's terminal session.
_INTERACTIVE_PLATFORMS = {"cli", "tui", "desktop", "acp", None}


def _pane():
    if os.environ.get("HERDR_ENV") != "1":
        return None
    pane_id = os.environ.get("HERDR_PANE_ID", "").strip()
    socket_path = os.environ.get("HERDR_SOCKET_PATH", "").strip()
    if not pane_id or not socket_path:
        return None
    return pane_id, socket_path


def _send(request: dict, socket_path: str) -> None:
    deadline = time.monotonic() + _BUDGET_S
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.settimeout(_BUDGET_S)
        client.connect(socket_path)
        client.settimeout(max(deadline - time.monotonic(), 0.01))
        client.sendall((json.dumps(request, separators=(",", ":")) + "\n").encode("utf-8"))
        # One request per connection: wait for the answer so the server reads the whole line.
        client.recv(4096)
    finally:
        client.close()


def _report_session(start_source: str, **kwargs) -> None:
    try:
        pane = _pane()
        session_id = kwargs.get("session_id")
        if pane is None or not isinstance(session_id, str) or not session_id:
            return
        if kwargs.get("platform") not in _INTERACTIVE_PLATFORMS:
            return
        if len(session_id.encode()) > _MAX_ID_BYTES or any(ord(c) < 32 or ord(c) == 127 for c in session_id):
            return
        pane_id, socket_path = pane
        seq = time.time_ns()
        params = {
            "pane_id": pane_id,
            "source": _SOURCE,
            "agent": _AGENT,
            "seq": seq,
            "agent_session_id": session_id,
            "session_start_source": start_source,
        }
        request = {"id": f"{_SOURCE}:session:{seq}", "method": "pane.report_agent_session", "params": params}
        _send(request, socket_path)
    except Exception:
        pass


def _session_started(**kwargs) -> None:
    _report_session("startup", **kwargs)


def _session_reset(**kwargs) -> None:
    _report_session("new", **kwargs)


def _session_observed(**kwargs) -> None:
    # `hermes --resume` starts no new session: the first model call names the resumed one.
    _report_session("resume", **kwargs)


def register(ctx):
    ctx.register_hook("on_session_start", _session_started)
    ctx.register_hook("on_session_reset", _session_reset)
    ctx.register_hook("pre_llm_call", _session_observed)
