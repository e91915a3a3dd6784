// herdr integration for {{LABEL}}: reports {{LABEL}}'s lifecycle (working, idle, blocked on a
// permission or question) and its session id to the herdr pane {{LABEL}} runs in, so the pane's
// state comes from {{LABEL}} itself instead of the screen, and herdr can resume the session.
// Installed by `herdr integration install {{TARGET}}`; `herdr integration uninstall {{TARGET}}`
// removes it. Reinstalling overwrites this file: put plugins of your own beside it instead.
// HERDR_INTEGRATION_ID={{TARGET}}
// HERDR_INTEGRATION_VERSION={{VERSION}}
//
// Outside a herdr pane this does nothing. Reports are fire-and-forget: {{LABEL}} never waits.

import * as net from "node:net";

const SOURCE = "herdr:{{TARGET}}";
const AGENT = "{{AGENT}}";
const SOCKET_TIMEOUT_MS = 500;
// A herdr server that is restarting (live handoff) comes back within a couple of seconds.
const RETRY_DELAYS_MS = [500, 1500];

let lastSeq = 0n;

// Per-source sequence numbers must grow across restarts too: wall-clock nanoseconds, bumped
// when two reports share a millisecond.
function nextSeq() {
  const now = BigInt(Date.now()) * 1000000n;
  lastSeq = now > lastSeq ? now : lastSeq + 1n;
  return lastSeq;
}

function herdrPane() {
  const env = process.env;
  if (env.HERDR_ENV !== "1" || !env.HERDR_SOCKET_PATH || !env.HERDR_PANE_ID) return null;
  return { socketPath: env.HERDR_SOCKET_PATH, paneId: env.HERDR_PANE_ID };
}

// A nanosecond seq does not fit a JS number exactly, so it is spliced in as digits.
function requestLine(method, params, seq) {
  const body = JSON.stringify(params);
  const paramsWithSeq = '{"seq":' + seq.toString() + (body === "{}" ? "}" : "," + body.slice(1));
  const id = JSON.stringify(SOURCE + ":" + seq.toString());
  return '{"id":' + id + ',"method":' + JSON.stringify(method) + ',"params":' + paramsWithSeq + "}\n";
}

function sendOnce(socketPath, line) {
  return new Promise((resolve) => {
    let settled = false;
    const socket = net.createConnection(socketPath);
    const finish = (answered) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(SOCKET_TIMEOUT_MS, () => finish(false));
    socket.on("connect", () => socket.write(line));
    socket.on("data", () => finish(true));
    socket.on("error", () => finish(false));
    socket.on("close", () => finish(false));
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function send(method, fields) {
  try {
    const pane = herdrPane();
    if (!pane) return;
    const line = requestLine(method, Object.assign({ pane_id: pane.paneId }, fields), nextSeq());
    for (let attempt = 0; ; attempt++) {
      if (await sendOnce(pane.socketPath, line)) return;
      if (attempt >= RETRY_DELAYS_MS.length) return;
      await sleep(RETRY_DELAYS_MS[attempt]);
    }
  } catch {
    // Never let herdr's reporting disturb {{LABEL}}.
  }
}

function sessionIdOf(event) {
  const props = event && event.properties;
  if (!props) return undefined;
  if (typeof props.sessionID === "string") return props.sessionID;
  if (props.info && typeof props.info.id === "string") return props.info.id;
  return undefined;
}

export const HerdrAgentState = async () => {
  // Sub-agent (child) sessions run inside the main one: their busy/idle is not the pane's.
  const childSessions = new Set();
  // Permission and question requests waiting for the user, from any session: they block the UI.
  const pending = new Set();
  let mainSession = undefined;
  let busy = false;
  let lastReported = undefined;

  const report = (force) => {
    const state = pending.size > 0 ? "blocked" : busy ? "working" : "idle";
    const key = state + "|" + (mainSession || "");
    if (!force && key === lastReported) return;
    lastReported = key;
    const fields = { source: SOURCE, agent: AGENT, state };
    if (mainSession && mainSession.length <= 512) fields.agent_session_id = mainSession;
    void send("pane.report_agent", fields);
  };

  const isMain = (sessionID) => {
    if (!sessionID || childSessions.has(sessionID)) return false;
    if (mainSession !== sessionID) {
      mainSession = sessionID;
      busy = false;
    }
    return true;
  };

  const requestKey = (props) => (props && (props.id || props.requestID || props.permissionID)) || "request";

  return {
    event: async ({ event }) => {
      try {
        const props = (event && event.properties) || {};
        switch (event && event.type) {
          case "session.created":
          case "session.updated": {
            const info = props.info || {};
            if (info.parentID && info.id) childSessions.add(info.id);
            else if (event.type === "session.created" && info.id && isMain(info.id)) report(false);
            break;
          }
          case "session.status": {
            if (!isMain(sessionIdOf(event))) break;
            const type = props.status && props.status.type;
            busy = type === "busy" || type === "retry";
            report(false);
            break;
          }
          case "session.idle":
          case "session.error": {
            if (!isMain(sessionIdOf(event))) break;
            busy = false;
            report(false);
            break;
          }
          case "permission.asked":
          case "permission.updated":
          case "question.asked":
            pending.add(requestKey(props));
            report(false);
            break;
          case "permission.replied":
          case "question.replied":
          case "question.rejected":
            pending.delete(requestKey(props));
            report(false);
            break;
          default:
            break;
        }
      } catch {
        // Never let herdr's reporting disturb {{LABEL}}.
      }
    },
  };
};
