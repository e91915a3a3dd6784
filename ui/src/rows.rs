//! Which rows of each mirrored pane grid changed, and when, so a paint task can repaint only
//! those rows when nothing else on the screen moved (see `render::repaint_rows`). Changes are
//! counted in the grid's own change numbers (`Screens::grid_changes`).
//!
//! Pure bookkeeping; the paint task decides when it may use it.

use herdr_protocol::ipc::GridDamage;

/// One pane's marks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowMarks {
    /// The change number at which each row last changed.
    rows: Vec<u64>,
    /// The change number at which anything besides row contents and the cursor changed: a full
    /// frame, the size, the scroll position, the modes, a copy overlay. Rows alone cannot say
    /// what that did to the screen.
    other: u64,
}

impl RowMarks {
    /// Records `damage`, applied as change number `change`; `other` says something besides its
    /// rows and cursor changed (or is drawn over them, like a copy overlay).
    pub fn note(&mut self, change: u64, damage: &GridDamage, other: bool) {
        let rows = usize::from(damage.rows);
        if damage.full || other || self.rows.len() != rows {
            self.rows = vec![change; rows];
            self.other = change;
            return;
        }
        for (y, _) in &damage.lines {
            if let Some(mark) = self.rows.get_mut(usize::from(*y)) {
                *mark = change;
            }
        }
    }

    /// The rows changed after change number `painted`, or `None` when something else changed
    /// since then (only a full paint can show that).
    pub fn rows_since(&self, painted: u64) -> Option<Vec<u16>> {
        if self.other > painted {
            return None;
        }
        let changed = self.rows.iter().enumerate().filter(|(_, mark)| **mark > painted);
        Some(changed.filter_map(|(y, _)| u16::try_from(y).ok()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use herdr_protocol::grid::CursorPlacement;
    use herdr_protocol::ipc::PaneModes;

    fn damage(full: bool, rows: u16, lines: &[u16]) -> GridDamage {
        GridDamage {
            cols: 4,
            rows,
            full,
            lines: lines.iter().map(|y| (*y, Vec::new())).collect(),
            cursor: CursorPlacement::default(),
            modes: PaneModes::default(),
            scroll: Default::default(),
            copy: None,
        }
    }

    #[test]
    fn rows_since_lists_only_rows_changed_after_the_painted_change() {
        let mut marks = RowMarks::default();
        marks.note(1, &damage(true, 4, &[]), false);
        assert_eq!(marks.rows_since(0), None, "the full frame itself needs a full paint");
        assert_eq!(marks.rows_since(1), Some(vec![]));
        marks.note(2, &damage(false, 4, &[2]), false);
        marks.note(3, &damage(false, 4, &[0, 2]), false);
        assert_eq!(marks.rows_since(1), Some(vec![0, 2]));
        assert_eq!(marks.rows_since(2), Some(vec![0, 2]));
        assert_eq!(marks.rows_since(3), Some(vec![]));
    }

    #[test]
    fn anything_besides_rows_forces_a_full_paint() {
        let mut marks = RowMarks::default();
        marks.note(1, &damage(true, 4, &[]), false);
        marks.note(2, &damage(false, 4, &[1]), true);
        assert_eq!(marks.rows_since(1), None);
        assert_eq!(marks.rows_since(2), Some(vec![]));
        // Rows for another size than the marks know (a resize): a full paint too.
        marks.note(3, &damage(false, 6, &[1]), false);
        assert_eq!(marks.rows_since(2), None);
    }
}
