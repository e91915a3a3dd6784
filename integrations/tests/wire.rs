//! The `integration.*` results validate against the protocol-22 schema, and their content follows
//! the files on disk.

use herdr_integrations::wire::{self, TargetParams};
use herdr_integrations::{Env, IntegrationState, Target, parse_target};
use herdr_protocol::api::ApiResult;
use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::{Value, json};

fn assert_valid(kind: SchemaKind, value: &Value) {
    if let Err(errors) = validate(kind, value) {
        panic!("{kind:?} does not validate: {errors:?}\n{value}");
    }
}

fn success(result: &ApiResult) -> Value {
    let value = json!({"id": "t", "result": result});
    assert_valid(SchemaKind::SuccessResponse, &value);
    value
}

fn params(request: Value) -> TargetParams {
    assert_valid(SchemaKind::Request, &request);
    serde_json::from_value(request["params"].clone()).expect("params")
}

#[test]
fn list_install_uninstall_results_validate_and_follow_the_disk() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join(".claude")).expect("claude dir");
    let env = Env { home: Some(tmp.path().into()), ..Env::default() };

    assert_valid(SchemaKind::Request, &json!({"id": "1", "method": "integration.list", "params": {}}));
    let listed = success(&wire::list(&env).expect("list"));
    let rows = listed["result"]["integrations"].as_array().expect("rows");
    let targets: Vec<&str> = rows.iter().map(|r| r["target"].as_str().expect("target")).collect();
    let all: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(targets, all, "every target, in the schema's order");
    let row = |name: &str| rows.iter().find(|r| r["target"] == name).expect("a row").clone();
    assert_eq!(
        row("claude"),
        json!({"target": "claude", "label": "Claude Code", "command": "claude", "available": true,
            "state": "not_installed"})
    );
    assert_eq!(row("codex")["available"], false, "no ~/.codex");
    assert_eq!(row("mastracode")["available"], true, "herdr creates ~/.mastracode");
    assert_eq!(row("cursor")["command"], "cursor-agent");

    let install = params(json!({"id": "2", "method": "integration.install", "params": {"target": "claude"}}));
    let installed = success(&wire::install(install, &env).expect("install"));
    assert_eq!(installed["result"]["type"], "integration_install");
    assert_eq!(installed["result"]["target"], "claude");
    assert_eq!(installed["result"]["details"]["messages"].as_array().expect("messages").len(), 2);

    let listed = success(&wire::list(&env).expect("list"));
    let claude =
        listed["result"]["integrations"].as_array().expect("rows").iter().find(|r| r["target"] == "claude");
    assert_eq!(claude.expect("claude")["state"], "current");

    let uninstall =
        params(json!({"id": "3", "method": "integration.uninstall", "params": {"target": "claude"}}));
    let removed = success(&wire::uninstall(uninstall, &env).expect("uninstall"));
    assert_eq!(removed["result"]["type"], "integration_uninstall");
    assert_eq!(
        herdr_integrations::status(Target::Claude, &env).expect("status").state,
        IntegrationState::NotInstalled
    );
}

#[test]
fn a_missing_agent_dir_is_a_valid_request_answered_invalid_request() {
    let tmp = tempfile::tempdir().expect("tmp");
    let env = Env::with_home(tmp.path());
    let request =
        params(json!({"id": "4", "method": "integration.install", "params": {"target": "antigravity_cli"}}));
    let err = wire::install(request, &env).expect_err("no ~/.gemini/config");
    let envelope = json!({"id": "4", "error": {"code": err.code(), "message": err.to_string()}});
    assert_valid(SchemaKind::ErrorResponse, &envelope);
    assert_eq!(err.code(), "invalid_request");
    assert!(err.to_string().contains(".gemini/config"), "{err}");
}

#[test]
fn every_schema_target_round_trips_through_the_enum() {
    for target in Target::ALL {
        let wire = serde_json::to_value(target).expect("serialize");
        assert_eq!(wire, target.as_str());
        assert_valid(
            SchemaKind::Request,
            &json!({"id": "5", "method": "integration.uninstall", "params": {"target": wire}}),
        );
        assert_eq!(parse_target(target.as_str()).expect("parse"), target);
    }
    assert_eq!(parse_target("antigravity-cli").expect("cli spelling"), Target::AntigravityCli);
    assert!(parse_target("gemini").is_err());
    assert!(serde_json::from_value::<TargetParams>(json!({"target": "gemini"})).is_err());
}

#[test]
fn the_schema_has_no_target_the_enum_lacks() {
    let schema: Value = serde_json::from_str(include_str!("../../protocol/schema/herdr-api-p22.schema.json"))
        .expect("schema");
    let names = &schema["schemas"]["request"]["$defs"]["IntegrationTarget"]["enum"];
    let expected: Vec<Value> = Target::ALL.iter().map(|t| json!(t.as_str())).collect();
    assert_eq!(names, &Value::Array(expected));
}
