//! The session model and `session.json` ([`SessionSnapshot`]), both ways: [`Session::to_snapshot`]
//! for saving, [`Session::restore`] for start-up, and [`Session::add_recovered_pane`] for a live
//! worker the saved layout never heard of. Pure: the file itself is `crate::persist`'s business.
//!
//! Choices:
//! - Raw pane ids in the file are numbered 1, 2, … in display order at each save: they only tie
//!   a tab's layout to its pane entries, and stable numbering makes an unchanged layout encode
//!   to the same bytes. Public ids travel as numbers (`public_pane_numbers`, …), so ids come back
//!   unchanged; `p_<raw>` aliases (internal keys) and aliases left by cross-workspace moves do
//!   not survive a restart.
//! - Workspace ids this herdr wrote (`w<canonical base-32>`) come back as they were; anything
//!   else (upstream's `wproj1`, duplicates) gets the next free number.
//! - A saved cwd that is empty falls back to the workspace's identity cwd. The pane uid from the
//!   file is kept only when it is well formed and unique, since it names a socket file.
//! - Restoring publishes no events (nobody can be subscribed before the session exists); the
//!   spawns are the whole outcome. A recovered pane does publish its creation events.
//! - What `session.json` holds that the model has no use for (sidebar sizes, collapsed worktree
//!   spaces, unknown fields) is carried and written back, so a round trip
//!   through this herdr does not cost an upstream user their settings.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use herdr_protocol::api::{AgentSessionInfo, AgentSessionRefKind, Event};
use serde_json::Value;

use super::model::{Session, Tab, Workspace};
use super::tree::{Node, Split, clamp_ratio};
use super::workspaces::clean_label;
use super::{Effects, PaneKey, SpawnOrigin, ids};
use crate::agents::validate_name;
use crate::persist::{
    AgentSessionSnapshot, LayoutSnapshot, PaneSnapshot, SNAPSHOT_VERSION, SessionRefKind, SessionSnapshot,
    TabSnapshot, WorkspaceSnapshot,
};

/// Label of the workspace that collects live panes the saved layout did not know.
pub const RECOVERED_WORKSPACE: &str = "recovered";

/// Public numbers read from a file above this are not ours: they would push the counters
/// toward overflow for no benefit.
const MAX_RESTORED_NUMBER: u64 = u32::MAX as u64;

/// The parts of `session.json` the model does not use, kept from restore to the next save.
#[derive(Debug, Clone, Default)]
pub(super) struct Carried {
    sidebar_width: Option<u16>,
    sidebar_section_split: Option<f32>,
    collapsed_space_keys: BTreeSet<String>,
    extra: BTreeMap<String, Value>,
}

fn session_snapshot_of(info: &AgentSessionInfo) -> AgentSessionSnapshot {
    AgentSessionSnapshot {
        source: info.source.clone(),
        agent: info.agent.clone(),
        kind: match info.kind {
            AgentSessionRefKind::Id => SessionRefKind::Id,
            AgentSessionRefKind::Path => SessionRefKind::Path,
        },
        value: info.value.clone(),
    }
}

fn session_info_of(snapshot: &AgentSessionSnapshot) -> AgentSessionInfo {
    AgentSessionInfo {
        source: snapshot.source.clone(),
        agent: snapshot.agent.clone(),
        kind: match snapshot.kind {
            SessionRefKind::Id => AgentSessionRefKind::Id,
            SessionRefKind::Path => AgentSessionRefKind::Path,
        },
        value: snapshot.value.clone(),
    }
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

/// The number of a workspace id this herdr wrote: `w` and the canonical encoding of a number.
fn own_workspace_number(id: &str) -> Option<u64> {
    let digits = id.strip_prefix('w')?;
    let n = ids::decode_number(digits)?;
    (n <= MAX_RESTORED_NUMBER && ids::encode_number(n) == digits).then_some(n)
}

/// Public numbers for a list of things: each wanted number is kept when it is usable (1 or
/// more, not too big, not taken by an earlier one); the others get fresh numbers after every
/// kept one and after `next_hint`. Returns the numbers and the next free one.
fn assign_numbers(wanted: &[Option<u64>], next_hint: u64) -> (Vec<u64>, u64) {
    let mut taken = HashSet::new();
    let kept: Vec<Option<u64>> = wanted
        .iter()
        .map(|n| n.filter(|n| (1..=MAX_RESTORED_NUMBER).contains(n) && taken.insert(*n)))
        .collect();
    let hint = next_hint.min(MAX_RESTORED_NUMBER + 1);
    let mut next = taken.iter().max().map_or(1, |max| max + 1).max(hint);
    let numbers = kept
        .into_iter()
        .map(|n| {
            n.unwrap_or_else(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    (numbers, next)
}

/// Ratios as the model keeps them; a nonsensical one becomes an even split.
fn restored_ratio(ratio: f32) -> f32 {
    if ratio.is_finite() && ratio > 0.0 && ratio < 1.0 { clamp_ratio(ratio) } else { 0.5 }
}

impl Session {
    /// Everything needed to bring the layout back exactly: see the module docs.
    pub fn to_snapshot(&self) -> SessionSnapshot {
        let mut next_raw = 0u32;
        let workspaces =
            self.workspaces.iter().map(|ws| self.workspace_snapshot(ws, &mut next_raw)).collect();
        let active = self.active_index();
        SessionSnapshot {
            version: SNAPSHOT_VERSION,
            workspaces,
            active,
            selected: active.unwrap_or(0),
            sidebar_width: self.carried.sidebar_width,
            sidebar_section_split: self.carried.sidebar_section_split,
            collapsed_space_keys: self.carried.collapsed_space_keys.clone(),
            extra: self.carried.extra.clone(),
        }
    }

    fn workspace_snapshot(&self, ws: &Workspace, next_raw: &mut u32) -> WorkspaceSnapshot {
        let mut public_pane_numbers = BTreeMap::new();
        let mut tabs = Vec::new();
        for tab in &ws.tabs {
            let mut raws = HashMap::new();
            for key in tab.root.leaves() {
                *next_raw = next_raw.saturating_add(1);
                raws.insert(key, *next_raw);
                if let Some(pane) = self.panes.get(&key) {
                    public_pane_numbers.insert(*next_raw, pane.number);
                }
            }
            tabs.push(self.tab_snapshot(tab, &raws));
        }
        WorkspaceSnapshot {
            id: Some(ws.id()),
            custom_name: ws.label.clone(),
            identity_cwd: ws.identity_cwd.clone().unwrap_or_default(),
            worktree_space: ws.worktree_space.as_ref().map(super::worktrees::WorktreeSpace::to_saved),
            public_pane_numbers,
            next_public_pane_number: ws.next_pane,
            public_tab_numbers: ws.tabs.iter().map(|t| t.number).collect(),
            next_public_tab_number: ws.next_tab,
            tabs,
            active_tab: ws.active_tab_index(),
        }
    }

    fn tab_snapshot(&self, tab: &Tab, raws: &HashMap<PaneKey, u32>) -> TabSnapshot {
        let raw = |key: &PaneKey| raws.get(key).copied().unwrap_or_default();
        let leaves = tab.root.leaves();
        TabSnapshot {
            custom_name: tab.label.clone(),
            layout: layout_snapshot(&tab.root, &raw),
            panes: leaves.iter().map(|key| (raw(key), self.pane_snapshot(*key))).collect(),
            zoomed: tab.zoomed,
            focused: raws.get(&tab.focused).copied(),
            root_pane: leaves.first().map(raw),
        }
    }

    fn pane_snapshot(&self, key: PaneKey) -> PaneSnapshot {
        let Some(pane) = self.panes.get(&key) else { return PaneSnapshot::default() };
        let agent = &pane.agent_state;
        // Like upstream: a launch still starting has neither a name nor a kind worth restoring.
        let starting = agent.launch().is_some_and(|l| l.pending());
        PaneSnapshot {
            cwd: pane.live_cwd.clone().or_else(|| pane.cwd.clone()).unwrap_or_default(),
            label: pane.label.clone(),
            agent_name: agent.name().filter(|_| !starting).map(str::to_owned),
            managed_agent_kind: agent.managed_kind().map(str::to_owned),
            agent_session: agent.session_ref().map(session_snapshot_of),
            launch_argv: pane.argv.clone(),
            uid: Some(pane.uid.clone()),
        }
    }

    /// Rebuilds a session of `cols` x `rows` cells from a snapshot. Every pane gets a spawn
    /// request with [`SpawnOrigin::Restored`], its uid, cwd, program, size and public ids.
    pub fn restore(snapshot: SessionSnapshot, cols: u16, rows: u16) -> (Session, Effects) {
        let mut session = Session::new(cols, rows);
        let mut fx = session.observed(|s, fx| s.rebuild(snapshot, fx));
        fx.events.clear();
        for spawn in &mut fx.spawns {
            spawn.origin = SpawnOrigin::Restored;
        }
        (session, fx)
    }

    fn rebuild(&mut self, snapshot: SessionSnapshot, fx: &mut Effects) {
        self.carried = Carried {
            sidebar_width: snapshot.sidebar_width,
            sidebar_section_split: snapshot.sidebar_section_split,
            collapsed_space_keys: snapshot.collapsed_space_keys,
            extra: snapshot.extra,
        };
        // Workspaces without tabs have nothing to show; they take no number either.
        let kept: Vec<(usize, WorkspaceSnapshot)> =
            snapshot.workspaces.into_iter().enumerate().filter(|(_, ws)| !ws.tabs.is_empty()).collect();
        let wanted: Vec<Option<u64>> =
            kept.iter().map(|(_, ws)| ws.id.as_deref().and_then(own_workspace_number)).collect();
        let (numbers, next_workspace) = assign_numbers(&wanted, 1);
        // Snapshot index → model index.
        let mut placed = HashMap::new();
        for ((index, ws), number) in kept.into_iter().zip(numbers) {
            placed.insert(index, self.restore_workspace(ws, number, fx));
        }
        self.next_workspace = next_workspace;
        let active = snapshot
            .active
            .and_then(|i| placed.get(&i).copied())
            .or_else(|| (!self.workspaces.is_empty()).then_some(0));
        self.active = active.map(|wi| self.workspaces[wi].number);
    }

    /// Rebuilds one workspace (which has at least one tab) as number `number`; returns its index.
    fn restore_workspace(&mut self, ws: WorkspaceSnapshot, number: u64, fx: &mut Effects) -> usize {
        let identity_cwd = non_empty(&ws.identity_cwd);
        let wi = self.push_workspace(clean_label(ws.custom_name), identity_cwd.clone());
        let wanted_tabs: Vec<Option<u64>> =
            (0..ws.tabs.len()).map(|ti| ws.public_tab_numbers.get(ti).copied()).collect();
        let (tab_numbers, next_tab) = assign_numbers(&wanted_tabs, ws.next_public_tab_number);
        let mut leaves: Vec<(u32, PaneKey)> = Vec::new();
        let mut tabs = Vec::new();
        for (tab, number) in ws.tabs.into_iter().zip(tab_numbers) {
            let start = leaves.len();
            let root =
                self.restore_node(wi, &tab.layout, &tab.panes, identity_cwd.as_deref(), &mut leaves, fx);
            let in_tab = &leaves[start..];
            let focused = tab
                .focused
                .and_then(|raw| in_tab.iter().find(|(r, _)| *r == raw))
                .or(in_tab.first())
                .map(|(_, key)| *key);
            let Some(focused) = focused else { continue };
            let zoomed = tab.zoomed && root.leaf_count() > 1;
            tabs.push(Tab { number, label: clean_label(tab.custom_name), root, focused, zoomed });
        }
        let wanted_panes: Vec<Option<u64>> =
            leaves.iter().map(|(raw, _)| ws.public_pane_numbers.get(raw).copied()).collect();
        let (pane_numbers, next_pane) = assign_numbers(&wanted_panes, ws.next_public_pane_number);
        for ((_, key), number) in leaves.iter().zip(pane_numbers) {
            if let Some(pane) = self.panes.get_mut(key) {
                pane.number = number;
            }
        }
        let active_tab = tabs.get(ws.active_tab).or(tabs.first()).map_or(1, |t| t.number);
        let restored = &mut self.workspaces[wi];
        restored.number = number;
        // Allocating panes fills a missing identity cwd; the saved one (or none) is the truth.
        restored.identity_cwd = identity_cwd;
        restored.worktree_space = ws.worktree_space.and_then(super::worktrees::WorktreeSpace::from_saved);
        restored.tabs = tabs;
        restored.active_tab = active_tab;
        restored.next_tab = next_tab;
        restored.next_pane = next_pane;
        wi
    }

    fn restore_node(
        &mut self,
        wi: usize,
        node: &LayoutSnapshot,
        panes: &BTreeMap<u32, PaneSnapshot>,
        fallback_cwd: Option<&str>,
        leaves: &mut Vec<(u32, PaneKey)>,
        fx: &mut Effects,
    ) -> Node {
        match node {
            LayoutSnapshot::Pane(raw) => {
                let key = self.restore_pane(wi, panes.get(raw), fallback_cwd, fx);
                leaves.push((*raw, key));
                Node::Leaf(key)
            }
            LayoutSnapshot::Split { direction, ratio, first, second } => Node::Split(Box::new(Split {
                direction: (*direction).into(),
                ratio: restored_ratio(*ratio),
                first: self.restore_node(wi, first, panes, fallback_cwd, leaves, fx),
                second: self.restore_node(wi, second, panes, fallback_cwd, leaves, fx),
            })),
        }
    }

    /// One saved pane (or, for a layout leaf without an entry, a shell in the fallback cwd).
    fn restore_pane(
        &mut self,
        wi: usize,
        saved: Option<&PaneSnapshot>,
        fallback_cwd: Option<&str>,
        fx: &mut Effects,
    ) -> PaneKey {
        let blank = PaneSnapshot::default();
        let saved = saved.unwrap_or(&blank);
        let cwd = non_empty(&saved.cwd).or_else(|| fallback_cwd.map(str::to_owned));
        let argv = saved.launch_argv.clone().filter(|argv| !argv.is_empty());
        let key = self.new_pane_with_uid(wi, cwd.clone(), argv.clone(), saved.uid.clone());
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.label = clean_label(saved.label.clone());
            let name = saved.agent_name.clone().filter(|n| validate_name(n).is_ok());
            let session = saved.agent_session.as_ref().map(session_info_of);
            pane.agent_state.restore_saved(name, saved.managed_agent_kind.clone(), session);
        }
        fx.spawn(key, cwd, argv, Vec::new());
        key
    }

    /// Places a live worker whose uid the saved layout did not have (a pane created moments
    /// before a crash), rather than losing it: in a new tab of the workspace labelled
    /// [`RECOVERED_WORKSPACE`], created at the end the first time. Its spawn request has
    /// [`SpawnOrigin::Recovered`]. A uid already in the session returns that pane and does
    /// nothing; a malformed one (not 16 lowercase hex digits) is replaced by a fresh uid.
    pub fn add_recovered_pane(&mut self, uid: String, cwd: Option<String>) -> (PaneKey, Effects) {
        if let Some(key) = self.pane_by_uid(&uid) {
            return (key, Effects::default());
        }
        let mut placed = PaneKey(0);
        let mut fx = self.observed(|s, fx| placed = s.place_recovered(uid, cwd, fx));
        for spawn in &mut fx.spawns {
            spawn.origin = SpawnOrigin::Recovered;
        }
        (placed, fx)
    }

    fn place_recovered(&mut self, uid: String, cwd: Option<String>, fx: &mut Effects) -> PaneKey {
        let existing = self.workspaces.iter().position(|ws| ws.label.as_deref() == Some(RECOVERED_WORKSPACE));
        let wi = existing
            .unwrap_or_else(|| self.push_workspace(Some(RECOVERED_WORKSPACE.to_owned()), cwd.clone()));
        let key = self.new_pane_with_uid(wi, cwd.clone(), None, Some(uid));
        let ti = self.add_tab(wi, None, key);
        if self.active.is_none() {
            self.activate(key);
        }
        fx.spawn(key, cwd, None, Vec::new());
        if existing.is_none() {
            fx.event(Event::WorkspaceCreated { workspace: Box::new(self.workspace_info(wi)) });
        }
        fx.event(Event::TabCreated { tab: Box::new(self.tab_info(wi, ti)) });
        if let Some(pane) = self.pane_info(key) {
            fx.event(Event::PaneCreated { pane: Box::new(pane) });
        }
        key
    }
}

fn layout_snapshot(node: &Node, raw: &impl Fn(&PaneKey) -> u32) -> LayoutSnapshot {
    match node {
        Node::Leaf(key) => LayoutSnapshot::Pane(raw(key)),
        Node::Split(split) => LayoutSnapshot::Split {
            direction: split.direction.into(),
            ratio: split.ratio,
            first: Box::new(layout_snapshot(&split.first, raw)),
            second: Box::new(layout_snapshot(&split.second, raw)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_what_they_can() {
        assert_eq!(assign_numbers(&[Some(3), Some(1)], 7), (vec![3, 1], 7));
        assert_eq!(assign_numbers(&[Some(3), None, Some(3), Some(0)], 0), (vec![3, 4, 5, 6], 7));
        assert_eq!(assign_numbers(&[None, None], 0), (vec![1, 2], 3));
        assert_eq!(
            assign_numbers(&[Some(u64::MAX)], u64::MAX),
            (vec![MAX_RESTORED_NUMBER + 1], MAX_RESTORED_NUMBER + 2)
        );
    }

    #[test]
    fn only_canonical_workspace_ids_are_ours() {
        assert_eq!(own_workspace_number("w1"), Some(1));
        assert_eq!(own_workspace_number("wC"), Some(12));
        assert_eq!(own_workspace_number("w11"), Some(33));
        assert_eq!(own_workspace_number("w0"), Some(32));
        for foreign in ["wproj1", "wdev1", "wc", "1", "w", "w1a", "wZZZZZZZZ"] {
            assert_eq!(own_workspace_number(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn odd_ratios_become_even_splits() {
        assert_eq!(restored_ratio(0.3), 0.3);
        assert_eq!(restored_ratio(0.01), 0.1);
        for bad in [0.0, 1.0, -2.0, f32::NAN, f32::INFINITY] {
            assert_eq!(restored_ratio(bad), 0.5);
        }
    }
}
