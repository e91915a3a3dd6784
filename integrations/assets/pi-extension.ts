// herdr integration for {{LABEL}}: reports {{LABEL}}'s lifecycle (working, idle, blocked) and its
// session file to the herdr pane {{LABEL}} runs in, so the pane's state comes from {{LABEL}} itself
// instead of the screen, and herdr can resume the session after a restart.
// Installed by `herdr integration install {{TARGET}}`; `herdr integration uninstall {{TARGET}}` removes it.
// Reinstalling overwrites this file: put extensions of your own beside it instead of editing it.
// HERDR_INTEGRATION_ID={{TARGET}}
// HERDR_INTEGRATION_VERSION={{VERSION}}
//
// Other extensions can mark the pane blocked while they wait for the user:
//   pi.events.emit("herdr:blocked", { message: "waiting for approval" })
// and release it with pi.events.emit("herdr:unblocked", {}).
//
// Outside a herdr pane this does nothing. Reports are fire-and-forget: {{LABEL}} never waits on herdr.
// Written without type annotations on purpose: the same text loads as TypeScript or JavaScript.

import * as net from "node:net";

const SOURCE = "herdr:{{TARGET}}";
const AGENT = "{{AGENT}}";
const SOCKET_TIMEOUT_MS = 500;
// A herdr server that is restarting (live handoff) comes back within a couple of seconds.
const RETRY_DELAYS_MS = [500, 1500];

let lastSeq = 0n;

// Per-source sequence numbers must grow across {{LABEL}} restarts too, so they are wall-clock based
// (nanoseconds, as the shell hooks use), bumped when two reports share a millisecond.
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

// JSON.stringify cannot write a BigInt, and a nanosecond seq does not fit a JS number exactly,
// so the seq is spliced in as digits.
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

function sessionRef(ctx) {
  const ref = {};
  const manager = ctx && ctx.sessionManager;
  if (!manager) return ref;
  try {
    const file = typeof manager.getSessionFile === "function" ? manager.getSessionFile() : undefined;
    if (typeof file === "string" && file.startsWith("/") && file.length <= 4096) ref.agent_session_path = file;
  } catch {}
  try {
    const id = typeof manager.getSessionId === "function" ? manager.getSessionId() : undefined;
    if (typeof id === "string" && id.length > 0 && id.length <= 512) ref.agent_session_id = id;
  } catch {}
  return ref;
}

export default function herdrAgentState(pi) {
  let lastCtx = undefined;
  let busy = false;
  let blockedMessage = undefined;

  const report = (ctx) => {
    if (ctx) lastCtx = ctx;
    const state = blockedMessage !== undefined ? "blocked" : busy ? "working" : "idle";
    const fields = Object.assign({ source: SOURCE, agent: AGENT, state }, sessionRef(lastCtx));
    if (state === "blocked" && blockedMessage) fields.message = blockedMessage;
    void send("pane.report_agent", fields);
  };

  pi.on("session_start", (_event, ctx) => {
    busy = false;
    blockedMessage = undefined;
    report(ctx);
  });
  pi.on("session_switch", (_event, ctx) => {
    busy = false;
    blockedMessage = undefined;
    report(ctx);
  });
  pi.on("agent_start", (_event, ctx) => {
    busy = true;
    report(ctx);
  });
  const settle = (_event, ctx) => {
    busy = false;
    blockedMessage = undefined;
    report(ctx);
  };
  pi.on("agent_end", settle);
  pi.on("agent_settled", settle);

  const bus = pi.events;
  if (bus && typeof bus.on === "function") {
    bus.on("herdr:blocked", (data) => {
      const message = data && typeof data.message === "string" ? data.message.slice(0, 200) : "";
      blockedMessage = message;
      report(undefined);
    });
    bus.on("herdr:unblocked", () => {
      blockedMessage = undefined;
      report(undefined);
    });
  }
}
