use std::time::Duration;

use super::*;

fn spec(command: &[&str], limit: Duration) -> Spec {
    Spec {
        plugin_id: "demo.run".into(),
        action_id: Some("go".into()),
        event: None,
        command: command.iter().map(|s| (*s).to_owned()).collect(),
        root: std::env::temp_dir(),
        env: vec![("HERDR_PLUGIN_ID".into(), "demo.run".into())],
        limit,
    }
}

async fn finish(rx: oneshot::Receiver<()>) {
    tokio::time::timeout(Duration::from_secs(20), rx).await.expect("run finishes").expect("done");
}

#[tokio::test]
async fn a_command_runs_with_its_environment_and_its_output_is_logged() {
    let logs = Logs::default();
    let script = "echo \"id=$HERDR_PLUGIN_ID cwd=$(pwd)\"; echo oops >&2; exit 3";
    let (entry, done) = logs.start(spec(&["sh", "-c", script], Duration::from_secs(10)));
    assert_eq!(entry.status, PluginCommandStatus::Running);
    finish(done).await;
    let logged = logs.list(Some("demo.run"), None);
    assert_eq!(logged.len(), 1);
    let run = &logged[0];
    assert_eq!(run.status, PluginCommandStatus::Failed);
    assert_eq!(run.exit_code, Some(3));
    let cwd = std::env::temp_dir().canonicalize().expect("tmp");
    assert_eq!(run.stdout.as_deref(), Some(format!("id=demo.run cwd={}\n", cwd.display()).as_str()));
    assert_eq!(run.stderr.as_deref(), Some("oops\n"));
    assert!(run.error.is_none());
    assert!(logs.list(Some("other"), None).is_empty());
}

#[tokio::test]
async fn a_command_past_its_limit_is_killed_with_its_process_group() {
    let logs = Logs::default();
    // The background sleep is in the same group, so it dies too and the pipes close.
    let (_, done) = logs.start(spec(&["sh", "-c", "sleep 600 & sleep 600"], Duration::from_millis(200)));
    finish(done).await;
    let run = &logs.list(None, None)[0];
    assert_eq!(run.status, PluginCommandStatus::Failed);
    assert!(run.error.as_deref().is_some_and(|e| e.contains("killed")), "{run:?}");
}

#[tokio::test]
async fn a_missing_program_fails_at_once_and_the_ring_is_bounded() {
    let logs = Logs::default();
    let (entry, _) = logs.start(spec(&["/nonexistent/herdr-plugin-cmd"], Duration::from_secs(1)));
    assert_eq!(entry.status, PluginCommandStatus::Failed);
    assert!(entry.error.as_deref().is_some_and(|e| e.contains("could not start")));
    for _ in 0..LOG_CAPACITY + 5 {
        logs.record_failure(&spec(&["x"], Duration::from_secs(1)), "x".into());
    }
    assert_eq!(logs.list(None, None).len(), LOG_CAPACITY);
    assert_eq!(logs.list(None, Some(3)).len(), 3);
    let last = logs.list(None, Some(1));
    assert_eq!(last[0].log_id, format!("plugin-log-{}", LOG_CAPACITY + 6));
}

#[tokio::test]
async fn kill_running_ends_every_run_not_over_yet() {
    let logs = Logs::default();
    let (_, done) = logs.start(spec(&["sleep", "600"], Duration::from_secs(600)));
    assert_eq!(logs.running().len(), 1);
    logs.kill_running();
    finish(done).await;
    let run = &logs.list(None, None)[0];
    assert_eq!(run.status, PluginCommandStatus::Failed);
    assert!(run.error.as_deref().is_some_and(|e| e.contains("SIGKILL")), "{run:?}");
    assert!(logs.running().is_empty());
}
