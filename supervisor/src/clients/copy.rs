//! What copy mode and mouse selection share between a client's connection and its paint task:
//! the search prompt a client is typing (drawn on its mode bar), and delivering copied text —
//! waiting for the pane's `Copied` answer, then sending it to the client's clipboard (the
//! client writes OSC 52) with a "copied" toast.
//!
//! Not here: the keys (`crate::keymap::CopyKeys`), the connection's copy-mode and drag-select
//! state (`conn::copy`, `conn::select`), drawing the overlay (`crate::render`).

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use herdr_protocol::client::ServerToClient;
use herdr_protocol::ipc::{CopyRequest, WorkerRequest, WorkerResponse};
use ratatui_core::buffer::Buffer;
use tokio::sync::mpsc;

use super::Hub;
use super::notify::{Alert, Delivery};
use super::registry::ClientId;
use crate::render::{ModeBadge, copy_hint, draw_copy_hint};
use crate::session::PaneKey;
use crate::state::Shared;

/// How long a pane may take to answer a yank or the end of a selection before the copy is
/// given up (the request is cancelled on the worker).
const COPY_TIMEOUT: Duration = Duration::from_secs(5);

impl Hub {
    /// Shows `prompt` (`/query`) on `client`'s copy-mode bar, or its key hints again (`None`).
    pub(super) fn set_copy_prompt(&self, client: ClientId, prompt: Option<String>) {
        let mut prompts = self.copy_prompts.lock().unwrap_or_else(PoisonError::into_inner);
        let changed = match prompt {
            Some(prompt) => prompts.insert(client, prompt.clone()) != Some(prompt),
            None => prompts.remove(&client).is_some(),
        };
        drop(prompts);
        if changed {
            self.shared.screens().mark_dirty();
        }
    }

    fn copy_prompt(&self, client: ClientId) -> Option<String> {
        self.copy_prompts.lock().unwrap_or_else(PoisonError::into_inner).get(&client).cloned()
    }
}

/// Over a composed frame in copy mode: the prompt `client` is typing, or that the focused
/// pane's last search found nothing, in place of the bar's key hints.
pub(super) fn draw_bar(hub: &Hub, client: ClientId, mode: ModeBadge, buffer: &mut Buffer) {
    if mode != ModeBadge::Copy {
        return;
    }
    let focused = hub.shared.session().focused_pane();
    let copy = focused.and_then(|key| hub.shared.screens().copy_view(key));
    if let Some(hint) = copy_hint(hub.copy_prompt(client).as_deref(), copy.as_ref()) {
        draw_copy_hint(buffer, &hint, &hub.config().theme().colors);
    }
}

/// A connection's copy requests, sent to the panes' workers in the order they were made by one
/// task per connection. Requests that produce text (`Yank`, `SelectFinish`) are awaited there
/// before the next one goes (a worker answers in milliseconds; [`COPY_TIMEOUT`] bounds a stuck
/// one), so the read loop never waits and a double-click's word is never overtaken by the
/// first click's release.
#[derive(Debug, Clone)]
pub(super) struct CopyQueue {
    tx: mpsc::UnboundedSender<Queued>,
}

#[derive(Debug)]
struct Queued {
    pane: PaneKey,
    request: CopyRequest,
    /// The answer's text goes to the client's clipboard.
    deliver: bool,
}

impl CopyQueue {
    /// Starts the queue's task; it ends when the last `CopyQueue` is dropped.
    pub(super) fn start(shared: Arc<Shared>, control: mpsc::UnboundedSender<ServerToClient>) -> CopyQueue {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run_queue(shared, control, rx));
        CopyQueue { tx }
    }

    /// Sends `request` to `pane`. A `Yank` or `SelectFinish` answers with text, which goes to
    /// the client's clipboard with a "copied" toast when `deliver` (`ui.copy_on_select` for a
    /// mouse selection); otherwise the pane's answer is not needed.
    pub(super) fn send(&self, pane: PaneKey, request: CopyRequest, deliver: bool) {
        let _ = self.tx.send(Queued { pane, request, deliver });
    }
}

async fn run_queue(
    shared: Arc<Shared>,
    control: mpsc::UnboundedSender<ServerToClient>,
    mut rx: mpsc::UnboundedReceiver<Queued>,
) {
    while let Some(Queued { pane, request, deliver }) = rx.recv().await {
        let Some(handle) = shared.pane_handle(pane) else { continue };
        let id = shared.next_request_id();
        if !matches!(request, CopyRequest::Yank | CopyRequest::SelectFinish) {
            handle.notify(id, WorkerRequest::Copy(request));
            continue;
        }
        let answer =
            tokio::time::timeout(COPY_TIMEOUT, handle.request(id, WorkerRequest::Copy(request))).await;
        match answer {
            Ok(Ok(WorkerResponse::Copied(text))) if deliver && !text.is_empty() => {
                if control.send(ServerToClient::Clipboard(text)).is_err() {
                    return;
                }
                copied_toast(&shared);
            }
            Ok(Ok(WorkerResponse::Error { code, message })) => {
                log::debug!("copying from a pane failed: {code}: {message}");
            }
            Err(_) => log::debug!("a pane did not answer a copy within {COPY_TIMEOUT:?}"),
            Ok(_) => {}
        }
    }
}

/// The "copied" toast (`ui.toast.clipboard`). The client that copied just sent input, so it is
/// the foreground client: the one whose paint task draws alerts as toasts.
fn copied_toast(shared: &Shared) {
    let config = shared.screens().config();
    let toast = &config.ui.toast;
    if toast.clipboard_enabled {
        shared.screens().alert(Alert {
            title: "copied".to_owned(),
            body: None,
            delivery: Some(Delivery::Herdr),
            position: toast.clipboard_position.to_owned(),
            sound: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use herdr_protocol::grid::CursorPlacement;
    use herdr_protocol::ipc::{CopyView, GridDamage, PaneModes};

    use crate::clients::Screens;
    use crate::session::PaneKey;

    fn damage(copy: Option<CopyView>, mouse_reporting: bool) -> GridDamage {
        GridDamage {
            cols: 4,
            rows: 2,
            full: true,
            lines: Vec::new(),
            cursor: CursorPlacement::default(),
            modes: PaneModes { mouse_reporting, ..PaneModes::default() },
            scroll: Default::default(),
            copy,
        }
    }

    #[test]
    fn screens_mirror_the_copy_overlay_and_modes_of_the_latest_damage() {
        let screens = Screens::default();
        let key = PaneKey(3);
        assert_eq!((screens.copy_view(key), screens.modes(key)), (None, None), "not mirrored yet");
        let view = CopyView { cursor: Some((1, 0)), active: true, ..CopyView::default() };
        screens.apply_damage(key, damage(Some(view.clone()), true));
        assert_eq!(screens.copy_view(key), Some(view));
        assert!(screens.modes(key).is_some_and(|m| m.mouse_reporting));
        // Damage without an overlay (copy mode left) clears it.
        screens.apply_damage(key, damage(None, false));
        assert_eq!(screens.copy_view(key), None);
        assert!(screens.modes(key).is_some_and(|m| !m.mouse_reporting));
        screens.apply_damage(key, damage(Some(CopyView::default()), false));
        screens.remove(key);
        assert_eq!((screens.copy_view(key), screens.modes(key)), (None, None), "a closed pane is forgotten");
    }
}
