//! Copy requests and typed keys for the pane: applying copy mode to the terminal and sending the
//! overlay promptly, and writing a typed key in the program's keyboard mode.
//!
//! Not here: what copy requests mean (`copy`) or how the terminal carries them out
//! (`engine::copy`); when copy mode ends on typing (the supervisor decides).

use herdr_protocol::ipc::{CopyRequest, ScrollTo, TextQuery, WorkerResponse};

use super::{Pane, requests::error};
use crate::{WorkerError, keys};

impl Pane {
    /// Applies a copy request, answers it (`Copied` when it produced text), then makes sure the
    /// new overlay reaches the supervisor (a hidden pane just keeps the state).
    pub(super) fn on_copy(&mut self, id: u64, req: &CopyRequest) -> Result<(), WorkerError> {
        let response = match self.engine.copy(req) {
            Ok(outcome) => {
                if outcome.scrolled {
                    self.full_pending = true;
                }
                outcome.text.map_or(WorkerResponse::Ok, WorkerResponse::Copied)
            }
            Err(err) => error("internal_error", format!("copy mode failed: {err}")),
        };
        self.respond(id, response)?;
        self.screen_changed()
    }

    /// A client-owned copy question (`pane.copy_motion` and friends). A `revision` the output
    /// has moved past is refused: the caller's points may no longer be on the text it meant.
    pub(super) fn text_query(&mut self, query: &TextQuery, revision: Option<u64>) -> WorkerResponse {
        let now = self.engine.revision();
        if revision.is_some_and(|r| r != now) {
            let message = format!("the pane's content changed (revision {now}, asked about {revision:?})");
            return error("content_changed", message);
        }
        match self.engine.text_query(query) {
            Ok(Some(answer)) => WorkerResponse::Text(answer),
            Ok(None) => error("invalid_params", "a point is outside the pane's text".to_owned()),
            Err(err) => error("internal_error", format!("could not read the pane's text: {err}")),
        }
    }

    /// A key the user typed: the program's keyboard-mode encoding when it differs from what the
    /// user's terminal sent (`bytes`), else `bytes` as they are. A key outside the grammar, or one
    /// the encoder cannot handle, goes out as `bytes`.
    pub(super) fn type_key(&mut self, bytes: &[u8], key: &str) -> Result<WorkerResponse, WorkerError> {
        self.typing_started()?;
        let encoded = match keys::parse_key(key) {
            Ok(combo) => self.engine.reencode_typed_key(&combo).unwrap_or_else(|err| {
                log::warn!("could not re-encode typed key {key:?}: {err}");
                None
            }),
            Err(_) => None,
        };
        Ok(self.send_input(encoded.as_deref().unwrap_or(bytes)))
    }

    /// A person typed: drop a mouse selection (copy mode stays: the supervisor ends it), and
    /// show the live screen rather than the history they scrolled to.
    pub(super) fn typing_started(&mut self) -> Result<(), WorkerError> {
        if self.engine.mouse_selection_shown() {
            if let Err(err) = self.engine.copy(&CopyRequest::SelectClear) {
                log::warn!("could not clear the mouse selection: {err}");
            }
            self.screen_changed()?;
        }
        self.scroll_to(ScrollTo::Bottom)?;
        // Set last: the changes above went out by the usual pacing, the echo is next.
        self.echo_pending = self.visible;
        Ok(())
    }
}
