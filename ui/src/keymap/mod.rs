//! Keyboard input on the supervisor: decoding the client terminal's bytes ([`InputDecoder`]),
//! the key grammar of `[keys]` ([`parse_key`], [`parse_binding`]), the binding table
//! ([`Bindings`]) and the mode machine ([`Keymap`]) that decides, key by key, whether bytes go
//! to the focused pane or become herdr [`Action`]s.
//!
//! Pure: no terminal, no sockets. Mouse, paste and focus events pass through the decoder; what
//! they do is up to the runtime. Copy mode and dialogs are separate consumers of keys: while
//! one is open the runtime feeds keys there instead of to [`Keymap::handle_key`].

mod action;
mod bindings;
mod copy;
mod decode;
mod grammar;
mod key;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_decode;

pub use action::Action;
pub use bindings::{BindingProblem, Bindings, Target};
pub use copy::{CopyKeys, CopyStep};
pub use decode::{InputDecoder, InputEvent, KeyInput, MouseButton, MouseEvent, MouseKind};
pub use grammar::grammar_name;
pub use key::{Binding, KeyCode, KeyEvent, KeyParseError, Modifiers, parse_binding, parse_key};

use herdr_protocol::api::PaneDirection;

/// The keymap's modes (upstream's Terminal, Prefix, Navigate and Resize).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Keys go to the focused pane, except the prefix and direct bindings.
    #[default]
    Terminal,
    /// The prefix was pressed: the next key is one binding.
    Prefix,
    /// Persistent workspace navigation (`prefix+w`).
    Navigate,
    /// Persistent pane resizing (`prefix+r`).
    Resize,
}

/// What the runtime must do with one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Send this key to the focused pane: its bytes as typed, and the key itself so the pane can
    /// re-encode it for the program's keyboard mode ([`grammar_name`]).
    Forward(KeyInput),
    Action(Action),
    /// The key did nothing (an unbound key after the prefix, a stray key in navigate mode).
    Ignored,
}

/// The mode machine for one client.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Bindings,
    mode: Mode,
}

impl Keymap {
    pub fn new(bindings: Bindings) -> Self {
        Keymap { bindings, mode: Mode::Terminal }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn bindings(&self) -> &Bindings {
        &self.bindings
    }

    /// Swaps the table (config reload) and returns to terminal mode.
    pub fn set_bindings(&mut self, bindings: Bindings) {
        self.bindings = bindings;
        self.mode = Mode::Terminal;
    }

    /// Interprets one key. A mode change adds [`Action::ModeChanged`] after any other outcome.
    pub fn handle_key(&mut self, input: &KeyInput) -> Vec<Outcome> {
        let before = self.mode;
        let mut out = match self.mode {
            Mode::Terminal => self.terminal(input),
            Mode::Prefix => self.prefix(input),
            Mode::Navigate => self.navigate(input),
            Mode::Resize => self.resize(input),
        };
        if self.mode != before {
            out.push(Outcome::Action(Action::ModeChanged(self.mode)));
        }
        out
    }

    fn terminal(&mut self, input: &KeyInput) -> Vec<Outcome> {
        if input.key == self.bindings.prefix {
            self.mode = Mode::Prefix;
            return Vec::new();
        }
        match self.bindings.direct.get(&input.key).cloned() {
            Some(target) => vec![self.run(target)],
            None => vec![Outcome::Forward(input.clone())],
        }
    }

    fn prefix(&mut self, input: &KeyInput) -> Vec<Outcome> {
        self.mode = Mode::Terminal;
        if input.key == self.bindings.prefix {
            // prefix, prefix: the program gets one literal prefix key.
            return vec![Outcome::Forward(input.clone())];
        }
        if input.key == KeyEvent::plain(KeyCode::Esc) {
            return vec![Outcome::Ignored];
        }
        match self.bindings.prefixed.get(&input.key).cloned() {
            Some(target) => vec![self.run(target)],
            None => vec![Outcome::Ignored],
        }
    }

    fn run(&mut self, target: Target) -> Outcome {
        match target {
            Target::Action(action) => Outcome::Action(action),
            Target::Mode(mode) => {
                self.mode = mode;
                Outcome::Ignored
            }
        }
    }

    fn navigate(&mut self, input: &KeyInput) -> Vec<Outcome> {
        let key = input.key;
        if key == self.bindings.prefix || key == KeyEvent::plain(KeyCode::Esc) {
            self.mode = Mode::Terminal;
            return Vec::new();
        }
        if let Some(direction) = direction(key) {
            return vec![Outcome::Action(Action::FocusPane(direction))];
        }
        let action = match (key.code, key.mods) {
            (KeyCode::Up, Modifiers::NONE) => Action::SelectWorkspace { forward: false },
            (KeyCode::Down, Modifiers::NONE) => Action::SelectWorkspace { forward: true },
            // A digit switches straight to that workspace, which ends the navigation.
            (KeyCode::Char(c @ '1'..='9'), Modifiers::NONE) => {
                self.mode = Mode::Terminal;
                Action::JumpWorkspace(c as u8 - b'0')
            }
            (KeyCode::Tab, Modifiers::NONE) => Action::CyclePane { forward: true },
            (KeyCode::Tab, Modifiers::SHIFT) => Action::CyclePane { forward: false },
            (KeyCode::Enter, Modifiers::NONE) => {
                self.mode = Mode::Terminal;
                Action::SwitchToSelectedWorkspace
            }
            _ => return vec![Outcome::Ignored],
        };
        vec![Outcome::Action(action)]
    }

    fn resize(&mut self, input: &KeyInput) -> Vec<Outcome> {
        let key = input.key;
        let done = [KeyEvent::plain(KeyCode::Esc), KeyEvent::plain(KeyCode::Enter), self.bindings.prefix];
        if done.contains(&key) {
            self.mode = Mode::Terminal;
            return Vec::new();
        }
        let vertical = match (key.code, key.mods) {
            (KeyCode::Up, Modifiers::NONE) => Some(PaneDirection::Up),
            (KeyCode::Down, Modifiers::NONE) => Some(PaneDirection::Down),
            _ => None,
        };
        match direction(key).or(vertical) {
            Some(direction) => vec![Outcome::Action(Action::Resize(direction))],
            None => vec![Outcome::Ignored],
        }
    }
}

/// `h/j/k/l` and the left/right arrows (permanent aliases in navigate mode).
fn direction(key: KeyEvent) -> Option<PaneDirection> {
    if key.mods != Modifiers::NONE {
        return None;
    }
    Some(match key.code {
        KeyCode::Char('h') | KeyCode::Left => PaneDirection::Left,
        KeyCode::Char('j') => PaneDirection::Down,
        KeyCode::Char('k') => PaneDirection::Up,
        KeyCode::Char('l') | KeyCode::Right => PaneDirection::Right,
        _ => return None,
    })
}
