//! `herdr --remote TARGET`: attaching this terminal to a herdr session on another machine over
//! ssh, and `herdr remote-client-bridge`, the far end it runs there.
//!
//! The local side, in order: resolve the target through `~/.ssh/config`, open an authenticated
//! ssh session (host key checked), probe the remote host (platform, a `herdr` of this version on
//! PATH or in the usual dirs), copy this build there after asking when it has none, read its
//! supervisor's status and decide (attach, start one, `--handoff` an old one, or explain and
//! stop), then bind a private bridge socket and run the ordinary terminal client against it
//! (`herdr_remote_bridge::bridge` carries each connection over its own ssh channel). A dropped
//! link is the client's ordinary lost connection: it shows "reconnecting…" and retries the
//! bridge socket, which opens a new ssh session each time; after the bound it exits with the
//! command that re-attaches.
//!
//! The far side starts the session's supervisor when none answers (as plain `herdr` does) and
//! copies bytes between its stdin/stdout (the ssh channel) and the session's client socket.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Args, ValueEnum};
use herdr_client::{AttachOptions, ExitReason, ReconnectPolicy};
use herdr_protocol::HERDR_VERSION;
use herdr_protocol::paths::{self, PathEnv};
use herdr_remote_bridge::bridge::{Bridge, BridgeSocket};
use herdr_remote_bridge::connect::{self, Connection, Identity};
use herdr_remote_bridge::provision::{self, LocalBuild, Upload};
use herdr_remote_bridge::relay::Liveness;
use herdr_remote_bridge::remote_host::{self, Decision};
use herdr_remote_bridge::target::{Destination, Target};

use crate::attach;
use crate::connect as api;
use crate::output::{EXIT_ERROR, EXIT_USAGE, Rendered};
use crate::server;
use crate::target::Target as SessionTarget;

/// Overrides the library copied to the remote host (when it is not beside the local herdr).
const LIBRARY_ENV: &str = "HERDR_REMOTE_LIBGHOSTTY";
/// Seconds the client keeps reconnecting after the link dropped (default 60).
const RECONNECT_ENV: &str = "HERDR_REMOTE_RECONNECT_SECS";
/// Seconds between keepalives (default 15); four unanswered intervals end the link.
const KEEPALIVE_ENV: &str = "HERDR_REMOTE_KEEPALIVE_SECS";

/// The root options of `herdr --remote`.
#[derive(Debug, Clone, Default, Args)]
pub struct RemoteArgs {
    /// Attach to herdr on another machine over ssh: host, user@host, ssh://user@host:port or an
    /// ~/.ssh/config alias
    #[arg(long = "remote", value_name = "SSH_TARGET")]
    pub target: Option<String>,
    /// Whose key bindings apply in a remote session (default local: the keys section of this machine's config.toml)
    #[arg(long, value_enum, value_name = "WHOSE")]
    pub remote_keybindings: Option<RemoteKeybindings>,
    /// With --remote: hand an incompatible running server over to this build live
    #[arg(long)]
    pub handoff: bool,
    /// With --remote: copy this herdr to the remote host without asking when it has none
    #[arg(long)]
    pub yes: bool,
}

impl RemoteArgs {
    /// Whether any remote option was given (they all need `--remote`).
    pub fn is_used(&self) -> bool {
        self.target.is_some() || self.remote_keybindings.is_some() || self.handoff || self.yes
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RemoteKeybindings {
    /// This machine's config.toml keys section (custom commands excluded), sent to the server
    Local,
    /// The remote server's own keys section
    Server,
}

/// Why preparing the remote host stopped short of attaching.
#[derive(Debug, thiserror::Error)]
enum RemoteError {
    #[error(transparent)]
    Target(#[from] herdr_remote_bridge::target::TargetError),
    #[error(transparent)]
    Connect(#[from] connect::ConnectError),
    #[error(transparent)]
    Probe(#[from] remote_host::ProbeError),
    #[error(transparent)]
    Provision(#[from] provision::ProvisionError),
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{0}")]
    Refused(String),
    #[error("cannot set up the local bridge socket: {0}")]
    Socket(std::io::Error),
}

/// `herdr --remote TARGET [--session NAME] [--remote-keybindings local|server] [--handoff] [--yes]`.
pub fn run(args: &RemoteArgs, with_subcommand: bool, session: Option<&str>) -> Rendered {
    let Some(raw_target) = args.target.as_deref() else {
        return Rendered::usage(
            "herdr: --remote-keybindings, --handoff and --yes go with --remote SSH_TARGET",
        );
    };
    if with_subcommand {
        return Rendered::usage("herdr: --remote attaches a terminal; it takes no subcommand");
    }
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Rendered::stderr(attach::NO_TERMINAL_MESSAGE, EXIT_USAGE);
    }
    let reattach = reattach_command(raw_target, session);
    let prepared = match prepare(raw_target, session, args) {
        Ok(prepared) => prepared,
        Err(err) => return Rendered::stderr(format!("herdr --remote: {err}\n"), EXIT_ERROR),
    };
    let keys = client_keys(args.remote_keybindings, &PathEnv::from_process_env());
    attach_prepared(prepared, &reattach, keys)
}

/// The `[keys]` TOML the remote server should use for this client: with `local` (the default)
/// this machine's config.toml `[keys]` without custom commands (the defaults when it has none
/// or cannot be read, as a local herdr would use), with `server` none.
fn client_keys(choice: Option<RemoteKeybindings>, env: &PathEnv) -> Option<String> {
    if choice == Some(RemoteKeybindings::Server) {
        return None;
    }
    let dir =
        paths::config_dir(env.xdg_config_home.as_deref().map(Path::new), env.home.as_deref().map(Path::new));
    let text =
        dir.ok().and_then(|dir| std::fs::read_to_string(dir.join("config.toml")).ok()).unwrap_or_default();
    Some(herdr_supervisor::config::portable_keys(&text))
}

/// The command that attaches to the same remote session again.
pub fn reattach_command(target: &str, session: Option<&str>) -> String {
    match session {
        Some(name) => format!("herdr --remote {target} --session {name}"),
        None => format!("herdr --remote {target}"),
    }
}

/// A remote host ready to attach to.
struct Prepared {
    connection: Connection,
    identity: Identity,
    remote_command: String,
}

fn identity() -> (PathBuf, Identity) {
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    let use_agent = std::env::var_os("SSH_AUTH_SOCK").is_some_and(|v| !v.is_empty());
    (home.clone(), Identity { home, use_agent })
}

fn local_user() -> Option<String> {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| nix::unistd::User::from_uid(nix::unistd::getuid()).ok().flatten().map(|user| user.name))
}

fn destination(raw_target: &str, home: &Path) -> Result<Destination, RemoteError> {
    let target = Target::parse(raw_target)?;
    let config_path = home.join(".ssh/config");
    let config = match std::fs::read_to_string(&config_path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => return Err(RemoteError::Read { path: config_path.display().to_string(), source }),
    };
    Ok(target.resolve(&config, home, local_user().as_deref())?)
}

fn prepare(raw_target: &str, session: Option<&str>, args: &RemoteArgs) -> Result<Prepared, RemoteError> {
    let (home, identity) = identity();
    let destination = destination(raw_target, &home)?;
    let connection = connect::open(&destination, &identity)?;
    let probe = remote_host::probe(&connection.session)?;
    let version_line = format!("herdr {HERDR_VERSION}");
    let herdr = match probe.matching(&version_line) {
        Some(path) => path.to_owned(),
        None => provision_herdr(&connection, &probe, raw_target, args.yes)?,
    };
    let status = remote_host::server_status(&connection.session, &herdr, session)?;
    match remote_host::decide(&status, args.handoff, HERDR_VERSION) {
        Decision::Attach => {}
        // Started here rather than by the far bridge so the first attach does not race the
        // client's handshake timeout.
        Decision::Start => {
            remote_host::run_herdr(&connection.session, &herdr, session, &["server", "--detach"])?;
        }
        Decision::Handoff => {
            let protocol = herdr_protocol::PROTOCOL_VERSION.to_string();
            remote_host::run_herdr(
                &connection.session,
                &herdr,
                session,
                &[
                    "server",
                    "live-handoff",
                    "--import-exe",
                    &herdr,
                    "--expected-protocol",
                    &protocol,
                    "--expected-version",
                    HERDR_VERSION,
                ],
            )?;
        }
        Decision::Refuse(text) => return Err(RemoteError::Refused(text)),
    }
    let remote_command =
        format!("exec {}", remote_host::herdr_command(&herdr, session, &["remote-client-bridge"]));
    Ok(Prepared { connection, identity, remote_command })
}

/// Copies this build to the remote host after asking (or with `--yes`); the remote herdr's path.
fn provision_herdr(
    connection: &Connection,
    probe: &remote_host::Probe,
    raw_target: &str,
    yes: bool,
) -> Result<String, RemoteError> {
    let found = if probe.candidates.is_empty() {
        "no herdr".to_owned()
    } else {
        let list: Vec<String> =
            probe.candidates.iter().map(|(path, version)| format!("{path} ({version})")).collect();
        format!("only {}", list.join(", "))
    };
    let local = remote_host::local_platform();
    if probe.platform != local {
        return Err(RemoteError::Refused(format!(
            "{raw_target} has {found}, and it is {} while this machine is {local}: install herdr {HERDR_VERSION} there \
             yourself (this build copies itself only to the same platform)",
            probe.platform
        )));
    }
    // This process is `herdr-remote`; the build it copies is the `herdr` that handed it over.
    let exe = crate::remote_bin::herdr_exe()
        .map_err(|source| RemoteError::Read { path: "the herdr executable".into(), source })?;
    let build = LocalBuild::locate(&exe, std::env::var_os(LIBRARY_ENV).map(PathBuf::from))?;
    let prefix = format!("{}/.local", probe.home.trim_end_matches('/'));
    let question = format!(
        "herdr: {raw_target} has {found} of version {HERDR_VERSION}.\nCopy this build (herdr, herdr-pane-worker, \
         {}) to {prefix}/bin and {prefix}/lib there? [y/N] ",
        provision::LIBGHOSTTY
    );
    if !yes && !ask(&question) {
        return Err(RemoteError::Refused(format!(
            "not installing on {raw_target}; install herdr {HERDR_VERSION} there, or run again with --yes to copy this build"
        )));
    }
    let mut progress = |upload: &Upload| {
        let size = std::fs::metadata(&upload.local).map(|m| m.len()).unwrap_or(0);
        eprintln!(
            "herdr: copying {} ({} MB) to {prefix}/{}",
            upload.local.display(),
            size / 1_000_000,
            upload.remote
        );
    };
    let herdr = provision::install(&connection.session, &build, &probe.platform, &probe.home, &mut progress)?;
    eprintln!("herdr: installed {herdr} (sha256 checked)");
    Ok(herdr)
}

/// Asks a yes/no question on the terminal (before it goes raw); only `y`/`yes` is yes.
fn ask(question: &str) -> bool {
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(question.as_bytes());
    let _ = stderr.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn env_secs(name: &str) -> Option<Duration> {
    std::env::var(name).ok()?.trim().parse::<u64>().ok().filter(|&s| s > 0).map(Duration::from_secs)
}

/// Where the bridge socket's private directory goes: the runtime dir, else the temp dir.
fn socket_parent() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}

fn attach_prepared(prepared: Prepared, reattach: &str, keys: Option<String>) -> Rendered {
    let socket = match BridgeSocket::bind(&socket_parent()) {
        Ok(socket) => socket,
        Err(err) => {
            return Rendered::stderr(format!("herdr --remote: {}\n", RemoteError::Socket(err)), EXIT_ERROR);
        }
    };
    let liveness = env_secs(KEEPALIVE_ENV).map_or_else(Liveness::default, |every| Liveness {
        keepalive_every: every,
        dead_after: every.saturating_mul(4),
    });
    let bridge = Arc::new(Bridge {
        destination: prepared.connection.destination.clone(),
        identity: prepared.identity,
        remote_command: prepared.remote_command,
        liveness,
        spare: Mutex::new(Some(prepared.connection)),
        last_error: Mutex::new(None),
    });
    if let Err(err) = bridge.clone().serve(&socket) {
        return Rendered::stderr(format!("herdr --remote: {}\n", RemoteError::Socket(err)), EXIT_ERROR);
    }
    let mut reconnect = ReconnectPolicy::default();
    if let Some(bound) = env_secs(RECONNECT_ENV) {
        reconnect.give_up_after = bound;
    }
    let options = AttachOptions { on_server_missing: None, reconnect, keys };
    let result = herdr_client::attach_with(socket.path(), options);
    drop(socket);
    match result {
        Ok(ExitReason::ConnectionLost { waited, last_error }) => {
            let why = bridge.last_error().or(last_error).unwrap_or_else(|| "no answer".into());
            Rendered::stderr(
                format!(
                    "herdr: lost the link to the remote session and could not reconnect within {} s (last error: \
                     {why})\nthe remote panes keep running; re-attach with: {reattach}\n",
                    waited.as_secs()
                ),
                EXIT_ERROR,
            )
        }
        Ok(ExitReason::Detached) => Rendered::stdout(format!("[detached] re-attach with: {reattach}\n")),
        Err(herdr_client::AttachError::Handshake(text)) => {
            let why = bridge.last_error().unwrap_or(text);
            Rendered::stderr(format!("herdr --remote: cannot attach: {why}\n"), EXIT_ERROR)
        }
        other => attach::outcome(other),
    }
}

/// `herdr [--session N] remote-client-bridge`: copies stdin to the session's client socket and
/// the socket to stdout until either ends, starting the supervisor first when none answers.
/// Stdout carries the client protocol, so nothing else is ever printed there.
pub fn client_bridge(target: &SessionTarget) -> Rendered {
    if !api::answers_ping(target.api_socket())
        && let Err(err) = server::spawn_detached(target)
    {
        return Rendered::stderr(
            format!("herdr remote-client-bridge: cannot start the server: {err:#}\n"),
            EXIT_ERROR,
        );
    }
    let socket = &target.paths.client_socket;
    let stream = match UnixStream::connect(socket) {
        Ok(stream) => stream,
        Err(err) => {
            return Rendered::stderr(
                format!("herdr remote-client-bridge: cannot connect to {}: {err}\n", socket.display()),
                EXIT_ERROR,
            );
        }
    };
    let upstream = match stream.try_clone() {
        Ok(upstream) => upstream,
        Err(err) => return Rendered::stderr(format!("herdr remote-client-bridge: {err}\n"), EXIT_ERROR),
    };
    // Input until the ssh channel ends, then end the supervisor's side of the conversation.
    let spawned = std::thread::Builder::new().name("herdr-bridge-up".into()).spawn(move || {
        let mut upstream = upstream;
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut upstream);
        let _ = upstream.shutdown(std::net::Shutdown::Write);
    });
    if let Err(err) = spawned {
        return Rendered::stderr(format!("herdr remote-client-bridge: {err}\n"), EXIT_ERROR);
    }
    copy_unbuffered(stream, std::io::stdout().lock());
    Rendered::default()
}

/// Paints go out as they arrive: each read is written and flushed whole.
fn copy_unbuffered(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn the_reattach_command_names_the_target_and_session() {
        assert_eq!(reattach_command("me@box", None), "herdr --remote me@box");
        assert_eq!(reattach_command("box", Some("work")), "herdr --remote box --session work");
    }

    #[test]
    fn remote_options_parse_at_the_root() {
        let cli =
            crate::args::Cli::try_parse_from(["herdr", "--remote", "ssh://u@h:2222", "--handoff", "--yes"])
                .expect("parse");
        assert_eq!(cli.remote.target.as_deref(), Some("ssh://u@h:2222"));
        assert!(cli.remote.handoff && cli.remote.yes && cli.command.is_none());
        let server =
            crate::args::Cli::try_parse_from(["herdr", "--remote-keybindings", "server"]).expect("parse");
        assert_eq!(server.remote.remote_keybindings, Some(RemoteKeybindings::Server));
    }

    #[test]
    fn remote_options_without_a_target_or_with_a_subcommand_are_usage_errors() {
        let args = RemoteArgs { handoff: true, ..RemoteArgs::default() };
        assert_eq!(run(&args, false, None).exit, EXIT_USAGE);
        let args = RemoteArgs { target: Some("box".into()), ..RemoteArgs::default() };
        assert_eq!(run(&args, true, None).exit, EXIT_USAGE);
    }

    #[test]
    fn local_keybindings_are_the_default_and_send_this_machines_keys_without_commands() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("herdr")).expect("config dir");
        let config =
            "[keys]\nprefix = \"ctrl+a\"\n[[keys.command]]\nkey = \"prefix+t\"\ncommand = \"htop\"\n";
        std::fs::write(dir.path().join("herdr/config.toml"), config).expect("write config");
        let env = PathEnv { xdg_config_home: Some(dir.path().into()), ..PathEnv::default() };
        for choice in [None, Some(RemoteKeybindings::Local)] {
            let keys = client_keys(choice, &env).expect("local keys are sent");
            assert!(keys.contains("prefix = \"ctrl+a\""), "{keys}");
            assert!(!keys.contains("htop"), "custom commands stay on this machine: {keys}");
        }
        assert_eq!(client_keys(Some(RemoteKeybindings::Server), &env), None);
        let empty = tempfile::tempdir().expect("tempdir");
        let env = PathEnv { xdg_config_home: Some(empty.path().into()), ..PathEnv::default() };
        assert_eq!(
            client_keys(None, &env).as_deref(),
            Some("[keys]\n"),
            "no config: this machine's defaults"
        );
    }

    #[test]
    fn the_far_bridge_copies_every_byte_in_order() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        copy_unbuffered(&data[..], &mut out);
        assert_eq!(out, data);
    }
}
