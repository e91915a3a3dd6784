//! Damage pacing for the pane: a visible pane sends its screen changes at most once per frame
//! interval (faster for the focused pane), a hidden one sends nothing.
//!
//! Not here: reading changed rows back (`engine::damage`), what the supervisor draws.

use std::time::Duration;

use herdr_protocol::ipc::{BACKGROUND_FRAME_INTERVAL_MS, FOCUSED_FRAME_INTERVAL_MS, WorkerEvent};
use tokio::time::Instant;

use super::Pane;
use crate::WorkerError;

/// How long past its frame interval a pane without the focus holds back its last change
/// waiting for more output (a 60 Hz frame).
const BACKGROUND_TRAILING_GRACE: Duration = Duration::from_millis(17);

impl Pane {
    /// The screen may have changed: a visible pane sends damage now, or at the end of the frame
    /// interval when the last damage went out less than an interval ago.
    pub(super) fn screen_changed(&mut self) -> Result<(), WorkerError> {
        if !self.visible {
            return Ok(());
        }
        let interval = self.frame_interval();
        match self.last_damage {
            // Typing never waits behind the frame timer: the first change after a keystroke
            // is its echo.
            _ if std::mem::take(&mut self.echo_pending) => self.send_damage(),
            Some(last) if Instant::now() < last + interval => {
                // A pane without the focus waits a little past its interval: output that keeps
                // coming (a spinner) sends the damage itself, so no timer wakes the worker too.
                let grace = if self.focused { Duration::ZERO } else { BACKGROUND_TRAILING_GRACE };
                self.damage_at.get_or_insert(last + interval + grace);
                Ok(())
            }
            _ => self.send_damage(),
        }
    }

    /// At most one damage per this long.
    fn frame_interval(&self) -> Duration {
        Duration::from_millis(if self.focused {
            FOCUSED_FRAME_INTERVAL_MS
        } else {
            BACKGROUND_FRAME_INTERVAL_MS
        })
    }

    pub(super) fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
        // A damage held back for the background rate may go out sooner now.
        if let (Some(at), Some(last)) = (self.damage_at, self.last_damage) {
            self.damage_at = Some(at.min(last + self.frame_interval()));
        }
    }

    pub(super) fn send_damage(&mut self) -> Result<(), WorkerError> {
        self.damage_at = None;
        let full = std::mem::take(&mut self.full_pending);
        match self.engine.damage(full) {
            Ok(Some(damage)) => {
                self.event(WorkerEvent::Damage(damage))?;
                self.last_damage = Some(Instant::now());
            }
            Ok(None) => {}
            Err(err) => {
                // Try again with a whole frame next time rather than leave a torn mirror.
                log::warn!("could not read the screen back: {err}");
                self.full_pending = true;
            }
        }
        Ok(())
    }

    pub(super) fn set_visible(&mut self, visible: bool) -> Result<(), WorkerError> {
        if visible == self.visible {
            return Ok(());
        }
        self.visible = visible;
        if visible {
            self.full_pending = true;
            return self.send_damage();
        }
        self.damage_at = None;
        self.engine.stop_damage();
        Ok(())
    }
}
