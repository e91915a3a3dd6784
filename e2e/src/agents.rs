//! Agent-level conveniences for the suites that drive agents: where the scripted fake agents
//! live (`e2e/fake-agents/`), a workspace whose panes find them first on `PATH`, the fakes' event
//! log (when each screen reached the terminal), agent status probes, and a status subscription
//! that timestamps every event the moment it arrives.
//!
//! Everything goes through the real server and the real `herdr` CLI; nothing here imitates herdr.
//! The fakes are programs with a real PTY: herdr identifies them by process and reads their
//! screens exactly as it would the real CLIs.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::cli::CliOutput;
use crate::panes::{self, NewWorkspace};
use crate::schema;
use crate::server::TestServer;
use crate::wait::wait_until;
use crate::wire::LineStream;

/// The folder holding the fake agent programs (`claude`, `codex`, ..., `cursor-agent`).
pub fn fake_agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fake-agents")
}

/// Milliseconds since the Unix epoch, the clock the fakes' event log uses.
pub fn unix_ms(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

/// A workspace whose panes run with the fake agents first on `PATH` and log their screens to
/// [`FakeLog`].
#[derive(Debug, Clone)]
pub struct AgentWorkspace {
    pub ids: NewWorkspace,
    pub log: FakeLog,
}

/// The pane environment that makes `claude` (etc.) typed into a pane's shell run the fake:
/// `PATH` with the fakes first, `FAKE_AGENT_LOG`, and any `FAKE_AGENT_*` knobs given.
pub fn fake_agent_env(server: &TestServer, log: &Path, knobs: &[(&str, &str)]) -> Map<String, Value> {
    let path = server.env().iter().find(|(key, _)| key == "PATH").map(|(_, value)| value.as_str());
    let path = match path {
        Some(rest) => format!("{}:{rest}", fake_agents_dir().display()),
        None => fake_agents_dir().display().to_string(),
    };
    let mut env = Map::new();
    env.insert("PATH".to_owned(), Value::from(path));
    env.insert("FAKE_AGENT_LOG".to_owned(), Value::from(log.display().to_string()));
    for (key, value) in knobs {
        env.insert((*key).to_owned(), Value::from(*value));
    }
    env
}

/// Creates a workspace set up for fake agents and waits until its shell reads input.
pub fn create_agent_workspace(server: &TestServer, knobs: &[(&str, &str)]) -> AgentWorkspace {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let log = server.root().join(format!("fake-agents-{n}.log"));
    let env = fake_agent_env(server, &log, knobs);
    let created = server.call("workspace.create", json!({"label": format!("agents-{n}"), "env": env}));
    assert_eq!(created["type"], "workspace_created", "{created}");
    let text =
        |value: &Value| value.as_str().unwrap_or_else(|| panic!("expected a string in {created}")).to_owned();
    let ids = NewWorkspace {
        workspace_id: text(&created["workspace"]["workspace_id"]),
        tab_id: text(&created["tab"]["tab_id"]),
        pane_id: text(&created["root_pane"]["pane_id"]),
    };
    panes::settle(server, &ids.pane_id);
    AgentWorkspace { ids, log: FakeLog { path: log } }
}

/// `herdr agent start NAME --kind KIND --pane PANE --timeout 20000`: returns the CLI output
/// (the caller decides whether it must succeed).
pub fn start_agent(server: &TestServer, name: &str, kind: &str, pane: &str) -> CliOutput {
    server.cli(&["agent", "start", name, "--kind", kind, "--pane", pane, "--timeout", "20000"])
}

/// `agent.get` through the socket; the `AgentInfo` record.
pub fn agent_info(server: &TestServer, target: &str) -> Value {
    let result = server.call("agent.get", json!({"target": target}));
    assert_eq!(result["type"], "agent_info", "{result}");
    result["agent"].clone()
}

/// The agent's `agent_status` as `agent.get` reports it.
pub fn status(server: &TestServer, target: &str) -> String {
    agent_info(server, target)["agent_status"].as_str().unwrap_or_default().to_owned()
}

/// Polls `agent.get` until the status is one of `wanted`; returns the `AgentInfo`.
pub fn wait_status(server: &TestServer, target: &str, wanted: &[&str], timeout: Duration) -> Value {
    wait_until(&format!("agent {target} to be {wanted:?}"), timeout, || {
        let answer = server.request("agent.get", json!({"target": target}));
        let info = &answer["result"]["agent"];
        match info["agent_status"].as_str() {
            Some(status) if wanted.contains(&status) => Ok(info.clone()),
            _ => Err(answer.to_string()),
        }
    })
}

/// `agent.explain` through the socket (schema-checked); the free-form `explain` object.
pub fn explain(server: &TestServer, target: &str) -> Value {
    let result = server.call("agent.explain", json!({"target": target}));
    assert_eq!(result["type"], "agent_explain", "{result}");
    result["explain"].clone()
}

/// The id of the rule an explanation says won, if any.
pub fn winning_rule(explain: &Value) -> Option<String> {
    explain["matched_rule"]["id"].as_str().map(str::to_owned)
}

/// The JSON-lines event log the fakes write (`FAKE_AGENT_LOG`).
#[derive(Debug, Clone)]
pub struct FakeLog {
    pub path: PathBuf,
}

/// One line of the fakes' log.
#[derive(Debug, Clone)]
pub struct FakeEvent {
    /// Unix milliseconds, taken right after the frame showing the event reached the terminal.
    pub t_ms: f64,
    pub agent: String,
    pub pid: i64,
    pub event: String,
    pub raw: Value,
}

impl FakeLog {
    /// Every event so far (an absent log is empty: the fake has not started).
    pub fn events(&self) -> Vec<FakeEvent> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == ErrorKind::NotFound => String::new(),
            Err(error) => panic!("cannot read {}: {error}", self.path.display()),
        };
        text.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .map(|raw| FakeEvent {
                t_ms: raw["t_ms"].as_f64().unwrap_or_default(),
                agent: raw["agent"].as_str().unwrap_or_default().to_owned(),
                pid: raw["pid"].as_i64().unwrap_or_default(),
                event: raw["event"].as_str().unwrap_or_default().to_owned(),
                raw,
            })
            .collect()
    }

    /// How many events are logged now (a mark to wait for later events from).
    pub fn mark(&self) -> usize {
        self.events().len()
    }

    /// Waits for the first `event` logged after `mark`.
    pub fn wait_event(&self, event: &str, mark: usize, timeout: Duration) -> FakeEvent {
        wait_until(&format!("the fake agent to log {event:?}"), timeout, || {
            let events = self.events();
            events
                .iter()
                .skip(mark)
                .find(|e| e.event == event)
                .cloned()
                .ok_or_else(|| format!("{:?}", events.iter().map(|e| e.event.as_str()).collect::<Vec<_>>()))
        })
    }
}

/// One event line received on a subscription, stamped with its arrival time.
#[derive(Debug, Clone)]
pub struct Received {
    pub at: SystemTime,
    pub line: Value,
}

/// An `events.subscribe` connection read by its own thread, so every line is timestamped the
/// moment it arrives (not when the test gets round to reading it). Each line is schema-checked.
#[derive(Debug)]
pub struct Subscription {
    lines: Receiver<Result<Received, String>>,
}

impl Subscription {
    /// Subscribes to `subscriptions` and waits for the `subscription_started` ack.
    pub fn open(server: &TestServer, subscriptions: Value) -> Self {
        let request = json!({"id": "e2e:agents:subscribe", "method": "events.subscribe",
            "params": {"subscriptions": subscriptions}});
        schema::validate_request(&request).expect("a valid subscribe request");
        let mut stream = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
        let ack = stream.next_line(crate::PATIENCE).expect("read the subscription ack").expect("an ack line");
        let ack = server.check_line(&ack).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(ack["result"]["type"], "subscription_started", "subscribe {subscriptions}: {ack}");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            loop {
                match stream.next_line(Duration::from_secs(3600)) {
                    Ok(Some(line)) => {
                        let at = SystemTime::now();
                        // Problems travel to the test thread: a panic here would fail nothing.
                        let checked = match serde_json::from_str::<Value>(&line) {
                            Ok(value) => match schema::validate_line(&value) {
                                Ok(_) => Ok(Received { at, line: value }),
                                Err(violation) => {
                                    Err(format!("schema violation: {violation}\n  line: {line}"))
                                }
                            },
                            Err(error) => Err(format!("non-JSON event line ({error}): {line}")),
                        };
                        if sender.send(checked).is_err() {
                            return;
                        }
                    }
                    Ok(None) | Err(_) => return,
                }
            }
        });
        Self { lines }
    }

    /// Subscribes to `pane.agent_status_changed` for one pane.
    pub fn agent_status(server: &TestServer, pane_id: &str) -> Self {
        Self::open(server, json!([{"type": "pane.agent_status_changed", "pane_id": pane_id}]))
    }

    /// The next line within `timeout`, if any.
    pub fn next(&self, timeout: Duration) -> Option<Received> {
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(received)) => Some(received),
            Ok(Err(problem)) => panic!("{problem}"),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one satisfies `wanted`, collecting every line read on the way (the
    /// match included) into `seen`. Panics after `timeout` with everything seen.
    pub fn until(
        &self,
        what: &str,
        timeout: Duration,
        seen: &mut Vec<Received>,
        wanted: impl Fn(&Value) -> bool,
    ) -> Received {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(received) = self.next(left) else {
                let lines: Vec<String> = seen.iter().map(|r| r.line.to_string()).collect();
                panic!("no {what} within {timeout:?}; received:\n{}", lines.join("\n"));
            };
            seen.push(received.clone());
            if wanted(&received.line) {
                return received;
            }
        }
    }
}

/// The status a `pane.agent_status_changed` subscription line carries, if it is one.
pub fn event_status(line: &Value) -> Option<&str> {
    (line["event"] == "pane.agent_status_changed").then(|| line["data"]["agent_status"].as_str()).flatten()
}
