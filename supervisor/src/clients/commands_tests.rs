use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use super::*;
use crate::session::Session;

fn server() -> ServerConfig {
    ServerConfig {
        api_socket: PathBuf::from("/run/herdr-test/herdr.sock"),
        client_socket: PathBuf::from("/run/herdr-test/herdr-client.sock"),
        session_name: None,
        worker_exe: PathBuf::from("/opt/herdr/herdr-pane-worker"),
        bin_path: PathBuf::from("/opt/herdr/herdr"),
        data_dir: PathBuf::from("/nonexistent/data"),
        persist: false,
        orphan_timeout: crate::DEFAULT_ORPHAN_TIMEOUT,
        pane_history: false,
        resume_agents: true,
        scrollback_limit_bytes: crate::config::DEFAULT_SCROLLBACK_LIMIT_BYTES,
    }
}

/// `[[keys.command]]` `lazygit --all` of type `kind`, as config.toml gives it.
fn command(kind: &str) -> CustomCommand {
    let text =
        format!("[[keys.command]]\nkey = \"prefix+t\"\ntype = \"{kind}\"\ncommand = \"lazygit --all\"\n");
    let (mut config, problems) = crate::config::parse(&text, "config.toml");
    assert!(problems.is_empty(), "{problems:?}");
    config.keys.commands.remove(0)
}

/// A session 120x40 with one workspace whose only pane is focused.
fn session() -> Session {
    let mut session = Session::new(120, 40);
    assert!(matches!(session.handle_json("workspace.create", json!({ "focus": true })), Some(Ok(_))));
    session
}

#[test]
fn shell_commands_carry_the_focused_panes_herdr_env() {
    let snapshot = session().snapshot();
    let Some(CommandPlan::Shell { command, env, .. }) = plan(&command("shell"), &snapshot, &server()) else {
        panic!("a shell plan");
    };
    assert_eq!(command, "lazygit --all");
    let get = |k: &str| env.iter().find(|(name, _)| name == k).map(|(_, v)| v.as_str());
    assert_eq!(get("HERDR_ENV"), Some("1"));
    assert_eq!(get("HERDR_SOCKET_PATH"), Some("/run/herdr-test/herdr.sock"));
    assert_eq!(get("HERDR_BIN_PATH"), Some("/opt/herdr/herdr"));
    assert_eq!(get("HERDR_PANE_ID"), snapshot.focused_pane_id.as_deref());
    assert_eq!(get("HERDR_TAB_ID"), snapshot.focused_tab_id.as_deref());
    assert_eq!(get("HERDR_WORKSPACE_ID"), snapshot.focused_workspace_id.as_deref());
}

#[test]
fn scrollback_files_are_private_and_end_with_a_newline() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let inner = dir.path().join("scrollback");
    let path = write_scrollback(&inner, "w1:p2", "one\ntwo").expect("written");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "one\ntwo\n");
    let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&inner), 0o700);
    assert!(path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("w1-p2-")));
    assert_eq!(scrollback_dir(&server()), PathBuf::from("/run/herdr-test/scrollback"));
}

/// The editor script run for real: `$VISUAL` wins over `$EDITOR`, is word-split, sees the file,
/// and the file is gone once it exits.
#[test]
fn the_editor_script_opens_the_file_and_deletes_it_after() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = write_scrollback(dir.path(), "w1:p1", "scrollback line\n").expect("written");
    let CommandPlan::Pane { argv, zoom: true, .. } = edit_plan_for(&session().snapshot(), "w1:p1", &path)
    else {
        panic!("a zoomed pane plan");
    };
    let mut editor = Command::new(&argv[0]);
    editor.args(&argv[1..]).env("VISUAL", "grep -c scrollback").env("EDITOR", "false");
    // Inside `own_child`: other tests' children (plugin runs, git) reap every exited child.
    let out = herdr_host::reaper::own_child(|| editor.output()).expect("sh runs");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
    assert!(!path.exists(), "the file is deleted after the editor");
    let path = write_scrollback(dir.path(), "w1:p1", "x").expect("written");
    let argv: Vec<String> = match edit_plan_for(&session().snapshot(), "w1:p1", &path) {
        CommandPlan::Pane { argv, .. } => argv,
        other => panic!("{other:?}"),
    };
    let mut editor = Command::new(&argv[0]);
    editor.args(&argv[1..]).env_remove("VISUAL").env("EDITOR", "cat");
    let out = herdr_host::reaper::own_child(|| editor.output()).expect("sh runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "x\n", "$EDITOR without $VISUAL");
    assert!(!path.exists());
}

#[test]
fn a_new_server_clears_scrollback_files_a_killed_one_left() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = ServerConfig { api_socket: dir.path().join("herdr.sock"), ..server() };
    let left = write_scrollback(&scrollback_dir(&server), "w1:p1", "old").expect("written");
    clear_stale_scrollback(&server);
    assert!(!left.exists(), "the stale file is gone");
    assert!(scrollback_dir(&server).is_dir(), "the private directory itself stays");
    // Nothing to clear is fine too.
    clear_stale_scrollback(&ServerConfig { api_socket: dir.path().join("none").join("x.sock"), ..server });
}
