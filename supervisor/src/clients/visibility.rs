//! Telling the workers which panes attached clients show (decided by `herdr_ui::visibility`): a
//! visible pane's worker sends screen damage, a hidden one keeps parsing and sends nothing. The
//! session's focused pane among them is told it has the focus: it may send damage at the full
//! frame rate, the other visible panes at a background rate. A pane a direct terminal attach
//! shows is visible too.

use herdr_protocol::api::SessionSnapshot;
use herdr_protocol::ipc::WorkerRequest;

use herdr_ui::visibility::key_of;
pub(super) use herdr_ui::visibility::wanted;

use super::Hub;
use crate::session::PaneKey;

/// What the workers were last told, keyed by the session's pane keys.
pub(super) type Visible = herdr_ui::visibility::Visible<PaneKey>;

/// Brings the workers' visibility in line with the session as it is now. A pane that stops being
/// visible loses its mirrored grid (it would be stale when shown again; the worker sends a whole
/// frame then); a pane shown now is no longer one that rang unseen.
pub(super) fn sync(hub: &Hub, snapshot: &SessionSnapshot, panes: &[(PaneKey, String)]) {
    let attached = hub.registry().count() > 0;
    let mut wanted = wanted(snapshot, panes, attached);
    // Panes a direct terminal attach shows, whatever the full clients show.
    wanted.extend(hub.attachments().shown());
    let shared = &hub.shared;
    shared.screens().settle_bells(&wanted, panes);
    // The lock is held while notifying so two paint tasks cannot send changes out of order.
    let mut visible = hub.visible.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for (key, now_visible) in visible.update(wanted) {
        if let Some(handle) = shared.pane_handle(key) {
            handle.notify(shared.next_request_id(), WorkerRequest::SetVisible(now_visible));
        }
        if !now_visible {
            shared.screens().remove(key);
        }
    }
    let focused = snapshot.focused_pane_id.as_deref().and_then(|id| key_of(panes, id));
    for (key, now_focused) in visible.focus(focused) {
        if let Some(handle) = shared.pane_handle(key) {
            handle.notify(shared.next_request_id(), WorkerRequest::SetFocused(now_focused));
        }
    }
}

/// Whether every pane the workers were told is visible has a mirrored grid: false while the
/// first screen of a pane just made visible is on its way.
pub(super) fn all_mirrored(hub: &Hub) -> bool {
    let visible = hub.visible.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let screens = hub.shared.screens();
    visible.shown().all(|key| screens.has_grid(*key))
}
