//! A restored pane waiting to start its agent's native resume (`LaunchMode::AdoptOrResume` with
//! no worker to adopt): it is in the layout, but no worker or program runs until a client has
//! attached and sized the layout (upstream starts resumes then too, so the agent's first screen
//! is drawn for the real terminal, not the headless 120x40).
//!
//! What its requests get meanwhile:
//! - reads answer at once with an empty screen (revision 0) and process info with no
//!   processes: the pane shows nothing yet, and polling scripts must not hang on it;
//! - resizes are taken as the size to start the program at (answered at once);
//! - everything else (input, waits and watches, copy mode, visibility, explain) is held and
//!   handed to the worker once it runs, as for any pane whose program is still starting; a
//!   held request whose caller gave up (`Cancel`) is dropped.

use herdr_protocol::ipc::{ProcessInfo, ReadOutput, WorkerRequest, WorkerResponse};
use tokio::sync::{mpsc, oneshot};

use super::PaneCmd;

/// How the wait ended.
pub(super) enum Waited {
    /// Start the program now; then serve these held commands, in order.
    Resume(Vec<PaneCmd>),
    /// The pane was closed (by `Shutdown`, whose sender waits, or by dropping every handle).
    Closed(Option<oneshot::Sender<()>>),
}

/// Answers and holds `cmds` until [`PaneCmd::Resume`], keeping `size` up to date.
pub(super) async fn until_resume(
    cmds: &mut mpsc::UnboundedReceiver<PaneCmd>,
    size: &mut (u16, u16),
) -> Waited {
    let mut held = Vec::new();
    loop {
        match cmds.recv().await {
            None => return Waited::Closed(None),
            Some(PaneCmd::Shutdown { done }) => return Waited::Closed(Some(done)),
            Some(PaneCmd::Resume) => return Waited::Resume(held),
            Some(PaneCmd::Cancel(id)) => held.retain(|cmd| held_id(cmd) != Some(id)),
            Some(PaneCmd::Request { id, body, reply }) => match answer_now(&body, size) {
                Some(response) => {
                    let _ = reply.send(response);
                }
                None => held.push(PaneCmd::Request { id, body, reply }),
            },
            Some(watch @ PaneCmd::Watch { .. }) => held.push(watch),
            // No worker to hand over: the next supervisor finds none either and waits too.
            Some(PaneCmd::Release { released, verdict }) => {
                if released.send(()).is_ok() && !matches!(verdict.await, Ok(true)) {
                    return Waited::Closed(None);
                }
            }
            // No worker yet: the one that starts is ours.
            Some(PaneCmd::Upgrade { done }) => {
                let _ = done.send(super::Upgrade::NotNeeded);
            }
        }
    }
}

/// The answer a not-yet-started pane gives `body` itself, if it does not wait for the program.
fn answer_now(body: &WorkerRequest, size: &mut (u16, u16)) -> Option<WorkerResponse> {
    match body {
        WorkerRequest::Read(_) => {
            Some(WorkerResponse::Read(ReadOutput { text: String::new(), truncated: false, revision: 0 }))
        }
        WorkerRequest::ProcessInfo => Some(WorkerResponse::ProcessInfo(ProcessInfo {
            shell_pid: None,
            foreground_process_group_id: None,
            tty: None,
            foreground_processes: Vec::new(),
        })),
        WorkerRequest::Resize { cols, rows } => {
            *size = (*cols, *rows);
            Some(WorkerResponse::Ok)
        }
        _ => None,
    }
}

fn held_id(cmd: &PaneCmd) -> Option<u64> {
    match cmd {
        PaneCmd::Request { id, .. } | PaneCmd::Watch { id, .. } => Some(*id),
        PaneCmd::Cancel(_)
        | PaneCmd::Resume
        | PaneCmd::Shutdown { .. }
        | PaneCmd::Release { .. }
        | PaneCmd::Upgrade { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec};

    use super::*;

    fn request(id: u64, body: WorkerRequest) -> (PaneCmd, oneshot::Receiver<WorkerResponse>) {
        let (reply, rx) = oneshot::channel();
        (PaneCmd::Request { id, body: Box::new(body), reply }, rx)
    }

    #[tokio::test]
    async fn reads_answer_empty_resizes_set_the_size_and_input_waits_for_the_program() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let read = ReadSpec { source: ReadSource::Visible, lines: None, format: ReadFormat::Text };
        let (cmd, mut read_rx) = request(1, WorkerRequest::Read(read));
        tx.send(cmd).expect("send");
        let (cmd, mut resize_rx) = request(2, WorkerRequest::Resize { cols: 90, rows: 30 });
        tx.send(cmd).expect("send");
        let (cmd, _text_rx) = request(3, WorkerRequest::SendText("hi".into()));
        tx.send(cmd).expect("send");
        let (cmd, _dropped) = request(4, WorkerRequest::SendText("given up".into()));
        tx.send(cmd).expect("send");
        tx.send(PaneCmd::Cancel(4)).expect("send");
        tx.send(PaneCmd::Resume).expect("send");

        let mut size = (120, 40);
        let Waited::Resume(held) = until_resume(&mut rx, &mut size).await else { panic!("not resumed") };
        assert_eq!(size, (90, 30));
        assert!(matches!(read_rx.try_recv(), Ok(WorkerResponse::Read(out)) if out.text.is_empty()));
        assert!(matches!(resize_rx.try_recv(), Ok(WorkerResponse::Ok)));
        let ids: Vec<Option<u64>> = held.iter().map(held_id).collect();
        assert_eq!(ids, [Some(3)], "the cancelled request is dropped, the other held");
    }

    #[tokio::test]
    async fn shutdown_ends_the_wait_and_is_acknowledged_by_the_caller() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let (done, _done_rx) = oneshot::channel();
        tx.send(PaneCmd::Shutdown { done }).expect("send");
        assert!(matches!(until_resume(&mut rx, &mut (1, 1)).await, Waited::Closed(Some(_))));
        drop(tx);
        assert!(matches!(until_resume(&mut rx, &mut (1, 1)).await, Waited::Closed(None)));
    }
}
