//! The confirm-close dialog's model (pure): which workspace, tab or pane a close would end, the
//! question and detail the dialog shows (worked out from the session snapshot), what a key does
//! (`y`/Enter close, `n`/Esc cancel) and the session method that closes it.
//!
//! Not here: drawing ([`crate::render::draw_modal`]), whether to ask at all (`ui.confirm_close`,
//! decided by [`super::actions`]), or the session call itself.

use herdr_protocol::api::{Request, SessionSnapshot};

use super::calls;
use crate::keymap::{KeyCode, KeyEvent, Modifiers};
use crate::render::ModalView;

/// What a close ends, by public id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseTarget {
    Workspace(String),
    Tab(String),
    Pane(String),
    /// The linked worktree checkout a workspace is open on: removed from disk (`git worktree
    /// remove`, the branch kept) and the workspace closed.
    Worktree(String),
}

impl CloseTarget {
    /// The session request that closes the target.
    pub fn call(&self) -> Request {
        match self {
            CloseTarget::Workspace(id) => calls::close_workspace(id),
            CloseTarget::Tab(id) => calls::close_tab(id),
            CloseTarget::Pane(id) => calls::close_pane(id),
            CloseTarget::Worktree(id) => calls::remove_worktree(id),
        }
    }
}

/// What a key did to the confirm dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmKey {
    /// `y` or Enter: close the target.
    Confirm,
    /// `n` or Esc: keep it.
    Cancel,
    /// Any other key: the dialog stays.
    Stay,
}

/// An open "close this?" question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseConfirm {
    target: CloseTarget,
    question: String,
    detail: String,
}

impl CloseConfirm {
    /// The question for closing `target`, naming it by its label when it has one (else its id),
    /// with what else goes with it: a pane's id and agent, a tab's or workspace's pane count.
    pub fn new(target: CloseTarget, snapshot: &SessionSnapshot) -> CloseConfirm {
        let panes_in = |keep: &dyn Fn(&str, &str) -> bool| {
            snapshot.panes.iter().filter(|p| keep(&p.workspace_id, &p.tab_id)).count()
        };
        let (kind, label, detail) = match &target {
            CloseTarget::Pane(id) => {
                let pane = snapshot.panes.iter().find(|p| &p.pane_id == id);
                let label = pane.and_then(|p| p.label.clone());
                let agent = pane.and_then(|p| p.display_agent.clone().or_else(|| p.agent.clone()));
                let mut detail = if label.is_some() { id.clone() } else { String::new() };
                if let Some(agent) = agent {
                    let sep = if detail.is_empty() { "" } else { " · " };
                    detail = format!("{detail}{sep}{agent} runs here");
                }
                ("pane", label, detail)
            }
            CloseTarget::Tab(id) => {
                let label = snapshot.tabs.iter().find(|t| &t.tab_id == id).map(|t| t.label.clone());
                ("tab", label, panes(panes_in(&|_, tab| tab == id)))
            }
            CloseTarget::Workspace(id) => {
                let label =
                    snapshot.workspaces.iter().find(|w| &w.workspace_id == id).map(|w| w.label.clone());
                let tabs = snapshot.tabs.iter().filter(|t| &t.workspace_id == id).count();
                let tabs = format!("{tabs} tab{}", if tabs == 1 { "" } else { "s" });
                ("workspace", label, format!("{tabs}, {}", panes(panes_in(&|ws, _| ws == id))))
            }
            CloseTarget::Worktree(id) => {
                let w = snapshot.workspaces.iter().find(|w| &w.workspace_id == id);
                let checkout = w.and_then(|w| w.worktree.as_ref()).map(|wt| wt.checkout_path.clone());
                let detail = match checkout {
                    Some(path) => format!("deletes {path}; the branch stays"),
                    None => "the branch stays".to_owned(),
                };
                ("the worktree of", w.map(|w| w.label.clone()), detail)
            }
        };
        let name = match label.filter(|l| !l.trim().is_empty()) {
            Some(label) => format!("\"{label}\""),
            None => match &target {
                CloseTarget::Workspace(id)
                | CloseTarget::Tab(id)
                | CloseTarget::Pane(id)
                | CloseTarget::Worktree(id) => id.clone(),
            },
        };
        let verb = if matches!(target, CloseTarget::Worktree(_)) { "remove" } else { "close" };
        CloseConfirm { question: format!("{verb} {kind} {name}?"), detail, target }
    }

    pub fn target(&self) -> &CloseTarget {
        &self.target
    }

    /// One key press.
    pub fn key(&self, key: KeyEvent) -> ConfirmKey {
        match (key.code, key.mods) {
            (KeyCode::Enter, Modifiers::NONE) => ConfirmKey::Confirm,
            (KeyCode::Char('y'), Modifiers::NONE | Modifiers::SHIFT) => ConfirmKey::Confirm,
            (KeyCode::Esc, _) => ConfirmKey::Cancel,
            (KeyCode::Char('n'), Modifiers::NONE | Modifiers::SHIFT) => ConfirmKey::Cancel,
            _ => ConfirmKey::Stay,
        }
    }

    /// What the compositor draws.
    pub fn view(&self) -> ModalView {
        ModalView::Confirm { question: self.question.clone(), detail: self.detail.clone() }
    }
}

fn panes(n: usize) -> String {
    format!("{n} pane{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::calls::wire;
    use crate::tests_fixtures::session;

    /// Workspace "api" with tabs `main` (split in two, the focused pane named "editor") and
    /// `logs`.
    fn snapshot() -> SessionSnapshot {
        session("named_editor")
    }

    fn question(confirm: &CloseConfirm) -> (String, String) {
        match confirm.view() {
            ModalView::Confirm { question, detail } => (question, detail),
            other => panic!("not a confirm view: {other:?}"),
        }
    }

    #[test]
    fn a_question_names_its_target_by_label_or_id() {
        let snapshot = snapshot();
        let focused = snapshot.focused_pane_id.clone().expect("a focused pane");
        let other =
            snapshot.panes.iter().find(|p| p.pane_id != focused && p.tab_id == snapshot.panes[0].tab_id);
        let other = other.expect("the unnamed pane").pane_id.clone();
        let named = CloseConfirm::new(CloseTarget::Pane(focused.clone()), &snapshot);
        assert_eq!(question(&named), ("close pane \"editor\"?".into(), focused.clone()));
        let plain = CloseConfirm::new(CloseTarget::Pane(other.clone()), &snapshot);
        assert_eq!(question(&plain), (format!("close pane {other}?"), String::new()));

        let main = snapshot.focused_tab_id.clone().expect("a focused tab");
        let tab = CloseConfirm::new(CloseTarget::Tab(main), &snapshot);
        assert_eq!(question(&tab).1, "2 panes");
        let workspace = snapshot.focused_workspace_id.clone().expect("a workspace");
        let ws = CloseConfirm::new(CloseTarget::Workspace(workspace.clone()), &snapshot);
        assert_eq!(question(&ws), ("close workspace \"api\"?".into(), "2 tabs, 3 panes".into()));
        assert_eq!(ws.target().call(), (wire("workspace.close", json!({ "workspace_id": workspace }))));
    }

    #[test]
    fn a_pane_with_an_agent_says_so() {
        let snapshot = session("claude_focused");
        let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
        let confirm = CloseConfirm::new(CloseTarget::Pane(pane.clone()), &snapshot);
        assert_eq!(question(&confirm), (format!("close pane {pane}?"), "claude runs here".into()));
    }

    #[test]
    fn y_and_enter_confirm_n_and_esc_cancel_other_keys_stay() {
        let confirm = CloseConfirm::new(CloseTarget::Tab("w1:t1".into()), &snapshot());
        assert_eq!(confirm.key(KeyEvent::plain(KeyCode::Char('y'))), ConfirmKey::Confirm);
        assert_eq!(confirm.key(KeyEvent::new(KeyCode::Char('Y'), Modifiers::NONE)), ConfirmKey::Confirm);
        assert_eq!(confirm.key(KeyEvent::plain(KeyCode::Enter)), ConfirmKey::Confirm);
        assert_eq!(confirm.key(KeyEvent::plain(KeyCode::Char('n'))), ConfirmKey::Cancel);
        assert_eq!(confirm.key(KeyEvent::plain(KeyCode::Esc)), ConfirmKey::Cancel);
        assert_eq!(confirm.key(KeyEvent::plain(KeyCode::Char('x'))), ConfirmKey::Stay);
        assert_eq!(confirm.key(KeyEvent::ctrl('y')), ConfirmKey::Stay);
        assert_eq!(confirm.target().call(), (wire("tab.close", json!({ "tab_id": "w1:t1" }))));
    }
}
