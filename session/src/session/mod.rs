//! The session model: workspaces → tabs → split trees of panes, focus, zoom and pane metadata,
//! and the public API methods that read or change them (`workspace.*`, `tab.*`, the layout and
//! navigation `pane.*` methods, `layout.export`, `session.snapshot`), and the model's
//! `session.json` form both ways (`persist`: save, restore, recovered panes).
//!
//! Pure: plain data and functions, no sockets, no tokio, no processes. A method returns its
//! result plus [`Effects`] (events to publish, panes to spawn, close or resize) that the
//! supervisor runtime carries out. Pane reads, input and waits are not here: they go to workers.
//!
//! Choices where upstream is silent or the user's expectation decides:
//! - The first workspace of an empty session becomes active even without `focus: true`.
//! - A new pane's cwd: the explicit `cwd` param, else the cwd of the pane it is split from (or
//!   of the focused pane of the workspace it opens in), else none (the worker's own cwd).
//! - Ratios must be finite and strictly between 0 and 1 (`invalid_ratio`); accepted ratios are
//!   clamped to 0.1..=0.9 like upstream.
//! - A zoomed tab shows its focused pane over the whole area; that pane's layout rect is the
//!   area, the others keep their tree rects.
//! - Focus events (`workspace_focused`, `tab_focused`, `pane_focused`, always together) are
//!   derived after every operation from the before/after focused pane, whatever the cause.

mod agents;
mod ids;
mod layout_apply;
mod layout_ops;
mod metadata;
mod model;
mod moves;
mod panes;
mod params;
mod persist;
mod records;
mod resolve;
mod tabs;
mod tree;
mod workspaces;
mod worktrees;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_agents;
#[cfg(test)]
mod tests_layout;
#[cfg(test)]
mod tests_persist;
#[cfg(test)]
mod tests_schema;

use herdr_protocol::api::requests::{
    LayoutRequest, PaneRequest, SessionRequest, TabRequest, WorkspaceRequest,
};
use herdr_protocol::api::{ApiError, ApiResult, Event, PaneScrollInfo, Request};
use herdr_protocol::ipc::WorkerRequest;

pub use agents::agent_not_found;
pub use metadata::{ReportError, WorkspaceReport};
pub use model::{Session, valid_uid};
pub use persist::RECOVERED_WORKSPACE;
pub use worktrees::{OpenedWorkspace, WorkspaceProbe, WorktreeSpace};

/// The internal, immutable identity of a pane: it never changes, even when a move gives the pane
/// a new public id. The supervisor keys its worker registry on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneKey(pub u64);

/// Why a pane needs a worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnOrigin {
    /// Created now (API, TUI, layout apply): start a fresh program.
    New,
    /// Rebuilt from `session.json` ([`Session::restore`]): re-adopt the live worker with this
    /// uid if there is one. Otherwise the process is gone, and the user-facing contract is that
    /// the pane comes back as a shell in its cwd (or as its agent's native resume), with start
    /// failures held in the pane: `argv` then only says what the pane ran before, and the
    /// runtime calls [`Session::clear_pane_program`] once it starts something else.
    Restored,
    /// Restored with a native agent resume planned (`agents::resume`): re-adopt the live worker
    /// if there is one, else wait until a client has attached and sized the layout, then start
    /// `argv`, the agent's own resume command, in the saved cwd.
    Resume,
    /// A live worker the saved layout did not know ([`Session::add_recovered_pane`]): adopt it.
    Recovered,
}

/// Start (or re-adopt) a worker for a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnRequest {
    pub pane: PaneKey,
    /// The pane's stable uid: its worker's identity.
    pub uid: String,
    pub origin: SpawnOrigin,
    pub cwd: Option<String>,
    /// None: the user's shell.
    pub argv: Option<Vec<String>>,
    /// Caller env (`env` param); the supervisor appends the `HERDR_*` variables.
    pub env: Vec<(String, String)>,
    pub cols: u16,
    pub rows: u16,
    pub workspace_id: String,
    pub tab_id: String,
    pub pane_id: String,
    /// What the pane's terminal shows before its program starts: the saved recent screen of a
    /// restored pane (pane history), filled in by the runtime; None otherwise.
    pub replay: Option<Vec<u8>>,
}

/// What the runtime must do after a model change, in order: publish `events`, start `spawns`,
/// stop `closes`, resize `resizes` (`(pane, cols, rows)`), then send `notices` to workers
/// (agent scan suspension and release).
#[derive(Debug, Default, Clone)]
pub struct Effects {
    pub events: Vec<Event>,
    pub spawns: Vec<SpawnRequest>,
    pub closes: Vec<PaneKey>,
    pub resizes: Vec<(PaneKey, u16, u16)>,
    pub notices: Vec<(PaneKey, WorkerRequest)>,
}

impl Effects {
    /// Appends `other`'s effects after these.
    pub fn merge(&mut self, other: Effects) {
        self.events.extend(other.events);
        self.spawns.extend(other.spawns);
        self.closes.extend(other.closes);
        self.resizes.extend(other.resizes);
        self.notices.extend(other.notices);
    }

    fn event(&mut self, event: Event) {
        self.events.push(event);
    }

    /// Records a spawn; uid, sizes and ids are filled in once the operation has finished.
    fn spawn(
        &mut self,
        pane: PaneKey,
        cwd: Option<String>,
        argv: Option<Vec<String>>,
        env: Vec<(String, String)>,
    ) {
        self.spawns.push(SpawnRequest {
            pane,
            uid: String::new(),
            origin: SpawnOrigin::New,
            cwd,
            argv,
            env,
            cols: 0,
            rows: 0,
            workspace_id: String::new(),
            tab_id: String::new(),
            pane_id: String::new(),
            replay: None,
        });
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HandleError {
    /// The params did not parse: answered with id `""`, `invalid_request`,
    /// `"invalid request: <message>"`. Requests arrive typed (parsed with the envelope), so only
    /// the wire-form entry point of the tests, `handle_json`, still produces it.
    #[error("invalid request: {0}")]
    BadParams(String),
    /// A handler-level error, answered with the request id.
    #[error(transparent)]
    Api(#[from] ApiError),
}

type Handled = Result<ApiResult, HandleError>;

impl Session {
    /// Runs `request` if it is a method of the session model; `None` otherwise (the request
    /// goes to a worker or another part of the supervisor).
    pub fn handle(&mut self, request: Request) -> Option<Result<(ApiResult, Effects), HandleError>> {
        let before = self.observe();
        let mut fx = Effects::default();
        let fx_ref = &mut fx;
        let focuses = matches!(
            request,
            Request::Pane(PaneRequest::Focus(_))
                | Request::Tab(TabRequest::Focus(_))
                | Request::Workspace(WorkspaceRequest::Focus(_))
        );
        let result = match request {
            Request::Session(SessionRequest::Snapshot(_)) => {
                Ok(ApiResult::SessionSnapshot { snapshot: Box::new(self.snapshot()) })
            }
            Request::Workspace(request) => match request {
                WorkspaceRequest::Create(p) => self.workspace_create(p, fx_ref),
                WorkspaceRequest::List(_) => {
                    Ok(ApiResult::WorkspaceList { workspaces: self.workspace_infos() })
                }
                WorkspaceRequest::Get(p) => self.workspace_get(p),
                WorkspaceRequest::Focus(p) => self.workspace_focus(p),
                WorkspaceRequest::Rename(p) => self.workspace_rename(p, fx_ref),
                WorkspaceRequest::Move(p) => self.workspace_move(p, fx_ref),
                WorkspaceRequest::MoveBlock(p) => self.workspace_move_block(p, fx_ref),
                WorkspaceRequest::Close(p) => self.workspace_close(p, fx_ref),
                WorkspaceRequest::ReportMetadata(_) => return None,
            },
            Request::Tab(request) => match request {
                TabRequest::Create(p) => self.tab_create(p, fx_ref),
                TabRequest::List(p) => self.tab_list(p),
                TabRequest::Get(p) => self.tab_get(p),
                TabRequest::Focus(p) => self.tab_focus(p),
                TabRequest::Rename(p) => self.tab_rename(p, fx_ref),
                TabRequest::Move(p) => self.tab_move(p, fx_ref),
                TabRequest::Close(p) => self.tab_close(p, fx_ref),
            },
            Request::Pane(request) => match request {
                PaneRequest::List(p) => self.pane_list(p),
                PaneRequest::Get(p) => self.pane_get(p),
                PaneRequest::Current(p) => self.pane_current(p),
                PaneRequest::Focus(p) => self.pane_focus(p),
                PaneRequest::Split(p) => self.pane_split(p, fx_ref),
                PaneRequest::Rename(p) => self.pane_rename(p, fx_ref),
                PaneRequest::Close(p) => self.pane_close(p, fx_ref),
                PaneRequest::Layout(p) => self.pane_layout(p),
                PaneRequest::Neighbor(p) => self.pane_neighbor(p),
                PaneRequest::Edges(p) => self.pane_edges(p),
                PaneRequest::FocusDirection(p) => self.pane_focus_direction(p),
                PaneRequest::Resize(p) => self.pane_resize(p, fx_ref),
                PaneRequest::Swap(p) => self.pane_swap(p, fx_ref),
                PaneRequest::Zoom(p) => self.pane_zoom(p, fx_ref),
                PaneRequest::Move(p) => self.pane_move(p, fx_ref),
                _ => return None,
            },
            Request::Layout(request) => match request {
                LayoutRequest::Export(p) => self.layout_export(p),
                LayoutRequest::Apply(p) => self.layout_apply(p, fx_ref),
                LayoutRequest::SetSplitRatio(p) => self.layout_set_split_ratio(p, fx_ref),
            },
            _ => return None,
        };
        if result.is_ok() && focuses {
            // Focusing marks the tab seen even when it already had the focus.
            self.mark_focused_tab_seen(&mut fx);
        }
        Some(result.map(|result| {
            self.finish(&before, &mut fx);
            (result, fx)
        }))
    }

    /// Tests drive the model with the wire form: `method` and its params as JSON, parsed as
    /// the envelope would; a parse failure is `BadParams`.
    #[cfg(any(test, feature = "test-support"))]
    pub fn handle_json(
        &mut self,
        method: &str,
        params: serde_json::Value,
    ) -> Option<Result<(ApiResult, Effects), HandleError>> {
        match Request::parse(method, &params) {
            Ok(request) => self.handle(request),
            Err(e) => Some(Err(HandleError::BadParams(e.to_string()))),
        }
    }

    /// Completes `fx` after an operation: focus events when the focused pane changed, final
    /// uids, sizes and ids of spawned panes, and resizes for every other pane whose size changed.
    fn finish(&mut self, before: &model::Observation, fx: &mut Effects) {
        let after = self.observe();
        if after.focus != before.focus
            && let Some((_, _, key)) = after.focus
            && let Some((ws, tab, pane)) = self.pane_ids(key)
        {
            fx.event(Event::WorkspaceFocused { workspace_id: ws.clone() });
            fx.event(Event::TabFocused { tab_id: tab, workspace_id: ws.clone() });
            fx.event(Event::PaneFocused { pane_id: pane, workspace_id: ws });
            self.mark_focused_tab_seen(fx);
        }
        for spawn in &mut fx.spawns {
            if let Some(&(cols, rows)) = after.sizes.get(&spawn.pane) {
                (spawn.cols, spawn.rows) = (cols, rows);
            }
            if let Some((ws, tab, pane)) = self.pane_ids(spawn.pane) {
                (spawn.workspace_id, spawn.tab_id, spawn.pane_id) = (ws, tab, pane);
            }
            if let Some(pane) = self.panes.get(&spawn.pane) {
                spawn.uid.clone_from(&pane.uid);
            }
        }
        let mut resizes: Vec<(PaneKey, u16, u16)> = after
            .sizes
            .iter()
            .filter(|(key, size)| before.sizes.get(key).is_some_and(|old| old != *size))
            .filter(|(key, _)| !fx.spawns.iter().any(|s| s.pane == **key))
            .map(|(key, &(cols, rows))| (*key, cols, rows))
            .collect();
        resizes.sort();
        fx.resizes.extend(resizes);
    }

    /// Runs a change outside `handle` (worker reports, client resizes) with the same follow-up.
    fn observed(&mut self, change: impl FnOnce(&mut Self, &mut Effects)) -> Effects {
        let before = self.observe();
        let mut fx = Effects::default();
        change(self, &mut fx);
        self.finish(&before, &mut fx);
        fx
    }

    /// The pane that has the focus: the active workspace's active tab's focused pane.
    pub fn focused_pane(&self) -> Option<PaneKey> {
        self.focus_triple().map(|(_, _, key)| key)
    }

    /// Current public ids `(workspace, tab, pane)` of a pane.
    pub fn pane_ids(&self, key: PaneKey) -> Option<(String, String, String)> {
        let loc = self.locate(key)?;
        Some((self.workspaces[loc.wi].id(), self.tab_public_id(loc.wi, loc.ti), self.public_pane_id(key)?))
    }

    /// Records the program a just-split pane runs instead of the shell (a custom command or
    /// the scrollback editor), so exports and snapshots of the layout name it.
    pub fn set_pane_program(&mut self, key: PaneKey, argv: Vec<String>) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.argv = Some(argv);
        }
    }

    /// The pane no longer runs the program it was started with (a restored command pane came
    /// back as a shell), so exports and the next save must not name it.
    pub fn clear_pane_program(&mut self, key: PaneKey) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.argv = None;
        }
    }

    /// The pane's stable uid (its worker's identity).
    pub fn pane_uid(&self, key: PaneKey) -> Option<&str> {
        self.panes.get(&key).map(|p| p.uid.as_str())
    }

    /// The pane whose uid is `uid`.
    pub fn pane_by_uid(&self, uid: &str) -> Option<PaneKey> {
        self.panes.iter().find(|(_, p)| p.uid == uid).map(|(key, _)| *key)
    }

    /// The cwd the OS reports for the pane's program: saved, and the public records' `cwd`
    /// (the program's own report only until the first one arrives). Publishes no event.
    pub fn set_pane_live_cwd(&mut self, key: PaneKey, cwd: String) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.live_cwd = Some(cwd);
        }
    }

    /// Where the pane's foreground job was last seen to run (records only).
    pub fn set_pane_foreground_cwd(&mut self, key: PaneKey, foreground_cwd: Option<String>) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.foreground_cwd = foreground_cwd;
        }
    }

    /// What the pane's worker last told of its foreground job and scrollback (records only).
    pub fn set_pane_live_facts(
        &mut self,
        key: PaneKey,
        foreground_cwd: Option<String>,
        scroll: PaneScrollInfo,
    ) {
        if let Some(pane) = self.panes.get_mut(&key) {
            pane.foreground_cwd = foreground_cwd;
            pane.scroll = Some(scroll);
        }
    }

    /// Every pane placed in a tab, in key order.
    pub fn pane_keys(&self) -> Vec<PaneKey> {
        self.panes.keys().copied().filter(|k| self.locate(*k).is_some()).collect()
    }

    /// The size of every tab (from attached clients); panes whose size changes get resizes.
    pub fn set_area(&mut self, cols: u16, rows: u16) -> Effects {
        self.observed(|s, _| s.area = tree::Rect::new(0, 0, cols, rows))
    }

    /// How many cells the client's pane boxes take on every side (1 with pane borders, else 0):
    /// workers are sized to the content inside the box (spawns and resizes), while pane rects
    /// (`pane.layout`) stay the boxes.
    pub fn set_content_inset(&mut self, inset: u16) -> Effects {
        self.observed(|s, _| s.content_inset = inset)
    }

    pub fn content_inset(&self) -> u16 {
        self.content_inset
    }

    /// The foreground client shows one pane at a time (the mobile layout): size each tab's focused
    /// program to the whole area. Pane rects (`pane.layout`) and zoom are unchanged.
    pub fn set_single_view(&mut self, on: bool) -> Effects {
        self.observed(|s, _| s.single_view = on)
    }

    pub fn single_view(&self) -> bool {
        self.single_view
    }

    /// Keeps `key`'s program at `size` whatever the layout gives it (a direct terminal attach
    /// owns it), or with `None` gives it back to the layout; the pane gets a resize either way.
    pub fn pin_size(&mut self, key: PaneKey, size: Option<(u16, u16)>) -> Effects {
        self.observed(|s, _| match size {
            Some(size) => {
                s.pinned.insert(key, size);
            }
            None => {
                s.pinned.remove(&key);
            }
        })
    }

    /// Cells a tab currently has: `(cols, rows)`.
    pub fn area(&self) -> (u16, u16) {
        (self.area.width, self.area.height)
    }
}
