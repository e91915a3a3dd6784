//! One planned API call: the request line a command sends (fixed CLI id, method, params) and how
//! its reply is printed. Building these is pure, so every command's request is unit-tested
//! without a server.

use std::path::PathBuf;

use serde_json::{Map, Value};

/// A request envelope `{"id", "method", "params"}`. `params` is always present (the server
/// rejects a request without it), and optional fields are left out rather than sent as null.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    pub id: &'static str,
    pub method: &'static str,
    pub params: Map<String, Value>,
}

impl ApiRequest {
    pub fn new(id: &'static str, method: &'static str) -> Self {
        ApiRequest { id, method, params: Map::new() }
    }

    /// Sets a parameter.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.params = Fields(self.params).with(key, value).0;
        self
    }

    /// Sets a parameter only when it has a value.
    pub fn with_opt<V: Into<Value>>(mut self, key: &str, value: Option<V>) -> Self {
        self.params = Fields(self.params).with_opt(key, value).0;
        self
    }

    /// Sets a boolean parameter only when it is true (the server default is false).
    pub fn with_flag(mut self, key: &str, on: bool) -> Self {
        self.params = Fields(self.params).with_flag(key, on).0;
        self
    }

    /// Sets an object parameter only when it has entries.
    pub fn with_map(mut self, key: &str, map: Map<String, Value>) -> Self {
        self.params = Fields(self.params).with_map(key, map).0;
        self
    }

    pub fn to_value(&self) -> Value {
        let mut envelope = Map::new();
        envelope.insert("id".into(), Value::from(self.id));
        envelope.insert("method".into(), Value::from(self.method));
        envelope.insert("params".into(), Value::Object(self.params.clone()));
        Value::Object(envelope)
    }

    /// The NDJSON line to write (without the trailing newline).
    pub fn to_line(&self) -> String {
        self.to_value().to_string()
    }

    /// Whether the server may hold the connection open until something happens, so the CLI must
    /// not time out its read.
    pub fn waits(&self) -> bool {
        matches!(self.method, "agent.wait" | "pane.wait_for_output" | "events.wait")
            || (self.method == "agent.prompt" && self.params.contains_key("wait"))
    }
}

/// A JSON object built field by field, leaving out absent optional values (request params and
/// nested parameter objects such as a `pane.move` destination).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields(pub Map<String, Value>);

impl Fields {
    pub fn new() -> Self {
        Fields(Map::new())
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_opt<V: Into<Value>>(self, key: &str, value: Option<V>) -> Self {
        match value {
            Some(value) => self.with(key, value),
            None => self,
        }
    }

    pub fn with_flag(self, key: &str, on: bool) -> Self {
        if on { self.with(key, true) } else { self }
    }

    pub fn with_map(self, key: &str, map: Map<String, Value>) -> Self {
        if map.is_empty() { self } else { self.with(key, Value::Object(map)) }
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
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
