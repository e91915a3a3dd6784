//! Pane screen history at the two ends of a server's life (`[experimental] pane_history`).
//!
//! At an orderly stop, after the final save and before any pane closes, [`save`] asks every
//! pane's worker for its recent rows as ANSI (all at once, each with a short deadline) and
//! writes `session-history.json` with a check of the `session.json` on disk. At start,
//! [`replays_for`] hands a history that matches the `session.json` being restored to the panes
//! that are started afresh (an adopted worker still has its live screen). With the option off,
//! [`forget_unless_enabled`] deletes the file at start: it may hold secrets.
//!
//! The format and the matching rules are `persist::history` (pure); this is the I/O.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec, WorkerRequest, WorkerResponse};
use tokio::task::JoinSet;

use crate::ServerConfig;
use crate::persist::{self, SessionSnapshot, history};
use crate::session::Effects;
use crate::state::Shared;

/// Rows kept per pane: a few screens' worth.
pub const HISTORY_LINES: u32 = 500;

/// How long one worker may take to answer at stop; every pane is asked at once, so this bounds
/// the whole collection.
const READ_TIMEOUT: Duration = Duration::from_secs(1);

fn history_path(config: &ServerConfig) -> PathBuf {
    config.data_dir.join(history::HISTORY_FILE)
}

/// At start, with pane history off: an old history file goes.
pub fn forget_unless_enabled(config: &ServerConfig) {
    if !config.persist || config.pane_history {
        return;
    }
    let path = history_path(config);
    if std::fs::symlink_metadata(&path).is_err() {
        return;
    }
    match persist::remove(&path) {
        Ok(()) => log::info!("persist.history_removed path={} (pane_history is off)", path.display()),
        Err(e) => log::warn!("persist.history_remove_failed path={}: {e}", path.display()),
    }
}

/// At start: what each pane of `snapshot` (restored from `session_bytes`) shows before its
/// program starts, by uid. Empty unless pane history is on and its file matches exactly.
pub fn replays_for(
    config: &ServerConfig,
    session_bytes: Option<&[u8]>,
    snapshot: &SessionSnapshot,
) -> HashMap<String, Vec<u8>> {
    let (true, Some(session_bytes)) = (config.pane_history, session_bytes) else { return HashMap::new() };
    let path = history_path(config);
    match history::read(&path) {
        Ok(None) => HashMap::new(),
        Ok(Some(file)) => match history::replays(&file, session_bytes, snapshot) {
            Ok(replays) => {
                log::info!("persist.history_load path={} panes={}", path.display(), replays.len());
                replays
            }
            Err(why) => {
                log::info!("persist.history_ignored path={}: {why}", path.display());
                HashMap::new()
            }
        },
        Err(e) => {
            log::warn!("persist.history_load_failed: {e}");
            HashMap::new()
        }
    }
}

/// Gives each restored pane its replay.
pub fn attach(effects: &mut Effects, mut replays: HashMap<String, Vec<u8>>) {
    for spawn in &mut effects.spawns {
        spawn.replay = replays.remove(&spawn.uid);
    }
}

/// At an orderly stop (or before a host shutdown), after the final save and before any pane
/// closes: writes every pane's recent screen to `session-history.json`.
pub async fn save(shared: &Shared) {
    let config = &shared.config;
    if !config.persist || !config.pane_history {
        return;
    }
    let started = Instant::now();
    let session_path = config.data_dir.join(persist::SESSION_FILE);
    let path = history_path(config);
    // The layout on disk is the one the next start restores, whatever this run managed to write
    // (a full disk may have kept an older one), so the history is built for that.
    let bytes = match std::fs::read(&session_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            log::warn!(
                "persist.history_failed path={}: cannot read {}: {e}",
                path.display(),
                session_path.display()
            );
            return;
        }
    };
    let snapshot = match persist::decode(&bytes) {
        Ok(snapshot) => snapshot,
        Err(e) => {
            log::warn!("persist.history_failed path={}: {}: {e}", path.display(), session_path.display());
            return;
        }
    };
    let screens = read_screens(shared, &snapshot).await;
    let encoded = history::encode(&history::build(&bytes, &snapshot, &screens));
    match persist::write_atomic(&path, &encoded) {
        Ok(()) => log::info!(
            "persist.history path={} panes={} bytes={} elapsed_ms={}",
            path.display(),
            screens.len(),
            encoded.len(),
            started.elapsed().as_millis()
        ),
        Err(e) => log::warn!("persist.history_failed path={}: {e}", path.display()),
    }
}

/// The recent rows (ANSI) of every live pane of `snapshot`, by uid; a pane that does not answer
/// within [`READ_TIMEOUT`] is left out.
async fn read_screens(shared: &Shared, snapshot: &SessionSnapshot) -> HashMap<String, String> {
    let keys: Vec<_> = {
        let session = shared.session();
        history::saved_uids(snapshot)
            .filter_map(|uid| Some((uid.to_owned(), session.pane_by_uid(uid)?)))
            .collect()
    };
    let mut reads = JoinSet::new();
    for (uid, key) in keys {
        let Some(handle) = shared.pane_handle(key) else { continue };
        let id = shared.next_request_id();
        let spec =
            ReadSpec { source: ReadSource::Recent, lines: Some(HISTORY_LINES), format: ReadFormat::Ansi };
        reads.spawn(async move {
            let answer =
                tokio::time::timeout(READ_TIMEOUT, handle.request(id, WorkerRequest::Read(spec))).await;
            (uid, answer)
        });
    }
    let mut screens = HashMap::new();
    while let Some(joined) = reads.join_next().await {
        match joined {
            Ok((uid, Ok(Ok(WorkerResponse::Read(out))))) => {
                screens.insert(uid, out.text);
            }
            Ok((uid, Err(_))) => {
                log::warn!(
                    "persist.history: pane {uid} did not answer within {READ_TIMEOUT:?}; its screen is not kept"
                )
            }
            Ok((uid, Ok(answer))) => log::warn!("persist.history: pane {uid} could not be read: {answer:?}"),
            Err(e) => log::warn!("persist.history: a pane read stopped: {e}"),
        }
    }
    screens
}
