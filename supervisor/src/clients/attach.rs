//! Direct terminal attach (`herdr agent attach`, `herdr terminal attach`, `herdr terminal
//! session observe|control`): a connection whose first frame is
//! [`ClientToServer::AttachTerminal`] sees one pane alone, as ANSI [`TerminalFrame`]s at its own
//! size, with no sidebar, tabs or keymap.
//!
//! One writable owner per pane ([`owners`]): a controlling connection types into the pane (its
//! `Input` bytes go to the program unchanged) and the pane is kept at its size
//! (`Session::pin_size`) until it leaves, when the layout's size comes back. A second
//! controlling connection is refused unless it takes over, which ends the first with
//! [`ShutdownReason::TakenOver`] — upstream's rule. Observers only watch, at their own size.
//! The pane's worker sends damage while any attach shows it (the visibility sync adds
//! [`owners::Attachments::shown`]); full clients keep working beside attaches and show the pane
//! as usual. A pane that ends ends its attaches with [`ShutdownReason::PaneEnded`].

pub(super) mod owners;

use std::sync::{Arc, MutexGuard, PoisonError};

use herdr_host::stream::{ClientReader, ClientWriter};
use herdr_protocol::client::{
    AttachRole, ClientToServer, ServerToClient, ShutdownReason, TerminalFrame, check_hello_version,
};
use herdr_protocol::ipc::{FrameDecoder, WorkerRequest};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::Hub;
use super::conn::write_message;
use super::paint::{FRAME_INTERVAL, capture};
use super::visibility;
use crate::render::{Frame, diff_frames, single_pane};
use crate::session::PaneKey;
use owners::{AttachId, Attachments};

/// What the client asked for in its first frame.
#[derive(Debug)]
pub(super) struct Request {
    pub version: u32,
    pub cols: u16,
    pub rows: u16,
    pub target: String,
    pub role: AttachRole,
}

impl Hub {
    pub(super) fn attachments(&self) -> MutexGuard<'_, Attachments> {
        self.attachments.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs one attach connection to its end.
pub(super) async fn serve(
    hub: Arc<Hub>,
    reader: ClientReader,
    mut writer: ClientWriter,
    frames: FrameDecoder,
    request: Request,
) {
    let welcome = match check_hello_version(request.version) {
        Ok(welcome) => welcome,
        Err(refusal) => {
            let _ = write_message(&mut writer, &refusal).await;
            return;
        }
    };
    let (key, terminal_id, attach) = match claim(&hub, &request) {
        Ok(claimed) => claimed,
        Err(error) => {
            log::info!("refused a terminal attach: {error}");
            let welcome = ServerToClient::Welcome { version: 0, error: Some(error) };
            let _ = write_message(&mut writer, &welcome).await;
            return;
        }
    };
    // From here on the guard undoes the claim however the connection ends (a live handoff
    // aborts this task).
    let guard = Claim { hub: hub.clone(), id: attach.id };
    if write_message(&mut writer, &welcome).await.is_err() {
        return;
    }
    log::info!(
        "terminal attach {} on {terminal_id} ({}x{}, {:?})",
        attach.id,
        request.cols,
        request.rows,
        request.role
    );
    let owner = attach.evicted.is_some();
    let mut conn = Attach {
        hub: hub.clone(),
        key,
        terminal_id,
        owner,
        cols: request.cols,
        rows: request.rows,
        last: None,
        seq: 0,
    };
    if owner {
        conn.pin();
    }
    sync_visibility(&hub);
    let end = conn.run(reader, frames, &mut writer, attach.evicted).await;
    log::info!("terminal attach {} ended ({end:?})", attach.id);
    drop(guard);
    if let Some(reason) = end {
        let _ = write_message(&mut writer, &ServerToClient::Shutdown { reason }).await;
    }
}

/// A claimed attach: its id, and for an owner the signal of being taken over.
struct Claimed {
    id: AttachId,
    evicted: Option<oneshot::Receiver<()>>,
}

/// Resolves the target and registers the connection (and its ownership); the refusal's text.
fn claim(hub: &Hub, request: &Request) -> Result<(PaneKey, String, Claimed), String> {
    let target = &request.target;
    let Some((key, terminal_id)) = resolve(hub, target) else {
        return Err(match request.role {
            AttachRole::Control { .. } => format!("terminal attach failed: terminal {target} not found"),
            AttachRole::Observe => {
                format!("terminal session observe failed: terminal target {target} not found")
            }
        });
    };
    let mut attachments = hub.attachments();
    let id = attachments.show(key);
    let evicted = match request.role {
        AttachRole::Observe => None,
        AttachRole::Control { takeover } => match attachments.own(id, key, takeover) {
            Ok(evicted) => Some(evicted),
            Err(owners::AlreadyOwned) => {
                attachments.leave(id);
                return Err(format!(
                    "terminal attach failed: terminal {terminal_id} already has an attached client; retry with --takeover"
                ));
            }
        },
    };
    Ok((key, terminal_id, Claimed { id, evicted }))
}

/// A terminal id, a pane id or an agent target (as `agent.get` resolves them), and the pane's
/// terminal id.
fn resolve(hub: &Hub, target: &str) -> Option<(PaneKey, String)> {
    let session = hub.shared.session();
    let by_terminal = session
        .pane_keys()
        .into_iter()
        .find(|key| session.pane_info(*key).is_some_and(|info| info.terminal_id == target));
    let key = by_terminal
        .or_else(|| session.resolve_pane(target).ok())
        .or_else(|| session.resolve_agent(target).ok())?;
    Some((key, session.pane_info(key)?.terminal_id))
}

/// Brings the workers' visibility up to date (an attach started or ended).
fn sync_visibility(hub: &Hub) {
    let (snapshot, panes) = capture(&hub.shared);
    visibility::sync(hub, &snapshot, &panes);
}

/// Undoes a claim when its connection ends: ownership, the pinned size, the worker's visibility.
struct Claim {
    hub: Arc<Hub>,
    id: AttachId,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let released = self.hub.attachments().leave(self.id);
        if let Some(key) = released {
            let effects = self.hub.shared.session().pin_size(key, None);
            self.hub.shared.apply(effects);
        }
        if !self.hub.shared.is_shutting_down() {
            sync_visibility(&self.hub);
        }
    }
}

/// One running attach connection.
struct Attach {
    hub: Arc<Hub>,
    key: PaneKey,
    terminal_id: String,
    /// Controlling (it may be taken over later; then it ends).
    owner: bool,
    cols: u16,
    rows: u16,
    /// The frame the client has.
    last: Option<Frame>,
    seq: u64,
}

impl Attach {
    /// Reads the client and paints the pane until the connection ends; the reason to tell the
    /// client (`None`: it is gone).
    async fn run(
        &mut self,
        mut reader: ClientReader,
        mut frames: FrameDecoder,
        writer: &mut ClientWriter,
        evicted: Option<oneshot::Receiver<()>>,
    ) -> Option<ShutdownReason> {
        let shared = self.hub.shared.clone();
        let mut dirty = shared.screens().watch();
        let mut events = shared.hub.watch();
        let mut stop = shared.shutdown_signal();
        let mut evicted = evicted;
        let mut buf = vec![0u8; 16 * 1024];
        let mut last_paint: Option<Instant> = None;
        let mut needs_paint = true;
        loop {
            if !self.pane_alive() {
                return Some(ShutdownReason::PaneEnded(self.terminal_id.clone()));
            }
            if needs_paint {
                if let Some(at) = last_paint.filter(|at| Instant::now() < *at + FRAME_INTERVAL) {
                    tokio::time::sleep_until(at + FRAME_INTERVAL).await;
                }
                dirty.borrow_and_update();
                if self.paint(writer).await.is_err() {
                    return None;
                }
                last_paint = Some(Instant::now());
                needs_paint = false;
            }
            loop {
                match frames.next_frame::<ClientToServer>() {
                    Ok(Some(msg)) => match self.handle(msg) {
                        Handled::Go => {}
                        Handled::Repaint => needs_paint = true,
                        Handled::End(reason) => return Some(reason),
                    },
                    Ok(None) => break,
                    Err(e) => return Some(ShutdownReason::ProtocolError(e.to_string())),
                }
            }
            if needs_paint {
                continue;
            }
            tokio::select! {
                read = reader.read(&mut buf) => match read {
                    Ok(0) | Err(_) => return None,
                    Ok(n) => frames.push(&buf[..n]),
                },
                changed = dirty.changed() => match changed {
                    Ok(()) => needs_paint = true,
                    Err(_) => return Some(ShutdownReason::ServerStopping),
                },
                // A hub event may be this pane's end (checked at the top of the loop).
                _ = events.changed() => {}
                // Only a takeover resolves it (the sender goes only with this connection's leave).
                _ = async { evicted.as_mut().expect("guarded").await }, if evicted.is_some() => {
                    return Some(ShutdownReason::TakenOver);
                }
                _ = stop.wait_for(|stopping| *stopping) => return Some(ShutdownReason::ServerStopping),
            }
        }
    }

    fn handle(&mut self, msg: ClientToServer) -> Handled {
        match msg {
            ClientToServer::Input(bytes) if self.owner => {
                if let Some(handle) = self.hub.shared.pane_handle(self.key) {
                    handle.notify(self.hub.shared.next_request_id(), WorkerRequest::SendBytes(bytes));
                }
                Handled::Go
            }
            // An observer's keys go nowhere.
            ClientToServer::Input(_) | ClientToServer::Keys(_) => Handled::Go,
            ClientToServer::Resize { cols, rows } => {
                (self.cols, self.rows) = (cols, rows);
                if self.owner {
                    self.pin();
                }
                Handled::Repaint
            }
            ClientToServer::Detach => Handled::End(ShutdownReason::Detached),
            // A direct attach never takes the terminal: nothing to get ready for.
            ClientToServer::TerminalReady => Handled::Go,
            ClientToServer::Hello { .. } | ClientToServer::AttachTerminal { .. } => {
                Handled::End(ShutdownReason::ProtocolError("a second handshake on one connection".into()))
            }
        }
    }

    /// Keeps the pane at this client's size.
    fn pin(&self) {
        let size = (self.cols.max(1), self.rows.max(1));
        let effects = self.hub.shared.session().pin_size(self.key, Some(size));
        self.hub.shared.apply(effects);
    }

    fn pane_alive(&self) -> bool {
        self.hub.shared.session().pane_ids(self.key).is_some()
    }

    /// Sends what changed on the pane since the client's last frame (the whole screen at first
    /// and after a resize); nothing when nothing did.
    async fn paint(&mut self, writer: &mut ClientWriter) -> std::io::Result<()> {
        let (cols, rows) = (self.cols, self.rows);
        let frame =
            self.hub.shared.screens().with_grids(|grids| single_pane(grids.get(&self.key), cols, rows));
        let Some(update) = diff_frames(self.last.as_ref(), &frame) else { return Ok(()) };
        self.last = Some(frame);
        self.seq += 1;
        let msg = ServerToClient::Terminal(TerminalFrame {
            seq: self.seq,
            width: cols,
            height: rows,
            full: update.clear,
            bytes: update.to_ansi(),
        });
        write_message(writer, &msg).await
    }
}

/// What one client message asks of the loop.
enum Handled {
    Go,
    Repaint,
    End(ShutdownReason),
}
