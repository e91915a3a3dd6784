//! Where a session's sockets and state live, shared by `herdr server` and every client.
//!
//! Pure: every function takes the environment values it needs as arguments, so resolution is
//! testable without touching the process environment. [`PathEnv::from_process_env`] is the one
//! thin edge that reads it. Nothing here creates directories or probes sockets.
//!
//! Layout (upstream-compatible, one name `herdr` for every build):
//! - config dir: `$XDG_CONFIG_HOME/herdr`, else `$HOME/.config/herdr`;
//! - session data dir: the config dir for the default session, `<config>/sessions/<name>/` for a
//!   named one;
//! - in the data dir: `herdr.sock` (JSON API) and `herdr-client.sock` (binary client protocol).
//!
//! Socket resolution order: explicit `--session NAME` > `HERDR_SOCKET_PATH` > `HERDR_SESSION` >
//! default. The client socket follows the API socket: derived from a `HERDR_SOCKET_PATH` override
//! by inserting `-client` before `.sock`; `HERDR_CLIENT_SOCKET_PATH` is honoured only when no API
//! socket override is set (legacy).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// Directory name under the config home. Debug builds do not use a different name.
pub const APP_DIR_NAME: &str = "herdr";
/// File name of the JSON API socket inside a session data dir.
pub const API_SOCKET_NAME: &str = "herdr.sock";
/// File name of the binary client socket inside a session data dir.
pub const CLIENT_SOCKET_NAME: &str = "herdr-client.sock";
/// Inside a session's runtime dir: the per-pane worker sockets.
pub const WORKERS_DIR_NAME: &str = "workers";
/// Inside a session's runtime dir: the secret a supervisor shows a worker it re-adopts (0600).
pub const SECRET_FILE_NAME: &str = "secret";
/// Sub-directory of the config dir holding named sessions.
pub const SESSIONS_DIR_NAME: &str = "sessions";
/// The session name that means "the default session".
pub const DEFAULT_SESSION_NAME: &str = "default";
/// Longest accepted session name, in bytes.
pub const MAX_SESSION_NAME_LEN: usize = 64;

/// API socket override; also injected into every pane.
pub const SOCKET_PATH_ENV: &str = "HERDR_SOCKET_PATH";
/// Named session selector for clients.
pub const SESSION_ENV: &str = "HERDR_SESSION";
/// Legacy client-socket override, used only without [`SOCKET_PATH_ENV`].
pub const CLIENT_SOCKET_PATH_ENV: &str = "HERDR_CLIENT_SOCKET_PATH";
/// Base of the config dir when set.
pub const XDG_CONFIG_HOME_ENV: &str = "XDG_CONFIG_HOME";
/// Fallback base of the config dir.
pub const HOME_ENV: &str = "HOME";

/// Why a path could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("session name cannot be empty")]
    EmptySessionName,
    #[error("session name cannot be longer than {MAX_SESSION_NAME_LEN} bytes")]
    SessionNameTooLong,
    #[error("session name cannot be . or ..")]
    DotSessionName,
    #[error("session name may only contain ASCII letters, numbers, '.', '_' and '-'")]
    SessionNameCharacters,
    #[error("cannot find the config directory: neither XDG_CONFIG_HOME nor HOME is set")]
    NoConfigHome,
}

/// A valid name of a *named* session (never `default`, which is represented by `None`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionName(String);

impl SessionName {
    /// Validates `raw`: `Ok(None)` for `default`, `Ok(Some(_))` for a named session.
    pub fn parse(raw: &str) -> Result<Option<SessionName>, PathError> {
        if raw == DEFAULT_SESSION_NAME {
            return Ok(None);
        }
        if raw.is_empty() {
            return Err(PathError::EmptySessionName);
        }
        if raw.len() > MAX_SESSION_NAME_LEN {
            return Err(PathError::SessionNameTooLong);
        }
        if raw == "." || raw == ".." {
            return Err(PathError::DotSessionName);
        }
        if !raw.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')) {
            return Err(PathError::SessionNameCharacters);
        }
        Ok(Some(SessionName(raw.to_owned())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The environment values path resolution depends on. Empty values count as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathEnv {
    pub xdg_config_home: Option<OsString>,
    pub home: Option<OsString>,
    pub socket_path: Option<OsString>,
    pub session: Option<OsString>,
    pub client_socket_path: Option<OsString>,
}

impl PathEnv {
    /// Reads the variables from the current process environment.
    pub fn from_process_env() -> Self {
        let var = |name: &str| std::env::var_os(name);
        PathEnv {
            xdg_config_home: var(XDG_CONFIG_HOME_ENV),
            home: var(HOME_ENV),
            socket_path: var(SOCKET_PATH_ENV),
            session: var(SESSION_ENV),
            client_socket_path: var(CLIENT_SOCKET_PATH_ENV),
        }
    }
}

/// Which rule chose the API socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketSource {
    /// `--session NAME` on the command line (including `--session default`).
    ExplicitSession,
    /// `HERDR_SOCKET_PATH`.
    SocketPathEnv,
    /// `HERDR_SESSION`.
    SessionEnv,
    /// Nothing set: the default session.
    Default,
}

/// Everything resolved for one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    /// `None` = the default session.
    pub session: Option<SessionName>,
    pub config_dir: PathBuf,
    /// The session's data dir (state files, the server log).
    pub data_dir: PathBuf,
    pub api_socket: PathBuf,
    pub client_socket: PathBuf,
    pub source: SocketSource,
}

fn non_empty(value: Option<&OsString>) -> Option<&OsString> {
    value.filter(|v| !v.is_empty())
}

/// `$XDG_CONFIG_HOME/herdr`, else `$HOME/.config/herdr`.
pub fn config_dir(xdg_config_home: Option<&Path>, home: Option<&Path>) -> Result<PathBuf, PathError> {
    let xdg = xdg_config_home.filter(|p| !p.as_os_str().is_empty());
    let home = home.filter(|p| !p.as_os_str().is_empty());
    match (xdg, home) {
        (Some(xdg), _) => Ok(xdg.join(APP_DIR_NAME)),
        (None, Some(home)) => Ok(home.join(".config").join(APP_DIR_NAME)),
        (None, None) => Err(PathError::NoConfigHome),
    }
}

/// The data dir of `session` (`None` = default session = the config dir itself).
pub fn session_data_dir(config_dir: &Path, session: Option<&SessionName>) -> PathBuf {
    match session {
        Some(name) => config_dir.join(SESSIONS_DIR_NAME).join(name.as_str()),
        None => config_dir.to_path_buf(),
    }
}

/// The client socket that pairs with an overridden API socket: `x/foo.sock` → `x/foo-client.sock`.
/// A path without an extension gets `-client.sock` appended to its file name.
pub fn derive_client_socket(api_socket: &Path) -> PathBuf {
    let stem = api_socket.file_stem().map(|s| s.to_string_lossy().into_owned());
    let stem = stem.filter(|s| !s.is_empty()).unwrap_or_else(|| APP_DIR_NAME.to_owned());
    let parent = api_socket.parent().unwrap_or_else(|| Path::new(""));
    parent.join(format!("{stem}-client.sock"))
}

/// The session's runtime dir (0700), beside its API socket: `x/herdr.sock` → `x/herdr-run/`. It
/// holds [`SECRET_FILE_NAME`] and [`WORKERS_DIR_NAME`]`/<pane uid>.sock`, so two sessions never
/// share one, whichever way their sockets were chosen.
pub fn runtime_dir(api_socket: &Path) -> PathBuf {
    let stem = api_socket.file_stem().map(|s| s.to_string_lossy().into_owned());
    let stem = stem.filter(|s| !s.is_empty()).unwrap_or_else(|| APP_DIR_NAME.to_owned());
    let parent = api_socket.parent().unwrap_or_else(|| Path::new(""));
    parent.join(format!("{stem}-run"))
}

/// Resolves the session, data dir and both sockets.
///
/// `explicit_session` is the raw `--session` value, if given. An invalid explicit name, or an
/// invalid `HERDR_SESSION` when it is the deciding rule, is an error; under a
/// `HERDR_SOCKET_PATH` override an invalid `HERDR_SESSION` is ignored (it selects nothing).
pub fn resolve(explicit_session: Option<&str>, env: &PathEnv) -> Result<SessionPaths, PathError> {
    let config_dir = config_dir(
        non_empty(env.xdg_config_home.as_ref()).map(Path::new),
        non_empty(env.home.as_ref()).map(Path::new),
    )?;
    let env_session = non_empty(env.session.as_ref()).map(|s| s.to_string_lossy().into_owned());

    if let Some(raw) = explicit_session {
        let session = SessionName::parse(raw)?;
        return Ok(in_data_dir(config_dir, session, SocketSource::ExplicitSession));
    }

    if let Some(api_socket) = non_empty(env.socket_path.as_ref()) {
        let session = env_session.as_deref().and_then(|raw| SessionName::parse(raw).ok().flatten());
        let data_dir = session_data_dir(&config_dir, session.as_ref());
        let api_socket = PathBuf::from(api_socket);
        let client_socket = derive_client_socket(&api_socket);
        return Ok(SessionPaths {
            session,
            config_dir,
            data_dir,
            api_socket,
            client_socket,
            source: SocketSource::SocketPathEnv,
        });
    }

    let (session, source) = match env_session.as_deref() {
        Some(raw) => (SessionName::parse(raw)?, SocketSource::SessionEnv),
        None => (None, SocketSource::Default),
    };
    let mut paths = in_data_dir(config_dir, session, source);
    if let Some(legacy) = non_empty(env.client_socket_path.as_ref()) {
        paths.client_socket = PathBuf::from(legacy);
    }
    Ok(paths)
}

fn in_data_dir(config_dir: PathBuf, session: Option<SessionName>, source: SocketSource) -> SessionPaths {
    let data_dir = session_data_dir(&config_dir, session.as_ref());
    SessionPaths {
        api_socket: data_dir.join(API_SOCKET_NAME),
        client_socket: data_dir.join(CLIENT_SOCKET_NAME),
        session,
        config_dir,
        data_dir,
        source,
    }
}

#[cfg(test)]
mod tests;
