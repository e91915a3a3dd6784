//! The session's popup: a bordered modal terminal over the layout (`[[keys.command]] type =
//! "popup"`, and plugin panes with `placement = "popup"`). It is a real pane with its own
//! worker, registered with the others under a [`PaneKey`] the session model hands out, but it
//! belongs to no tab: it is not in the model, so `pane.list`, layouts, `session.json` and pane
//! events never see it (upstream keeps its popup outside the workspaces too). At most one is
//! open per session.
//!
//! While it is open every client draws it centred over its pane area (`clients/paint.rs`), its
//! keys and the clicks inside it go to its program (`clients/conn.rs`, `conn/popup.rs`), and its
//! program's terminal is the popup's inside at the session's layout area (it follows the
//! foreground client's resizes, [`fit`]). It closes when its program exits ([`ended`]) or on
//! `popup.close` ([`close`]); the layout and focus under it never changed.
//!
//! Its worker gets no orphan grace: a popup never outlives its supervisor, so a restart or a
//! handoff never adopts it into the layout as a recovered pane.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use herdr_protocol::ipc::{WorkerIdentity, WorkerRequest};
use herdr_ui::popup::{PopupSize, geometry};
use herdr_ui::render::PopupView;
use ratatui_core::layout::Rect;

use crate::session::PaneKey;
use crate::state::Shared;
use crate::workers::{Launch, LaunchMode, StartError};

/// How long `popup.close` waits for the popup's worker to hang up its program.
const CLOSE_PATIENCE: Duration = Duration::from_secs(3);

/// What to run in a popup, and how it looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PopupSpec {
    /// The program and its arguments, run without a shell.
    pub argv: Vec<String>,
    /// Where it starts (`None`: the supervisor's directory).
    pub cwd: Option<String>,
    /// Added to its environment; herdr's own `HERDR_ENV`, `HERDR_SOCKET_PATH` and
    /// `HERDR_BIN_PATH` win over these. A popup gets no `HERDR_PANE_ID`.
    pub env: Vec<(String, String)>,
    /// Shown in the top border.
    pub title: String,
    /// The outer size, border included (`None`: half the pane area).
    pub width: Option<PopupSize>,
    pub height: Option<PopupSize>,
}

/// Why a popup did not open.
#[derive(Debug, thiserror::Error)]
pub enum PopupError {
    #[error("a popup is already open")]
    AlreadyOpen,
    #[error("the terminal is too small for a popup")]
    TooSmall,
    #[error("a popup needs a program to run")]
    NoProgram,
    #[error("{0}")]
    Start(#[from] StartError),
}

/// The open popup, as the clients draw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    /// Its pane's key in the worker registry.
    pub key: PaneKey,
    pub view: PopupView,
    /// Its program's terminal size now (columns, rows).
    size: (u16, u16),
}

/// The session's popup slot (on [`Shared`]). Its lock is taken after the session's, never
/// before.
#[derive(Debug, Default)]
pub struct Popups {
    open: Mutex<Option<Popup>>,
}

impl Popups {
    fn slot(&self) -> MutexGuard<'_, Option<Popup>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Opens a popup running `spec` over every client's layout and gives its program the keys;
/// resolves once the program runs. The one way to open a popup: `[[keys.command]] type =
/// "popup"` comes here, and so does `plugin.pane.open` with `placement = "popup"`.
pub async fn open(shared: &Shared, spec: PopupSpec) -> Result<PaneKey, PopupError> {
    if spec.argv.is_empty() {
        return Err(PopupError::NoProgram);
    }
    let (area, (key, uid)) = {
        let mut session = shared.session();
        (session.area(), session.detached_pane())
    };
    let (cols, rows) = inner_size(spec.width, spec.height, area).ok_or(PopupError::TooSmall)?;
    {
        let mut slot = shared.popups.slot();
        if slot.is_some() {
            return Err(PopupError::AlreadyOpen);
        }
        let view = PopupView { title: spec.title.clone(), width: spec.width, height: spec.height };
        *slot = Some(Popup { key, view, size: (cols, rows) });
    }
    let started = shared.launch_detached(launch(shared, key, uid, spec, (cols, rows)));
    if let Some(handle) = shared.pane_handle(key) {
        // Shown by every client from the start, and paced as the pane being typed into.
        handle.notify(shared.next_request_id(), WorkerRequest::SetVisible(true));
        handle.notify(shared.next_request_id(), WorkerRequest::SetFocused(true));
    }
    shared.screens().mark_dirty();
    let outcome = match started.await {
        Ok(Ok(_)) => Ok(key),
        Ok(Err(e)) => Err(PopupError::Start(e)),
        Err(_) => Err(PopupError::Start(StartError::TaskGone)),
    };
    if outcome.is_err()
        && let Some(Some(handle)) = discard(shared, key)
    {
        tokio::spawn(async move { handle.shutdown().await });
    }
    outcome
}

/// `popup.close`: closes the open popup, waiting (a little) for its program to be hung up;
/// false when none is open.
pub async fn close(shared: &Shared) -> bool {
    let Some(key) = shown(shared).map(|p| p.key) else { return false };
    // `None`: its program ended meanwhile, and the popup closed by itself.
    if let Some(Some(handle)) = discard(shared, key) {
        let _ = tokio::time::timeout(CLOSE_PATIENCE, handle.shutdown()).await;
    }
    true
}

/// The open popup, if any.
pub fn shown(shared: &Shared) -> Option<Popup> {
    shared.popups.slot().clone()
}

/// `key`'s program is gone: if it was the popup's, the popup closes (true).
pub(crate) fn ended(shared: &Shared, key: PaneKey) -> bool {
    discard(shared, key).is_some()
}

/// The popup's terminal follows the layout area (the foreground client's pane area): resizes
/// its program when the area changed since it was sized.
pub(crate) fn fit(shared: &Shared) {
    let area = shared.session().area();
    let mut slot = shared.popups.slot();
    let Some(popup) = slot.as_mut() else { return };
    let Some(size) = inner_size(popup.view.width, popup.view.height, area) else { return };
    if size == popup.size {
        return;
    }
    popup.size = size;
    if let Some(handle) = shared.pane_handle(popup.key) {
        handle.notify(shared.next_request_id(), WorkerRequest::Resize { cols: size.0, rows: size.1 });
    }
}

/// Empties the slot if `key` is the popup's (`None` when it is not): its worker leaves the
/// registry (returned when it was there, for the caller to shut down) and the clients forget
/// its grid and repaint.
fn discard(shared: &Shared, key: PaneKey) -> Option<Option<crate::workers::PaneHandle>> {
    {
        let mut slot = shared.popups.slot();
        slot.take_if(|p| p.key == key)?;
    }
    let handle = shared.forget_detached(key);
    shared.screens().mark_dirty();
    Some(handle)
}

/// The program's terminal size in a popup of `width` × `height` over a `cols` × `rows` area.
fn inner_size(
    width: Option<PopupSize>,
    height: Option<PopupSize>,
    (cols, rows): (u16, u16),
) -> Option<(u16, u16)> {
    let inner = geometry(width, height, Rect::new(0, 0, cols, rows))?.inner;
    Some((inner.width, inner.height))
}

fn launch(shared: &Shared, key: PaneKey, uid: String, spec: PopupSpec, (cols, rows): (u16, u16)) -> Launch {
    let managed = ["HERDR_ENV", "HERDR_SOCKET_PATH", "HERDR_BIN_PATH"];
    let mut env: Vec<(String, String)> = spec.env;
    env.retain(|(k, _)| k != "HERDR_PANE_ID");
    env.extend(shared.config.pane_env("", "", "").into_iter().filter(|(k, _)| managed.contains(&k.as_str())));
    let identity = WorkerIdentity {
        socket: shared.runtime.worker_socket(&uid).display().to_string(),
        uid,
        secret: shared.runtime.secret.clone(),
        orphan_timeout_ms: 0,
    };
    Launch {
        key,
        worker_exe: shared.config.worker_exe.clone(),
        argv: Some(spec.argv),
        cwd: spec.cwd,
        env,
        cols,
        rows,
        identity,
        mode: LaunchMode::Spawn,
        replay: None,
        launcher: shared.launcher(),
    }
}

#[cfg(test)]
#[path = "popups_tests.rs"]
mod tests;
