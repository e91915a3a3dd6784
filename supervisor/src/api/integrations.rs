//! `integration.list`, `integration.install`, `integration.uninstall`: the socket face of
//! `herdr-integrations`, run against the server process's own environment (its HOME and the
//! agents' config-dir variables), since the server edits the same user's files the CLI would.
//!
//! Errors: a target outside the API enum fails params parsing (`invalid_request`, blank id); a
//! missing agent dir or a user config herdr cannot edit safely answers `invalid_request` with the
//! reason; file system failures `internal_error`.
//!
//! `herdr-integrations` builds the protocol's [`ApiResult`] itself; this module only turns its
//! error into the API error code and message.

use herdr_integrations::Env;
use herdr_integrations::wire::{self, TargetParams};
use herdr_protocol::api::requests::IntegrationTargetParams;
use herdr_protocol::api::{ApiError, ApiResult};

use super::envelope::Failure;

pub fn list() -> Result<ApiResult, Failure> {
    list_in(&Env::from_process_env())
}

pub fn install(p: IntegrationTargetParams) -> Result<ApiResult, Failure> {
    install_in(p, &Env::from_process_env())
}

pub fn uninstall(p: IntegrationTargetParams) -> Result<ApiResult, Failure> {
    uninstall_in(p, &Env::from_process_env())
}

fn list_in(env: &Env) -> Result<ApiResult, Failure> {
    answer(wire::list(env))
}

fn install_in(p: IntegrationTargetParams, env: &Env) -> Result<ApiResult, Failure> {
    answer(wire::install(TargetParams { target: p.target }, env))
}

fn uninstall_in(p: IntegrationTargetParams, env: &Env) -> Result<ApiResult, Failure> {
    answer(wire::uninstall(TargetParams { target: p.target }, env))
}

fn answer(outcome: Result<ApiResult, herdr_integrations::Error>) -> Result<ApiResult, Failure> {
    outcome.map_err(|e| Failure::from(ApiError::new(e.code(), e.to_string())))
}

#[cfg(test)]
mod tests {
    use herdr_protocol::schema_check::{SchemaKind, validate};
    use serde_json::{Value, json};

    use super::*;
    use herdr_protocol::api::Request;
    use herdr_protocol::api::requests::IntegrationRequest;

    use crate::api::envelope::{bad_request_line, outcome_line, parse};

    /// The params of an install or uninstall request line, parsed as the transport does.
    fn request(line: &str) -> IntegrationTargetParams {
        match parse(line).expect("request parses").request {
            Request::Integration(IntegrationRequest::Install(p) | IntegrationRequest::Uninstall(p)) => p,
            other => panic!("not an install or uninstall: {other:?}"),
        }
    }

    fn line_value(id: &str, outcome: &Result<ApiResult, Failure>) -> Value {
        serde_json::from_str(&outcome_line(id, outcome)).expect("line is JSON")
    }

    #[test]
    fn every_target_installs_and_errors_echo_the_id() {
        let home = tempfile::tempdir().expect("home");
        std::fs::create_dir_all(home.path().join(".kimi-code")).expect("kimi dir");
        let env = Env::with_home(home.path());
        let req = request(r#"{"id":"7","method":"integration.install","params":{"target":"kimi"}}"#);
        let value = line_value("7", &install_in(req, &env));
        assert_eq!(value["result"]["type"], "integration_install", "{value}");
        let req = request(r#"{"id":"7","method":"integration.install","params":{"target":"grok"}}"#);
        let value = line_value("7", &install_in(req, &env));
        assert_eq!(value["id"], "7");
        assert_eq!(value["error"]["code"], "invalid_request", "no ~/.grok: {value}");
        assert!(validate(SchemaKind::ErrorResponse, &value).is_ok());
    }

    #[test]
    fn a_name_outside_the_enum_is_an_invalid_request() {
        let refused = parse(r#"{"id":"8","method":"integration.uninstall","params":{"target":"gemini"}}"#)
            .expect_err("not a target");
        let value: Value =
            serde_json::from_str(&bad_request_line(&refused.to_string())).expect("line is JSON");
        assert_eq!(value["id"], "");
        assert_eq!(value["error"]["code"], "invalid_request");
    }

    #[test]
    fn a_missing_agent_dir_is_explained() {
        let home = tempfile::tempdir().expect("home");
        let env = Env { home: Some(home.path().into()), ..Env::default() };
        let req = request(r#"{"id":"9","method":"integration.install","params":{"target":"claude"}}"#);
        let value = line_value("9", &install_in(req, &env));
        assert_eq!(value["error"]["code"], "invalid_request");
        assert!(value["error"]["message"].as_str().expect("message").contains(".claude"), "{value}");
    }

    #[test]
    fn results_validate_against_the_schema() {
        let home = tempfile::tempdir().expect("home");
        std::fs::create_dir_all(home.path().join(".claude")).expect("claude dir");
        let env = Env { home: Some(home.path().into()), ..Env::default() };
        for (req, outcome) in [
            ("1", list_in(&env)),
            (
                "2",
                install_in(
                    request(r#"{"id":"2","method":"integration.install","params":{"target":"claude"}}"#),
                    &env,
                ),
            ),
            (
                "3",
                uninstall_in(
                    request(r#"{"id":"3","method":"integration.uninstall","params":{"target":"claude"}}"#),
                    &env,
                ),
            ),
        ] {
            let value = line_value(req, &outcome);
            assert!(value.get("result").is_some(), "{value}");
            if let Err(errors) = validate(SchemaKind::SuccessResponse, &value) {
                panic!("{errors:?}: {value}");
            }
        }
        let listed = line_value("1", &list_in(&env));
        let rows = listed["result"]["integrations"].as_array().expect("rows");
        assert_eq!(rows.len(), 17, "every target is listed");
        assert_eq!(
            rows.iter().find(|row| row["target"] == "claude"),
            Some(&json!({"target": "claude", "label": "Claude Code",
            "command": "claude", "available": true, "state": "not_installed"}))
        );
    }
}
