//! `herdr session list|attach|stop|delete`: named sessions as directories under
//! `<config>/sessions/`, each an independent server. Works on the file system and each
//! session's own socket; ignores `HERDR_SOCKET_PATH` (it names sessions, not sockets).

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde::Serialize;

use herdr_protocol::paths::{
    self, API_SOCKET_NAME, CLIENT_SOCKET_NAME, DEFAULT_SESSION_NAME, PathEnv, SESSIONS_DIR_NAME, SessionName,
};

use crate::output::{EXIT_ERROR, Rendered};
use crate::server::stop_server;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// List sessions
    List {
        #[arg(long)]
        json: bool,
    },
    /// Attach to a session
    Attach {
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Stop a session's server, ending its panes (`default` names the default session)
    Stop {
        #[arg(value_name = "NAME")]
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Delete a stopped session's directory
    Delete {
        #[arg(value_name = "NAME")]
        name: String,
        #[arg(long)]
        json: bool,
    },
}

/// One session as listed (field order is the output order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    pub name: String,
    pub default: bool,
    pub running: bool,
    pub socket_path: String,
    pub session_dir: String,
}

fn accepts(socket: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(socket).is_ok()
}

pub fn session_info(config_dir: &Path, session: Option<&SessionName>) -> SessionInfo {
    let dir = paths::session_data_dir(config_dir, session);
    let socket = dir.join(API_SOCKET_NAME);
    SessionInfo {
        name: session.map_or(DEFAULT_SESSION_NAME, SessionName::as_str).to_owned(),
        default: session.is_none(),
        running: accepts(&socket),
        socket_path: socket.display().to_string(),
        session_dir: dir.display().to_string(),
    }
}

/// The default session, then every valid named session directory, sorted by name.
pub fn list(config_dir: &Path) -> std::io::Result<Vec<SessionInfo>> {
    let mut sessions = vec![session_info(config_dir, None)];
    let entries = match std::fs::read_dir(config_dir.join(SESSIONS_DIR_NAME)) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(sessions),
        Err(err) => return Err(err),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        if let Some(Ok(Some(name))) = entry.file_name().to_str().map(SessionName::parse) {
            names.push(name);
        }
    }
    names.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    sessions.extend(names.iter().map(|name| session_info(config_dir, Some(name))));
    Ok(sessions)
}

pub fn table(sessions: &[SessionInfo]) -> String {
    let mut out = format!("{:<20} {:<8} {:<48} socket\n", "name", "status", "directory");
    for s in sessions {
        let status = if s.running { "running" } else { "stopped" };
        out.push_str(&format!("{:<20} {:<8} {:<48} {}\n", s.name, status, s.session_dir, s.socket_path));
    }
    out
}

/// `{"error":{"code":…,"message":…}}` (session commands carry no request id).
fn session_error(code: &str, message: &str) -> Rendered {
    let line = serde_json::json!({"error": {"code": code, "message": message}});
    Rendered::stderr(format!("{line}\n"), EXIT_ERROR)
}

fn json_line(value: &impl Serialize) -> Rendered {
    match serde_json::to_string(value) {
        Ok(text) => Rendered::stdout(format!("{text}\n")),
        Err(err) => Rendered::stderr(format!("cannot print JSON: {err}\n"), EXIT_ERROR),
    }
}

/// Runs a session subcommand (`session attach` is [`crate::attach::run_named`]).
pub fn run(command: &SessionCommand, env: &PathEnv) -> Rendered {
    let config_dir = || {
        paths::config_dir(env.xdg_config_home.as_deref().map(Path::new), env.home.as_deref().map(Path::new))
            .map_err(|err| Rendered::usage(&format!("herdr: {err}")))
    };
    let answer = match command {
        SessionCommand::Attach { name } => return crate::attach::run_named(name, env),
        SessionCommand::List { json } => config_dir().map(|dir| match list(&dir) {
            Ok(sessions) if *json => json_line(&serde_json::json!({"sessions": sessions})),
            Ok(sessions) => Rendered::stdout(table(&sessions)),
            Err(err) => Rendered::stderr(format!("cannot list sessions: {err}\n"), EXIT_ERROR),
        }),
        SessionCommand::Stop { name, json } => config_dir().map(|dir| stop(&dir, name, *json)),
        SessionCommand::Delete { name, json } => config_dir().map(|dir| delete(&dir, name, *json)),
    };
    answer.unwrap_or_else(|usage| usage)
}

fn stop(config_dir: &Path, name: &str, json: bool) -> Rendered {
    let session = match SessionName::parse(name) {
        Ok(session) => session,
        Err(err) => return session_error("invalid_session_name", &err.to_string()),
    };
    let dir = paths::session_data_dir(config_dir, session.as_ref());
    let api_socket = dir.join(API_SOCKET_NAME);
    let label = format!("session {}", session.as_ref().map_or(DEFAULT_SESSION_NAME, SessionName::as_str));
    if let Err(failure) = stop_server(&api_socket, &dir.join(CLIENT_SOCKET_NAME)) {
        return session_error("session_stop_failed", &failure.describe(&label, &api_socket));
    }
    let info = session_info(config_dir, session.as_ref());
    if json {
        json_line(&serde_json::json!({"stopped": true, "session": info}))
    } else {
        Rendered::stdout(format!("stopped session {}\n", info.name))
    }
}

fn delete(config_dir: &Path, name: &str, json: bool) -> Rendered {
    let fail = |message: &str| session_error("session_delete_failed", message);
    if name == DEFAULT_SESSION_NAME {
        return fail("deleting the default session is not supported");
    }
    let session = match SessionName::parse(name) {
        Ok(Some(session)) => session,
        Ok(None) => return fail("deleting the default session is not supported"),
        Err(err) => return fail(&err.to_string()),
    };
    let dir: PathBuf = paths::session_data_dir(config_dir, Some(&session));
    let info = session_info(config_dir, Some(&session));
    if info.running {
        return fail(&format!("session {name} is running; stop it before deleting"));
    }
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return fail(&format!("cannot delete {}: {err}", dir.display())),
    }
    if json {
        json_line(&serde_json::json!({"deleted": true, "session": info}))
    } else {
        Rendered::stdout(format!("deleted session {}\n", info.name))
    }
}

#[cfg(test)]
mod tests;
