//! Attaching the terminal: `herdr` with no subcommand, `herdr --session NAME`, and
//! `herdr session attach NAME`. Starts the session's server in the background when none runs
//! (the `server --detach` routine), then hands the terminal to [`herdr_client::attach_with`],
//! which reconnects when the server dies and uses the same routine to start a new one.

use std::io::IsTerminal;

use herdr_client::{AttachError, AttachOptions, ExitReason};
use herdr_protocol::paths::{PathEnv, SessionName};

use crate::connect;
use crate::output::{EXIT_ERROR, EXIT_OK, EXIT_USAGE, Rendered};
use crate::server;
use crate::target::Target;

/// Set in every pane's environment: `herdr` inside a pane would attach the session to itself.
const PANE_ENV: &str = "HERDR_ENV";

/// Printed (exit 2) when `herdr` is run without a terminal to attach.
pub const NO_TERMINAL_MESSAGE: &str = "herdr: attaching needs a terminal (stdin and stdout must be a TTY).\n\
Without one, drive the server with subcommands: `herdr server --detach` starts it, then e.g.\n\
`herdr workspace create`, `herdr pane list`, `herdr pane run <PANE_ID> <COMMAND>`. See `herdr --help`.\n";

/// `herdr [--session NAME]`.
pub fn run(session: Option<&str>, env: &PathEnv) -> Rendered {
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Rendered::stderr(NO_TERMINAL_MESSAGE, EXIT_USAGE);
    }
    if std::env::var_os(PANE_ENV).is_some_and(|v| v == "1") {
        return Rendered::stderr(
            "herdr: already inside a herdr pane; attaching here would nest the session in itself\n",
            EXIT_ERROR,
        );
    }
    let target = match Target::resolve(session, env) {
        Ok(target) => target,
        Err(err) => return Rendered::usage(&format!("herdr: {err}")),
    };
    let client_socket = target.paths.client_socket.clone();
    // Straight to the client socket: a running server takes the attach without an API ping
    // first (a round trip every plain `herdr` paid); only a connect that finds nobody listening
    // starts one.
    match herdr_client::attach_with(&client_socket, restart_on_loss(target.clone())) {
        Err(AttachError::Connect { source, .. }) if nobody_listens(&source) => {}
        result => return outcome(result),
    }
    if !connect::answers_ping(target.api_socket())
        && let Err(err) = server::spawn_detached(&target)
    {
        return Rendered::stderr(format!("herdr: cannot start the server: {err:#}\n"), EXIT_ERROR);
    }
    outcome(herdr_client::attach_with(&client_socket, restart_on_loss(target)))
}

/// A connect error that means no server has this socket: none was ever bound there, or the one
/// that was has gone.
fn nobody_listens(err: &std::io::Error) -> bool {
    matches!(err.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused)
}

/// While reconnecting after the server died, a new server is started the way a plain `herdr`
/// starts one, unless something already answers on the API socket (a server that is still
/// coming up, or one another client started).
fn restart_on_loss(target: Target) -> AttachOptions {
    AttachOptions {
        on_server_missing: Some(Box::new(move || {
            if connect::answers_ping(target.api_socket()) {
                return Ok(());
            }
            // `{:#}` keeps anyhow's context chain (which log to read) in the give-up message.
            server::spawn_detached(&target).map(drop).map_err(|err| format!("{err:#}").into())
        })),
        ..AttachOptions::default()
    }
}

/// `herdr session attach NAME` (`default` names the default session).
pub fn run_named(name: &str, env: &PathEnv) -> Rendered {
    match SessionName::parse(name) {
        Ok(_) => run(Some(name), env),
        Err(err) => Rendered::usage(&format!("herdr: {err}")),
    }
}

/// What the user is told after the terminal is restored.
pub fn outcome(result: Result<ExitReason, AttachError>) -> Rendered {
    match result {
        Ok(ExitReason::Detached) => Rendered::stdout("[detached]\n"),
        Ok(ExitReason::ServerStopping) => Rendered::stdout("[server stopped]\n"),
        Ok(ExitReason::TerminalClosed) => Rendered { exit: EXIT_OK, ..Rendered::default() },
        Ok(ExitReason::ConnectionLost { waited, last_error }) => {
            let mut message = format!(
                "herdr: lost the connection to the server and could not reconnect within {} s",
                waited.as_secs()
            );
            if let Some(error) = last_error {
                message.push_str(&format!(" (last error: {error})"));
            }
            message.push('\n');
            Rendered::stderr(message, EXIT_ERROR)
        }
        Err(AttachError::Refused(reason)) => Rendered::stderr(format!("herdr: {reason}\n"), EXIT_ERROR),
        Err(err) => Rendered::stderr(format!("herdr: {err}\n"), EXIT_ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_printed_as_the_server_worded_it() {
        let message = herdr_protocol::client::version_mismatch_message(1, 2);
        let rendered = outcome(Err(AttachError::Refused(message.clone())));
        assert_eq!(rendered.stderr, format!("herdr: {message}\n"));
        assert_eq!(rendered.exit, EXIT_ERROR);
    }

    #[test]
    fn detach_and_server_stop_say_so_and_succeed() {
        assert_eq!(outcome(Ok(ExitReason::Detached)), Rendered::stdout("[detached]\n"));
        assert_eq!(outcome(Ok(ExitReason::ServerStopping)).exit, EXIT_OK);
        assert_eq!(outcome(Ok(ExitReason::TerminalClosed)), Rendered::default());
    }

    #[test]
    fn giving_up_on_reconnecting_says_how_long_and_why() {
        let lost = ExitReason::ConnectionLost {
            waited: std::time::Duration::from_secs(60),
            last_error: Some("cannot start a server: the server exited".into()),
        };
        let rendered = outcome(Ok(lost));
        assert_eq!(
            rendered.stderr,
            "herdr: lost the connection to the server and could not reconnect within 60 s \
             (last error: cannot start a server: the server exited)\n"
        );
        assert_eq!(rendered.exit, EXIT_ERROR);
    }

    #[test]
    fn an_invalid_session_name_is_a_usage_error() {
        let rendered = run_named("../x", &PathEnv::default());
        assert_eq!(rendered.exit, EXIT_USAGE);
        assert!(rendered.stderr.contains("session name"), "{}", rendered.stderr);
    }
}
