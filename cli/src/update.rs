//! `herdr update [--handoff]`. This build has no download channel: a new build is installed with
//! `scripts/install`, and `herdr update --handoff` then hands every running session (or the one
//! `--session NAME` names) to this binary with a live handoff, skipping servers that already run
//! it. Whether a server runs this binary is told by `ping`'s `binary.identity` (see
//! `herdr_host::build_info`), not by version: a rebuild keeps the version.
//!
//! The decision per session is pure ([`decide`]); [`run`] is the socket and file-system edge.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use serde_json::Value;

use herdr_protocol::paths::{self, API_SOCKET_NAME, DEFAULT_SESSION_NAME, PathEnv, SessionName};
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};

use crate::connect::{self, ConnectError, PING_TIMEOUT};
use crate::output::{EXIT_ERROR, Rendered};
use crate::request::ApiRequest;

/// A handoff is a few steps of at most 30 s each on the server's side; past this the server is
/// taken to be stuck (it rolls back by itself).
const HANDOFF_TIMEOUT: Duration = Duration::from_secs(180);

/// Printed (usage error) for `herdr update` without `--handoff`.
pub const NO_CHANNEL_MESSAGE: &str = "herdr update: this build has no download channel.\n\
Install a new build from a herdr checkout with `scripts/install [PREFIX]`, then run\n\
`herdr update --handoff` (that new `herdr`) to hand every running session to it without ending\n\
a pane (`--session NAME` for one session; `systemctl --user reload herdr` for the service).";

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Hand each running session's server to this binary (a live handoff; every pane keeps
    /// running). With the global `--session NAME`, only that session.
    #[arg(long)]
    pub handoff: bool,
}

/// One session's server to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSocket {
    /// `default`, the session's name, or the socket path of a `HERDR_SOCKET_PATH` override.
    pub label: String,
    pub api_socket: PathBuf,
}

/// What to do with a server, from its `ping` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    HandOff,
    AlreadyCurrent,
    /// The server cannot be handed over; why.
    Cannot(String),
}

/// What happened to one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    HandedOff { from_pid: Option<u64>, to_pid: Option<u64> },
    AlreadyCurrent,
    NotRunning,
    Failed(String),
}

impl Outcome {
    pub fn line(&self, label: &str) -> String {
        let pid = |p: &Option<u64>| p.map_or_else(|| "?".to_owned(), |p| p.to_string());
        match self {
            Outcome::HandedOff { from_pid, to_pid } => {
                format!("{label}: handed off (pid {} -> {})\n", pid(from_pid), pid(to_pid))
            }
            Outcome::AlreadyCurrent => format!("{label}: already running this binary\n"),
            Outcome::NotRunning => format!("{label}: not running\n"),
            Outcome::Failed(reason) => format!("{label}: failed: {reason}\n"),
        }
    }
}

fn service_pid(pong: &Value) -> Option<u64> {
    pong.get("service").and_then(|s| s.get("pid")).and_then(Value::as_u64)
}

fn identity(pong: &Value) -> Option<&str> {
    pong.get("binary").and_then(|b| b.get("identity")).and_then(Value::as_str)
}

/// Whether a server whose `ping` said `pong` should be handed to the binary whose identity is
/// `ours`. A server that does not report its binary (an older build) is another build.
pub fn decide(pong: &Value, ours: &str) -> Decision {
    if !pong.get("capabilities").and_then(|c| c.get("live_handoff")).and_then(Value::as_bool).unwrap_or(false)
    {
        return Decision::Cannot(
            "the server does not support live handoff (capabilities.live_handoff)".into(),
        );
    }
    match identity(pong) {
        Some(theirs) if theirs == ours && !ours.starts_with("unknown") => Decision::AlreadyCurrent,
        _ => Decision::HandOff,
    }
}

/// Why the sessions to update could not be found.
#[derive(Debug)]
pub enum SessionsError {
    BadName(paths::PathError),
    List { config_dir: PathBuf, source: std::io::Error },
}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsError::BadName(err) => err.fmt(f),
            SessionsError::List { config_dir, source } => {
                write!(f, "cannot list the sessions in {}: {source}", config_dir.display())
            }
        }
    }
}

/// The sessions to look at: `--session NAME` alone, else the default session, every valid
/// `sessions/NAME/` under the config dir (sorted), and a `HERDR_SOCKET_PATH` override that is
/// none of those.
pub fn sessions(
    config_dir: &Path,
    only: Option<&str>,
    socket_override: Option<&Path>,
) -> Result<Vec<SessionSocket>, SessionsError> {
    let socket =
        |session: Option<&SessionName>| paths::session_data_dir(config_dir, session).join(API_SOCKET_NAME);
    if let Some(raw) = only {
        let session = SessionName::parse(raw).map_err(SessionsError::BadName)?;
        let label = session.as_ref().map_or(DEFAULT_SESSION_NAME, SessionName::as_str).to_owned();
        return Ok(vec![SessionSocket { label, api_socket: socket(session.as_ref()) }]);
    }
    let listed = crate::session::list(config_dir)
        .map_err(|source| SessionsError::List { config_dir: config_dir.to_owned(), source })?;
    let mut found: Vec<SessionSocket> = listed
        .into_iter()
        .map(|info| SessionSocket { label: info.name, api_socket: PathBuf::from(info.socket_path) })
        .collect();
    if let Some(path) = socket_override.filter(|p| !found.iter().any(|s| s.api_socket == *p)) {
        found.push(SessionSocket { label: path.display().to_string(), api_socket: path.to_owned() });
    }
    Ok(found)
}

/// What a `ping` got: the result, nothing listening, or why it failed (to be printed).
enum Pinged {
    Pong(Value),
    NotRunning,
    Failed(String),
}

fn ping(socket: &Path) -> Pinged {
    let request = ApiRequest::ping("cli:update:ping");
    match connect::exchange(socket, &request, Some(PING_TIMEOUT)) {
        Ok(reply) => match reply.get("result") {
            Some(result) => Pinged::Pong(result.clone()),
            None => Pinged::Failed(format!("ping answered {}", reply.get("error").unwrap_or(&reply))),
        },
        Err(ConnectError::NotRunning) => Pinged::NotRunning,
        Err(err) => Pinged::Failed(err.to_string()),
    }
}

/// Hands the server at `socket` to `exe` if it runs another binary.
fn update_one(socket: &Path, exe: &Path, ours: &str) -> Outcome {
    let pong = match ping(socket) {
        Pinged::Pong(pong) => pong,
        Pinged::NotRunning => return Outcome::NotRunning,
        Pinged::Failed(reason) => return Outcome::Failed(reason),
    };
    match decide(&pong, ours) {
        Decision::AlreadyCurrent => return Outcome::AlreadyCurrent,
        Decision::Cannot(reason) => return Outcome::Failed(reason),
        Decision::HandOff => {}
    }
    let request =
        crate::server::live_handoff_call(Some(exe), Some(PROTOCOL_VERSION), Some(HERDR_VERSION)).request;
    match connect::exchange(socket, &request, Some(HANDOFF_TIMEOUT)) {
        Ok(reply) if reply.get("error").is_some() => {
            let error = &reply["error"];
            let message = error["message"].as_str().unwrap_or("no message");
            return Outcome::Failed(format!("{} ({message})", error["code"].as_str().unwrap_or("error")));
        }
        Ok(_) => {}
        Err(err) => return Outcome::Failed(format!("server.live_handoff: {err}")),
    }
    // The new supervisor serves once the old one committed: check it is this binary.
    match ping(socket) {
        Pinged::Pong(after) if identity(&after) == Some(ours) => {
            Outcome::HandedOff { from_pid: service_pid(&pong), to_pid: service_pid(&after) }
        }
        Pinged::Pong(after) => Outcome::Failed(format!(
            "handed off, but the server now runs {}",
            after
                .get("binary")
                .and_then(|b| b.get("path"))
                .and_then(Value::as_str)
                .unwrap_or("another binary")
        )),
        Pinged::NotRunning => Outcome::Failed("handed off, but no server answers afterwards".into()),
        Pinged::Failed(reason) => {
            Outcome::Failed(format!("handed off, but the new server does not answer: {reason}"))
        }
    }
}

/// `herdr update [--handoff]` with the global `--session` (`session`).
pub fn run(args: &UpdateArgs, session: Option<&str>, env: &PathEnv) -> Rendered {
    if !args.handoff {
        return Rendered::usage(NO_CHANNEL_MESSAGE);
    }
    let config_dir = match paths::config_dir(
        env.xdg_config_home.as_deref().map(Path::new),
        env.home.as_deref().map(Path::new),
    ) {
        Ok(dir) => dir,
        Err(err) => return Rendered::usage(&format!("herdr: {err}")),
    };
    let targets = match sessions(&config_dir, session, env.socket_path.as_deref().map(Path::new)) {
        Ok(targets) => targets,
        Err(err @ SessionsError::BadName(_)) => return Rendered::usage(&format!("herdr update: {err}")),
        Err(err) => return Rendered::stderr(format!("herdr update: {err}\n"), EXIT_ERROR),
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => {
            return Rendered::stderr(format!("herdr update: cannot locate this binary: {err}\n"), EXIT_ERROR);
        }
    };
    let ours = herdr_host::build_info::current_identity();
    let mut out = String::new();
    let mut failed = false;
    for target in &targets {
        let outcome = update_one(&target.api_socket, &exe, &ours);
        failed |= matches!(outcome, Outcome::Failed(_));
        out.push_str(&outcome.line(&target.label));
    }
    Rendered { stdout: out, stderr: String::new(), exit: if failed { EXIT_ERROR } else { 0 } }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pong(identity: Option<&str>, live_handoff: bool) -> Value {
        let mut pong = json!({"type": "pong", "version": "0.1.0", "protocol": 22,
            "capabilities": {"live_handoff": live_handoff, "detached_server_daemon": true},
            "service": {"mode": "detached", "pid": 10}});
        if let Some(identity) = identity {
            pong["binary"] = json!({"path": "/x/herdr", "identity": identity});
        }
        pong
    }

    #[test]
    fn only_another_binary_is_handed_off() {
        assert_eq!(decide(&pong(Some("1:2:3:4.5"), true), "1:2:3:4.5"), Decision::AlreadyCurrent);
        assert_eq!(decide(&pong(Some("1:2:9:4.5"), true), "1:2:3:4.5"), Decision::HandOff);
        // An older build says nothing of its binary: it is another build.
        assert_eq!(decide(&pong(None, true), "1:2:3:4.5"), Decision::HandOff);
        // We cannot tell our own identity: hand off rather than claim it is current.
        assert_eq!(decide(&pong(Some("unknown: x"), true), "unknown: x"), Decision::HandOff);
        assert!(matches!(decide(&pong(Some("1:2:9:4.5"), false), "1:2:3:4.5"), Decision::Cannot(_)));
        assert!(matches!(decide(&json!({"type": "pong"}), "1:2:3:4.5"), Decision::Cannot(_)));
    }

    #[test]
    fn one_line_per_session() {
        let handed = Outcome::HandedOff { from_pid: Some(10), to_pid: Some(11) };
        assert_eq!(handed.line("default"), "default: handed off (pid 10 -> 11)\n");
        assert_eq!(Outcome::AlreadyCurrent.line("work"), "work: already running this binary\n");
        assert_eq!(Outcome::NotRunning.line("work"), "work: not running\n");
        assert_eq!(Outcome::Failed("handoff_failed (x)".into()).line("a"), "a: failed: handoff_failed (x)\n");
        assert_eq!(
            Outcome::HandedOff { from_pid: None, to_pid: None }.line("d"),
            "d: handed off (pid ? -> ?)\n"
        );
    }

    #[test]
    fn every_session_dir_or_the_one_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path();
        for name in ["work", "alpha", "bad name"] {
            std::fs::create_dir_all(config.join("sessions").join(name)).expect("mkdir");
        }
        std::fs::write(config.join("sessions").join("file"), b"").expect("a stray file");
        let labels = |v: Vec<SessionSocket>| v.into_iter().map(|s| s.label).collect::<Vec<_>>();
        let all = sessions(config, None, None).expect("listed");
        assert_eq!(all[1].api_socket, config.join("sessions/alpha/herdr.sock"));
        assert_eq!(labels(all), ["default", "alpha", "work"]);
        let one = sessions(config, Some("work"), None).expect("one");
        assert_eq!(
            one,
            [SessionSocket { label: "work".into(), api_socket: config.join("sessions/work/herdr.sock") }]
        );
        assert_eq!(labels(sessions(config, Some("default"), None).expect("default")), ["default"]);
        assert!(sessions(config, Some("../x"), None).is_err());
        // An override that is one of the sessions is not listed twice; another one is added.
        let default_socket = config.join("herdr.sock");
        assert_eq!(sessions(config, None, Some(&default_socket)).expect("listed").len(), 3);
        let elsewhere = dir.path().join("elsewhere.sock");
        let with = sessions(config, None, Some(&elsewhere)).expect("listed");
        assert_eq!(with.last().map(|s| s.api_socket.clone()), Some(elsewhere));
    }
}
