//! The `session.json` format: upstream herdr's `SessionSnapshot` at `SNAPSHOT_VERSION = 3`, field
//! for field, so a file written by upstream loads here and one written here loads upstream. One
//! addition of ours: [`PaneSnapshot::uid`], the pane's stable worker uid (upstream ignores it, and
//! upstream files simply lack it).
//!
//! Decoding is lenient the way upstream's is: missing counters default, legacy pre-tabs
//! workspaces (version 2, `layout`/`panes` directly on the workspace) become one tab, and unknown
//! top-level fields (upstream's `agent_panel_scope`, ...) are kept in [`SessionSnapshot::extra`]
//! and written back. Files that need a newer herdr are refused.

use std::collections::{BTreeMap, BTreeSet};

use herdr_protocol::api::SplitDirection;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The format version this herdr writes and the newest it reads.
pub const SNAPSHOT_VERSION: u32 = 3;

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSnapshot {
    pub version: u32,
    pub workspaces: Vec<WorkspaceSnapshot>,
    /// Index of the active workspace.
    pub active: Option<usize>,
    /// Index of the workspace the sidebar cursor is on.
    pub selected: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sidebar_width: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sidebar_section_split: Option<f32>,
    /// A set upstream; sorted here so the same layout always encodes to the same bytes.
    pub collapsed_space_keys: BTreeSet<String>,
    /// Top-level fields this herdr does not know, written back as they were read.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceSnapshot {
    /// The public id (`w1`). Upstream ids are not always ours (`wproj1`); restore decides.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub custom_name: Option<String>,
    /// Empty when the workspace never had a cwd.
    #[serde(default)]
    pub identity_cwd: String,
    /// The git checkout the workspace is open on (`{key, label, repo_root, checkout_path,
    /// is_linked_worktree}`, upstream's form); the session model reads and writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree_space: Option<Value>,
    /// Raw pane id → public pane number (`w1:p<number>`).
    #[serde(default)]
    pub public_pane_numbers: BTreeMap<u32, u64>,
    #[serde(default)]
    pub next_public_pane_number: u64,
    /// Public tab numbers, in tab order.
    #[serde(default)]
    pub public_tab_numbers: Vec<u64>,
    #[serde(default)]
    pub next_public_tab_number: u64,
    pub tabs: Vec<TabSnapshot>,
    /// Index of the active tab.
    #[serde(default)]
    pub active_tab: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabSnapshot {
    #[serde(default)]
    pub custom_name: Option<String>,
    pub layout: LayoutSnapshot,
    /// Raw pane id → pane. Raw ids are only meaningful inside one file.
    #[serde(default)]
    pub panes: BTreeMap<u32, PaneSnapshot>,
    #[serde(default)]
    pub zoomed: bool,
    /// Raw id of the focused pane.
    #[serde(default)]
    pub focused: Option<u32>,
    /// Raw id of the pane the tab was created with (upstream uses it for legacy identity cwds).
    #[serde(default)]
    pub root_pane: Option<u32>,
}

/// A split tree, externally tagged like upstream's: `{"Pane": 3}` or
/// `{"Split": {"direction": "Horizontal", "ratio": 0.5, "first": …, "second": …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LayoutSnapshot {
    Pane(u32),
    Split {
        direction: DirectionSnapshot,
        ratio: f32,
        first: Box<LayoutSnapshot>,
        second: Box<LayoutSnapshot>,
    },
}

/// Upstream stores ratatui's `Direction` of the split's children. ratatui's `Horizontal` lays
/// children out left to right, and upstream resizes `Horizontal` splits with left/right
/// (`layout.rs::resize_focused`: `Left | Right => Direction::Horizontal`) and places their
/// divider at an x position: so `Horizontal` is side by side, our [`SplitDirection::Right`], and
/// `Vertical` is stacked, our [`SplitDirection::Down`]. (Upstream's key names run the other way,
/// vim style: `split_vertical` makes side-by-side panes, i.e. a `Horizontal` split.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DirectionSnapshot {
    Horizontal,
    Vertical,
}

impl From<SplitDirection> for DirectionSnapshot {
    fn from(direction: SplitDirection) -> Self {
        match direction {
            SplitDirection::Right => DirectionSnapshot::Horizontal,
            SplitDirection::Down => DirectionSnapshot::Vertical,
        }
    }
}

impl From<DirectionSnapshot> for SplitDirection {
    fn from(direction: DirectionSnapshot) -> Self {
        match direction {
            DirectionSnapshot::Horizontal => SplitDirection::Right,
            DirectionSnapshot::Vertical => SplitDirection::Down,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PaneSnapshot {
    /// Empty when the pane never had a cwd.
    #[serde(default)]
    pub cwd: String,
    /// The manual pane name (`pane.rename`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The agent's name (`agent.start --name`, `agent.rename`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The agent kind a managed launch (`agent.start`) started, once it is no longer pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_agent_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session: Option<AgentSessionSnapshot>,
    /// The program of a command pane (None: the user's shell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_argv: Option<Vec<String>>,
    /// Ours: the pane's stable uid, which names its worker so a new supervisor can re-adopt it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// An agent's own session reference, for native resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSessionSnapshot {
    pub source: String,
    pub agent: String,
    pub kind: SessionRefKind,
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionRefKind {
    Id,
    Path,
}

/// Why a `session.json` could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("not a valid session file: {0}")]
    Json(#[from] serde_json::Error),
    #[error("session file version {found} needs a newer herdr (this one reads up to {SNAPSHOT_VERSION})")]
    Newer { found: u32 },
    #[error("workspace {index}: {source}")]
    Workspace { index: usize, source: serde_json::Error },
    #[error("workspace {index} is neither the current nor the legacy pre-tabs format")]
    UnknownWorkspaceShape { index: usize },
}

/// Only the version, read before anything else so a newer file is refused for being newer, not
/// for whatever shape it has now.
#[derive(Deserialize)]
struct VersionProbe {
    #[serde(default)]
    version: u32,
}

/// The file with its workspaces still undecoded: each is current or legacy.
#[derive(Deserialize)]
struct RawSession {
    #[serde(default)]
    version: u32,
    #[serde(default)]
    workspaces: Vec<Value>,
    #[serde(default)]
    active: Option<usize>,
    #[serde(default)]
    selected: usize,
    #[serde(default)]
    sidebar_width: Option<u16>,
    #[serde(default)]
    sidebar_section_split: Option<f32>,
    #[serde(default)]
    collapsed_space_keys: BTreeSet<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

/// A version-2 workspace: one implicit tab.
#[derive(Deserialize)]
struct LegacyWorkspace {
    #[serde(default)]
    custom_name: Option<String>,
    layout: LayoutSnapshot,
    #[serde(default)]
    panes: BTreeMap<u32, PaneSnapshot>,
    #[serde(default)]
    zoomed: bool,
    #[serde(default)]
    focused: Option<u32>,
    #[serde(default)]
    root_pane: Option<u32>,
}

impl LayoutSnapshot {
    /// Raw pane ids in leaf order (first child before second).
    pub fn leaves(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            match node {
                LayoutSnapshot::Pane(raw) => out.push(*raw),
                LayoutSnapshot::Split { first, second, .. } => {
                    stack.push(second);
                    stack.push(first);
                }
            }
        }
        out
    }
}

impl From<LegacyWorkspace> for WorkspaceSnapshot {
    fn from(legacy: LegacyWorkspace) -> Self {
        // Upstream's choice: the root pane's cwd, else the first leaf's, else the lowest raw id's.
        let cwd_of = |raw: u32| legacy.panes.get(&raw).map(|p| p.cwd.clone());
        let identity_cwd = legacy
            .root_pane
            .and_then(cwd_of)
            .or_else(|| legacy.layout.leaves().first().copied().and_then(cwd_of))
            .or_else(|| legacy.panes.values().next().map(|p| p.cwd.clone()))
            .unwrap_or_default();
        let tab = TabSnapshot {
            custom_name: None,
            layout: legacy.layout,
            panes: legacy.panes,
            zoomed: legacy.zoomed,
            focused: legacy.focused,
            root_pane: legacy.root_pane,
        };
        WorkspaceSnapshot {
            id: None,
            custom_name: legacy.custom_name,
            identity_cwd,
            worktree_space: None,
            public_pane_numbers: BTreeMap::new(),
            next_public_pane_number: 0,
            public_tab_numbers: Vec::new(),
            next_public_tab_number: 0,
            tabs: vec![tab],
            active_tab: 0,
        }
    }
}

fn decode_workspace(index: usize, raw: Value) -> Result<WorkspaceSnapshot, DecodeError> {
    let as_workspace = |e| DecodeError::Workspace { index, source: e };
    if raw.get("tabs").is_some() {
        return serde_json::from_value(raw).map_err(as_workspace);
    }
    if raw.get("layout").is_some() {
        let legacy: LegacyWorkspace = serde_json::from_value(raw).map_err(as_workspace)?;
        return Ok(legacy.into());
    }
    Err(DecodeError::UnknownWorkspaceShape { index })
}

/// Decodes a `session.json`, migrating legacy workspaces; refuses versions newer than ours.
pub fn decode(bytes: &[u8]) -> Result<SessionSnapshot, DecodeError> {
    let probe: VersionProbe = serde_json::from_slice(bytes)?;
    if probe.version > SNAPSHOT_VERSION {
        return Err(DecodeError::Newer { found: probe.version });
    }
    let raw: RawSession = serde_json::from_slice(bytes)?;
    let workspaces = raw
        .workspaces
        .into_iter()
        .enumerate()
        .map(|(index, ws)| decode_workspace(index, ws))
        .collect::<Result<_, _>>()?;
    Ok(SessionSnapshot {
        version: raw.version,
        workspaces,
        active: raw.active,
        selected: raw.selected,
        sidebar_width: raw.sidebar_width,
        sidebar_section_split: raw.sidebar_section_split,
        collapsed_space_keys: raw.collapsed_space_keys,
        extra: raw.extra,
    })
}
