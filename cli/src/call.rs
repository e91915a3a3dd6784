//! Running one socket-backed command: `ping` on its own connection, the protocol guard, then
//! the command's single request, then rendering the reply.

use serde_json::Value;

use herdr_protocol::PROTOCOL_VERSION;

use crate::connect::{self, ConnectError, PING_TIMEOUT, REPLY_TIMEOUT};
use crate::output::{self, Rendered};
use crate::request::{ApiCall, ApiRequest};
use crate::target::Target;

/// The id of the guard's own `ping`.
const PING_ID: &str = "cli:ping";

/// Guard, send, render.
pub fn run(target: &Target, call: &ApiCall) -> Rendered {
    if let Err(refused) = guard(target, call.request.id) {
        return refused;
    }
    let timeout = if call.request.waits() { None } else { Some(REPLY_TIMEOUT) };
    match connect::exchange(target.api_socket(), &call.request, timeout) {
        Ok(response) => output::render_reply(call.reply, &response),
        Err(err) => connect_failure(target, call.request.id, err),
    }
}

/// Pings the server and checks its protocol. On refusal, the rendered error uses `id` (the id of
/// the command the user ran). On success returns the ping's `result`.
pub fn guard(target: &Target, id: &str) -> Result<Value, Rendered> {
    let ping = ApiRequest::ping(PING_ID);
    match connect::exchange(target.api_socket(), &ping, Some(PING_TIMEOUT)) {
        Ok(pong) => protocol_check(id, &pong),
        Err(err) => Err(connect_failure(target, id, err)),
    }
}

/// The protocol guard on a ping reply: the server's `protocol` must equal ours.
pub fn protocol_check(id: &str, pong: &Value) -> Result<Value, Rendered> {
    if let Some(error) = pong.get("error") {
        let code = error["code"].as_str().unwrap_or("server_unavailable");
        let message = error["message"].as_str().unwrap_or("the server refused ping");
        return Err(output::cli_error(id, code, message));
    }
    let result = &pong["result"];
    let Some(server) = result["protocol"].as_u64() else {
        return Err(output::cli_error(
            id,
            "protocol_mismatch",
            "the server's ping reply did not include a protocol version",
        ));
    };
    let client = u64::from(PROTOCOL_VERSION);
    if server == client {
        return Ok(result.clone());
    }
    let message = if client > server {
        format!(
            "client protocol {client} is newer than server protocol {server}; restart the herdr server \
             before using this command (`herdr server stop` ends its panes; then start it again)"
        )
    } else {
        format!(
            "client protocol {client} is older than server protocol {server}; upgrade the herdr client \
             before using this command"
        )
    };
    Err(output::cli_error(id, "protocol_mismatch", &message))
}

/// A failed exchange as a CLI-made error envelope.
pub fn connect_failure(target: &Target, id: &str, err: ConnectError) -> Rendered {
    match err {
        ConnectError::NotRunning => {
            output::cli_error(id, "server_not_running", &target.not_running_message())
        }
        other => output::cli_error(
            id,
            "server_unavailable",
            &format!("herdr server at {}: {other}", target.api_socket().display()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::output::EXIT_ERROR;

    #[test]
    fn matching_protocol_passes() {
        let pong = json!({"id": "cli:ping", "result": {"type": "pong", "version": "0.1.0", "protocol": 22}});
        assert_eq!(protocol_check("cli:pane:list", &pong).map(|r| r["protocol"].clone()), Ok(json!(22)));
    }

    #[test]
    fn older_server_is_refused_with_the_command_id() {
        let pong = json!({"id": "cli:ping", "result": {"type": "pong", "version": "0.8.2", "protocol": 20}});
        let refused = protocol_check("cli:pane:list", &pong).expect_err("refused");
        assert_eq!(refused.exit, EXIT_ERROR);
        assert!(refused.stdout.is_empty());
        assert!(
            refused.stderr.starts_with(
                "{\"id\":\"cli:pane:list\",\"error\":{\"code\":\"protocol_mismatch\",\"message\":\"client protocol 22 is newer than server protocol 20;"
            ),
            "{}",
            refused.stderr
        );
    }

    #[test]
    fn newer_server_is_refused() {
        let pong = json!({"id": "cli:ping", "result": {"type": "pong", "protocol": 23}});
        let refused = protocol_check("cli:tab:list", &pong).expect_err("refused");
        assert!(refused.stderr.contains("client protocol 22 is older than server protocol 23"));
    }

    #[test]
    fn missing_protocol_is_refused() {
        let pong = json!({"id": "cli:ping", "result": {"type": "pong"}});
        let refused = protocol_check("cli:tab:list", &pong).expect_err("refused");
        assert!(refused.stderr.contains("\"code\":\"protocol_mismatch\""));
    }

    #[test]
    fn ping_error_is_reported_under_the_command_id() {
        let pong =
            json!({"id": "cli:ping", "error": {"code": "server_unavailable", "message": "shutting down"}});
        let refused = protocol_check("cli:tab:list", &pong).expect_err("refused");
        assert_eq!(
            refused.stderr,
            "{\"id\":\"cli:tab:list\",\"error\":{\"code\":\"server_unavailable\",\"message\":\"shutting down\"}}\n"
        );
    }
}
