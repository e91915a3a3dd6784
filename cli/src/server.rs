//! `herdr server`: run the supervisor in the foreground, start it as a detached daemon
//! (`--detach`), stop it, or ask it to reload its config.

use std::fs::{DirBuilder, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};
use serde_json::Value;

use crate::connect::{self, ConnectError};
use crate::output::{self, EXIT_ERROR, Rendered};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{EmptyParams, ServerLiveHandoffParams, ServerRequest};

use crate::request::{ApiCall, ApiRequest, Reply};
use crate::target::Target;

/// How long `--detach` waits for the new server to answer `ping` (it answers once every saved
/// pane is adopted or started again).
const DETACH_READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `server stop` waits for the sockets to go away.
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
/// Poll interval while waiting for a server to come up or go away.
const POLL_INTERVAL: Duration = Duration::from_millis(25);
/// Overrides where the pane-worker executable is found.
pub const WORKER_BIN_ENV: &str = "HERDR_PANE_WORKER_BIN";
/// The pane-worker executable's file name, looked for next to `herdr`.
pub const WORKER_BIN_NAME: &str = "herdr-pane-worker";
/// The detached server's log, in the session data dir.
pub const LOG_FILE_NAME: &str = "herdr-server.log";

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServerArgs {
    /// Start the server as a background daemon and wait until it answers (log:
    /// `<session dir>/herdr-server.log`)
    #[arg(long)]
    pub detach: bool,
    /// Neither restore nor save `session.json` (the layout starts empty and is not kept)
    #[arg(long)]
    pub no_session: bool,
    /// Internal: take over a running server's session in a live handoff (`<socket> <token>`)
    #[arg(long, num_args = 2, value_names = ["SOCKET", "TOKEN"], hide = true)]
    pub handoff_import: Option<Vec<String>>,
    #[command(subcommand)]
    pub action: Option<ServerAction>,
}

#[derive(Debug, Subcommand)]
pub enum ServerAction {
    /// Stop the running server (ends its panes)
    Stop,
    /// Reload config in the running server
    ReloadConfig,
    /// Show active agent detection manifests
    AgentManifests {
        #[arg(long)]
        json: bool,
    },
    /// Reload local agent detection manifest overrides
    ReloadAgentManifests,
    /// Hand the running server to a new binary without ending any pane
    LiveHandoff {
        /// The binary to hand over to (default: this one)
        #[arg(long)]
        import_exe: Option<PathBuf>,
        /// Refuse unless the new binary speaks this API protocol
        #[arg(long)]
        expected_protocol: Option<u32>,
        /// Refuse unless the new binary is this version
        #[arg(long)]
        expected_version: Option<String>,
    },
}

pub fn live_handoff_call(
    import_exe: Option<&Path>,
    expected_protocol: Option<u32>,
    expected_version: Option<&str>,
) -> ApiCall {
    // An absolute path: the server resolves it, from its own working directory.
    let exe =
        import_exe.map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_owned()).display().to_string());
    ApiCall::silent(ApiRequest::new(
        "cli:server:live-handoff",
        Request::Server(ServerRequest::LiveHandoff(ServerLiveHandoffParams {
            import_exe: exe,
            expected_protocol,
            expected_version: expected_version.map(str::to_owned),
        })),
    ))
}

/// `herdr server --handoff-import <socket> <token>`: the importer a live handoff starts.
pub fn run_import(target: &Target, no_session: bool, socket: &Path, token: &str) -> Rendered {
    herdr_host::logging::init();
    let result = server_config(target, no_session)
        .and_then(|config| herdr_supervisor::import_blocking(config, socket, token));
    match result {
        Ok(()) => Rendered::default(),
        Err(err) => Rendered::stderr(format!("herdr server --handoff-import: {err:#}\n"), EXIT_ERROR),
    }
}

pub fn reload_config_call() -> ApiCall {
    ApiCall::envelope(ApiRequest::new(
        "cli:server:reload-config",
        Request::Server(ServerRequest::ReloadConfig(EmptyParams {})),
    ))
}

pub fn agent_manifests_call(json: bool) -> ApiCall {
    let request = ApiRequest::new(
        "cli:server:agent-manifests",
        Request::Server(ServerRequest::AgentManifests(EmptyParams {})),
    );
    if json { ApiCall::envelope(request) } else { ApiCall { request, reply: Reply::ManifestStatus } }
}

pub fn reload_agent_manifests_call() -> ApiCall {
    ApiCall::envelope(ApiRequest::new(
        "cli:server:reload-agent-manifests",
        Request::Server(ServerRequest::ReloadAgentManifests(EmptyParams {})),
    ))
}

/// The text form of `server agent-manifests`: when manifests were last checked, then one line
/// per agent (`!` = a local override shadows newer remote rules, `x` = the remote update failed).
pub fn manifest_status_text(result: &Value) -> String {
    let text = |value: &Value, default: &str| value.as_str().unwrap_or(default).to_owned();
    let last_check = result["last_check_unix"].as_u64().map_or_else(|| "never".to_owned(), |t| t.to_string());
    let mut out =
        format!("last check: {last_check}\nresult: {}\n\n", text(&result["last_result"], "not checked"));
    for manifest in result["manifests"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let shadowed = manifest["local_override_shadowing_remote"].as_bool().unwrap_or(false);
        let failed = manifest["remote_update_error"].as_str();
        let marker = if shadowed {
            "!"
        } else if failed.is_some() {
            "x"
        } else {
            " "
        };
        out.push_str(&format!(
            "{marker} {:<9} {:<14} active {:<14} remote {:<14} {}\n",
            text(&manifest["agent"], "-"),
            text(&manifest["source_kind"], "-"),
            text(&manifest["active_version"], "-"),
            text(&manifest["cached_remote_version"], "-"),
            text(&manifest["remote_update_result"], "not checked")
        ));
        let note = match (failed, shadowed, manifest["warning"].as_str()) {
            (Some(error), _, _) => Some(error.to_owned()),
            (None, true, _) => Some("local override shadows cached remote rules".to_owned()),
            (None, false, warning) => warning.map(str::to_owned),
        };
        if let Some(note) = note {
            out.push_str(&format!("  {note}\n"));
        }
    }
    out
}

/// The pane-worker executable: `$HERDR_PANE_WORKER_BIN`, else next to the `herdr` binary.
pub fn worker_exe(env_override: Option<&std::ffi::OsStr>, herdr_exe: &Path) -> PathBuf {
    beside_herdr(env_override, herdr_exe, WORKER_BIN_NAME)
}

/// The executable a non-empty `env_override` names, else the one called `name` next to
/// `herdr_exe` (herdr's binaries are installed side by side).
pub fn beside_herdr(env_override: Option<&std::ffi::OsStr>, herdr_exe: &Path, name: &str) -> PathBuf {
    match env_override.filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => herdr_exe.with_file_name(name),
    }
}

fn create_private_dir(dir: &Path) -> anyhow::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create the session directory {}", dir.display()))
}

fn server_config(target: &Target, no_session: bool) -> anyhow::Result<herdr_supervisor::ServerConfig> {
    let bin_path = std::env::current_exe().context("cannot locate the herdr executable")?;
    let worker = worker_exe(std::env::var_os(WORKER_BIN_ENV).as_deref(), &bin_path);
    let (config, _) = herdr_supervisor::config::load(&target.paths.config_dir.join("config.toml"));
    Ok(herdr_supervisor::ServerConfig {
        api_socket: target.paths.api_socket.clone(),
        client_socket: target.paths.client_socket.clone(),
        session_name: target.session_name().map(str::to_owned),
        worker_exe: worker,
        bin_path,
        data_dir: target.paths.data_dir.clone(),
        persist: !no_session,
        orphan_timeout: Duration::from_secs(config.worker_orphan_timeout_secs),
        pane_history: config.pane_history,
        resume_agents: config.resume_agents_on_restore,
        scrollback_limit_bytes: config.scrollback_limit_bytes,
    })
}

/// `herdr server`: blocks until the server stops.
pub fn run_foreground(target: &Target, no_session: bool) -> Rendered {
    herdr_host::logging::init();
    let result = create_private_dir(&target.paths.data_dir)
        .and_then(|()| server_config(target, no_session))
        .and_then(herdr_supervisor::serve_blocking);
    match result {
        Ok(()) => Rendered::default(),
        Err(err) => Rendered::stderr(format!("herdr server: {err:#}\n"), EXIT_ERROR),
    }
}

/// `herdr server --detach [--no-session]`.
pub fn detach(target: &Target, no_session: bool) -> Rendered {
    let socket = target.api_socket();
    if connect::answers_ping(socket) {
        return Rendered::stdout(format!("herdr server is already running at {}\n", socket.display()));
    }
    match spawn_detached_with(target, no_session) {
        Ok(message) => Rendered::stdout(message),
        Err(err) => Rendered::stderr(format!("herdr server --detach: {err:#}\n"), EXIT_ERROR),
    }
}

/// Starts `herdr server` as a daemon for `target` and waits until it answers `ping`; returns
/// what to tell the user. Also used by attach when no server runs.
pub fn spawn_detached(target: &Target) -> anyhow::Result<String> {
    spawn_detached_with(target, false)
}

fn spawn_detached_with(target: &Target, no_session: bool) -> anyhow::Result<String> {
    let socket = target.api_socket();
    create_private_dir(&target.paths.data_dir)?;
    let log_path = target.paths.data_dir.join(LOG_FILE_NAME);
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&log_path)
        .with_context(|| format!("cannot open the server log {}", log_path.display()))?;
    let exe = std::env::current_exe().context("cannot locate the herdr executable")?;

    let mut command = Command::new(exe);
    command.arg("server");
    if let Some(session) = &target.explicit_session {
        command.arg("--session").arg(session);
    }
    if no_session {
        command.arg("--no-session");
    }
    command.stdin(Stdio::null()).stdout(log.try_clone().context("cannot share the log file")?).stderr(log);
    // SAFETY: the closure runs in the forked child before exec and only calls setsid(2), which is
    // async-signal-safe; it allocates nothing and touches no parent state.
    unsafe {
        command.pre_exec(|| nix::unistd::setsid().map(drop).map_err(std::io::Error::from));
    }
    let mut child = command.spawn().context("cannot start `herdr server`")?;

    let deadline = Instant::now() + DETACH_READY_TIMEOUT;
    loop {
        if connect::answers_ping(socket) {
            let message = format!(
                "herdr server started (pid {}) at {}; log: {}\n",
                child.id(),
                socket.display(),
                log_path.display()
            );
            // An attached client outlives the server it started (one killed and replaced, for
            // one): reap it whenever it ends, so it never lingers as our zombie.
            std::thread::spawn(move || child.wait());
            return Ok(message);
        }
        if let Some(status) = child.try_wait().context("cannot check the server process")? {
            anyhow::bail!("the server exited ({status}) before answering; see {}", log_path.display());
        }
        if Instant::now() >= deadline {
            // Do not leave a half-started daemon behind: it is our own child, ended by its pid.
            let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let _ = child.wait();
            anyhow::bail!(
                "the server did not answer at {} within {} s; see {}",
                socket.display(),
                DETACH_READY_TIMEOUT.as_secs(),
                log_path.display()
            );
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Why a server could not be stopped.
#[derive(Debug)]
pub enum StopFailure {
    /// Nothing listens at the API socket.
    NotRunning,
    /// The server answered `server.stop` with this error envelope.
    Refused(Value),
    /// The socket could not be used.
    Unreachable(ConnectError),
    /// The sockets still accept connections after the timeout.
    StillRunning(Vec<String>),
}

impl StopFailure {
    /// A one-line description (for errors that are not relayed envelopes).
    pub fn describe(&self, label: &str, api_socket: &Path) -> String {
        match self {
            StopFailure::NotRunning => {
                format!("{label} is not running or cannot be reached at {}", api_socket.display())
            }
            StopFailure::Refused(reply) => reply["error"].to_string(),
            StopFailure::Unreachable(err) => format!("{label} at {}: {err}", api_socket.display()),
            StopFailure::StillRunning(sockets) => format!(
                "{label} did not stop within {} s; sockets still reachable at {}",
                STOP_TIMEOUT.as_secs(),
                sockets.join(", ")
            ),
        }
    }
}

/// Sends `server.stop` (without the protocol guard, so an incompatible server can still be
/// stopped) and waits until both sockets stop accepting connections.
pub fn stop_server(api_socket: &Path, client_socket: &Path) -> Result<(), StopFailure> {
    let request = ApiRequest::new(STOP_ID, Request::Server(ServerRequest::Stop(EmptyParams {})));
    match connect::exchange(api_socket, &request, Some(STOP_TIMEOUT)) {
        Ok(reply) if reply.get("error").is_some() => return Err(StopFailure::Refused(reply)),
        Ok(_) => {}
        // A stopping server may close the connection before it answers.
        Err(ConnectError::Closed | ConnectError::TimedOut(_)) => {}
        Err(ConnectError::NotRunning) => return Err(StopFailure::NotRunning),
        Err(err) => return Err(StopFailure::Unreachable(err)),
    }
    let sockets = [api_socket, client_socket];
    let deadline = Instant::now() + STOP_TIMEOUT;
    loop {
        let reachable: Vec<String> =
            sockets.iter().filter(|s| accepts(s)).map(|s| s.display().to_string()).collect();
        if reachable.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(StopFailure::StillRunning(reachable));
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// The request id of `server.stop` (upstream's, shared by `server stop` and `session stop`).
pub const STOP_ID: &str = "cli:session:stop";

/// `herdr server stop`: silent on success.
pub fn stop(target: &Target) -> Rendered {
    let api_socket = target.api_socket();
    match stop_server(api_socket, &target.paths.client_socket) {
        Ok(()) => Rendered::default(),
        Err(StopFailure::NotRunning) => {
            crate::call::connect_failure(target, STOP_ID, ConnectError::NotRunning)
        }
        Err(StopFailure::Unreachable(err)) => crate::call::connect_failure(target, STOP_ID, err),
        Err(StopFailure::Refused(reply)) => output::render_reply(Reply::Silent, &reply),
        Err(failure) => {
            Rendered::stderr(format!("{}\n", failure.describe("the herdr server", api_socket)), EXIT_ERROR)
        }
    }
}

/// Whether something still accepts connections at `socket`.
fn accepts(socket: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(socket).is_ok()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn worker_is_found_next_to_herdr_unless_overridden() {
        let herdr = Path::new("/opt/herdr/bin/herdr");
        assert_eq!(worker_exe(None, herdr), PathBuf::from("/opt/herdr/bin/herdr-pane-worker"));
        assert_eq!(worker_exe(Some(OsStr::new("/w/worker")), herdr), PathBuf::from("/w/worker"));
        assert_eq!(
            worker_exe(Some(OsStr::new("")), herdr),
            PathBuf::from("/opt/herdr/bin/herdr-pane-worker")
        );
    }

    #[test]
    fn manifest_status_text_marks_shadowed_and_failed_agents() {
        let result = serde_json::json!({"type": "agent_manifest_status", "last_check_unix": 1700000000,
            "last_result": "checked", "manifests": [
                {"agent": "claude", "source": "builtin", "source_kind": "builtin", "active_version": "3",
                 "local_override_shadowing_remote": false},
                {"agent": "codex", "source": "x", "source_kind": "local_override", "active_version": "2",
                 "cached_remote_version": "4", "local_override_shadowing_remote": true},
                {"agent": "amp", "source": "y", "source_kind": "remote", "local_override_shadowing_remote": false,
                 "remote_update_error": "offline"}]});
        let text = manifest_status_text(&result);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "last check: 1700000000");
        assert_eq!(lines[1], "result: checked");
        assert!(lines[3].starts_with("  claude    builtin        active 3 "), "{text}");
        assert!(lines[4].starts_with("! codex "), "{text}");
        assert_eq!(lines[5], "  local override shadows cached remote rules");
        assert!(lines[6].starts_with("x amp "), "{text}");
        assert_eq!(lines[7], "  offline");
        assert_eq!(
            manifest_status_text(&serde_json::json!({})),
            "last check: never\nresult: not checked\n\n"
        );
    }

    #[test]
    fn private_dir_is_0700() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let session = dir.path().join("sessions").join("s");
        create_private_dir(&session).expect("created");
        let mode = std::fs::metadata(&session).expect("exists").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}
