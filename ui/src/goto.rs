//! The goto picker's model (`prefix+g`, pure): every workspace, its tabs and their panes as a
//! list (labels, agent and state where known), a filter typed over it (case-insensitive
//! substring of the entry's whole path, so `api` keeps the `api` workspace's tabs and panes),
//! a highlighted entry moved with Up/Down/ctrl+n/ctrl+p or the mouse, and the session call that
//! focuses the chosen one (Enter or a click).
//!
//! Not here: drawing ([`crate::render::draw_picker`]) or the call itself.

use herdr_protocol::api::{AgentStatus, Request, SessionSnapshot};
use ratatui_core::layout::Rect;

use super::actions::Step;
use super::calls;
use crate::keymap::{KeyCode, KeyEvent, Modifiers};
use crate::render::{PickerEntry, PickerView, picker_entry_at};

/// One thing the picker can go to.
#[derive(Debug, Clone, PartialEq)]
struct Target {
    entry: PickerEntry,
    /// What the filter matches: the labels from the workspace down to this entry.
    path: String,
    /// `workspace.focus`, `tab.focus` or `pane.focus` on it.
    request: Request,
}

/// What an input did to the picker.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "made per key press or click and consumed at once; a box would only add an allocation"
)]
pub enum GotoInput {
    /// Still open (the filter or highlight may have changed).
    Stay,
    Close,
    /// Close and run this.
    Go(Step),
}

#[derive(Debug, Clone, PartialEq)]
pub struct GotoPicker {
    targets: Vec<Target>,
    filter: String,
    /// Index into the matching targets.
    selected: usize,
}

impl GotoPicker {
    /// The picker over the session as it is now, the focused pane highlighted.
    pub fn new(snapshot: &SessionSnapshot) -> GotoPicker {
        let mut targets = Vec::new();
        for workspace in &snapshot.workspaces {
            let ws = &workspace.label;
            targets.push(Target {
                entry: entry(0, ws.clone(), None, workspace.agent_status),
                path: ws.clone(),
                request: calls::focus_workspace(&workspace.workspace_id),
            });
            for tab in snapshot.tabs.iter().filter(|t| t.workspace_id == workspace.workspace_id) {
                // A tab still called by its number is shown once, not as `1 1`.
                let number = tab.number.to_string();
                let text = if tab.label == number { number } else { format!("{} {}", tab.number, tab.label) };
                targets.push(Target {
                    entry: entry(1, text.clone(), None, tab.agent_status),
                    path: format!("{ws} {text}"),
                    request: calls::focus_tab(&tab.tab_id),
                });
                for pane in snapshot.panes.iter().filter(|p| p.tab_id == tab.tab_id) {
                    let name = pane
                        .label
                        .clone()
                        .or_else(|| pane.title.clone())
                        .unwrap_or_else(|| pane.pane_id.clone());
                    let agent = pane.display_agent.clone().or_else(|| pane.agent.clone());
                    let pane_entry = entry(2, name, agent, pane.agent_status);
                    targets.push(Target {
                        path: format!("{ws} {text} {} {}", pane_entry.text, pane_entry.detail),
                        entry: pane_entry,
                        request: calls::focus_pane(&pane.pane_id),
                    });
                }
            }
        }
        let mut picker = GotoPicker { targets, filter: String::new(), selected: 0 };
        let focused = snapshot.focused_pane_id.as_deref().map(calls::focus_pane);
        picker.selected =
            picker.matching().iter().position(|t| Some(&t.request) == focused.as_ref()).unwrap_or(0);
        picker
    }

    fn matching(&self) -> Vec<&Target> {
        let needle = self.filter.to_lowercase();
        self.targets.iter().filter(|t| t.path.to_lowercase().contains(&needle)).collect()
    }

    /// One key press.
    pub fn key(&mut self, key: KeyEvent) -> GotoInput {
        let ctrl = key.mods == Modifiers::CTRL;
        match key.code {
            KeyCode::Esc => return GotoInput::Close,
            KeyCode::Enter => return self.choose(self.selected),
            KeyCode::Up => self.step(false),
            KeyCode::Char('p') if ctrl => self.step(false),
            KeyCode::Down => self.step(true),
            KeyCode::Char('n') if ctrl => self.step(true),
            KeyCode::Backspace => self.edit(pop),
            KeyCode::Char('h') if ctrl => self.edit(pop),
            KeyCode::Char('u') if ctrl => self.edit(String::clear),
            KeyCode::Char(c) if matches!(key.mods, Modifiers::NONE | Modifiers::SHIFT) && !c.is_control() => {
                let c = if key.mods == Modifiers::SHIFT { c.to_uppercase().next().unwrap_or(c) } else { c };
                self.edit(|f| f.push(c));
            }
            _ => {}
        }
        GotoInput::Stay
    }

    /// Pasted text joins the filter (line breaks dropped: a filter is one line).
    pub fn paste(&mut self, text: &str) {
        let clean: String = text.chars().filter(|c| !c.is_control()).collect();
        self.edit(|f| f.push_str(&clean));
    }

    /// A left click at `at` on a client `screen`: an entry goes there; outside the box closes.
    pub fn click(&mut self, screen: Rect, at: (u16, u16)) -> GotoInput {
        let view = self.view();
        match picker_entry_at(screen, &view, at) {
            Some(index) => self.choose(index),
            None if crate::render::picker_rect(screen, view.entries.len()).contains(at.into()) => {
                GotoInput::Stay
            }
            None => GotoInput::Close,
        }
    }

    /// The mouse moved to `at`: an entry under it is highlighted. True when that changed it.
    pub fn hover(&mut self, screen: Rect, at: (u16, u16)) -> bool {
        match picker_entry_at(screen, &self.view(), at) {
            Some(index) if index != self.selected => {
                self.selected = index;
                true
            }
            _ => false,
        }
    }

    fn choose(&self, index: usize) -> GotoInput {
        match self.matching().get(index) {
            Some(t) => GotoInput::Go(Step::Call(t.request.clone())),
            None => GotoInput::Stay,
        }
    }

    fn step(&mut self, forward: bool) {
        let n = self.matching().len();
        if n > 0 {
            self.selected = if forward { (self.selected + 1) % n } else { (self.selected + n - 1) % n };
        }
    }

    /// Changes the filter; the highlight goes back to the first match.
    fn edit(&mut self, change: impl FnOnce(&mut String)) {
        change(&mut self.filter);
        self.selected = 0;
    }

    pub fn view(&self) -> PickerView {
        let entries: Vec<PickerEntry> = self.matching().into_iter().map(|t| t.entry.clone()).collect();
        let selected = (!entries.is_empty()).then(|| self.selected.min(entries.len() - 1));
        PickerView { title: "go to".into(), filter: self.filter.clone(), entries, selected }
    }
}

/// Backspace on the filter.
fn pop(filter: &mut String) {
    filter.pop();
}

/// An entry's line: its text, and the agent and its state when there is one (a workspace or
/// tab shows its rolled-up state when an agent in it has one).
fn entry(depth: u8, text: String, agent: Option<String>, status: AgentStatus) -> PickerEntry {
    let state = match status {
        AgentStatus::Unknown => None,
        AgentStatus::Idle => Some("idle"),
        AgentStatus::Working => Some("working"),
        AgentStatus::Blocked => Some("blocked"),
        AgentStatus::Done => Some("done"),
    };
    let detail = match (agent, state) {
        (Some(agent), Some(state)) => format!("{agent} {state}"),
        (Some(agent), None) => agent,
        (None, Some(state)) => state.to_owned(),
        (None, None) => String::new(),
    };
    PickerEntry { depth, text, detail }
}

#[cfg(test)]
#[path = "goto_tests.rs"]
mod tests;
