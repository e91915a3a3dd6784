use super::envelope::{self, parse};
use super::methods;

#[test]
fn method_list_matches_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../protocol/schema/herdr-api-p22.schema.json"))
            .expect("schema");
    let names: Vec<&str> = schema["schemas"]["request"]["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|o| o["properties"]["method"]["const"].as_str().expect("method const"))
        .collect();
    assert_eq!(names, methods::ALL);
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
