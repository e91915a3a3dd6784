//! The rename dialog's model: which workspace, tab or pane it renames, a one-line text field
//! with a cursor, and what each key does to it (pure; the connection feeds it keys and pastes
//! and runs the session method [`RenameDialog::apply`] names once Enter confirms it). A dialog
//! also opens right after a new tab or workspace is made ([`RenameDialog::for_created`]), so the
//! user names it; Enter on an unchanged name renames nothing, so the default label stays one.
//!
//! Not here: drawing ([`crate::render::draw_dialog`]) or the session call itself.

use herdr_protocol::api::{ApiResult, Request};

use super::calls;

use crate::keymap::{KeyCode, KeyEvent, Modifiers};
use crate::render::DialogView;

/// What a rename dialog renames, by public id; or, for `NewWorktree`, the workspace whose
/// repository gets a new worktree on the branch typed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameTarget {
    Workspace(String),
    Tab(String),
    Pane(String),
    NewWorktree(String),
}

/// What a key did to the dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogKey {
    /// Still editing (the text or cursor may have changed).
    Editing,
    /// Enter: apply the text.
    Apply,
    /// Esc: close without renaming.
    Cancel,
}

/// An open rename dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameDialog {
    target: RenameTarget,
    /// The name it opened with.
    initial: String,
    text: Vec<char>,
    /// Characters before the cursor.
    cursor: usize,
}

impl RenameDialog {
    /// A dialog for `target` prefilled with its `current` name, the cursor at the end.
    pub fn new(target: RenameTarget, current: &str) -> RenameDialog {
        let text: Vec<char> = current.chars().collect();
        RenameDialog { target, initial: current.to_owned(), cursor: text.len(), text }
    }

    /// The dialog naming what `created` (a `tab.create` or `workspace.create` result) made,
    /// prefilled with its default label.
    pub fn for_created(created: &ApiResult) -> Option<RenameDialog> {
        match created {
            ApiResult::TabCreated { tab, .. } => {
                Some(RenameDialog::new(RenameTarget::Tab(tab.tab_id.clone()), &tab.label))
            }
            ApiResult::WorkspaceCreated { workspace, .. } => Some(RenameDialog::new(
                RenameTarget::Workspace(workspace.workspace_id.clone()),
                &workspace.label,
            )),
            _ => None,
        }
    }

    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// Edits the field for one key press.
    pub fn key(&mut self, key: KeyEvent) -> DialogKey {
        let ctrl = key.mods == Modifiers::CTRL;
        match key.code {
            KeyCode::Enter if key.mods == Modifiers::NONE => return DialogKey::Apply,
            KeyCode::Esc => return DialogKey::Cancel,
            KeyCode::Backspace => self.delete_back(),
            KeyCode::Char('h') if ctrl => self.delete_back(),
            KeyCode::Delete if self.cursor < self.text.len() => {
                self.text.remove(self.cursor);
            }
            KeyCode::Char('u') if ctrl => {
                self.text.clear();
                self.cursor = 0;
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.text.len()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.len(),
            KeyCode::Char('e') if ctrl => self.cursor = self.text.len(),
            KeyCode::Char(c) => {
                if let Some(c) = typed(c, key.mods) {
                    self.insert(&c.to_string());
                }
            }
            _ => {}
        }
        DialogKey::Editing
    }

    /// Inserts pasted text at the cursor; line breaks and other control characters become
    /// spaces (a name is one line).
    pub fn paste(&mut self, text: &str) {
        let clean: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        self.insert(&clean);
    }

    fn insert(&mut self, text: &str) {
        for c in text.chars() {
            self.text.insert(self.cursor, c);
            self.cursor += 1;
        }
    }

    fn delete_back(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.text.remove(self.cursor);
        }
    }

    /// The session request that applies the text; `None` when the name is the one the
    /// dialog opened with (renaming a default label to itself would pin it). An empty name
    /// clears a pane's name; workspaces and tabs get their default label back (the session
    /// treats a blank label so).
    pub fn apply(&self) -> Option<Request> {
        let text = self.text();
        let label = text.trim();
        if label == self.initial.trim() {
            return None;
        }
        Some(match &self.target {
            RenameTarget::NewWorktree(_) if label.is_empty() => return None,
            RenameTarget::NewWorktree(id) => calls::create_worktree(id, label),
            RenameTarget::Workspace(id) => calls::rename_workspace(id, label),
            RenameTarget::Tab(id) => calls::rename_tab(id, label),
            RenameTarget::Pane(id) if label.is_empty() => calls::rename_pane(id, None),
            RenameTarget::Pane(id) => calls::rename_pane(id, Some(label)),
        })
    }

    /// What the compositor draws.
    pub fn view(&self) -> DialogView {
        let title = match self.target {
            RenameTarget::Workspace(_) => "rename workspace",
            RenameTarget::Tab(_) => "rename tab",
            RenameTarget::Pane(_) => "rename pane",
            RenameTarget::NewWorktree(_) => "new worktree: branch",
        };
        DialogView { title: title.to_owned(), text: self.text(), cursor: self.cursor }
    }
}

/// The character a key with `mods` types, if it types one: shift makes letters uppercase (the
/// keymap reports shifted letters as lowercase plus shift); ctrl, alt and super type nothing.
fn typed(c: char, mods: Modifiers) -> Option<char> {
    match mods {
        Modifiers::NONE => Some(c),
        Modifiers::SHIFT => Some(c.to_uppercase().next().unwrap_or(c)),
        _ => None,
    }
    .filter(|c| !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::calls::wire;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::plain(code)
    }

    fn type_str(dialog: &mut RenameDialog, text: &str) {
        for c in text.chars() {
            assert_eq!(dialog.key(KeyEvent::new(KeyCode::Char(c), Modifiers::NONE)), DialogKey::Editing);
        }
    }

    #[test]
    fn a_new_worktree_dialog_creates_the_typed_branch_and_nothing_when_left_empty() {
        let mut dialog = RenameDialog::new(RenameTarget::NewWorktree("w1".into()), "");
        assert_eq!(dialog.view().title, "new worktree: branch");
        assert_eq!(dialog.apply(), None, "an empty branch makes nothing");
        type_str(&mut dialog, "fix-login");
        assert_eq!(
            dialog.apply(),
            Some(wire(
                "worktree.create",
                json!({"workspace_id": "w1", "branch": "fix-login", "focus": true})
            ))
        );
    }

    fn tab_dialog(current: &str) -> RenameDialog {
        RenameDialog::new(RenameTarget::Tab("w1:t1".into()), current)
    }

    #[test]
    fn the_field_starts_with_the_current_name_and_the_cursor_at_its_end() {
        let mut dialog = tab_dialog("main");
        assert_eq!(dialog.view(), DialogView { title: "rename tab".into(), text: "main".into(), cursor: 4 });
        type_str(&mut dialog, "-2");
        assert_eq!(dialog.text(), "main-2");
        assert_eq!(dialog.key(key(KeyCode::Enter)), DialogKey::Apply);
        assert_eq!(dialog.apply(), Some(wire("tab.rename", json!({ "tab_id": "w1:t1", "label": "main-2" }))));
    }

    #[test]
    fn shifted_letters_type_uppercase_and_control_keys_type_nothing() {
        let mut dialog = tab_dialog("");
        dialog.key(KeyEvent::new(KeyCode::Char('B'), Modifiers::NONE));
        dialog.key(KeyEvent::new(KeyCode::Char('u'), Modifiers::SHIFT));
        dialog.key(KeyEvent::new(KeyCode::Char('x'), Modifiers::ALT));
        dialog.key(KeyEvent::new(KeyCode::Char('?'), Modifiers::NONE));
        dialog.key(KeyEvent::new(KeyCode::Char(' '), Modifiers::NONE));
        type_str(&mut dialog, "é");
        assert_eq!(dialog.text(), "BU? é");
    }

    #[test]
    fn cursor_movement_and_deletion() {
        let mut dialog = tab_dialog("abcd");
        dialog.key(key(KeyCode::Left));
        dialog.key(key(KeyCode::Left));
        dialog.key(key(KeyCode::Backspace));
        assert_eq!((dialog.text(), dialog.cursor), ("acd".to_owned(), 1));
        dialog.key(KeyEvent::ctrl('h'));
        assert_eq!((dialog.text(), dialog.cursor), ("cd".to_owned(), 0));
        dialog.key(key(KeyCode::Backspace));
        assert_eq!(dialog.text(), "cd", "backspace at the start does nothing");
        dialog.key(key(KeyCode::Delete));
        assert_eq!(dialog.text(), "d");
        dialog.key(key(KeyCode::End));
        type_str(&mut dialog, "x");
        dialog.key(key(KeyCode::Home));
        type_str(&mut dialog, "y");
        assert_eq!((dialog.text(), dialog.cursor), ("ydx".to_owned(), 1));
        dialog.key(key(KeyCode::Right));
        dialog.key(key(KeyCode::Right));
        dialog.key(key(KeyCode::Right));
        assert_eq!(dialog.cursor, 3, "right stops at the end");
        dialog.key(KeyEvent::ctrl('u'));
        assert_eq!((dialog.text(), dialog.cursor), (String::new(), 0));
    }

    #[test]
    fn paste_inserts_one_line_at_the_cursor() {
        let mut dialog = tab_dialog("ab");
        dialog.key(key(KeyCode::Left));
        dialog.paste("x\ny\r\tz");
        assert_eq!(dialog.text(), "ax y  zb");
        assert_eq!(dialog.cursor, 7);
    }

    #[test]
    fn esc_cancels() {
        let mut dialog = tab_dialog("main");
        type_str(&mut dialog, "zz");
        assert_eq!(dialog.key(key(KeyCode::Esc)), DialogKey::Cancel);
    }

    #[test]
    fn each_target_renames_through_its_own_method() {
        let workspace = RenameDialog::new(RenameTarget::Workspace("w2".into()), " api ");
        assert_eq!(workspace.apply(), None, "unchanged");
        let mut workspace = workspace;
        type_str(&mut workspace, "x");
        assert_eq!(
            workspace.apply(),
            Some(wire("workspace.rename", json!({ "workspace_id": "w2", "label": "api x" })))
        );
        assert_eq!(workspace.view().title, "rename workspace");
        let mut pane = RenameDialog::new(RenameTarget::Pane("w1:p3".into()), "");
        type_str(&mut pane, "editor");
        assert_eq!(pane.apply(), Some(wire("pane.rename", json!({ "pane_id": "w1:p3", "label": "editor" }))));
        assert_eq!(pane.view().title, "rename pane");
        let mut cleared = RenameDialog::new(RenameTarget::Pane("w1:p3".into()), "editor");
        cleared.key(KeyEvent::ctrl('u'));
        assert_eq!(cleared.apply(), Some(wire("pane.rename", json!({ "pane_id": "w1:p3" }))), "blank clears");
    }

    #[test]
    fn a_new_tab_or_workspace_opens_a_dialog_with_its_default_label() {
        let created = crate::tests_fixtures::result("workspace_created");
        let dialog = RenameDialog::for_created(&created).expect("a workspace dialog");
        let ApiResult::WorkspaceCreated { workspace, .. } = &created else { panic!("{created:?}") };
        assert_eq!(dialog.target, RenameTarget::Workspace(workspace.workspace_id.clone()));
        assert_eq!(dialog.text(), workspace.label);
        let created = crate::tests_fixtures::result("tab_created");
        let mut dialog = RenameDialog::for_created(&created).expect("a tab dialog");
        let ApiResult::TabCreated { tab, .. } = &created else { panic!("{created:?}") };
        assert_eq!(dialog.view().title, "rename tab");
        assert_eq!(dialog.apply(), None, "Enter on the default label keeps it a default");
        dialog.key(KeyEvent::ctrl('u'));
        type_str(&mut dialog, "logs");
        assert_eq!(
            dialog.apply(),
            Some(wire("tab.rename", json!({ "tab_id": tab.tab_id, "label": "logs" })))
        );
        let listed = crate::tests_fixtures::result("tab_list");
        assert!(RenameDialog::for_created(&listed).is_none(), "only creations open one");
    }
}
