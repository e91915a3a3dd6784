use serde_json::json;

use super::*;

fn client() -> ClientInfo {
    ClientInfo { version: "0.1.0".into(), protocol: 22, binary: "/bin/herdr".into() }
}

fn report(server: ServerState) -> Report {
    Report { client: client(), server, socket: "/c/herdr.sock".into(), session: None }
}

fn running(version: &str, protocol: u64) -> ServerState {
    ServerState::Running(json!({
        "type": "pong",
        "version": version,
        "protocol": protocol,
        "capabilities": {"live_handoff": false, "detached_server_daemon": true}
    }))
}

#[test]
fn full_text_when_running() {
    assert_eq!(
        full_text(&report(running("0.1.0", 22))),
        "client:\n  version: 0.1.0\n  channel: stable\n  protocol: 22\n\n\
         server:\n  status: running\n  version: 0.1.0\n  protocol: 22\n  compatible: yes\n  socket: /c/herdr.sock\n\n\
         update:\n  restart_needed: no\n"
    );
}

#[test]
fn full_text_when_not_running() {
    assert_eq!(
        full_text(&report(ServerState::NotRunning)),
        "client:\n  version: 0.1.0\n  channel: stable\n  protocol: 22\n\n\
         server:\n  status: not running\n  socket: /c/herdr.sock\n\n\
         update:\n  restart_needed: no\n"
    );
}

#[test]
fn server_text_is_unindented_and_flags_incompatibility() {
    assert_eq!(
        server_text(&report(running("0.8.2", 20)), ""),
        "status: running\nversion: 0.8.2\nprotocol: 20\ncompatible: no\nsocket: /c/herdr.sock\n"
    );
    assert_eq!(report(running("0.8.2", 20)).restart_needed(), Some(true));
    assert_eq!(
        report(running("0.0.9", 22)).restart_needed(),
        Some(true),
        "another build of the same protocol"
    );
}

#[test]
fn client_text_includes_binary() {
    assert_eq!(
        client_text(&client(), "", true),
        "version: 0.1.0\nchannel: stable\nprotocol: 22\nbinary: /bin/herdr\n"
    );
}

#[test]
fn server_json_keeps_field_order_and_types() {
    let value = server_json(&report(running("0.1.0", 22)));
    assert_eq!(
        value.to_string(),
        "{\"status\":\"running\",\"running\":true,\"version\":\"0.1.0\",\"protocol\":22,\
         \"capabilities\":{\"live_handoff\":false,\"detached_server_daemon\":true},\"compatible\":true,\
         \"socket\":\"/c/herdr.sock\",\"session\":null,\"restart_needed\":false}"
    );
}

#[test]
fn full_json_when_not_running() {
    let mut r = report(ServerState::NotRunning);
    r.session = Some("work".into());
    let value = full_json(&r);
    assert_eq!(value["server"]["running"], false);
    assert_eq!(value["server"]["status"], "not_running");
    assert_eq!(value["server"]["version"], Value::Null);
    assert_eq!(value["server"]["compatible"], Value::Null);
    assert_eq!(value["server"]["session"], "work");
    assert_eq!(value["client"]["session"], "work");
    assert_eq!(value["client"]["protocol"], 22);
    assert_eq!(value["update"]["restart_needed"], false);
    let keys: Vec<&String> = value.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["client", "server", "update"]);
}

#[test]
fn unknown_protocol_is_unknown() {
    let r = report(ServerState::Running(json!({})));
    assert_eq!(r.compatible(), None);
    assert_eq!(r.restart_needed(), None);
    assert!(server_text(&r, "").contains("compatible: unknown\n"));
}
