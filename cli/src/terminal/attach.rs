//! The direct terminal attaches: `agent attach TARGET [--takeover]` (the target resolved with
//! `agent.get`, as upstream, then its terminal attached), `terminal attach ID [--takeover]`,
//! and `terminal session observe|control TARGET` (NDJSON for bridges). Each pings the server
//! first (the protocol guard); a refusal by the supervisor (an unknown target, a pane that
//! already has a writable owner) is printed as the CLI's error envelope with code
//! `terminal_attach_failed` and the supervisor's message, exit 1, as an `agent.get` error is.

use std::io::IsTerminal;

use herdr_client::AttachError;
use herdr_client::attach::{self, AttachEnd};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{AgentRequest, AgentTarget};

use super::{AttachArgs, SessionCommand};
use crate::connect::{self, REPLY_TIMEOUT};
use crate::output::{self, EXIT_ERROR, EXIT_USAGE, Rendered};
use crate::request::ApiRequest;
use crate::target::Target;

/// Which attach the command line asked for.
#[derive(Debug, Clone)]
pub enum Attach {
    Agent(crate::agent::AttachArgs),
    Terminal(AttachArgs),
    Session(SessionCommand),
}

impl Attach {
    fn id(&self) -> &'static str {
        match self {
            Attach::Agent(_) => "cli:agent:attach",
            Attach::Terminal(_) => "cli:terminal:attach",
            Attach::Session(SessionCommand::Control { .. }) => "cli:terminal:session:control",
            Attach::Session(SessionCommand::Observe { .. }) => "cli:terminal:session:observe",
        }
    }
}

/// Printed (exit 2) when an interactive attach has no terminal.
const NO_TERMINAL: &str = "herdr: attaching needs a terminal (stdin and stdout must be a TTY); \
for a program, use `herdr terminal session observe|control`";

pub fn run(target: &Target, attach: &Attach) -> Rendered {
    let id = attach.id();
    if let Err(refused) = crate::call::guard(target, id) {
        return refused;
    }
    let socket = &target.paths.client_socket;
    // An unknown agent is reported as `agent.get` reports it, terminal or not.
    let (terminal, takeover) = match attach {
        Attach::Agent(args) => match terminal_of(target, &args.target) {
            Ok(terminal) => (terminal, args.takeover),
            Err(rendered) => return rendered,
        },
        Attach::Terminal(args) => (args.target.clone(), args.takeover),
        Attach::Session(command) => return session(id, socket, command),
    };
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Rendered::usage(NO_TERMINAL);
    }
    ended(id, attach::attach_terminal(socket, &terminal, takeover))
}

/// `terminal session observe|control`: records on stdout (and commands from stdin).
fn session(id: &str, socket: &std::path::Path, command: &SessionCommand) -> Rendered {
    let result = match command {
        SessionCommand::Observe { target, size } => {
            attach::bridge::observe(socket, target, size.cols, size.rows, &mut std::io::stdout())
        }
        SessionCommand::Control { target, takeover, size } => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            let size = (size.cols, size.rows);
            attach::bridge::control(socket, target, *takeover, size, stdin, &mut std::io::stdout())
        }
    };
    match result {
        Ok(()) => Rendered::default(),
        Err(err) => failed(id, err),
    }
}

/// The terminal id of the agent `target` names (`agent.get`), or the error envelope to print.
fn terminal_of(target: &Target, agent: &str) -> Result<String, Rendered> {
    let id = "cli:agent:attach:resolve";
    let get = AgentRequest::Get(AgentTarget { target: agent.to_owned() });
    let reply = connect::exchange(
        target.api_socket(),
        &ApiRequest::new(id, Request::Agent(get)),
        Some(REPLY_TIMEOUT),
    )
    .map_err(|err| crate::call::connect_failure(target, id, err))?;
    if reply.get("error").is_some() {
        return Err(Rendered::stderr(output::sorted_line(&reply), EXIT_ERROR));
    }
    match reply["result"]["agent"]["terminal_id"].as_str() {
        Some(terminal) => Ok(terminal.to_owned()),
        None => Err(Rendered::stderr(
            "herdr: agent attach failed: response did not include terminal_id\n",
            EXIT_ERROR,
        )),
    }
}

/// What the user is told once the terminal is restored.
fn ended(id: &str, result: Result<AttachEnd, AttachError>) -> Rendered {
    match result {
        Ok(AttachEnd::Detached) => Rendered::stdout("[detached]\n"),
        Ok(AttachEnd::ServerStopping) => Rendered::stdout("[server stopped]\n"),
        Ok(AttachEnd::TakenOver) => Rendered::stderr("herdr: terminal attach taken over\n", 0),
        Ok(AttachEnd::PaneEnded(terminal)) => {
            Rendered::stderr(format!("herdr: terminal {terminal} exited\n"), 0)
        }
        Ok(AttachEnd::Lost(why)) => {
            Rendered::stderr(format!("herdr: terminal attach lost: {why}\n"), EXIT_ERROR)
        }
        Err(err) => failed(id, err),
    }
}

fn failed(id: &str, err: AttachError) -> Rendered {
    match err {
        AttachError::Refused(message) => output::cli_error(id, "terminal_attach_failed", &message),
        AttachError::Terminal(e) => {
            Rendered::stderr(format!("herdr: cannot set up the terminal: {e}\n"), EXIT_USAGE)
        }
        other => Rendered::stderr(format!("herdr: {other}\n"), EXIT_ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_the_cli_error_envelope_and_ends_say_what_happened() {
        let refused = failed(
            "cli:terminal:attach",
            AttachError::Refused("terminal attach failed: terminal x not found".into()),
        );
        assert_eq!(refused.exit, EXIT_ERROR);
        let line: serde_json::Value = serde_json::from_str(refused.stderr.trim()).expect("json");
        assert_eq!(line["error"]["code"], "terminal_attach_failed");
        assert_eq!(line["id"], "cli:terminal:attach");
        assert_eq!(ended("x", Ok(AttachEnd::Detached)), Rendered::stdout("[detached]\n"));
        let gone = ended("x", Ok(AttachEnd::PaneEnded("term_1".into())));
        assert_eq!((gone.stderr.as_str(), gone.exit), ("herdr: terminal term_1 exited\n", 0));
        assert_eq!(ended("x", Ok(AttachEnd::Lost("eof".into()))).exit, EXIT_ERROR);
    }
}
