//! What the CLI prints and with which exit code. Rendering is pure (`Rendered`); `emit` is the
//! one place that writes to stdout/stderr.
//!
//! Conventions (upstream, parsed by third-party scripts): relayed server envelopes are printed as
//! one compact line with keys sorted alphabetically at every level; success goes to stdout with
//! exit 0, an error envelope to stderr with exit 1. Errors the CLI makes itself
//! (`server_not_running`, `protocol_mismatch`) keep the key order `id`, `error{code, message}`.
//! Usage errors are text on stderr with exit 2.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::request::Reply;

pub const EXIT_OK: u8 = 0;
pub const EXIT_ERROR: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// Text for stdout and stderr plus the exit code, not yet written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    pub stdout: String,
    pub stderr: String,
    pub exit: u8,
}

impl Rendered {
    pub fn stdout(text: impl Into<String>) -> Self {
        Rendered { stdout: text.into(), stderr: String::new(), exit: EXIT_OK }
    }

    pub fn stderr(text: impl Into<String>, exit: u8) -> Self {
        Rendered { stdout: String::new(), stderr: text.into(), exit }
    }

    pub fn usage(message: &str) -> Self {
        Rendered::stderr(line(message), EXIT_USAGE)
    }
}

fn line(text: &str) -> String {
    if text.ends_with('\n') { text.to_owned() } else { format!("{text}\n") }
}

/// `value` with object keys sorted at every level (our serde_json keeps insertion order, so the
/// sort must be done explicitly).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::with_capacity(map.len());
            for key in keys {
                out.insert(key.clone(), sorted(&map[key.as_str()]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// One compact line with sorted keys, newline-terminated.
pub fn sorted_line(value: &Value) -> String {
    format!("{}\n", sorted(value))
}

/// An error envelope made by the CLI itself (not relayed from a server).
#[derive(Debug, Serialize)]
struct CliError<'a> {
    id: &'a str,
    error: CliErrorBody<'a>,
}

#[derive(Debug, Serialize)]
struct CliErrorBody<'a> {
    code: &'a str,
    message: &'a str,
}

/// `{"id":…,"error":{"code":…,"message":…}}` in that key order, newline-terminated.
pub fn cli_error_line(id: &str, code: &str, message: &str) -> String {
    let envelope = CliError { id, error: CliErrorBody { code, message } };
    match serde_json::to_string(&envelope) {
        Ok(text) => format!("{text}\n"),
        // Serializing two strings cannot fail; keep a readable line rather than panicking.
        Err(err) => format!("{code}: {message} ({err})\n"),
    }
}

/// A CLI-made error envelope on stderr, exit 1.
pub fn cli_error(id: &str, code: &str, message: &str) -> Rendered {
    Rendered::stderr(cli_error_line(id, code, message), EXIT_ERROR)
}

/// Renders a server reply according to the command's `reply` mode.
pub fn render_reply(reply: Reply, response: &Value) -> Rendered {
    if response.get("error").is_some() || response.get("result").is_none() {
        return Rendered::stderr(sorted_line(response), EXIT_ERROR);
    }
    match reply {
        Reply::Envelope => Rendered::stdout(sorted_line(response)),
        Reply::Silent => Rendered::default(),
        Reply::ReadText => {
            let text = response["result"]["read"]["text"].as_str().unwrap_or_default();
            Rendered::stdout(text)
        }
        Reply::Explain { json: true, .. } => Rendered::stdout(sorted_line(&response["result"]["explain"])),
        Reply::Explain { json: false, verbose } => {
            Rendered::stdout(crate::agent::explain_text(&response["result"]["explain"], verbose))
        }
        Reply::ManifestStatus => Rendered::stdout(crate::server::manifest_status_text(&response["result"])),
    }
}

/// Writes the rendered text and returns the exit code. A closed stdout (`| head`) is not an error.
pub fn emit(rendered: Rendered) -> ExitCode {
    if !rendered.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(rendered.stdout.as_bytes()).and_then(|()| out.flush());
    }
    if !rendered.stderr.is_empty() {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(rendered.stderr.as_bytes()).and_then(|()| err.flush());
    }
    ExitCode::from(rendered.exit)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_are_sorted_at_every_level() {
        let value =
            json!({"id": "x", "result": {"type": "pane_info", "pane": {"z": 1, "a": [{"b": 1, "a": 2}]}}});
        assert_eq!(
            sorted_line(&value),
            "{\"id\":\"x\",\"result\":{\"pane\":{\"a\":[{\"a\":2,\"b\":1}],\"z\":1},\"type\":\"pane_info\"}}\n"
        );
    }

    #[test]
    fn error_envelopes_sort_error_before_id() {
        let value = json!({"id": "cli:pane:get", "error": {"message": "m", "code": "pane_not_found"}});
        let rendered = render_reply(Reply::Envelope, &value);
        assert_eq!(rendered.exit, EXIT_ERROR);
        assert!(rendered.stdout.is_empty());
        assert_eq!(
            rendered.stderr,
            "{\"error\":{\"code\":\"pane_not_found\",\"message\":\"m\"},\"id\":\"cli:pane:get\"}\n"
        );
    }

    #[test]
    fn cli_made_errors_keep_struct_order() {
        assert_eq!(
            cli_error_line("cli:pane:list", "server_not_running", "no"),
            "{\"id\":\"cli:pane:list\",\"error\":{\"code\":\"server_not_running\",\"message\":\"no\"}}\n"
        );
    }

    #[test]
    fn success_envelope_goes_to_stdout() {
        let value = json!({"result": {"type": "ok"}, "id": "cli:x"});
        let rendered = render_reply(Reply::Envelope, &value);
        assert_eq!(rendered, Rendered::stdout("{\"id\":\"cli:x\",\"result\":{\"type\":\"ok\"}}\n"));
    }

    #[test]
    fn silent_prints_nothing_on_success_and_the_error_otherwise() {
        let ok = json!({"id": "cli:request", "result": {"type": "ok"}});
        assert_eq!(render_reply(Reply::Silent, &ok), Rendered::default());
        let err =
            json!({"id": "cli:request", "error": {"code": "invalid_key", "message": "unsupported key x"}});
        let rendered = render_reply(Reply::Silent, &err);
        assert_eq!(rendered.exit, EXIT_ERROR);
        assert!(rendered.stderr.starts_with("{\"error\":"));
    }

    #[test]
    fn read_text_is_verbatim_without_added_newline() {
        let value = json!({"id": "cli:pane:read", "result": {"type": "pane_read", "read": {"text": "a\nb"}}});
        assert_eq!(render_reply(Reply::ReadText, &value), Rendered::stdout("a\nb"));
    }

    #[test]
    fn a_reply_without_result_or_error_is_an_error() {
        let rendered = render_reply(Reply::Envelope, &json!({"id": "x"}));
        assert_eq!(rendered.exit, EXIT_ERROR);
    }
}
