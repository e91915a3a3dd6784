//! `herdr status [server|client] [--json]`: a CLI-local rendering of `ping` plus local facts.
//! Exits 0 whether or not a server is running (scripts read `server.running`).
//!
//! Unlike relayed envelopes, this JSON keeps its own field order (upstream prints a struct).

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
}

impl ClientInfo {
    pub fn current() -> Self {
        let binary = std::env::current_exe()
            .map(|path| path.display().to_string())
            .unwrap_or_else(|err| format!("unknown ({err})"));
        ClientInfo { version: HERDR_VERSION.to_owned(), protocol: PROTOCOL_VERSION, binary }
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

    /// A running server is from another build (version or protocol differ) and should be
    /// restarted to pick up this one. `None` when it cannot be told.
    fn restart_needed(&self) -> Option<bool> {
        match &self.server {
            ServerState::NotRunning => Some(false),
            ServerState::Running(_) => {
                let protocol_differs = self.compatible().map(|ok| !ok)?;
                let version_differs = self.server_version().map(|v| v != self.client.version);
                Some(protocol_differs || version_differs.unwrap_or(false))
            }
        }
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
        ServerState::Running(_) => format!(
            "{indent}status: running\n{indent}version: {}\n{indent}protocol: {}\n{indent}compatible: {}\n\
             {indent}socket: {}\n",
            report.server_version().unwrap_or("unknown"),
            report.server_protocol().map_or_else(|| "unknown".to_owned(), |p| p.to_string()),
            yes_no(report.compatible()),
            report.socket
        ),
    }
}

pub fn full_text(report: &Report) -> String {
    format!(
        "client:\n{}\nserver:\n{}\nupdate:\n  restart_needed: {}\n",
        client_text(&report.client, "  ", false),
        server_text(report, "  "),
        yes_no(report.restart_needed())
    )
}

pub fn client_json(client: &ClientInfo, session: Option<&str>) -> Value {
    json!({
        "version": client.version,
        "channel": CHANNEL,
        "protocol": client.protocol,
        "binary": client.binary,
        "session": session,
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
    Value::Object(server)
}

pub fn full_json(report: &Report) -> Value {
    json!({
        "client": client_json(&report.client, report.session.as_deref()),
        "server": server_json(report),
        "update": {"restart_needed": report.restart_needed()},
    })
}

/// Pings the target without the protocol guard (status must describe any server).
fn probe(target: &Target) -> Result<ServerState, String> {
    let ping = ApiRequest::ping("cli:status");
    match connect::exchange(target.api_socket(), &ping, Some(PING_TIMEOUT)) {
        Ok(reply) => Ok(ServerState::Running(reply.get("result").cloned().unwrap_or_else(|| json!({})))),
        Err(ConnectError::NotRunning) => Ok(ServerState::NotRunning),
        Err(err) => Err(format!("cannot query the herdr server at {}: {err}", target.api_socket().display())),
    }
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
