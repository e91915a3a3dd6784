//! One pane's upgrade to this supervisor's worker binary: the old worker is asked to `HandOver`
//! (it stops reading the PTY, so the program's output waits in the kernel), its dump is
//! collected, and once it has exited a new worker of ours starts with `Start::Restore`, the kept
//! PTY master and the dump. Commands for the pane wait meanwhile; requests the old worker had not
//! answered are re-sent to the new one, as after a per-pane restart.
//!
//! Failures: before the old worker leaves (it refuses, the dump does not come in time, our binary
//! is missing) nothing changes and the old worker serves on. If it dies on the way, or the new
//! worker fails after it left, the per-pane restart applies: a worker of ours adopts the program
//! on a blank terminal, which the program redraws for the resize; the scrollback is lost then.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use herdr_protocol::ipc::{Start, SupervisorToWorker, WorkerToSupervisor};

use super::{Flow, PaneTask};
use crate::workers::Gone;
use crate::workers::start::{Incoming, Worker, WorkerSpec};
use crate::workers::upgrade::{Upgrade, canonical_exe, needs_upgrade, running_exe};

/// How long the old worker may take to send its whole dump.
const DUMP_TIMEOUT: Duration = Duration::from_secs(10);

/// What came back for a `HandOver`.
enum Answer {
    Dump {
        revision: u64,
        dump: Vec<u8>,
    },
    Refused(String),
    TimedOut,
    /// The link closed first: the worker died.
    Died,
    /// The program exited meanwhile (already reported): the pane is over.
    Exited,
}

impl PaneTask {
    /// Upgrades the pane if its worker needs it; the flow says whether the task goes on.
    pub(super) async fn upgrade(&mut self) -> (Upgrade, Flow) {
        let own = canonical_exe(&self.worker_exe);
        let Some(reason) =
            needs_upgrade(self.worker.link_version, running_exe(self.worker.pid).as_deref(), &own)
        else {
            return (Upgrade::NotNeeded, Flow::Continue);
        };
        if self.program.pid <= 0 {
            // A held start failure: nothing runs to hand over.
            return (Upgrade::NotNeeded, Flow::Continue);
        }
        if !is_executable(&own) {
            let why = format!("{} is not an executable file", own.display());
            log::warn!("pane {:?}: not upgrading worker {} ({reason}): {why}", self.key, self.worker.pid);
            return (Upgrade::Kept(why), Flow::Continue);
        }
        let started = Instant::now();
        let from = self.worker.pid;
        let sent = self.worker.writer.send(&SupervisorToWorker::HandOver, None).await;
        let answer = match sent {
            Ok(()) => self.collect_dump().await,
            Err(_) => Answer::Died,
        };
        let (revision, dump) = match answer {
            Answer::Dump { revision, dump } => (revision, dump),
            Answer::Refused(why) => {
                log::warn!("pane {:?}: worker {from} would not hand over ({reason}): {why}", self.key);
                return (Upgrade::Kept(why), Flow::Continue);
            }
            Answer::TimedOut => {
                let why = format!("no dump within {DUMP_TIMEOUT:?}");
                log::warn!("pane {:?}: worker {from} did not hand over ({reason}): {why}", self.key);
                return (Upgrade::Kept(why), Flow::Continue);
            }
            Answer::Died => return self.restart_after("the old worker died before its dump").await,
            Answer::Exited => return (Upgrade::Lost("the program exited".into()), Flow::HandedOver),
        };
        // It exits after the last chunk; a replacement must never share the PTY with it.
        self.worker.ensure_gone().await;
        let (cols, rows) = self.size;
        let dump_len = u64::try_from(dump.len()).unwrap_or(u64::MAX);
        let start = Start::Restore { child_pid: self.program.pid, cols, rows, revision, dump_len };
        let screen = (self.key, self.observer.clone());
        let spec = WorkerSpec { exe: &self.worker_exe, identity: &self.identity, launcher: &*self.launcher };
        match Worker::spawn_and_greet(&spec, start, Some(&self.program.master), Some(&dump), screen).await {
            Ok(worker) => {
                let to = worker.pid;
                log::info!(
                    "pane {:?}: upgraded worker {from} to {to} (link {}, {}) because {reason}; {} bytes of terminal in {} ms",
                    self.key,
                    worker.link_version,
                    own.display(),
                    dump.len(),
                    started.elapsed().as_millis()
                );
                self.set_worker(worker);
                self.resend_link_state().await;
                (Upgrade::Upgraded { from, to }, Flow::Continue)
            }
            Err(message) => self.restart_after(&format!("the new worker failed: {message}")).await,
        }
    }

    /// `HandingOver` and every `DumpChunk` after it; other frames on the way are handled as
    /// usual (answers to earlier requests, events).
    async fn collect_dump(&mut self) -> Answer {
        let deadline = tokio::time::Instant::now() + DUMP_TIMEOUT;
        let mut announced: Option<(u64, usize)> = None;
        let mut dump = Vec::new();
        loop {
            if let Some((revision, len)) = announced
                && dump.len() >= len
            {
                return Answer::Dump { revision, dump };
            }
            let frame = match tokio::time::timeout_at(deadline, self.worker.frames.recv()).await {
                Err(_) => return Answer::TimedOut,
                Ok(Some(Incoming::Frame(frame, _))) => *frame,
                Ok(Some(Incoming::Closed) | None) => return Answer::Died,
            };
            match frame {
                WorkerToSupervisor::HandingOver { revision, dump_len } => {
                    let len = usize::try_from(dump_len).unwrap_or(usize::MAX);
                    dump.reserve(len.min(64 * 1024 * 1024));
                    announced = Some((revision, len));
                }
                WorkerToSupervisor::DumpChunk { bytes } if announced.is_some() => {
                    dump.extend_from_slice(&bytes)
                }
                WorkerToSupervisor::Refused { reason } if announced.is_none() => {
                    return Answer::Refused(reason);
                }
                other => {
                    if let Some(gone) = self.on_frame(other) {
                        // The program exited just now: the worker ends as it always does.
                        self.observer.pane_gone(self.key, gone);
                        return Answer::Exited;
                    }
                }
            }
        }
    }

    /// The per-pane restart, after an upgrade went wrong once the old worker had left.
    async fn restart_after(&mut self, what: &str) -> (Upgrade, Flow) {
        log::warn!(
            "pane {:?}: upgrade of worker {} failed: {what}; restarting it",
            self.key,
            self.worker.pid
        );
        self.worker.ensure_gone().await;
        if self.replace_worker().await {
            (Upgrade::Restarted(what.to_owned()), Flow::Continue)
        } else {
            self.observer.pane_gone(self.key, Gone::Lost);
            (Upgrade::Lost(what.to_owned()), Flow::HandedOver)
        }
    }
}

fn is_executable(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
