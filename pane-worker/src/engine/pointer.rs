//! The mouse and the viewport: what a client's mouse event over the pane means for the program
//! (an encoded report when it asked for mouse reporting, arrow keys for a wheel on the alternate
//! screen, or a scroll of the viewport through the scrollback), and where the viewport is.
//!
//! Not here: deciding which pane the mouse is over or whether the UI itself wants the event
//! (focus, border drags): the supervisor does that and sends only what falls on the pane's grid.

use herdr_protocol::ipc::{PaneMouse, PaneMouseAction, PaneMouseButton, ScrollPosition, ScrollTo};
use libghostty_vt::{
    key::Mods,
    mouse::{self, Action, Button, EncoderSize, Position},
    terminal::{Mode, ScrollViewport},
};

use super::{CELL_HEIGHT_PX, CELL_WIDTH_PX, Engine, EngineError};
use crate::keys::{KeyCombo, KeyName};

/// What a mouse event turned into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MouseEffect {
    /// Bytes for the program (a mouse report or arrow keys).
    Input(Vec<u8>),
    /// The viewport moved: the screen shows other rows now.
    Scrolled,
    /// Nothing (the program did not ask for this kind of event).
    Nothing,
}

impl Engine {
    /// Interprets one mouse event over the pane (see [`MouseEffect`]).
    pub fn mouse(&mut self, event: &PaneMouse) -> Result<MouseEffect, EngineError> {
        let tracking = self.term.is_mouse_tracking()?;
        if let PaneMouseAction::Wheel { up, lines } = event.action
            && !tracking
        {
            if self.term.mode(Mode::ALT_SCREEN)?
                || self.term.mode(Mode::ALT_SCREEN_SAVE)?
                || self.term.mode(Mode::ALT_SCREEN_LEGACY)?
            {
                // A pager or editor on the alternate screen has no scrollback of its own here;
                // arrows scroll it as they would in tmux.
                let key = if up { KeyName::Up } else { KeyName::Down };
                let combos = vec![KeyCombo { key, mods: Default::default() }; usize::from(lines)];
                return Ok(MouseEffect::Input(self.encode_keys(&combos)?));
            }
            if up {
                self.rehydrate()?;
            }
            let before = self.scroll_position()?;
            let delta = isize::try_from(lines).unwrap_or(isize::MAX);
            self.term.scroll_viewport(ScrollViewport::Delta(if up { -delta } else { delta }));
            let moved = self.scroll_position()? != before;
            if moved && !up {
                // Back at the live screen, the history can leave the terminal again.
                self.spill();
            }
            return Ok(if moved { MouseEffect::Scrolled } else { MouseEffect::Nothing });
        }
        if !tracking {
            return Ok(MouseEffect::Nothing);
        }
        Ok(MouseEffect::Input(self.encode_mouse(event)?))
    }

    /// The program's report for `event` in the encoding and tracking mode it asked for (empty
    /// when that mode does not report this kind of event, e.g. motion under normal tracking).
    fn encode_mouse(&mut self, event: &PaneMouse) -> Result<Vec<u8>, EngineError> {
        let (cols, rows) = self.size()?;
        let (action, button, held) = match event.action {
            PaneMouseAction::Press(b) => (Action::Press, Some(button(b)), true),
            PaneMouseAction::Release(b) => (Action::Release, Some(button(b)), false),
            PaneMouseAction::Drag(b) => (Action::Motion, Some(button(b)), true),
            PaneMouseAction::Move => (Action::Motion, None, false),
            PaneMouseAction::Wheel { up, .. } => {
                (Action::Press, Some(if up { Button::Four } else { Button::Five }), false)
            }
        };
        let mut mods = Mods::empty();
        mods.set(Mods::SHIFT, event.shift);
        mods.set(Mods::ALT, event.alt);
        mods.set(Mods::CTRL, event.ctrl);
        self.mouse_encoder
            .set_options_from_terminal(&self.term)
            .set_size(EncoderSize {
                screen_width: u32::from(cols) * CELL_WIDTH_PX,
                screen_height: u32::from(rows) * CELL_HEIGHT_PX,
                cell_width: CELL_WIDTH_PX,
                cell_height: CELL_HEIGHT_PX,
                padding_top: 0,
                padding_bottom: 0,
                padding_right: 0,
                padding_left: 0,
            })
            .set_any_button_pressed(held);
        // The middle of the cell, so rounding never lands on a neighbour.
        let position = Position {
            x: (f32::from(event.x) + 0.5) * CELL_WIDTH_PX as f32,
            y: (f32::from(event.y) + 0.5) * CELL_HEIGHT_PX as f32,
        };
        self.mouse_event.set_action(action).set_button(button).set_mods(mods).set_position(position);
        let mut buf = [0u8; 64];
        let n = self.mouse_encoder.encode(&self.mouse_event, &mut buf)?;
        Ok(buf[..n].to_vec())
    }

    /// Moves the viewport; true when it moved.
    pub fn scroll_to(&mut self, to: ScrollTo) -> Result<bool, EngineError> {
        if matches!(to, ScrollTo::OffsetFromBottom(offset) if offset > 0) {
            self.rehydrate()?;
        }
        let before = self.scroll_position()?;
        match to {
            ScrollTo::Bottom => self.term.scroll_viewport(ScrollViewport::Bottom),
            ScrollTo::OffsetFromBottom(offset) => {
                let offset = offset.min(before.max_offset_from_bottom);
                let row = before.max_offset_from_bottom - offset;
                self.term.scroll_viewport(ScrollViewport::Row(row as usize));
            }
        }
        let moved = self.scroll_position()? != before;
        if moved && matches!(to, ScrollTo::Bottom) {
            // Every typed key scrolls to the bottom: only a real return spills.
            self.spill();
        }
        Ok(moved)
    }

    /// Where the viewport is relative to the live screen; the archived rows count as history
    /// above the terminal's own (the viewport is never among them: it rehydrates them first).
    pub fn scroll_position(&self) -> Result<ScrollPosition, EngineError> {
        let bar = self.term.scrollbar()?;
        let max = bar.total.saturating_sub(bar.len) + u64::from(self.archived_rows());
        let offset = bar.total.saturating_sub(bar.len).saturating_sub(bar.offset);
        let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        Ok(ScrollPosition { offset_from_bottom: clamp(offset), max_offset_from_bottom: clamp(max) })
    }
}

fn button(b: PaneMouseButton) -> Button {
    match b {
        PaneMouseButton::Left => Button::Left,
        PaneMouseButton::Middle => Button::Middle,
        PaneMouseButton::Right => Button::Right,
    }
}

/// Kept so the module's one libghostty type stays named in one place.
pub(super) type MouseEncoder = mouse::Encoder<'static>;
pub(super) type MouseEvent = mouse::Event<'static>;
