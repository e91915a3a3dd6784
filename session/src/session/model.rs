//! The session state: workspaces (display order) → tabs (display order) → a split tree of panes,
//! plus focus, zoom, per-pane metadata and id counters. This module owns the structural
//! primitives (create, attach, detach, activate); the API methods in sibling modules compose them.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, RandomState};

use herdr_protocol::api::requests::RightClickTarget;
use herdr_protocol::api::{AgentStatus, PaneScrollInfo, SplitDirection};

use super::PaneKey;
use super::ids;
use super::tree::{Node, Rect, Removal};
use crate::agents::PaneAgent;
use crate::metadata::{Ledger, PaneMetadata};

#[derive(Debug, Clone)]
pub(super) struct Pane {
    /// Public number within its current workspace (`<ws>:p<number>`).
    pub number: u64,
    /// Stable across supervisors: names the pane's worker (and its socket) so a new supervisor
    /// can re-adopt it, and is saved in `session.json`. 16 lowercase hex digits.
    pub uid: String,
    /// `term_<uid>`, so it too survives a restore.
    pub terminal_id: String,
    pub label: Option<String>,
    /// The cwd the program reported (OSC 7).
    pub cwd: Option<String>,
    /// The cwd the OS shows for the pane's foreground process, when the worker can read it;
    /// preferred over `cwd` when saving, since many shells never report theirs.
    pub live_cwd: Option<String>,
    /// The cwd of the foreground process group's leader, as the worker last told it.
    pub foreground_cwd: Option<String>,
    /// Where the viewport and the scrollback were at the last look.
    pub scroll: Option<PaneScrollInfo>,
    pub terminal_title: Option<String>,
    pub terminal_title_stripped: Option<String>,
    pub agent: Option<String>,
    pub agent_status: AgentStatus,
    /// The program the pane was started with (None: the login shell).
    pub argv: Option<Vec<String>>,
    /// Bumped whenever something `pane_info` reports about the pane itself changes.
    pub revision: u64,
    /// Agent detection, hook authority, name and launch; `agent`/`agent_status` above are its
    /// last published view.
    pub agent_state: PaneAgent,
    /// Reported display metadata (title, display agent, state labels, tokens); never saved.
    pub metadata: PaneMetadata,
    /// Who handles right clicks in the pane (`pane.split` / `pane.input.set`): herdr's menu, or
    /// the program (as a mouse report).
    pub right_click: RightClickTarget,
}

#[derive(Debug, Clone)]
pub(super) struct Tab {
    pub number: u64,
    pub label: Option<String>,
    pub root: Node,
    pub focused: PaneKey,
    pub zoomed: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Workspace {
    pub number: u64,
    pub label: Option<String>,
    /// The cwd the workspace was created for (auto label); filled by the first reported cwd when
    /// it was created without one.
    pub identity_cwd: Option<String>,
    pub tabs: Vec<Tab>,
    pub active_tab: u64,
    pub next_tab: u64,
    pub next_pane: u64,
    /// The git checkout this workspace is open on, in its repository (`worktree.*`, saved).
    pub worktree_space: Option<super::worktrees::WorktreeSpace>,
    /// Reported tokens (`workspace.report_metadata`); never saved.
    pub tokens: Ledger,
}

impl Workspace {
    pub fn id(&self) -> String {
        ids::workspace_id(self.number)
    }

    pub fn tab_index(&self, number: u64) -> Option<usize> {
        self.tabs.iter().position(|t| t.number == number)
    }

    pub fn active_tab_index(&self) -> usize {
        self.tab_index(self.active_tab).unwrap_or(0)
    }

    pub fn pane_count(&self) -> usize {
        self.tabs.iter().map(|t| t.root.leaf_count()).sum()
    }
}

/// The layout model of one herdr session. See the module docs of [`super`].
#[derive(Debug, Clone)]
pub struct Session {
    pub(super) area: Rect,
    pub(super) workspaces: Vec<Workspace>,
    pub(super) panes: BTreeMap<PaneKey, Pane>,
    /// Number of the active workspace.
    pub(super) active: Option<u64>,
    pub(super) next_workspace: u64,
    pub(super) next_key: u64,
    /// Old public pane ids kept after cross-workspace moves.
    pub(super) aliases: HashMap<String, PaneKey>,
    /// Keys the pane uid hash: random per session, so uids never repeat across supervisors.
    uid_seed: RandomState,
    /// What `session.json` holds that the model does not use, written back on save.
    pub(super) carried: super::persist::Carried,
    /// A client shows the session in a focused terminal: set when a client attaches or its
    /// terminal reports focus-in, cleared on focus-out or when the last client detaches.
    pub(super) client_focused: bool,
    /// The `agent.view.set` projection: `(source, label)`.
    pub(super) agent_view: Option<(String, Option<String>)>,
    /// Cells the client's pane boxes take on every side of a pane: its program's terminal is the
    /// pane's rect shrunk by this much (0 headless or without borders).
    pub(super) content_inset: u16,
    /// The foreground client shows one pane per tab (the mobile layout): each tab's focused
    /// program is sized to the whole area, as if zoomed, without changing the tab's zoom.
    pub(super) single_view: bool,
    /// Panes a direct terminal attach owns, kept at that client's size whatever the layout says.
    pub(super) pinned: HashMap<PaneKey, (u16, u16)>,
}

/// Where a pane is: workspace and tab indices (valid until the next structural change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loc {
    pub wi: usize,
    pub ti: usize,
}

/// What the session looked like before an operation, to derive focus events and resizes after.
#[derive(Debug, Clone)]
pub(super) struct Observation {
    pub focus: Option<(u64, u64, PaneKey)>,
    pub sizes: HashMap<PaneKey, (u16, u16)>,
}

/// What detaching a pane from its tab did to the structure around it.
#[derive(Debug, Clone, Default)]
pub(super) struct Detached {
    /// `(workspace number, tab number)` of the tab the pane left, when that tab survives.
    pub surviving_tab: Option<(u64, u64)>,
    /// `(tab id, workspace id)` of the tab that closed because it became empty (its workspace
    /// survives).
    pub closed_tab: Option<(String, String)>,
    /// Id of the workspace that closed because its last tab became empty.
    pub closed_workspace: Option<String>,
}

impl Session {
    /// An empty session whose tabs are `cols` x `rows` cells.
    pub fn new(cols: u16, rows: u16) -> Self {
        Self {
            area: Rect::new(0, 0, cols, rows),
            workspaces: Vec::new(),
            panes: BTreeMap::new(),
            active: None,
            next_workspace: 1,
            next_key: 1,
            aliases: HashMap::new(),
            uid_seed: RandomState::new(),
            carried: super::persist::Carried::default(),
            client_focused: false,
            agent_view: None,
            content_inset: 0,
            single_view: false,
            pinned: HashMap::new(),
        }
    }

    pub(super) fn ws_index(&self, number: u64) -> Option<usize> {
        self.workspaces.iter().position(|w| w.number == number)
    }

    pub(super) fn active_index(&self) -> Option<usize> {
        self.active.and_then(|n| self.ws_index(n))
    }

    pub(super) fn locate(&self, key: PaneKey) -> Option<Loc> {
        self.workspaces
            .iter()
            .enumerate()
            .find_map(|(wi, ws)| ws.tabs.iter().position(|t| t.root.contains(key)).map(|ti| Loc { wi, ti }))
    }

    pub(super) fn tab(&self, loc: Loc) -> &Tab {
        &self.workspaces[loc.wi].tabs[loc.ti]
    }

    pub(super) fn tab_mut(&mut self, loc: Loc) -> &mut Tab {
        &mut self.workspaces[loc.wi].tabs[loc.ti]
    }

    pub(super) fn tab_public_id(&self, wi: usize, ti: usize) -> String {
        let ws = &self.workspaces[wi];
        ids::tab_id(&ws.id(), ws.tabs[ti].number)
    }

    /// The pane's current public id (`w1:p2`).
    pub(super) fn public_pane_id(&self, key: PaneKey) -> Option<String> {
        let loc = self.locate(key)?;
        let pane = self.panes.get(&key)?;
        Some(ids::pane_id(&self.workspaces[loc.wi].id(), pane.number))
    }

    /// The globally focused (workspace number, tab number, pane).
    pub(super) fn focus_triple(&self) -> Option<(u64, u64, PaneKey)> {
        let ws = &self.workspaces[self.active_index()?];
        let tab = ws.tabs.get(ws.active_tab_index())?;
        Some((ws.number, tab.number, tab.focused))
    }

    pub(super) fn is_focused(&self, key: PaneKey) -> bool {
        self.focus_triple().is_some_and(|(_, _, k)| k == key)
    }

    /// Pane rectangles as shown: a zoomed tab gives its focused pane the whole area.
    pub(super) fn effective_rects(&self, loc: Loc) -> Vec<(PaneKey, Rect)> {
        let tab = self.tab(loc);
        let mut rects = tab.root.pane_rects(self.area);
        if tab.zoomed {
            for (key, rect) in &mut rects {
                if *key == tab.focused {
                    *rect = self.area;
                }
            }
        }
        rects
    }

    /// The program's terminal size for a pane rect: the rect minus the content inset, never
    /// below one cell.
    pub(super) fn content_size(&self, rect: Rect) -> (u16, u16) {
        let shrink = self.content_inset.saturating_mul(2);
        (rect.width.saturating_sub(shrink).max(1), rect.height.saturating_sub(shrink).max(1))
    }

    pub(super) fn observe(&self) -> Observation {
        let mut sizes = HashMap::new();
        for wi in 0..self.workspaces.len() {
            for ti in 0..self.workspaces[wi].tabs.len() {
                let loc = Loc { wi, ti };
                let shown_alone = self.single_view.then(|| self.tab(loc).focused);
                for (key, rect) in self.effective_rects(loc) {
                    let rect = if shown_alone == Some(key) { self.area } else { rect };
                    let size = self.pinned.get(&key).copied().unwrap_or_else(|| self.content_size(rect));
                    sizes.insert(key, size);
                }
            }
        }
        Observation { focus: self.focus_triple(), sizes }
    }

    /// Allocates a pane record in workspace `wi` (not yet placed in any tree).
    pub(super) fn new_pane(&mut self, wi: usize, cwd: Option<String>, argv: Option<Vec<String>>) -> PaneKey {
        self.new_pane_with_uid(wi, cwd, argv, None)
    }

    /// [`Self::new_pane`] keeping a known uid (restore, recovery) when it is well formed and not
    /// taken; otherwise the pane gets a fresh one.
    pub(super) fn new_pane_with_uid(
        &mut self,
        wi: usize,
        cwd: Option<String>,
        argv: Option<Vec<String>>,
        uid: Option<String>,
    ) -> PaneKey {
        let key = PaneKey(self.next_key);
        self.next_key += 1;
        let uid = match uid {
            Some(uid) if valid_uid(&uid) && !self.uid_taken(&uid) => uid,
            _ => self.fresh_uid(key),
        };
        let ws = &mut self.workspaces[wi];
        let number = ws.next_pane;
        ws.next_pane += 1;
        if ws.identity_cwd.is_none() {
            ws.identity_cwd.clone_from(&cwd);
        }
        let terminal_id = format!("term_{uid}");
        self.panes.insert(
            key,
            Pane {
                number,
                uid,
                terminal_id,
                label: None,
                cwd,
                live_cwd: None,
                foreground_cwd: None,
                scroll: None,
                terminal_title: None,
                terminal_title_stripped: None,
                agent: None,
                agent_status: AgentStatus::Unknown,
                argv,
                revision: 0,
                agent_state: PaneAgent::default(),
                metadata: PaneMetadata::default(),
                right_click: RightClickTarget::default(),
            },
        );
        key
    }

    /// A key and uid for a pane outside every layout (the popup): no pane of this session has
    /// either, and the model records neither.
    pub fn detached_pane(&mut self) -> (PaneKey, String) {
        let key = PaneKey(self.next_key);
        self.next_key += 1;
        (key, self.fresh_uid(key))
    }

    fn uid_taken(&self, uid: &str) -> bool {
        self.panes.values().any(|p| p.uid == uid)
    }

    /// A uid no pane of this session has: the seeded hash of the key (and a retry counter for
    /// the astronomically unlikely collision).
    fn fresh_uid(&self, key: PaneKey) -> String {
        let mut attempt = 0u64;
        loop {
            let uid = format!("{:016x}", self.uid_seed.hash_one((key.0, attempt)));
            if !self.uid_taken(&uid) {
                return uid;
            }
            attempt = attempt.wrapping_add(1);
        }
    }

    /// Appends an empty workspace (no tabs yet); returns its index.
    pub(super) fn push_workspace(&mut self, label: Option<String>, identity_cwd: Option<String>) -> usize {
        let number = self.next_workspace;
        self.next_workspace += 1;
        self.workspaces.push(Workspace {
            number,
            label,
            identity_cwd,
            tabs: Vec::new(),
            active_tab: 1,
            next_tab: 1,
            next_pane: 1,
            worktree_space: None,
            tokens: Ledger::default(),
        });
        self.workspaces.len() - 1
    }

    /// Appends a workspace with one tab holding one new pane; returns its index and the pane.
    pub(super) fn add_workspace(&mut self, label: Option<String>, cwd: Option<String>) -> (usize, PaneKey) {
        let wi = self.push_workspace(label, cwd.clone());
        let key = self.new_pane(wi, cwd, None);
        self.add_tab(wi, None, key);
        (wi, key)
    }

    /// Appends a tab to workspace `wi` whose only pane is `key`; returns the tab index.
    pub(super) fn add_tab(&mut self, wi: usize, label: Option<String>, key: PaneKey) -> usize {
        let ws = &mut self.workspaces[wi];
        let number = ws.next_tab;
        ws.next_tab += 1;
        ws.tabs.push(Tab { number, label, root: Node::Leaf(key), focused: key, zoomed: false });
        if ws.tabs.len() == 1 {
            ws.active_tab = number;
        }
        ws.tabs.len() - 1
    }

    /// Makes `key` the focused pane of its tab, that tab active in its workspace, and that
    /// workspace the active one. A zoomed tab stays zoomed only on its focused pane.
    pub(super) fn activate(&mut self, key: PaneKey) {
        let Some(loc) = self.locate(key) else { return };
        let ws = &mut self.workspaces[loc.wi];
        ws.active_tab = ws.tabs[loc.ti].number;
        let tab = &mut ws.tabs[loc.ti];
        if tab.focused != key {
            tab.zoomed = false;
            tab.focused = key;
        }
        self.active = Some(ws.number);
    }

    /// Places pane `key` (already allocated) next to `target` in its tree.
    pub(super) fn attach_split(
        &mut self,
        target: PaneKey,
        direction: SplitDirection,
        ratio: f32,
        key: PaneKey,
    ) -> bool {
        let Some(loc) = self.locate(target) else { return false };
        let tab = self.tab_mut(loc);
        tab.zoomed = false;
        tab.root.split_leaf(target, direction, ratio, key)
    }

    /// Takes pane `key` out of its tab's tree (the pane record stays). Empty tabs and workspaces
    /// close; focus moves to the neighbouring leaf, the next tab, or the next workspace.
    pub(super) fn detach(&mut self, key: PaneKey) -> Detached {
        let Some(loc) = self.locate(key) else { return Detached::default() };
        let ws_id = self.workspaces[loc.wi].id();
        let tab_id = self.tab_public_id(loc.wi, loc.ti);
        let tab = self.tab_mut(loc);
        let leaves = tab.root.leaves();
        let index = leaves.iter().position(|k| *k == key).unwrap_or(0);
        let was_second = tab.root.path_to(key).and_then(|p| p.last().copied()).unwrap_or(false);
        match tab.root.remove_leaf(key) {
            Removal::NotFound => Detached::default(),
            Removal::Removed => {
                if tab.focused == key {
                    let after = tab.root.leaves();
                    let pick = if was_second { index.saturating_sub(1) } else { index };
                    tab.focused = after[pick.min(after.len() - 1)];
                    tab.zoomed = false;
                }
                if tab.root.leaf_count() < 2 {
                    tab.zoomed = false;
                }
                let ws = &self.workspaces[loc.wi];
                Detached { surviving_tab: Some((ws.number, ws.tabs[loc.ti].number)), ..Detached::default() }
            }
            Removal::Emptied => {
                let ws = &mut self.workspaces[loc.wi];
                let closed = ws.tabs.remove(loc.ti);
                if ws.tabs.is_empty() {
                    let number = ws.number;
                    self.workspaces.remove(loc.wi);
                    if self.active == Some(number) {
                        let next = loc.wi.min(self.workspaces.len().saturating_sub(1));
                        self.active = self.workspaces.get(next).map(|w| w.number);
                    }
                    Detached { closed_workspace: Some(ws_id), ..Detached::default() }
                } else {
                    if ws.active_tab == closed.number {
                        ws.active_tab = ws.tabs[loc.ti.min(ws.tabs.len() - 1)].number;
                    }
                    Detached { closed_tab: Some((tab_id, ws_id)), ..Detached::default() }
                }
            }
        }
    }

    /// Removes workspace `wi` and its pane records; returns the closed panes.
    pub(super) fn remove_workspace(&mut self, wi: usize) -> Vec<PaneKey> {
        let ws = self.workspaces.remove(wi);
        if self.active == Some(ws.number) {
            let next = wi.min(self.workspaces.len().saturating_sub(1));
            self.active = self.workspaces.get(next).map(|w| w.number);
        }
        let keys: Vec<PaneKey> = ws.tabs.iter().flat_map(|t| t.root.leaves()).collect();
        self.forget(&keys);
        keys
    }

    /// Drops pane records and any alias pointing at them.
    pub(super) fn forget(&mut self, keys: &[PaneKey]) {
        for key in keys {
            self.panes.remove(key);
        }
        self.aliases.retain(|_, k| !keys.contains(k));
    }
}

/// A pane uid as this herdr makes them: 16 lowercase hex digits. Anything else (from a file) is
/// not trusted, since the uid names the worker's socket file.
pub fn valid_uid(uid: &str) -> bool {
    uid.len() == 16 && uid.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
