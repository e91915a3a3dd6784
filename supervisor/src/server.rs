//! Starting and stopping a supervisor: bind, adopt or restore the panes, accept, orderly
//! shutdown.
//!
//! [`run`] is the testable entry point: it takes bound [`Sockets`] and a `shutdown` future.
//! Before it answers anything it finishes an adoption phase: the layout comes back from
//! `session.json`, each pane's worker is taken over if it outlived the previous supervisor
//! (else the pane's program starts again), and workers the layout does not know are placed in a
//! `recovered` workspace. Clients that connect meanwhile wait in the listen backlog.

use std::future::Future;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixListener;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use herdr_host::runtime::{RuntimeDir, SessionLock};
use herdr_host::socket::{self, BindError, SocketIdentity};
use herdr_host::{logind, reaper, sd_notify};
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;

use crate::api::transport;
use crate::autosave::Autosave;
use crate::session::{Effects, Session};
use crate::state::{HEADLESS_COLS, HEADLESS_ROWS, Launched, Shared};
use crate::{ServerConfig, clients, handoff, pane_history, persist, resumes};

/// The session's two listening sockets, bound and not yet served, and the session lock that
/// made binding them ours to do.
#[derive(Debug)]
pub struct Sockets {
    lock: SessionLock,
    api: UnixListener,
    client: UnixListener,
    api_identity: SocketIdentity,
    client_identity: SocketIdentity,
    /// Set for a live handoff's importer: told `ready` after the adoption phase.
    import: Option<handoff::wire::Conversation>,
}

impl Sockets {
    /// Binds the API and client sockets of `config` (refusing a live server and anything at
    /// those paths that is not a socket).
    pub fn bind(config: &ServerConfig) -> Result<Self, BindError> {
        let lock = SessionLock::take(&config.api_socket)?
            .ok_or_else(|| BindError::Locked(config.api_socket.clone()))?;
        let api = socket::bind(&config.api_socket)?;
        let api_identity = SocketIdentity::of(&config.api_socket);
        let client = match socket::bind(&config.client_socket) {
            Ok(client) => client,
            Err(e) => {
                api_identity.remove_if_owned();
                return Err(e);
            }
        };
        let client_identity = SocketIdentity::of(&config.client_socket);
        Ok(Self { lock, api, client, api_identity, client_identity, import: None })
    }

    /// The sockets and lock a live handoff passed (`conv` is told when the adoption is done).
    pub(crate) fn handed_over(
        config: &ServerConfig,
        lock: OwnedFd,
        api: OwnedFd,
        client: OwnedFd,
        conv: handoff::wire::Conversation,
    ) -> std::io::Result<Self> {
        let (api, client) = (UnixListener::from(api), UnixListener::from(client));
        // Shared with the old supervisor's description, which is non-blocking already; said
        // again so the reactor never blocks on an accept.
        api.set_nonblocking(true)?;
        client.set_nonblocking(true)?;
        Ok(Self {
            lock: SessionLock::inherited(lock),
            api,
            client,
            api_identity: SocketIdentity::of(&config.api_socket),
            client_identity: SocketIdentity::of(&config.client_socket),
            import: Some(conv),
        })
    }

    /// Dups of what a live handoff passes on.
    fn passable(&self) -> std::io::Result<handoff::Passable> {
        Ok(handoff::Passable {
            lock: self.lock.fd().try_clone_to_owned()?,
            api: self.api.as_fd().try_clone_to_owned()?,
            client: self.client.as_fd().try_clone_to_owned()?,
        })
    }
}

/// `herdr server`: binds, then runs until `server.stop`, SIGTERM or SIGINT. Blocks the thread.
pub fn serve_blocking(config: ServerConfig) -> anyhow::Result<()> {
    prepare_process()?;
    let sockets = Sockets::bind(&config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async {
        let stop = termination()?;
        run(config, sockets, stop).await
    })
}

/// What every supervisor process does first (`serve_blocking`, a handoff's importer).
pub(crate) fn prepare_process() -> anyhow::Result<()> {
    raise_fd_limit();
    reaper::become_subreaper().context("could not become a child subreaper")
}

/// Runs a supervisor on `sockets` until `shutdown` resolves or `server.stop` is called, then
/// saves the session and ends every pane. A supervisor that is dropped or dies without getting
/// here leaves its workers running for the next one.
pub async fn run(
    config: ServerConfig,
    sockets: Sockets,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let runtime = RuntimeDir::prepare(&config.api_socket)?;
    clients::clear_stale_scrollback(&config);
    let (session, autosave, mut restored) = load_session(&config);
    resumes::plan_restored(&session, &mut restored, config.resume_agents);
    let shared = Shared::with_session(config, runtime, autosave, session, clients::Screens::shared());
    tokio::spawn(reaper::reap_forever());
    adopt_and_restore(&shared, restored).await;
    let mut sockets = sockets;
    if let Some(conv) = sockets.import.take() {
        handoff::announce_ready(conv).await;
    }
    match sockets.passable() {
        Ok(passable) => shared.handoff.offer(passable),
        Err(e) => log::warn!("live handoff unavailable: cannot dup the session's sockets: {e}"),
    }

    let api = socket::listen(sockets.api).context("could not serve the API socket")?;
    let client_listener = socket::listen(sockets.client).context("could not serve the client socket")?;
    log::info!("herdr supervisor listening on {}", shared.config.api_socket.display());
    // Both sockets bound, every pane adopted or started: `systemctl start` may return now.
    sd_notify::notify(sd_notify::State::Ready { main_pid: std::process::id() });
    // Adopted workers of another build move to ours, in the background (`workers/upgrade.rs`).
    tokio::spawn(crate::workers::upgrade_outdated(shared.all_pane_handles(), shared.handoff.swapping()));
    let saver = tokio::spawn(Autosave::run(shared.clone()));
    tokio::spawn(crate::plugins::hooks::run(shared.clone()));
    // Session restored and the API socket served: the plugins' `[[startup]]` commands.
    crate::plugins::startup::run_all(&shared);
    let (saving, resuming) = (shared.clone(), shared.clone());
    let runtime = tokio::runtime::Handle::current();
    let shutdown_notices = tokio::spawn(logind::save_before_shutdown(logind::Hooks {
        save: Arc::new(move || {
            saving.autosave.finish(saving.encoded_session());
            // On logind's blocking thread; the runtime's own thread drives the workers' answers.
            runtime.block_on(pane_history::save(&saving));
        }),
        resume: Box::new(move || resuming.autosave.resume()),
    }));
    let clients = tokio::spawn(clients::serve(shared.clone(), client_listener));
    {
        let shared = shared.clone();
        tokio::spawn(async move {
            shutdown.await;
            shared.begin_shutdown();
        });
    }

    let mut stop = shared.shutdown_signal();
    // During a live handoff nothing is accepted: connections wait in the backlog for whoever
    // serves next.
    let mut swapping = shared.handoff.swapping();
    loop {
        let paused = *swapping.borrow_and_update();
        tokio::select! {
            _ = swapping.changed() => {}
            accepted = api.accept(), if !paused => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(transport::serve(shared.clone(), stream));
                }
                Err(e) => log::warn!("accept failed: {e}"),
            },
            _ = stop.wait_for(|stopping| *stopping) => break,
        }
    }
    drop(api);
    shared.plugins.logs.kill_running();
    if shared.handoff.committed() {
        // The importer serves the session now, on these very sockets, with these workers; under
        // systemd it becomes the service's main process before this one exits.
        // Wait until systemd has read it: if it saw this process exit first, the unit would end
        // with its old main process and the importer would run outside it.
        sd_notify::notify_and_wait(
            sd_notify::State::MainPid(shared.handoff.successor()),
            Duration::from_secs(5),
        );
        saver.abort();
        shutdown_notices.abort();
        let _ = tokio::time::timeout(Duration::from_secs(2), clients).await;
        log::info!("herdr supervisor handed the session over");
        return Ok(());
    }
    sd_notify::notify(sd_notify::State::Stopping);
    sockets.api_identity.remove_if_owned();
    sockets.client_identity.remove_if_owned();
    // Saved before any pane closes, so the file keeps the whole layout.
    saver.abort();
    shutdown_notices.abort();
    shared.autosave.finish(shared.encoded_session());
    pane_history::save(&shared).await;
    close_all_panes(&shared).await;
    // Attached terminals are told the server is stopping; a stuck one does not hold us up.
    let _ = tokio::time::timeout(Duration::from_secs(2), clients).await;
    reaper::reap_remaining(Duration::from_secs(2)).await;
    log::info!("herdr supervisor stopped");
    Ok(())
}

/// The session to start from: `session.json` restored (with the spawns that bring its panes
/// back), or an empty one. A file that cannot be loaded is kept in `session-backups/` before
/// anything may overwrite it; if even that fails, every save tries again first and writes
/// nothing until it works. A file missing now is looked at again before the first save.
fn load_session(config: &ServerConfig) -> (Session, Autosave, Effects) {
    let empty = || Session::new(HEADLESS_COLS, HEADLESS_ROWS);
    if !config.persist {
        return (empty(), Autosave::disabled(), Effects::default());
    }
    let path = config.data_dir.join(persist::SESSION_FILE);
    if let Err(e) = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&config.data_dir) {
        log::error!(
            "cannot create the session data dir {}: {e}; not saving this session",
            config.data_dir.display()
        );
        return (empty(), Autosave::disabled(), Effects::default());
    }
    pane_history::forget_unless_enabled(config);
    match persist::load(&path) {
        persist::LoadOutcome::Missing => {
            (empty(), Autosave::owing(path, persist::Owed::Recheck), Effects::default())
        }
        persist::LoadOutcome::Loaded(snapshot) => {
            let on_disk = std::fs::read(&path).ok();
            let replays = pane_history::replays_for(config, on_disk.as_deref(), &snapshot);
            let (session, mut effects) = Session::restore(snapshot, HEADLESS_COLS, HEADLESS_ROWS);
            pane_history::attach(&mut effects, replays);
            log::info!("persist.load path={} panes={}", path.display(), effects.spawns.len());
            (session, Autosave::to(path, on_disk), effects)
        }
        persist::LoadOutcome::Failed { reason, original: None } => {
            log::error!(
                "persist.load_failed path={}: {reason}; not saving this session, so the file stays as it is",
                path.display()
            );
            (empty(), Autosave::disabled(), Effects::default())
        }
        persist::LoadOutcome::Failed { reason, original: Some(original) } => {
            log::warn!("persist.load_failed path={}: {reason}", path.display());
            match persist::backup_original(&path, &original) {
                Ok(backup) => {
                    log::warn!("persist.backup path={}", backup.display());
                    (empty(), Autosave::to(path, None), Effects::default())
                }
                Err(e) => {
                    log::error!(
                        "persist.backup_failed path={}: {e}; the file stays as it is until a save can keep it",
                        path.display()
                    );
                    (empty(), Autosave::owing(path, persist::Owed::Backup(original)), Effects::default())
                }
            }
        }
    }
}

/// The adoption phase: every restored pane gets its surviving worker or a new program, then
/// workers nobody's layout knows are adopted into the `recovered` workspace.
async fn adopt_and_restore(shared: &Arc<Shared>, restored: Effects) {
    let started = std::time::Instant::now();
    let launched = shared.apply(restored);
    let starts = count(launched).await;
    let (mut adopted, fresh, awaiting) = (starts.adopted, starts.fresh, starts.awaiting.len());
    shared.resumes.arm(starts.awaiting);
    let known: std::collections::HashSet<String> = {
        let session = shared.session();
        session.pane_keys().iter().filter_map(|k| session.pane_uid(*k).map(str::to_owned)).collect()
    };
    let strays: Vec<String> =
        shared.runtime.worker_uids().into_iter().filter(|uid| !known.contains(uid)).collect();
    let mut recovered = Effects::default();
    for uid in strays {
        shared.runtime.remove_stale(&uid);
        if shared.runtime.worker_socket(&uid).exists() {
            let (_, effects) = shared.session().add_recovered_pane(uid, None);
            recovered.merge(effects);
        }
    }
    let recovered_count = recovered.spawns.len();
    adopted += count(shared.apply(recovered)).await.adopted;
    if adopted + fresh + awaiting > 0 {
        log::info!(
            "adoption: {adopted} workers adopted ({recovered_count} not in the saved layout), {fresh} panes started again, {awaiting} wait for a client to resume their agent, in {} ms",
            started.elapsed().as_millis()
        );
    }
}

/// How the panes of one [`Shared::apply`] started.
#[derive(Default)]
struct Starts {
    adopted: usize,
    fresh: usize,
    /// Panes whose agent resume waits for a client (no worker was adopted).
    awaiting: Vec<crate::session::PaneKey>,
}

/// Waits for every start.
async fn count(launched: Launched) -> Starts {
    let mut starts = Starts::default();
    for (key, rx) in launched {
        match rx.await {
            Ok(Ok(started)) if started.adopted => starts.adopted += 1,
            Ok(Ok(started)) if started.awaiting_resume => starts.awaiting.push(key),
            Ok(Ok(_)) => starts.fresh += 1,
            _ => {}
        }
    }
    starts
}

/// Server stop ends every pane: each worker hangs up its program.
async fn close_all_panes(shared: &Arc<Shared>) {
    let mut closing = JoinSet::new();
    for handle in shared.take_all_panes() {
        closing.spawn(async move { handle.shutdown().await });
    }
    while closing.join_next().await.is_some() {}
}

/// Resolves on SIGTERM or SIGINT. SIGHUP is ignored: a daemon outlives the terminal that started
/// it.
pub(crate) fn termination() -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    let mut term = signal(SignalKind::terminate()).context("SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("SIGINT handler")?;
    let mut hup = signal(SignalKind::hangup()).context("SIGHUP handler")?;
    Ok(async move {
        loop {
            tokio::select! {
                _ = term.recv() => break,
                _ = int.recv() => break,
                _ = hup.recv() => continue,
            }
        }
    })
}

/// Each API client and each pane's PTY master hold descriptors; lift the soft limit to the hard one.
fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}
