//! The paint task's shortcut: when the only thing that moved since a client's last frame is the
//! rows of panes it shows (no hub event, no view, mode, overlay or layout change), redraw just
//! those rows in place in the last frame and send just their changed cells. A 60 Hz spinner then
//! costs one row per paint instead of composing and diffing the whole screen.
//!
//! Every full paint records what it showed ([`Repaint::full_painted`]); anything this cannot
//! vouch for (a pane whose scroll, size, modes or copy overlay changed, a pane gone, an overlay on
//! screen) makes [`Repaint::rows`] decline, and the caller does a full paint.

use herdr_protocol::grid::FrameUpdate;

use super::Screens;
use crate::render::{Frame, pane_cursor, repaint_rows};
use crate::session::PaneKey;
use crate::state::Shared;

/// What the last full paint showed, as far as in-place repaints need it.
#[derive(Debug, Default)]
pub(super) struct Repaint {
    /// Panes in that frame with the grid change number painted; empty: no shortcut.
    shown: Vec<Shown>,
    /// [`Screens::chrome`] as of that paint.
    chrome: u64,
}

#[derive(Debug)]
struct Shown {
    key: PaneKey,
    /// Index into the frame's `panes`.
    index: usize,
    painted: u64,
}

/// Grid change numbers and the chrome counter read *before* a full paint composes, so whatever
/// lands while it composes is repainted again rather than missed.
#[derive(Debug)]
pub(super) struct Before {
    changes: Vec<(PaneKey, String, u64)>,
    chrome: u64,
}

impl Before {
    pub(super) fn read(shared: &Shared) -> Before {
        let chrome = shared.screens().chrome();
        let session = shared.session();
        let changes = session
            .pane_keys()
            .into_iter()
            .filter_map(|key| {
                let (_, _, pane) = session.pane_ids(key)?;
                Some((key, pane, shared.screens().grid_changes(key)))
            })
            .collect();
        Before { changes, chrome }
    }
}

impl Repaint {
    /// A full paint produced `frame`. `plain`: nothing was drawn over the panes' rows after
    /// composing (no mode bar, toast, help, menu or dialog), so repainting rows keeps it exact.
    pub(super) fn full_painted(&mut self, before: Before, frame: &Frame, plain: bool) {
        self.shown.clear();
        self.chrome = before.chrome;
        if !plain {
            return;
        }
        for (index, pane) in frame.panes.iter().enumerate() {
            let Some((key, _, painted)) = before.changes.iter().find(|(_, id, _)| *id == pane.pane_id) else {
                // A pane without a key cannot be tracked: no shortcut for this frame.
                self.shown.clear();
                return;
            };
            self.shown.push(Shown { key: *key, index, painted: *painted });
        }
    }

    /// Repaints the changed rows of `last` in place: `Some(update)` (`None` inside when nothing
    /// changed at all), or `None` when only a full paint will do.
    pub(super) fn rows(&mut self, screens: &Screens, last: &mut Frame) -> Option<Option<FrameUpdate>> {
        if self.shown.is_empty() || screens.chrome() != self.chrome {
            return None;
        }
        let mut pending = Vec::with_capacity(self.shown.len());
        for shown in &self.shown {
            pending.push(screens.rows_since(shown.key, shown.painted)?);
        }
        let mut cells = Vec::new();
        let mut cursor = None;
        screens.with_grids(|grids| {
            for (shown, (rows, _)) in self.shown.iter().zip(&pending) {
                let pane = &last.panes[shown.index];
                let Some(grid) = grids.get(&shown.key) else { continue };
                repaint_rows(&mut last.buffer, pane.content, grid, rows, &mut cells);
                if pane.focused {
                    cursor = pane_cursor(pane.content, grid);
                }
            }
        });
        for (shown, (_, now)) in self.shown.iter_mut().zip(pending) {
            shown.painted = now;
        }
        let area = last.buffer.area;
        if cells.is_empty() && cursor == last.cursor {
            return Some(None);
        }
        last.cursor = cursor;
        Some(Some(FrameUpdate { cols: area.width, rows: area.height, clear: false, cells, cursor }))
    }
}
