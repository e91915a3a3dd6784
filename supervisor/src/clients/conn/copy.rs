//! A connection's copy mode: `prefix+[` starts it on the focused pane, keys go to
//! [`CopyKeys`] instead of the keymap and become copy requests for that pane, a yank puts the
//! text on the client's clipboard. It ends on `q`/Esc/the prefix, after a yank, on a config
//! reload, and by itself when focus leaves the pane or the pane closes.
//!
//! Not here: what the requests do (the pane worker), drawing (the compositor, from the overlay
//! the pane's damage carries), the prompt's bar (`super::super::copy`).

use std::sync::Arc;

use herdr_protocol::client::ServerToClient;
use herdr_protocol::ipc::CopyRequest;
use tokio::sync::mpsc;

use super::Connection;
use crate::clients::Hub;
use crate::clients::copy::CopyQueue;
use crate::clients::registry::ClientId;
use crate::keymap::{CopyKeys, CopyStep, InputEvent, KeyEvent};
use crate::render::ModeBadge;
use crate::session::PaneKey;

/// Copy mode and mouse-selection state of one connection. Dropped with the connection (the
/// client hung up), it takes the pane out of copy mode, so nobody else finds it there.
pub(super) struct Copying {
    hub: Arc<Hub>,
    client: ClientId,
    /// Copy mode is on for this pane.
    pub session: Option<CopySession>,
    /// The last left press that started a selection, for double-click detection.
    pub last_click: Option<super::select::Click>,
    /// The pane whose mouse selection may still be shown.
    pub selected: Option<PaneKey>,
    /// Where every copy request goes, in order.
    pub queue: CopyQueue,
}

pub(super) struct CopySession {
    pane: PaneKey,
    keys: CopyKeys,
}

impl Copying {
    /// `control` is the client's channel to its paint task, where copied text goes.
    pub(super) fn new(
        hub: &Arc<Hub>,
        client: ClientId,
        control: mpsc::UnboundedSender<ServerToClient>,
    ) -> Self {
        let queue = CopyQueue::start(hub.shared.clone(), control);
        Copying { hub: hub.clone(), client, session: None, last_click: None, selected: None, queue }
    }
}

impl Drop for Copying {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            // The queue's task still sends what was queued before its last sender went.
            self.queue.send(session.pane, CopyRequest::Leave, false);
        }
        self.hub.set_copy_prompt(self.client, None);
    }
}

impl Connection {
    /// `prefix+[`: copy mode on the focused pane.
    pub(super) fn enter_copy(&mut self) {
        self.leave_copy();
        let shared = &self.hub.shared;
        let Some(pane) = shared.session().focused_pane() else { return };
        if shared.pane_handle(pane).is_none() {
            return;
        }
        self.copying.queue.send(pane, CopyRequest::Enter, false);
        self.copying.session = Some(CopySession { pane, keys: CopyKeys::new() });
        self.show_badge(ModeBadge::Copy);
    }

    /// Ends copy mode, telling the pane (if it is still there) to drop it too.
    pub(super) fn leave_copy(&mut self) {
        let Some(session) = self.copying.session.take() else { return };
        self.copying.queue.send(session.pane, CopyRequest::Leave, false);
        self.end_copy_view();
    }

    /// The client's side of leaving: the mode bar and the prompt go.
    fn end_copy_view(&mut self) {
        self.hub.set_copy_prompt(self.id, None);
        self.show_badge(ModeBadge::Terminal);
    }

    fn show_badge(&self, badge: ModeBadge) {
        self.view.send_if_modified(|v| std::mem::replace(&mut v.mode, badge) != badge);
    }

    /// Whether copy mode is on (the keymap's own mode stays terminal meanwhile).
    pub(super) fn in_copy_mode(&self) -> bool {
        self.copying.session.is_some()
    }

    /// Leaves copy mode when focus moved off its pane or the pane closed.
    pub(super) fn check_copy(&mut self) {
        let Some(pane) = self.copying.session.as_ref().map(|s| s.pane) else { return };
        let focused = self.hub.shared.session().focused_pane();
        if focused != Some(pane) || self.hub.shared.pane_handle(pane).is_none() {
            self.leave_copy();
        }
    }

    /// Copy mode takes keys, pastes and unknown sequences; anything else (and everything when
    /// copy mode is off) is given back.
    pub(super) fn copy_event(&mut self, event: InputEvent) -> Option<InputEvent> {
        self.check_copy();
        if !self.in_copy_mode() {
            return Some(event);
        }
        match event {
            InputEvent::Key(input) => {
                self.copy_key(input.key);
                None
            }
            InputEvent::Paste(_) | InputEvent::Unknown(_) => None,
            other => Some(other),
        }
    }

    fn copy_key(&mut self, key: KeyEvent) {
        let prefix = self.keymap.bindings().prefix;
        let Some(session) = self.copying.session.as_mut() else { return };
        let pane = session.pane;
        let shown = self
            .hub
            .shared
            .screens()
            .copy_view(pane)
            .is_some_and(|view| view.selection.is_some() || view.search.is_some());
        let step = session.keys.handle(key, prefix, shown);
        let prompt = session.keys.prompt();
        match step {
            CopyStep::Request(CopyRequest::Yank) => {
                // The pane leaves copy mode by itself after a yank.
                self.copying.session = None;
                self.end_copy_view();
                self.copying.queue.send(pane, CopyRequest::Yank, true);
            }
            CopyStep::Request(request) => {
                self.copying.queue.send(pane, request, false);
                self.hub.set_copy_prompt(self.id, prompt);
            }
            CopyStep::Prompt => self.hub.set_copy_prompt(self.id, prompt),
            CopyStep::Exit => self.leave_copy(),
            CopyStep::Ignored => {}
        }
    }
}
