//! The supervisor's shared state, split by owner: the session model, the worker registry and the
//! event hub. Locks are never held across an await; the order is session, then panes, and
//! autosave's state before the session (a kill's hold encodes the layout under it).
//!
//! The terminal clients are not known here: what the core hands them without interpreting it
//! (pane screen damage, bells, panes gone) goes to the [`ClientSide`] they register when the
//! state is made (`clients::Screens`).

use std::any::Any;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use herdr_host::runtime::RuntimeDir;
use herdr_protocol::api::requests::{PaneRequest, TabRequest, WorkspaceRequest};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode, Request};
use herdr_protocol::ipc::{GridDamage, WorkerEvent, WorkerIdentity, WorkerRequest};
use tokio::sync::{oneshot, watch};

use crate::ServerConfig;
use crate::api::envelope::Failure;
use crate::autosave::Autosave;
use crate::hub::Hub;
use crate::resumes::PendingResumes;
use crate::session::{Effects, HandleError, PaneKey, Session, SpawnOrigin, SpawnRequest};
use crate::workers::{
    self, Gone, Launch, LaunchMode, Launcher, PaneHandle, PaneObserver, Processes, Registry, StartError,
    Started,
};

/// The tab area used while no client is attached (upstream's headless size).
pub const HEADLESS_COLS: u16 = 120;
pub const HEADLESS_ROWS: u16 = 40;

/// The terminal clients' side as the session core sees it: where pane output it does not
/// interpret goes. Calls come from worker events and the registry, never under a core lock.
pub trait ClientSide: Any + Send + Sync + fmt::Debug {
    /// A worker's screen damage for `key`.
    fn pane_damage(&self, key: PaneKey, damage: GridDamage);
    /// `key`'s program rang the bell.
    fn pane_bell(&self, shared: &Shared, key: PaneKey);
    /// `key` left the layout or lost its worker: forget what was mirrored of it.
    fn pane_gone(&self, key: PaneKey);
    /// The registered value itself, for the module that owns its type.
    fn as_any(&self) -> &dyn Any;
}

#[derive(Debug)]
pub struct Shared {
    pub config: ServerConfig,
    /// Where this session's workers listen and the secret they expect.
    pub runtime: RuntimeDir,
    /// `session.json`: every change to the session model wakes it.
    pub autosave: Autosave,
    session: Mutex<Session>,
    panes: Mutex<Registry>,
    pub hub: Hub,
    /// The terminal clients' side (mirrored pane grids, alerts, the live UI config).
    clients: Arc<dyn ClientSide>,
    /// What starts the panes' workers: real processes, or a test's fake.
    launcher: Arc<dyn Launcher>,
    /// Restored panes whose agent resume waits for the first client to size the layout.
    pub resumes: PendingResumes,
    /// Live handoff: whether one is under way, and what it passes.
    pub handoff: crate::handoff::Handoff,
    /// Removes metadata tokens whose ttl ran out.
    pub metadata_expiry: crate::metadata::expiry::ExpiryTimer,
    /// The popup open over the layout, whose pane is in the registry but not the model.
    pub popups: crate::popups::Popups,
    /// Plugin commands: their log and the event hooks' queues.
    pub plugins: crate::plugins::hooks::Runtime,
    next_request: AtomicU64,
    shutdown: watch::Sender<bool>,
    me: Weak<Shared>,
}

/// The panes an [`Shared::apply`] started, and how each start went.
pub type Launched = Vec<(PaneKey, oneshot::Receiver<Result<Started, StartError>>)>;

/// The session model behind its lock. Dropping the guard tells autosave that the model may have
/// changed: every change goes through here, so none can be forgotten, and autosave writes only
/// when the saved form really differs.
pub struct SessionGuard<'a> {
    guard: MutexGuard<'a, Session>,
    autosave: &'a Autosave,
}

impl Deref for SessionGuard<'_> {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.guard
    }
}

impl DerefMut for SessionGuard<'_> {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.guard
    }
}

impl Drop for SessionGuard<'_> {
    fn drop(&mut self) {
        self.autosave.mark_dirty();
    }
}

impl Shared {
    /// A supervisor's state over `session` (empty, or restored from `session.json`), handing pane
    /// output to `clients`.
    pub fn with_session(
        config: ServerConfig,
        runtime: RuntimeDir,
        autosave: Autosave,
        session: Session,
        clients: Arc<dyn ClientSide>,
    ) -> Arc<Self> {
        let launcher = Arc::new(Processes { scrollback_limit_bytes: config.scrollback_limit_bytes });
        Self::with_launcher(config, runtime, autosave, session, clients, launcher)
    }

    /// [`Shared::with_session`] whose panes get their workers from `launcher`.
    pub(crate) fn with_launcher(
        config: ServerConfig,
        runtime: RuntimeDir,
        autosave: Autosave,
        session: Session,
        clients: Arc<dyn ClientSide>,
        launcher: Arc<dyn Launcher>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Shared {
            config,
            runtime,
            autosave,
            session: Mutex::new(session),
            panes: Mutex::new(Registry::default()),
            hub: Hub::new(),
            clients,
            launcher,
            resumes: PendingResumes::default(),
            handoff: crate::handoff::Handoff::default(),
            metadata_expiry: Default::default(),
            popups: Default::default(),
            plugins: Default::default(),
            next_request: AtomicU64::new(1),
            shutdown: watch::channel(false).0,
            me: me.clone(),
        })
    }

    /// A state for tests over `clients`: an empty session, no runtime dir, nothing saved.
    #[cfg(test)]
    pub fn with_clients(config: ServerConfig, clients: Arc<dyn ClientSide>) -> Arc<Self> {
        let runtime = RuntimeDir { workers: "/nonexistent/workers".into(), secret: String::new() };
        let session = Session::new(HEADLESS_COLS, HEADLESS_ROWS);
        Self::with_session(config, runtime, Autosave::disabled(), session, clients)
    }

    /// The clients' side registered at construction.
    pub fn clients(&self) -> &dyn ClientSide {
        &*self.clients
    }

    pub fn session(&self) -> SessionGuard<'_> {
        SessionGuard {
            guard: self.session.lock().unwrap_or_else(PoisonError::into_inner),
            autosave: &self.autosave,
        }
    }

    /// The session as `session.json` holds it, encoded (autosave's read: it marks nothing dirty).
    pub fn encoded_session(&self) -> Vec<u8> {
        let snapshot = self.session.lock().unwrap_or_else(PoisonError::into_inner).to_snapshot();
        crate::persist::encode(&snapshot)
    }

    fn panes(&self) -> MutexGuard<'_, Registry> {
        self.panes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn pane_handle(&self, key: PaneKey) -> Option<PaneHandle> {
        self.panes().get(key)
    }

    /// Every live pane's handle (broadcasts such as manifest reloads).
    pub fn all_pane_handles(&self) -> Vec<PaneHandle> {
        self.panes().handles()
    }

    /// This state's own `Arc` (for work that outlives a borrowed `&Shared`); `None` while it is
    /// being dropped.
    pub fn arc(&self) -> Option<Arc<Shared>> {
        self.me.upgrade()
    }

    pub fn next_request_id(&self) -> u64 {
        self.next_request.fetch_add(1, Ordering::Relaxed)
    }

    pub fn begin_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Runs a session-model request; `None` when `request` is not one. Panes it creates are
    /// started before the answer, so a caller can use them at once.
    pub async fn session_call(&self, request: Request) -> Option<Result<ApiResult, Failure>> {
        let failure_code = spawn_failure_code(&request);
        let outcome = self.session().handle(request)?;
        Some(match outcome {
            Err(HandleError::BadParams(msg)) => Err(Failure::BadRequest(msg)),
            Err(HandleError::Api(e)) => Err(Failure::Api(e)),
            Ok((result, effects)) => {
                let started = self.apply(effects);
                match wait_started(started).await {
                    Ok(()) => Ok(result),
                    Err(e) => Err(Failure::Api(ApiError::new(failure_code, e.to_string()))),
                }
            }
        })
    }

    /// Carries out what the model decided: publish events, start, close and resize workers.
    pub fn apply(&self, effects: Effects) -> Launched {
        self.hub.publish(effects.events);
        let mut started = Vec::new();
        let mut panes = self.panes();
        for spawn in effects.spawns {
            let key = spawn.pane;
            let (handle, rx) = workers::launch(self.launch_spec(spawn), self.observer());
            panes.insert(key, handle);
            started.push((key, rx));
        }
        for key in effects.closes {
            self.clients.pane_gone(key);
            if let Some(handle) = panes.remove(key) {
                tokio::spawn(async move { handle.shutdown().await });
            }
        }
        for (key, cols, rows) in effects.resizes {
            if let Some(handle) = panes.get(key) {
                handle.notify(self.next_request_id(), WorkerRequest::Resize { cols, rows });
            }
        }
        for (key, body) in effects.notices {
            if let Some(handle) = panes.get(key) {
                handle.notify(self.next_request_id(), body);
            }
        }
        started
    }

    /// Starts a worker for a pane the session model does not hold (the popup) and registers it
    /// under `launch.key`.
    pub fn launch_detached(&self, launch: Launch) -> oneshot::Receiver<Result<Started, StartError>> {
        let key = launch.key;
        let (handle, rx) = workers::launch(launch, self.observer());
        self.panes().insert(key, handle);
        rx
    }

    /// Takes such a pane's worker out of the registry, and the clients forget its grid.
    pub fn forget_detached(&self, key: PaneKey) -> Option<PaneHandle> {
        self.clients.pane_gone(key);
        self.panes().remove(key)
    }

    /// Every pane's handle, removed from the registry (server shutdown).
    pub fn take_all_panes(&self) -> Vec<PaneHandle> {
        self.panes().drain()
    }

    fn launch_spec(&self, spawn: SpawnRequest) -> Launch {
        let mut env = spawn.env;
        env.extend(self.config.pane_env(&spawn.workspace_id, &spawn.tab_id, &spawn.pane_id));
        let identity = WorkerIdentity {
            socket: self.runtime.worker_socket(&spawn.uid).display().to_string(),
            uid: spawn.uid,
            secret: self.runtime.secret.clone(),
            orphan_timeout_ms: u64::try_from(self.config.orphan_timeout.as_millis()).unwrap_or(u64::MAX),
        };
        let mode = match spawn.origin {
            SpawnOrigin::New => LaunchMode::Spawn,
            SpawnOrigin::Restored => LaunchMode::AdoptOrSpawn,
            SpawnOrigin::Resume => LaunchMode::AdoptOrResume,
            SpawnOrigin::Recovered => LaunchMode::AdoptOnly,
        };
        Launch {
            key: spawn.pane,
            worker_exe: self.config.worker_exe.clone(),
            argv: spawn.argv,
            cwd: spawn.cwd,
            env,
            cols: spawn.cols,
            rows: spawn.rows,
            identity,
            mode,
            replay: spawn.replay,
            launcher: self.launcher.clone(),
        }
    }

    /// What starts this session's workers (the real processes, or a test's fake).
    pub(crate) fn launcher(&self) -> Arc<dyn Launcher> {
        self.launcher.clone()
    }

    fn observer(&self) -> Arc<dyn PaneObserver> {
        Arc::new(SharedObserver(self.me.clone()))
    }
}

/// Waits until every pane in `started` runs (or the first one that cannot start).
pub(crate) async fn wait_started(started: Launched) -> Result<(), StartError> {
    for (_, rx) in started {
        match rx.await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(StartError::TaskGone),
        }
    }
    Ok(())
}

fn spawn_failure_code(request: &Request) -> ErrorCode {
    match request {
        Request::Workspace(WorkspaceRequest::Create(_)) => ErrorCode::WorkspaceCreateFailed,
        Request::Tab(TabRequest::Create(_)) => ErrorCode::TabCreateFailed,
        Request::Pane(PaneRequest::Split(_)) => ErrorCode::PaneSplitFailed,
        _ => ErrorCode::InternalError,
    }
}

struct SharedObserver(Weak<Shared>);

impl PaneObserver for SharedObserver {
    fn worker_event(&self, key: PaneKey, event: WorkerEvent) {
        let Some(shared) = self.0.upgrade() else { return };
        match event {
            // Screen contents and bells never touch the session model.
            WorkerEvent::Damage(damage) => return shared.clients.pane_damage(key, damage),
            WorkerEvent::Bell => return shared.clients.pane_bell(&shared, key),
            _ => {}
        }
        let effects = {
            let mut session = shared.session();
            match event {
                WorkerEvent::Title(title) => session.set_pane_title(key, title),
                WorkerEvent::Cwd(cwd) => session.set_pane_cwd(key, cwd),
                WorkerEvent::LiveCwd(cwd) => {
                    session.set_pane_live_cwd(key, cwd);
                    Effects::default()
                }
                WorkerEvent::StartFailed { message } => {
                    log::warn!("pane {key:?}: held in the layout: {message}");
                    Effects::default()
                }
                WorkerEvent::AgentIdentity { agent, reason, .. } => {
                    session.agent_identity(key, agent, reason)
                }
                WorkerEvent::ScreenState(verdict) => session.agent_screen(key, &verdict),
                WorkerEvent::Exited { .. }
                | WorkerEvent::OutputMatched { .. }
                | WorkerEvent::Damage(_)
                | WorkerEvent::Bell => Effects::default(),
            }
        };
        shared.apply(effects);
    }

    fn pane_gone(&self, key: PaneKey, how: Gone) {
        let Some(shared) = self.0.upgrade() else { return };
        if shared.is_shutting_down() || crate::popups::ended(&shared, key) {
            return;
        }
        if !how.is_orderly() {
            // Killed, not ended: perhaps the first of every pane dying at a logout or reboot.
            // Until that is ruled out, session.json keeps the layout from before.
            shared.autosave.hold(|| shared.encoded_session());
        }
        shared.panes().remove(key);
        shared.clients.pane_gone(key);
        let effects = shared.session().pane_exited(key);
        shared.apply(effects);
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;

#[cfg(test)]
impl Shared {
    /// For in-process tests: a supervisor state with one workspace of one pane whose worker never
    /// started (tests play the worker by feeding the session frames).
    pub(crate) fn with_one_pane() -> (Arc<Shared>, PaneKey) {
        let shared = Shared::new(ServerConfig::for_tests());
        let key = {
            let mut session = shared.session();
            let created = session.handle_json("workspace.create", serde_json::json!({}));
            created.and_then(Result::ok).expect("workspace");
            session.pane_keys()[0]
        };
        (shared, key)
    }
}
