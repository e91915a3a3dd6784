//! Builds the public records (WorkspaceInfo, TabInfo, PaneInfo, layout snapshots, the session
//! snapshot) from the model. Read-only.

use herdr_protocol::api::{
    AgentStatus, LayoutDescription, LayoutNode, PaneInfo, PaneLayoutPane, PaneLayoutRect, PaneLayoutSnapshot,
    PaneLayoutSplit, SessionSnapshot, TabInfo, WorkspaceInfo,
};
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};

use super::model::{Loc, Session};
use super::tree::{Node, Rect};
use super::{PaneKey, ids};

fn wire_rect(rect: Rect) -> PaneLayoutRect {
    PaneLayoutRect { x: rect.x, y: rect.y, width: rect.width, height: rect.height }
}

/// The last path component, for auto labels (`/home/u/api` → `api`, `/` stays `/`).
fn basename(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return path.to_owned();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

impl Session {
    fn status_of(&self, keys: impl IntoIterator<Item = PaneKey>) -> AgentStatus {
        AgentStatus::rollup(keys.into_iter().filter_map(|k| self.panes.get(&k).map(|p| p.agent_status)))
    }

    pub(super) fn workspace_label(&self, wi: usize) -> String {
        let ws = &self.workspaces[wi];
        match (&ws.label, &ws.identity_cwd) {
            (Some(label), _) => label.clone(),
            (None, Some(cwd)) => basename(cwd),
            (None, None) => ws.id(),
        }
    }

    pub(super) fn workspace_info(&self, wi: usize) -> WorkspaceInfo {
        let ws = &self.workspaces[wi];
        let keys = ws.tabs.iter().flat_map(|t| t.root.leaves());
        WorkspaceInfo {
            workspace_id: ws.id(),
            number: wi + 1,
            label: self.workspace_label(wi),
            focused: self.active == Some(ws.number),
            pane_count: ws.pane_count(),
            tab_count: ws.tabs.len(),
            active_tab_id: self.tab_public_id(wi, ws.active_tab_index()),
            agent_status: self.status_of(keys),
            tokens: ws.tokens.values(),
            worktree: ws.worktree_space.as_ref().map(super::worktrees::WorktreeSpace::info),
        }
    }

    pub(super) fn workspace_infos(&self) -> Vec<WorkspaceInfo> {
        (0..self.workspaces.len()).map(|wi| self.workspace_info(wi)).collect()
    }

    pub(super) fn tab_info(&self, wi: usize, ti: usize) -> TabInfo {
        let ws = &self.workspaces[wi];
        let tab = &ws.tabs[ti];
        TabInfo {
            tab_id: self.tab_public_id(wi, ti),
            workspace_id: ws.id(),
            number: tab.number as usize,
            label: tab.label.clone().unwrap_or_else(|| (ti + 1).to_string()),
            focused: self.active == Some(ws.number) && ws.active_tab == tab.number,
            pane_count: tab.root.leaf_count(),
            agent_status: self.status_of(tab.root.leaves()),
        }
    }

    pub(super) fn tab_infos(&self, wi: usize) -> Vec<TabInfo> {
        (0..self.workspaces[wi].tabs.len()).map(|ti| self.tab_info(wi, ti)).collect()
    }

    /// The public record of a pane, or None if it is not placed in any tab.
    pub fn pane_info(&self, key: PaneKey) -> Option<PaneInfo> {
        let loc = self.locate(key)?;
        let pane = self.panes.get(&key)?;
        let ws_id = self.workspaces[loc.wi].id();
        Some(PaneInfo {
            pane_id: ids::pane_id(&ws_id, pane.number),
            terminal_id: pane.terminal_id.clone(),
            workspace_id: ws_id,
            tab_id: self.tab_public_id(loc.wi, loc.ti),
            focused: self.is_focused(key),
            cwd: pane.live_cwd.clone().or_else(|| pane.cwd.clone()),
            foreground_cwd: pane.foreground_cwd.clone(),
            label: pane.label.clone(),
            agent: pane.agent.clone(),
            title: pane.metadata.title().map(str::to_owned),
            terminal_title: pane.terminal_title.clone(),
            terminal_title_stripped: pane.terminal_title_stripped.clone(),
            display_agent: pane.metadata.display_agent().map(str::to_owned),
            agent_status: pane.agent_status,
            state_labels: pane.metadata.state_labels().clone(),
            tokens: pane.metadata.tokens.values(),
            agent_session: pane.agent_state.session_ref().cloned(),
            scroll: pane.scroll,
            revision: pane.revision,
        })
    }

    /// Panes of workspace `wi` (every workspace when None), tab by tab in leaf order.
    pub(super) fn pane_infos(&self, wi: Option<usize>) -> Vec<PaneInfo> {
        let range = match wi {
            Some(wi) => wi..wi + 1,
            None => 0..self.workspaces.len(),
        };
        self.workspaces[range]
            .iter()
            .flat_map(|ws| ws.tabs.iter().flat_map(|t| t.root.leaves()))
            .filter_map(|key| self.pane_info(key))
            .collect()
    }

    pub(super) fn layout_snapshot(&self, loc: Loc) -> PaneLayoutSnapshot {
        let tab = self.tab(loc);
        let id_of = |key: PaneKey| self.public_pane_id(key).unwrap_or_default();
        PaneLayoutSnapshot {
            workspace_id: self.workspaces[loc.wi].id(),
            tab_id: self.tab_public_id(loc.wi, loc.ti),
            zoomed: tab.zoomed,
            area: wire_rect(self.area),
            focused_pane_id: id_of(tab.focused),
            panes: self
                .effective_rects(loc)
                .into_iter()
                .map(|(key, rect)| PaneLayoutPane {
                    pane_id: id_of(key),
                    focused: key == tab.focused,
                    rect: wire_rect(rect),
                })
                .collect(),
            splits: tab
                .root
                .splits(self.area)
                .into_iter()
                .map(|s| PaneLayoutSplit {
                    id: s.id(),
                    direction: s.direction,
                    ratio: s.ratio,
                    rect: wire_rect(s.rect),
                })
                .collect(),
        }
    }

    pub(super) fn layout_description(&self, loc: Loc) -> LayoutDescription {
        let tab = self.tab(loc);
        LayoutDescription {
            workspace_id: self.workspaces[loc.wi].id(),
            tab_id: self.tab_public_id(loc.wi, loc.ti),
            zoomed: tab.zoomed,
            focused_pane_id: self.public_pane_id(tab.focused).unwrap_or_default(),
            root: self.layout_node(&tab.root),
        }
    }

    fn layout_node(&self, node: &Node) -> LayoutNode {
        match node {
            Node::Leaf(key) => {
                let pane = self.panes.get(key);
                LayoutNode::Pane {
                    pane_id: self.public_pane_id(*key),
                    label: pane.and_then(|p| p.label.clone()),
                    cwd: pane.and_then(|p| p.cwd.clone()),
                    command: pane.and_then(|p| p.argv.clone()),
                    env: Default::default(),
                }
            }
            Node::Split(split) => LayoutNode::Split {
                direction: split.direction,
                ratio: split.ratio,
                first: Box::new(self.layout_node(&split.first)),
                second: Box::new(self.layout_node(&split.second)),
            },
        }
    }

    /// The whole session for `session.snapshot`.
    pub fn snapshot(&self) -> SessionSnapshot {
        let focus = self.focus_triple();
        let focused_loc = focus.and_then(|(_, _, key)| self.locate(key));
        let mut tabs = Vec::new();
        let mut layouts = Vec::new();
        for wi in 0..self.workspaces.len() {
            for ti in 0..self.workspaces[wi].tabs.len() {
                tabs.push(self.tab_info(wi, ti));
                layouts.push(self.layout_snapshot(Loc { wi, ti }));
            }
        }
        SessionSnapshot {
            version: HERDR_VERSION.to_owned(),
            protocol: PROTOCOL_VERSION,
            focused_workspace_id: focused_loc.map(|l| self.workspaces[l.wi].id()),
            focused_tab_id: focused_loc.map(|l| self.tab_public_id(l.wi, l.ti)),
            focused_pane_id: focus.and_then(|(_, _, key)| self.public_pane_id(key)),
            workspaces: self.workspace_infos(),
            tabs,
            panes: self.pane_infos(None),
            layouts,
            agents: self.agent_infos(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::basename;

    #[test]
    fn basenames_for_labels() {
        assert_eq!(basename("/home/u/api"), "api");
        assert_eq!(basename("/home/u/api/"), "api");
        assert_eq!(basename("/"), "/");
        assert_eq!(basename("rel"), "rel");
    }
}
