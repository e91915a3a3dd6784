//! Runs plugin commands (actions and event hooks) and keeps their logs.
//!
//! A command is an argv (no shell) started with `tokio::process` in its own process group, cwd =
//! the plugin root, stdin null, and the `HERDR_PLUGIN_*` environment of `herdr_plugins::env`
//! added to the server's (minus what `env::is_stripped` names). The caller gets the log entry
//! as soon as the process started; a task per run waits for it, captures stdout/stderr (each
//! capped at [`OUTPUT_CAP`] bytes) and fills in the entry. A run that outlives its time limit
//! ([`COMMAND_LIMIT`], or `HERDR_PLUGIN_COMMAND_TIMEOUT_MS` for tests) has its whole process
//! group killed with SIGKILL and is logged as failed with the reason.
//!
//! The log is one ring of the last [`LOG_CAPACITY`] runs for the whole server, oldest first.
//! When the server stops (or hands over) it kills the runs not over yet ([`Logs::kill_running`]).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use herdr_protocol::api::{PluginCommandLogInfo, PluginCommandStatus};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::oneshot;

/// How long an action or hook may run before its process group is killed.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(10);

/// Overrides [`COMMAND_LIMIT`] (milliseconds); meant for tests.
pub const LIMIT_ENV: &str = "HERDR_PLUGIN_COMMAND_TIMEOUT_MS";

/// Runs the log ring keeps.
pub const LOG_CAPACITY: usize = 200;

/// Bytes of stdout (and of stderr) a log entry keeps; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 16 * 1024;

/// How long output is still read after the command exited (a background child of the command
/// may hold the pipes open).
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// The time limit in force: [`LIMIT_ENV`] when set to a number of milliseconds.
pub fn command_limit() -> Duration {
    std::env::var(LIMIT_ENV)
        .ok()
        .and_then(|raw| raw.trim().parse::<u64>().ok())
        .map_or(COMMAND_LIMIT, Duration::from_millis)
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct Spec {
    pub plugin_id: String,
    pub action_id: Option<String>,
    pub event: Option<String>,
    pub command: Vec<String>,
    pub root: PathBuf,
    /// Added to the server's environment.
    pub env: Vec<(String, String)>,
    pub limit: Duration,
}

/// The command log of the server: the last [`LOG_CAPACITY`] runs.
#[derive(Debug, Default, Clone)]
pub struct Logs {
    inner: Arc<LogRing>,
}

#[derive(Debug, Default)]
struct LogRing {
    entries: Mutex<VecDeque<PluginCommandLogInfo>>,
    next_id: AtomicU64,
    /// The process groups of the runs not over yet, by log id.
    running: Mutex<Vec<(String, Pid)>>,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

impl Logs {
    fn entries(&self) -> std::sync::MutexGuard<'_, VecDeque<PluginCommandLogInfo>> {
        self.inner.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, entry: PluginCommandLogInfo) {
        let mut entries = self.entries();
        if entries.len() == LOG_CAPACITY {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    fn update(&self, log_id: &str, change: impl FnOnce(&mut PluginCommandLogInfo)) {
        if let Some(entry) = self.entries().iter_mut().find(|e| e.log_id == log_id) {
            change(entry);
        }
    }

    /// A new entry for `spec`, running since now.
    fn open(&self, spec: &Spec) -> PluginCommandLogInfo {
        let n = self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        PluginCommandLogInfo {
            log_id: format!("plugin-log-{n}"),
            plugin_id: spec.plugin_id.clone(),
            action_id: spec.action_id.clone(),
            event: spec.event.clone(),
            command: spec.command.clone(),
            status: PluginCommandStatus::Running,
            started_unix_ms: now_ms(),
            finished_unix_ms: None,
            exit_code: None,
            stdout: None,
            stderr: None,
            error: None,
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Vec<(String, Pid)>> {
        self.inner.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Kills the process group of every run not over yet (the server is stopping or handing
    /// over: nobody would time them out or read their output any more).
    pub fn kill_running(&self) {
        for (log_id, pgid) in self.running().drain(..) {
            log::info!("killing plugin command {log_id} (process group {pgid}): the server is stopping");
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }

    /// Logs a run that never started (a full hook queue, a command that cannot run).
    pub fn record_failure(&self, spec: &Spec, error: String) -> PluginCommandLogInfo {
        let mut entry = self.open(spec);
        entry.status = PluginCommandStatus::Failed;
        entry.finished_unix_ms = Some(entry.started_unix_ms);
        entry.error = Some(error);
        self.push(entry.clone());
        entry
    }

    /// The entries of `plugin_id` (all when `None`), oldest first, the newest `limit` of them.
    pub fn list(&self, plugin_id: Option<&str>, limit: Option<usize>) -> Vec<PluginCommandLogInfo> {
        let entries = self.entries();
        let wanted: Vec<_> =
            entries.iter().filter(|e| plugin_id.is_none_or(|id| e.plugin_id == id)).cloned().collect();
        let skip = limit.map_or(0, |limit| wanted.len().saturating_sub(limit));
        wanted.into_iter().skip(skip).collect()
    }

    /// Starts `spec`. Returns its log entry (running, or failed when it could not start) and a
    /// receiver that fires when the run is over.
    pub fn start(&self, spec: Spec) -> (PluginCommandLogInfo, oneshot::Receiver<()>) {
        let (done, finished) = oneshot::channel();
        let Some((program, args)) = spec.command.split_first() else {
            let entry = self.record_failure(&spec, "the command is empty".to_owned());
            let _ = done.send(());
            return (entry, finished);
        };
        let mut command = tokio::process::Command::new(program);
        command
            .args(args)
            .current_dir(&spec.root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for (name, _) in std::env::vars_os() {
            if name.to_str().is_some_and(herdr_plugins::env::is_stripped) {
                command.env_remove(&name);
            }
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));
        // The reaper must not take this child's exit status from `child.wait()`.
        let owned = herdr_host::reaper::Owned::hold();
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                let entry = self.record_failure(&spec, format!("could not start {program}: {e}"));
                let _ = done.send(());
                return (entry, finished);
            }
        };
        let entry = self.open(&spec);
        self.push(entry.clone());
        let (logs, log_id, limit) = (self.clone(), entry.log_id.clone(), spec.limit);
        let stdout = child.stdout.take().map(|out| tokio::spawn(capture(out)));
        let stderr = child.stderr.take().map(|err| tokio::spawn(capture(err)));
        let pgid = child.id().and_then(|pid| i32::try_from(pid).ok()).map(Pid::from_raw);
        if let Some(pgid) = pgid {
            self.running().push((entry.log_id.clone(), pgid));
        }
        tokio::spawn(async move {
            let (status, error) = match tokio::time::timeout(limit, child.wait()).await {
                Ok(status) => (status.ok(), None),
                Err(_) => {
                    if let Some(pgid) = pgid {
                        let _ = killpg(pgid, Signal::SIGKILL);
                    }
                    let status = child.wait().await.ok();
                    let error = format!(
                        "killed (SIGKILL to its process group) after the {} ms time limit",
                        limit.as_millis()
                    );
                    (status, Some(error))
                }
            };
            drop(owned);
            logs.running().retain(|(id, _)| *id != log_id);
            let stdout = drained(stdout).await;
            let stderr = drained(stderr).await;
            let succeeded = error.is_none() && status.is_some_and(|s| s.success());
            let error = error.or_else(|| match status {
                None => Some("could not wait for the command".to_owned()),
                Some(s) if s.code().is_none() => Some(format!("terminated by {s}")),
                Some(_) => None,
            });
            logs.update(&log_id, |entry| {
                entry.status =
                    if succeeded { PluginCommandStatus::Succeeded } else { PluginCommandStatus::Failed };
                entry.finished_unix_ms = Some(now_ms());
                entry.exit_code = status.and_then(|s| s.code());
                entry.stdout = stdout;
                entry.stderr = stderr;
                entry.error = error;
            });
            let _ = done.send(());
        });
        (entry, finished)
    }
}

/// Reads a stream to its end, keeping the first [`OUTPUT_CAP`] bytes.
async fn capture(mut stream: impl AsyncRead + Unpin) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    kept
}

/// A capture's text, waiting at most [`DRAIN_GRACE`] for the stream to close; `None` when
/// nothing was written.
async fn drained(capture: Option<tokio::task::JoinHandle<Vec<u8>>>) -> Option<String> {
    let mut handle = capture?;
    let bytes = match tokio::time::timeout(DRAIN_GRACE, &mut handle).await {
        Ok(Ok(bytes)) => bytes,
        _ => {
            handle.abort();
            return None;
        }
    };
    (!bytes.is_empty()).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
