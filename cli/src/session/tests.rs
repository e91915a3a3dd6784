use std::os::unix::net::UnixListener;

use serde_json::Value;

use super::*;

fn config() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("herdr");
    (dir, config)
}

fn env_for(home: &Path) -> PathEnv {
    PathEnv { xdg_config_home: Some(home.as_os_str().to_owned()), ..PathEnv::default() }
}

#[test]
fn list_has_default_then_valid_named_sessions_sorted() {
    let (_tmp, config) = config();
    for name in ["zeta", "alpha", "bad name"] {
        std::fs::create_dir_all(config.join("sessions").join(name)).expect("mkdir");
    }
    std::fs::write(config.join("sessions").join("file"), "").expect("write");
    let sessions = list(&config).expect("lists");
    let names: Vec<&str> = sessions.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["default", "alpha", "zeta"]);
    assert!(sessions[0].default && !sessions[1].default);
    assert_eq!(sessions[1].socket_path, config.join("sessions/alpha/herdr.sock").display().to_string());
    assert_eq!(sessions[1].session_dir, config.join("sessions/alpha").display().to_string());
    assert!(sessions.iter().all(|s| !s.running));
}

#[test]
fn list_without_any_session_dir_has_the_default() {
    let (_tmp, config) = config();
    let sessions = list(&config).expect("lists");
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].session_dir, config.display().to_string());
}

#[test]
fn a_listening_socket_is_running() {
    let (_tmp, config) = config();
    let dir = config.join("sessions").join("live");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let _listener = UnixListener::bind(dir.join("herdr.sock")).expect("bind");
    let sessions = list(&config).expect("lists");
    assert!(sessions.iter().any(|s| s.name == "live" && s.running));
    let text = table(&sessions);
    assert!(text.starts_with("name                 status   directory"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("live                 running ")), "{text}");
}

#[test]
fn json_list_keeps_field_order() {
    let (tmp, _config) = config();
    let rendered = run(&SessionCommand::List { json: true }, &env_for(tmp.path()));
    let value: Value = serde_json::from_str(&rendered.stdout).expect("json");
    let keys: Vec<&String> = value["sessions"][0].as_object().expect("object").keys().collect();
    assert_eq!(keys, ["name", "default", "running", "socket_path", "session_dir"]);
}

#[test]
fn delete_removes_a_stopped_session_and_refuses_the_rest() {
    let (tmp, config) = config();
    let env = env_for(tmp.path());
    let dir = config.join("sessions").join("old");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let rendered = run(&SessionCommand::Delete { name: "old".into(), json: false }, &env);
    assert_eq!(rendered, Rendered::stdout("deleted session old\n"));
    assert!(!dir.exists());

    let rendered = run(&SessionCommand::Delete { name: "default".into(), json: false }, &env);
    assert_eq!(rendered.exit, EXIT_ERROR);
    assert!(rendered.stderr.contains("\"session_delete_failed\""), "{}", rendered.stderr);

    let live = config.join("sessions").join("live");
    std::fs::create_dir_all(&live).expect("mkdir");
    let _listener = UnixListener::bind(live.join("herdr.sock")).expect("bind");
    let rendered = run(&SessionCommand::Delete { name: "live".into(), json: true }, &env);
    assert!(
        rendered.stderr.contains("session live is running; stop it before deleting"),
        "{}",
        rendered.stderr
    );
    assert!(live.exists());
}

#[test]
fn stop_reports_a_session_that_is_not_running() {
    let (tmp, _config) = config();
    let rendered = run(&SessionCommand::Stop { name: "idle".into(), json: false }, &env_for(tmp.path()));
    assert_eq!(rendered.exit, EXIT_ERROR);
    let value: Value = serde_json::from_str(&rendered.stderr).expect("json");
    assert_eq!(value["error"]["code"], "session_stop_failed");
    assert!(value["error"]["message"].as_str().expect("message").starts_with("session idle is not running"));

    let rendered = run(&SessionCommand::Stop { name: "a/b".into(), json: false }, &env_for(tmp.path()));
    assert!(rendered.stderr.contains("\"invalid_session_name\""), "{}", rendered.stderr);
}
