use serde_json::json;

use super::*;

fn client() -> ClientInfo {
    ClientInfo {
        version: "0.1.0".into(),
        protocol: 22,
        binary: "/bin/herdr".into(),
        identity: "2049:77:900:1700000000.000000001".into(),
    }
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
         \"socket\":\"/c/herdr.sock\",\"session\":null,\"restart_needed\":false,\
         \"binary\":null,\"same_binary\":null,\"service\":null}"
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

/// A pong from a server of this version that reports its binary and how it runs.
fn running_binary(identity: &str, service: Value) -> ServerState {
    ServerState::Running(json!({
        "type": "pong",
        "version": "0.1.0",
        "protocol": 22,
        "capabilities": {"live_handoff": true, "detached_server_daemon": true},
        "binary": {"path": "/opt/herdr/bin/herdr", "identity": identity},
        "service": service,
    }))
}

#[test]
fn the_same_binary_needs_no_restart_and_shows_how_it_runs() {
    let r = report(running_binary(
        "2049:77:900:1700000000.000000001",
        json!({"mode": "systemd", "unit": "herdr.service", "pid": 42}),
    ));
    assert_eq!(r.same_binary(), Some(true));
    assert_eq!(r.restart_needed(), Some(false));
    assert_eq!(
        server_text(&r, ""),
        "status: running\nversion: 0.1.0\nprotocol: 22\ncompatible: yes\nsocket: /c/herdr.sock\n\
         binary: /opt/herdr/bin/herdr\nsame_binary: yes\nservice: systemd (herdr.service), pid 42\n"
    );
    assert!(full_text(&r).ends_with("update:\n  restart_needed: no\n"), "{}", full_text(&r));
}

#[test]
fn another_build_of_the_same_version_needs_a_restart() {
    // An install replaced the file: same version and protocol, another inode.
    let r = report(running_binary(
        "2049:78:901:1700000999.000000000",
        json!({"mode": "systemd", "unit": "herdr.service", "pid": 42}),
    ));
    assert_eq!(r.same_binary(), Some(false));
    assert_eq!(r.restart_needed(), Some(true));
    let text = full_text(&r);
    assert!(text.contains("  same_binary: no\n"), "{text}");
    assert!(
        text.ends_with(
            "update:\n  restart_needed: yes\n  reason: the server runs another build of herdr than this binary\n  \
             hint: systemctl --user reload herdr.service (or herdr update --handoff)\n"
        ),
        "{text}"
    );
    let value = full_json(&r);
    assert_eq!(value["server"]["restart_needed"], true);
    assert_eq!(value["server"]["same_binary"], false);
    assert_eq!(value["server"]["service"]["unit"], "herdr.service");
    assert_eq!(value["server"]["binary"]["path"], "/opt/herdr/bin/herdr");
    assert_eq!(value["update"]["restart_needed"], true);
    assert_eq!(value["update"]["reason"], "the server runs another build of herdr than this binary");
    assert_eq!(value["client"]["identity"], "2049:77:900:1700000000.000000001");
}

#[test]
fn a_detached_server_is_pointed_at_update_handoff() {
    let r = report(running_binary("1:2:3:4.5", json!({"mode": "detached", "pid": 9})));
    assert!(server_text(&r, "").ends_with("service: detached, pid 9\n"));
    assert!(full_text(&r).ends_with("  hint: herdr update --handoff\n"), "{}", full_text(&r));
}

#[test]
fn version_and_protocol_reasons_come_before_the_binary() {
    assert_eq!(report(running("0.8.2", 20)).restart_reason(), Some(Some(RestartReason::Protocol)));
    assert_eq!(report(running("0.0.9", 22)).restart_reason(), Some(Some(RestartReason::Version)));
    // A server that does not report its binary (upstream, an older build) is not flagged for it.
    assert_eq!(report(running("0.1.0", 22)).same_binary(), None);
    assert_eq!(report(running("0.1.0", 22)).restart_reason(), Some(None));
    let mut unknown_self = report(running_binary("1:2:3:4.5", Value::Null));
    unknown_self.client.identity = "unknown: no /proc".into();
    assert_eq!(unknown_self.same_binary(), None);
    assert_eq!(unknown_self.restart_needed(), Some(false));
    assert!(!server_text(&unknown_self, "").contains("service:"));
}
