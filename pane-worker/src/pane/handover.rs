//! Handing the pane to a new worker binary (`SupervisorToWorker::HandOver`): the worker stops
//! reading its PTY — whatever the program prints from now on waits in the kernel for the next
//! worker, so no byte is lost — sends `HandingOver` and its terminal's dump in chunks, and exits
//! without hanging up the program (the supervisor holds a dup of the PTY master and starts the
//! new worker on it). Its socket goes with it: the file is removed before the process ends, so the
//! new worker can bind the same path.
//!
//! A pane with no running program (a held failure, an ended one) has nothing to hand over, and a
//! dump that fails changes nothing: both answer `Refused` and the worker carries on serving.

use herdr_protocol::ipc::{DUMP_CHUNK_LEN, WorkerToSupervisor};

use super::{Flow, Life, Pane};
use crate::WorkerError;

impl Pane {
    pub(super) async fn hand_over(&mut self) -> Result<Flow, WorkerError> {
        if !matches!(self.life, Life::Running(_)) || self.ending {
            return self.refuse_hand_over("no program runs in this pane".into());
        }
        // Typed input the program has not taken yet goes now if it can; the PTY keeps the rest.
        if self.pty.has_pending_input()
            && let Err(err) = self.pty.flush_input()
        {
            log::warn!("hand-over: could not write the last input to the program: {err}");
        }
        if self.pty.has_pending_input() {
            return self.refuse_hand_over("input for the program is still queued".into());
        }
        let dump = match self.engine.dump_final() {
            Ok(dump) => dump.bytes,
            Err(err) => return self.refuse_hand_over(format!("could not dump the terminal: {err}")),
        };
        // From here the PTY is not read again: the loop ends with this frame.
        self.pty_open = false;
        let revision = self.engine.revision();
        let dump_len = u64::try_from(dump.len()).unwrap_or(u64::MAX);
        self.send(WorkerToSupervisor::HandingOver { revision, dump_len })?;
        for chunk in dump.chunks(DUMP_CHUNK_LEN) {
            self.send(WorkerToSupervisor::DumpChunk { bytes: chunk.to_vec() })?;
        }
        if let Some(out) = &mut self.out {
            match out.flush_all().await {
                Err(err) if err.is_gone() => {}
                other => other?,
            }
        }
        Ok(Flow::Exit)
    }

    fn refuse_hand_over(&mut self, reason: String) -> Result<Flow, WorkerError> {
        log::warn!("refused to hand the pane over: {reason}");
        self.send(WorkerToSupervisor::Refused { reason })?;
        Ok(Flow::Continue)
    }
}
