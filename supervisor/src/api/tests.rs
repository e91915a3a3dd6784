use herdr_protocol::api::RequestEnvelope;

use super::envelope;

/// The envelope parse, with its error as the text the blank-id answer carries.
fn parse(line: &str) -> Result<RequestEnvelope, String> {
    envelope::parse(line).map_err(|e| e.to_string())
}

#[test]
fn envelope_rules_follow_the_reference() {
    assert!(parse(r#"{"id":"1","method":"ping","params":{}}"#).is_ok());
    let missing = parse(r#"{"id":"1","method":"ping"}"#).expect_err("params required");
    assert!(missing.contains("missing field `params`"), "{missing}");
    let numeric = parse(r#"{"id":1,"method":"ping","params":{}}"#).expect_err("string id");
    assert!(numeric.contains("expected a string"), "{numeric}");
    let unknown = parse(r#"{"id":"1","method":"nope","params":{}}"#).expect_err("unknown method");
    assert!(unknown.contains("unknown variant `nope`") && unknown.contains("`pane.read`"), "{unknown}");
    assert!(parse("{not json").is_err());
    let line = envelope::bad_request_line("boom");
    assert_eq!(line, r#"{"id":"","error":{"code":"invalid_request","message":"invalid request: boom"}}"#);
}

#[test]
fn params_that_do_not_fit_the_method_fail_at_parse_time() {
    let missing =
        parse(r#"{"id":"1","method":"pane.read","params":{"source":"visible"}}"#).expect_err("no pane");
    assert_eq!(missing, "missing field `pane_id`");
    let not_object =
        parse(r#"{"id":"1","method":"ping","params":[]}"#).expect_err("params must be an object");
    assert_eq!(not_object, "invalid type: sequence, expected params object");
    let extra = parse(r#"{"id":"1","method":"pane.get","params":{"pane_id":"w1:p1","future":1}}"#);
    assert!(extra.is_ok(), "unknown fields are ignored, as before");
}
