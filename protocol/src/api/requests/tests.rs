use serde_json::json;

use super::*;
use crate::schema_check;

#[test]
fn the_method_list_is_the_schemas_in_its_order() {
    assert_eq!(METHODS, schema_check::request_methods());
}

#[test]
fn an_unknown_method_lists_every_method_in_order() {
    let err = Request::parse("nope", &json!({})).expect_err("unknown");
    let message = err.to_string();
    let expected: Vec<String> = METHODS.iter().map(|m| format!("`{m}`")).collect();
    assert_eq!(message, format!("unknown variant `nope`, expected one of {}", expected.join(", ")));
    assert!(
        message.starts_with("unknown variant `nope`, expected one of `ping`, `server.stop`,"),
        "{message}"
    );
}

#[test]
fn params_must_be_an_object_that_fits() {
    let err = Request::parse("ping", &json!([])).expect_err("array");
    assert_eq!(err.to_string(), "invalid type: sequence, expected params object");
    let err = Request::parse("pane.read", &json!({"source": "visible"})).expect_err("no pane");
    assert_eq!(err.to_string(), "missing field `pane_id`");
    let err = Request::parse("workspace.create", &json!({"focus": null})).expect_err("null default");
    assert!(err.to_string().contains("expected a boolean"), "{err}");
    let ok =
        Request::parse("workspace.create", &json!({"cwd": null, "unknown": 1})).expect("nullable, extra");
    assert_eq!(ok, Request::Workspace(WorkspaceRequest::Create(WorkspaceCreateParams::default())));
}

#[test]
fn defaults_apply_through_accessors_and_absent_fields_stay_absent() {
    let Request::Pane(PaneRequest::Read(read)) =
        Request::parse("pane.read", &json!({"pane_id": "w1:p1", "source": "recent"})).expect("read")
    else {
        panic!("a pane read")
    };
    assert_eq!((read.format(), read.strip_ansi()), (crate::api::ReadFormat::Text, true));
    let request = Request::Pane(PaneRequest::Read(read));
    assert_eq!(request.params_value().expect("json"), json!({"pane_id": "w1:p1", "source": "recent"}));
}

#[test]
fn the_envelope_parses_once_and_serialises_back() {
    let line = r#"{"id":"cli:pane:get","method":"pane.get","params":{"pane_id":"w1:p2"}}"#;
    let envelope = RequestEnvelope::parse_line(line).expect("parses");
    assert_eq!(envelope.id, "cli:pane:get");
    assert_eq!(envelope.request, Request::Pane(PaneRequest::Get(PaneTarget { pane_id: "w1:p2".into() })));
    let back = envelope.to_value().expect("json");
    assert_eq!(back, serde_json::from_str::<serde_json::Value>(line).expect("json"));
    let missing = RequestEnvelope::parse_line(r#"{"id":"1","method":"ping"}"#).expect_err("params");
    assert!(missing.to_string().contains("missing field `params`"), "{missing}");
}

#[test]
fn an_unknown_subscription_type_is_named() {
    let err = Request::parse("events.subscribe", &json!({"subscriptions": [{"type": "pane.nope"}]}))
        .expect_err("unknown type");
    assert!(err.to_string().contains("unknown subscription type `pane.nope`"), "{err}");
}

#[test]
fn error_codes_map_to_their_wire_strings_both_ways() {
    use crate::api::ErrorCode;
    for code in [ErrorCode::NotImplemented, ErrorCode::InvalidRequest, ErrorCode::HandoffFailed] {
        assert_eq!(ErrorCode::from_wire(code.as_str()), code);
    }
    assert_eq!(ErrorCode::NotImplemented.as_str(), "not_implemented");
    assert_eq!(ErrorCode::from_wire("pane_send_failed"), ErrorCode::PaneSendFailed);
    assert_eq!(ErrorCode::from_wire("from_the_future"), ErrorCode::Other("from_the_future".into()));
    let error = crate::api::ApiError::new(ErrorCode::ServerUnavailable, "stopping");
    assert_eq!(
        serde_json::to_value(&error).expect("json"),
        json!({"code": "server_unavailable", "message": "stopping"})
    );
}

#[test]
fn live_handoff_params_keep_their_prefixed_message() {
    let err =
        Request::parse("server.live_handoff", &json!({"expected_protocol": "22"})).expect_err("a string");
    assert!(err.to_string().starts_with("invalid server.live_handoff params: invalid type: string"), "{err}");
}
