//! Copy mode's keys (vi style, as upstream): a consumer of [`KeyEvent`]s while a client is in
//! copy mode, turning each into a [`CopyRequest`] for the pane's worker, an edit of the search
//! prompt, or leaving. Pure: the runtime sends the requests and draws the prompt.
//!
//! Keys: h/j/k/l and arrows; w/b/e, W/B/E; `{` `}`; PgUp/PgDn, ctrl+b/ctrl+f; ctrl+u/ctrl+d;
//! g/G; H/M/L; 0 ^ $ (and Home/End); `/` and `?` open a search prompt (typing edits it,
//! Backspace deletes, Enter searches, Esc cancels); n/N; v and Space toggle the selection; y
//! and Enter yank; q leaves; Esc clears a shown selection or search first and leaves when there
//! is nothing to clear. The prefix key leaves too, and wins over ctrl+b when it is ctrl+b.

use herdr_protocol::ipc::{CopyMotion, CopyRequest};

use super::key::{KeyCode, KeyEvent, Modifiers};

/// What one key in copy mode asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyStep {
    /// Send this to the pane's worker (a `Yank` also ends copy mode).
    Request(CopyRequest),
    /// The search prompt opened, changed or closed: redraw it.
    Prompt,
    /// Leave copy mode.
    Exit,
    /// The key means nothing here.
    Ignored,
}

/// Copy mode's key state: only the search prompt being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyKeys {
    prompt: Option<Prompt>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Prompt {
    backward: bool,
    query: String,
}

impl CopyKeys {
    pub fn new() -> Self {
        Self::default()
    }

    /// The prompt as typed so far (`/query` or `?query`), while one is open.
    pub fn prompt(&self) -> Option<String> {
        let prompt = self.prompt.as_ref()?;
        Some(format!("{}{}", if prompt.backward { '?' } else { '/' }, prompt.query))
    }

    /// Interprets `key`. `prefix` is the configured prefix key; `shown` says whether the pane
    /// shows a selection or a search result that Esc would clear first.
    pub fn handle(&mut self, key: KeyEvent, prefix: KeyEvent, shown: bool) -> CopyStep {
        if key == prefix {
            self.prompt = None;
            return CopyStep::Exit;
        }
        if self.prompt.is_some() {
            return self.edit_prompt(key);
        }
        let (code, mods) = symbol_form(key);
        let motion = |m| CopyStep::Request(CopyRequest::Motion(m));
        match (code, mods) {
            (KeyCode::Esc, Modifiers::NONE) if shown => CopyStep::Request(CopyRequest::ClearSelection),
            (KeyCode::Esc, Modifiers::NONE) | (KeyCode::Char('q'), Modifiers::NONE) => CopyStep::Exit,
            (KeyCode::Char(c @ ('/' | '?')), Modifiers::NONE) => {
                self.prompt = Some(Prompt { backward: c == '?', query: String::new() });
                CopyStep::Prompt
            }
            (KeyCode::Char('n'), Modifiers::NONE) => {
                CopyStep::Request(CopyRequest::SearchAgain { reverse: false })
            }
            (KeyCode::Char('n'), Modifiers::SHIFT) => {
                CopyStep::Request(CopyRequest::SearchAgain { reverse: true })
            }
            (KeyCode::Char('v' | ' '), Modifiers::NONE) => CopyStep::Request(CopyRequest::ToggleSelection),
            (KeyCode::Char('y') | KeyCode::Enter, Modifiers::NONE) => CopyStep::Request(CopyRequest::Yank),
            _ => match copy_motion(code, mods) {
                Some(m) => motion(m),
                None => CopyStep::Ignored,
            },
        }
    }

    fn edit_prompt(&mut self, key: KeyEvent) -> CopyStep {
        let Some(prompt) = self.prompt.as_mut() else { return CopyStep::Ignored };
        match (key.code, key.mods) {
            (KeyCode::Esc, _) => self.prompt = None,
            (KeyCode::Enter, _) => {
                let (query, backward) = (std::mem::take(&mut prompt.query), prompt.backward);
                self.prompt = None;
                if query.is_empty() {
                    return CopyStep::Prompt;
                }
                return CopyStep::Request(CopyRequest::Search { query, backward });
            }
            (KeyCode::Backspace, _) => {
                // Deleting past the start closes the prompt, as in vi.
                if prompt.query.pop().is_none() {
                    self.prompt = None;
                }
            }
            (KeyCode::Char(c), mods) if !mods.contains(Modifiers::CTRL) && !mods.contains(Modifiers::ALT) => {
                // The canonical form keeps shifted letters lowercase: type them as typed.
                let c = if mods.contains(Modifiers::SHIFT) { c.to_ascii_uppercase() } else { c };
                prompt.query.push(c);
            }
            _ => return CopyStep::Ignored,
        }
        CopyStep::Prompt
    }
}

/// Letters keep shift (`G` is `g`+shift); other characters as typed, whatever shift state a
/// terminal reported with them (`?`, `{`, `$` need shift on most layouts).
fn symbol_form(key: KeyEvent) -> (KeyCode, Modifiers) {
    match key.code {
        KeyCode::Char(c) if !c.is_ascii_alphabetic() => {
            (key.code, Modifiers(key.mods.0 & !Modifiers::SHIFT.0))
        }
        _ => (key.code, key.mods),
    }
}

fn copy_motion(code: KeyCode, mods: Modifiers) -> Option<CopyMotion> {
    use CopyMotion as M;
    const SHIFT: Modifiers = Modifiers::SHIFT;
    const CTRL: Modifiers = Modifiers::CTRL;
    const NONE: Modifiers = Modifiers::NONE;
    Some(match (code, mods) {
        (KeyCode::Char('h') | KeyCode::Left, NONE) => M::Left,
        (KeyCode::Char('j') | KeyCode::Down, NONE) => M::Down,
        (KeyCode::Char('k') | KeyCode::Up, NONE) => M::Up,
        (KeyCode::Char('l') | KeyCode::Right, NONE) => M::Right,
        (KeyCode::Char('w'), NONE) => M::WordForward,
        (KeyCode::Char('b'), NONE) => M::WordBackward,
        (KeyCode::Char('e'), NONE) => M::WordEnd,
        (KeyCode::Char('w'), SHIFT) => M::BigWordForward,
        (KeyCode::Char('b'), SHIFT) => M::BigWordBackward,
        (KeyCode::Char('e'), SHIFT) => M::BigWordEnd,
        (KeyCode::Char('0') | KeyCode::Home, NONE) => M::LineStart,
        (KeyCode::Char('^'), NONE) => M::FirstNonBlank,
        (KeyCode::Char('$') | KeyCode::End, NONE) => M::LineEnd,
        (KeyCode::Char('{'), NONE) => M::ParagraphBackward,
        (KeyCode::Char('}'), NONE) => M::ParagraphForward,
        (KeyCode::PageUp, NONE) | (KeyCode::Char('b'), CTRL) => M::PageUp,
        (KeyCode::PageDown, NONE) | (KeyCode::Char('f'), CTRL) => M::PageDown,
        (KeyCode::Char('u'), CTRL) => M::HalfPageUp,
        (KeyCode::Char('d'), CTRL) => M::HalfPageDown,
        (KeyCode::Char('g'), NONE) => M::Top,
        (KeyCode::Char('g'), SHIFT) => M::Bottom,
        (KeyCode::Char('h'), SHIFT) => M::ViewportTop,
        (KeyCode::Char('m'), SHIFT) => M::ViewportMiddle,
        (KeyCode::Char('l'), SHIFT) => M::ViewportBottom,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::parse_key;

    fn key(name: &str) -> KeyEvent {
        parse_key(name).expect("test key parses")
    }

    /// Feeds `names` with nothing shown and ctrl+a as the prefix (so ctrl+b is a motion).
    fn steps(keys: &mut CopyKeys, names: &[&str]) -> Vec<CopyStep> {
        names.iter().map(|n| keys.handle(key(n), key("ctrl+a"), false)).collect()
    }

    #[test]
    fn motions_map_to_their_requests() {
        use CopyMotion as M;
        let table = [
            ("h", M::Left),
            ("left", M::Left),
            ("j", M::Down),
            ("down", M::Down),
            ("k", M::Up),
            ("up", M::Up),
            ("l", M::Right),
            ("right", M::Right),
            ("w", M::WordForward),
            ("b", M::WordBackward),
            ("e", M::WordEnd),
            ("W", M::BigWordForward),
            ("B", M::BigWordBackward),
            ("E", M::BigWordEnd),
            ("{", M::ParagraphBackward),
            ("shift+{", M::ParagraphBackward),
            ("}", M::ParagraphForward),
            ("pageup", M::PageUp),
            ("ctrl+b", M::PageUp),
            ("pagedown", M::PageDown),
            ("ctrl+f", M::PageDown),
            ("ctrl+u", M::HalfPageUp),
            ("ctrl+d", M::HalfPageDown),
            ("g", M::Top),
            ("G", M::Bottom),
            ("H", M::ViewportTop),
            ("M", M::ViewportMiddle),
            ("L", M::ViewportBottom),
            ("0", M::LineStart),
            ("^", M::FirstNonBlank),
            ("$", M::LineEnd),
            ("shift+$", M::LineEnd),
        ];
        for (name, motion) in table {
            let mut keys = CopyKeys::new();
            assert_eq!(steps(&mut keys, &[name]), [CopyStep::Request(CopyRequest::Motion(motion))], "{name}");
        }
    }

    #[test]
    fn selection_yank_search_again_and_leaving() {
        let mut keys = CopyKeys::new();
        let got = steps(&mut keys, &["v", "space", "y", "enter", "n", "N", "q", "x", "ctrl+x"]);
        use CopyRequest as R;
        assert_eq!(
            got,
            [
                CopyStep::Request(R::ToggleSelection),
                CopyStep::Request(R::ToggleSelection),
                CopyStep::Request(R::Yank),
                CopyStep::Request(R::Yank),
                CopyStep::Request(R::SearchAgain { reverse: false }),
                CopyStep::Request(R::SearchAgain { reverse: true }),
                CopyStep::Exit,
                CopyStep::Ignored,
                CopyStep::Ignored,
            ]
        );
    }

    #[test]
    fn esc_clears_what_is_shown_before_leaving() {
        let mut keys = CopyKeys::new();
        let prefix = key("ctrl+b");
        assert_eq!(keys.handle(key("esc"), prefix, true), CopyStep::Request(CopyRequest::ClearSelection));
        assert_eq!(keys.handle(key("esc"), prefix, false), CopyStep::Exit);
    }

    #[test]
    fn the_prefix_leaves_even_when_it_is_a_motion_key() {
        let mut keys = CopyKeys::new();
        assert_eq!(keys.handle(key("ctrl+b"), key("ctrl+b"), false), CopyStep::Exit);
        assert_eq!(
            keys.handle(key("ctrl+b"), key("ctrl+a"), false),
            CopyStep::Request(CopyRequest::Motion(CopyMotion::PageUp))
        );
        keys.handle(key("/"), key("ctrl+b"), false);
        assert_eq!(keys.handle(key("ctrl+b"), key("ctrl+b"), false), CopyStep::Exit);
        assert_eq!(keys.prompt(), None, "leaving drops the prompt");
    }

    #[test]
    fn the_search_prompt_is_typed_edited_and_run() {
        let mut keys = CopyKeys::new();
        assert_eq!(steps(&mut keys, &["?"]), [CopyStep::Prompt]);
        assert_eq!(keys.prompt().as_deref(), Some("?"));
        // Keys that are motions outside the prompt are text inside it.
        steps(&mut keys, &["l", "i", "x", "backspace", "n", "E", "space", "q", "-", "ctrl+w"]);
        assert_eq!(keys.prompt().as_deref(), Some("?linE q-"));
        assert_eq!(
            steps(&mut keys, &["enter"]),
            [CopyStep::Request(CopyRequest::Search { query: "linE q-".into(), backward: true })]
        );
        assert_eq!(keys.prompt(), None);

        // Esc cancels the prompt only; Enter on an empty prompt just closes it.
        steps(&mut keys, &["/", "a"]);
        assert_eq!(keys.prompt().as_deref(), Some("/a"));
        assert_eq!(keys.handle(key("esc"), key("ctrl+b"), true), CopyStep::Prompt);
        assert_eq!(keys.prompt(), None);
        assert_eq!(steps(&mut keys, &["/", "enter"]), [CopyStep::Prompt, CopyStep::Prompt]);
        assert_eq!(keys.prompt(), None);
        // Backspace past the start closes it.
        steps(&mut keys, &["/", "a", "backspace"]);
        assert_eq!(keys.prompt().as_deref(), Some("/"));
        steps(&mut keys, &["backspace"]);
        assert_eq!(keys.prompt(), None);
    }
}
