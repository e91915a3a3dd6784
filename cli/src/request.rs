//! One planned API call: the request line a command sends (fixed CLI id, method, params) and how
//! its reply is printed. Building these is pure, so every command's request is unit-tested
//! without a server.

use std::path::PathBuf;

use herdr_protocol::api::requests::{AgentRequest, EmptyParams, EventsRequest, PaneRequest, ServerRequest};
use herdr_protocol::api::{Request, RequestEnvelope};
use serde_json::Value;

/// A request envelope `{"id", "method", "params"}` built from the protocol's typed request.
/// `params` is always present (the server rejects a request without it), and optional fields
/// are left out rather than sent as null (the protocol types skip them).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    pub id: &'static str,
    pub request: Request,
}

impl ApiRequest {
    pub fn new(id: &'static str, request: Request) -> Self {
        ApiRequest { id, request }
    }

    /// `ping`, as the protocol guard and `herdr status` send it.
    pub fn ping(id: &'static str) -> Self {
        ApiRequest::new(id, Request::Server(ServerRequest::Ping(EmptyParams {})))
    }

    pub fn method(&self) -> &'static str {
        self.request.method()
    }

    /// The envelope as JSON.
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        RequestEnvelope::new(self.id, self.request.clone()).to_value()
    }

    /// The envelope, for tests that pin it.
    #[cfg(test)]
    pub fn to_value(&self) -> Value {
        self.to_json().expect("protocol requests serialize (string map keys only)")
    }

    /// The NDJSON line to write (without the trailing newline).
    pub fn to_line(&self) -> Result<String, serde_json::Error> {
        self.to_json().map(|value| value.to_string())
    }

    /// Whether the server may hold the connection open until something happens, so the CLI must
    /// not time out its read.
    pub fn waits(&self) -> bool {
        match &self.request {
            Request::Agent(AgentRequest::Wait(_))
            | Request::Pane(PaneRequest::WaitForOutput(_))
            | Request::Events(EventsRequest::Wait(_)) => true,
            Request::Agent(AgentRequest::Prompt(p)) => p.wait.is_some(),
            _ => false,
        }
    }
}

/// How a command prints the server's reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The whole envelope, keys sorted: success on stdout (exit 0), error on stderr (exit 1).
    Envelope,
    /// Nothing on success; the error envelope on stderr (exit 1).
    Silent,
    /// `.result.read.text` verbatim on success; the error envelope on stderr (exit 1).
    ReadText,
    /// `agent explain`: the `.result.explain` object as JSON, or as text lines.
    Explain { json: bool, verbose: bool },
    /// `server agent-manifests` without `--json`: the manifest status as text lines.
    ManifestStatus,
}

/// A request plus how to print its reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiCall {
    pub request: ApiRequest,
    pub reply: Reply,
}

impl ApiCall {
    pub fn envelope(request: ApiRequest) -> Self {
        ApiCall { request, reply: Reply::Envelope }
    }

    pub fn silent(request: ApiRequest) -> Self {
        ApiCall { request, reply: Reply::Silent }
    }

    pub fn read_text(request: ApiRequest) -> Self {
        ApiCall { request, reply: Reply::ReadText }
    }
}

/// A command line clap accepted but the command's own rules reject (exit 2, text on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        UsageError(message.into())
    }
}

/// What the caller's environment contributes to requests (`--current`, `pane current`, worktree
/// paths made absolute).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// `HERDR_PANE_ID` when set and non-blank.
    pub pane_id: Option<String>,
    /// The working directory.
    pub cwd: Option<PathBuf>,
    /// `HOME`, for `~` in paths.
    pub home: Option<PathBuf>,
}

impl Caller {
    pub fn from_process_env() -> Self {
        let pane_id = std::env::var("HERDR_PANE_ID").ok().filter(|v| !v.trim().is_empty());
        let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
        Caller { pane_id, cwd: std::env::current_dir().ok(), home }
    }
}

/// The id used by upstream for commands that print nothing on success.
pub const SILENT_ID: &str = "cli:request";
