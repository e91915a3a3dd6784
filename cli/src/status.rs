//! `herdr status [server|client] [--json]`: a CLI-local rendering of `ping` plus local facts.
//! Exits 0 whether or not a server is running (scripts read `server.running`).
//!
//! Unlike relayed envelopes, this JSON keeps its own field order (upstream prints a struct).
//! Ours adds, after upstream's fields, the running server's binary and how it runs (`ping`'s
//! `binary` and `service`), and `restart_needed` is also true when that binary is not this
//! `herdr` (an install replaced the file, or the server runs a copy elsewhere).

use clap::{Args, Subcommand};
use serde_json::{Map, Value, json};

use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};

use crate::connect::{self, ConnectError, PING_TIMEOUT};
use crate::output::{EXIT_ERROR, Rendered};
use crate::request::ApiRequest;
use crate::target::Target;

/// This build has no update channels; it reports the default one.
const CHANNEL: &str = "stable";

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub scope: Option<StatusScope>,
}

#[derive(Debug, Subcommand)]
pub enum StatusScope {
    /// Show running server status
    Server {
        #[arg(long)]
        json: bool,
    },
    /// Show local client status
    Client {
        #[arg(long)]
        json: bool,
    },
}

/// Facts about this `herdr` binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    pub version: String,
    pub protocol: u32,
    pub binary: String,
    /// The running image's identity (`herdr_host::build_info`), compared with the server's.
    pub identity: String,
}

impl ClientInfo {
    pub fn current() -> Self {
        let binary = std::env::current_exe()
            .map(|path| path.display().to_string())
            .unwrap_or_else(|err| format!("unknown ({err})"));
        ClientInfo {
            version: HERDR_VERSION.to_owned(),
            protocol: PROTOCOL_VERSION,
            binary,
            identity: herdr_host::build_info::current_identity(),
        }
    }
}

/// Why a running server should be restarted (or handed over) to run this `herdr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestartReason {
    Protocol,
    Version,
    /// Same version and protocol, but another file: a rebuild, an install, a copy.
    Binary,
}

impl RestartReason {
    pub fn describe(self) -> &'static str {
        match self {
            RestartReason::Protocol => "the server speaks another protocol",
            RestartReason::Version => "the server is another version",
            RestartReason::Binary => "the server runs another build of herdr than this binary",
        }
    }
}

/// What `ping` said, if anything answered.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerState {
    NotRunning,
    /// The `result` of the ping reply (empty when the server answered with an error).
    Running(Value),
}

/// Everything one status report shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub client: ClientInfo,
    pub server: ServerState,
    pub socket: String,
    pub session: Option<String>,
}

impl Report {
    fn server_version(&self) -> Option<&str> {
        match &self.server {
            ServerState::Running(pong) => pong["version"].as_str(),
            ServerState::NotRunning => None,
        }
    }

    fn server_protocol(&self) -> Option<u64> {
        match &self.server {
            ServerState::Running(pong) => pong["protocol"].as_u64(),
            ServerState::NotRunning => None,
        }
    }

    fn compatible(&self) -> Option<bool> {
        self.server_protocol().map(|p| p == u64::from(self.client.protocol))
    }

    fn pong_field(&self, field: &str) -> Option<&Value> {
        match &self.server {
            ServerState::Running(pong) => pong.get(field).filter(|v| !v.is_null()),
            ServerState::NotRunning => None,
        }
    }

    /// Whether the server runs this very binary; `None` when it does not say (an older build,
    /// or upstream) or this process cannot tell its own identity.
    pub fn same_binary(&self) -> Option<bool> {
        let theirs = self.pong_field("binary")?.get("identity")?.as_str()?;
        if self.client.identity.starts_with("unknown") {
            return None;
        }
        Some(theirs == self.client.identity)
    }

    /// Why a running server should be restarted to pick up this build: `Some(None)` when it
    /// need not be (or none runs), `None` when it cannot be told (the server's protocol is
    /// unknown).
    pub fn restart_reason(&self) -> Option<Option<RestartReason>> {
        match &self.server {
            ServerState::NotRunning => Some(None),
            ServerState::Running(_) => {
                let protocol_differs = self.compatible().map(|ok| !ok)?;
                let version_differs = self.server_version().is_some_and(|v| v != self.client.version);
                Some(if protocol_differs {
                    Some(RestartReason::Protocol)
                } else if version_differs {
                    Some(RestartReason::Version)
                } else if self.same_binary() == Some(false) {
                    Some(RestartReason::Binary)
                } else {
                    None
                })
            }
        }
    }

    /// A running server is from another build (protocol, version or binary differ) and should
    /// be restarted to pick up this one. `None` when it cannot be told.
    fn restart_needed(&self) -> Option<bool> {
        self.restart_reason().map(|reason| reason.is_some())
    }

    /// `systemd (herdr.service), pid 42` / `detached, pid 42`.
    fn service_text(&self) -> Option<String> {
        let service = self.pong_field("service")?;
        let mode = service.get("mode")?.as_str()?;
        let unit = service.get("unit").and_then(Value::as_str).map(|u| format!(" ({u})")).unwrap_or_default();
        let pid =
            service.get("pid").and_then(Value::as_u64).map(|p| format!(", pid {p}")).unwrap_or_default();
        Some(format!("{mode}{unit}{pid}"))
    }
}

fn yes_no(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

pub fn client_text(client: &ClientInfo, indent: &str, with_binary: bool) -> String {
    let mut out = format!(
        "{indent}version: {}\n{indent}channel: {CHANNEL}\n{indent}protocol: {}\n",
        client.version, client.protocol
    );
    if with_binary {
        out.push_str(&format!("{indent}binary: {}\n", client.binary));
    }
    out
}

pub fn server_text(report: &Report, indent: &str) -> String {
    match &report.server {
        ServerState::NotRunning => {
            format!("{indent}status: not running\n{indent}socket: {}\n", report.socket)
        }
        ServerState::Running(_) => {
            let mut out = format!(
                "{indent}status: running\n{indent}version: {}\n{indent}protocol: {}\n{indent}compatible: {}\n\
                 {indent}socket: {}\n",
                report.server_version().unwrap_or("unknown"),
                report.server_protocol().map_or_else(|| "unknown".to_owned(), |p| p.to_string()),
                yes_no(report.compatible()),
                report.socket
            );
            // Ours, after upstream's lines (parsers read the ones they know).
            if let Some(path) =
                report.pong_field("binary").and_then(|b| b.get("path")).and_then(Value::as_str)
            {
                out.push_str(&format!("{indent}binary: {path}\n"));
                out.push_str(&format!("{indent}same_binary: {}\n", yes_no(report.same_binary())));
            }
            if let Some(service) = report.service_text() {
                out.push_str(&format!("{indent}service: {service}\n"));
            }
            out
        }
    }
}

pub fn full_text(report: &Report) -> String {
    let mut out = format!(
        "client:\n{}\nserver:\n{}\nupdate:\n  restart_needed: {}\n",
        client_text(&report.client, "  ", false),
        server_text(report, "  "),
        yes_no(report.restart_needed())
    );
    if let Some(Some(reason)) = report.restart_reason() {
        out.push_str(&format!("  reason: {}\n  hint: {}\n", reason.describe(), restart_hint(report)));
    }
    out
}

/// How to pick up this build without losing a pane.
fn restart_hint(report: &Report) -> String {
    let systemd = report
        .pong_field("service")
        .and_then(|s| s.get("mode"))
        .and_then(Value::as_str)
        .is_some_and(|mode| mode == "systemd");
    let unit = report.pong_field("service").and_then(|s| s.get("unit")).and_then(Value::as_str);
    match (systemd, unit) {
        (true, Some(unit)) => format!("systemctl --user reload {unit} (or herdr update --handoff)"),
        _ => "herdr update --handoff".to_owned(),
    }
}

pub fn client_json(client: &ClientInfo, session: Option<&str>) -> Value {
    json!({
        "version": client.version,
        "channel": CHANNEL,
        "protocol": client.protocol,
        "binary": client.binary,
        "session": session,
        "identity": client.identity,
    })
}

pub fn server_json(report: &Report) -> Value {
    let running = matches!(report.server, ServerState::Running(_));
    let capabilities = match &report.server {
        ServerState::Running(pong) => pong.get("capabilities").cloned().unwrap_or(Value::Null),
        ServerState::NotRunning => Value::Null,
    };
    let mut server = Map::new();
    server.insert("status".into(), Value::from(if running { "running" } else { "not_running" }));
    server.insert("running".into(), Value::from(running));
    server.insert("version".into(), report.server_version().map_or(Value::Null, Value::from));
    server.insert("protocol".into(), report.server_protocol().map_or(Value::Null, Value::from));
    server.insert("capabilities".into(), capabilities);
    server.insert("compatible".into(), report.compatible().map_or(Value::Null, Value::from));
    server.insert("socket".into(), Value::from(report.socket.as_str()));
    server.insert("session".into(), report.session.as_deref().map_or(Value::Null, Value::from));
    server.insert("restart_needed".into(), report.restart_needed().map_or(Value::Null, Value::from));
    // Ours, after upstream's fields.
    server.insert("binary".into(), report.pong_field("binary").cloned().unwrap_or(Value::Null));
    server.insert("same_binary".into(), report.same_binary().map_or(Value::Null, Value::from));
    server.insert("service".into(), report.pong_field("service").cloned().unwrap_or(Value::Null));
    Value::Object(server)
}

pub fn full_json(report: &Report) -> Value {
    let reason = report.restart_reason().flatten().map(RestartReason::describe);
    json!({
        "client": client_json(&report.client, report.session.as_deref()),
        "server": server_json(report),
        "update": {"restart_needed": report.restart_needed(), "reason": reason},
    })
}

/// Pings the target without the protocol guard (status must describe any server).
fn probe(target: &Target) -> Result<ServerState, ProbeError> {
    let ping = ApiRequest::ping("cli:status");
    match connect::exchange(target.api_socket(), &ping, Some(PING_TIMEOUT)) {
        Ok(reply) => Ok(ServerState::Running(reply.get("result").cloned().unwrap_or_else(|| json!({})))),
        Err(ConnectError::NotRunning) => Ok(ServerState::NotRunning),
        Err(reason) => Err(ProbeError { socket: target.api_socket().to_path_buf(), reason }),
    }
}

/// A server that is there but did not answer the status ping.
#[derive(Debug, thiserror::Error)]
#[error("cannot query the herdr server at {}: {reason}", socket.display())]
struct ProbeError {
    socket: std::path::PathBuf,
    reason: ConnectError,
}

pub fn run(args: &StatusArgs, target: &Target) -> Rendered {
    let client = ClientInfo::current();
    if let Some(StatusScope::Client { json }) = &args.scope {
        return if *json || args.json {
            Rendered::stdout(format!("{}\n", client_json(&client, target.session_name())))
        } else {
            Rendered::stdout(client_text(&client, "", true))
        };
    }
    let server = match probe(target) {
        Ok(server) => server,
        Err(message) => return Rendered::stderr(format!("{message}\n"), EXIT_ERROR),
    };
    let report = Report {
        client,
        server,
        socket: target.api_socket().display().to_string(),
        session: target.session_name().map(str::to_owned),
    };
    match &args.scope {
        Some(StatusScope::Server { json }) if *json || args.json => {
            Rendered::stdout(format!("{}\n", server_json(&report)))
        }
        Some(StatusScope::Server { .. }) => Rendered::stdout(server_text(&report, "")),
        _ if args.json => Rendered::stdout(format!("{}\n", full_json(&report))),
        _ => Rendered::stdout(full_text(&report)),
    }
}

#[cfg(test)]
mod tests;
