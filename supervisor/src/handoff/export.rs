//! The old supervisor's side of a live handoff: start the importer, check it, pause, pass the
//! sockets and the lock, let go of every worker, and commit; or, on any failure before the
//! commit, kill the importer and serve on as if nothing happened.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use herdr_host::pidfd::PidFd;
use herdr_protocol::handoff::{HANDOFF_VERSION, Manifest, Step};
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION, paths};
use tokio::net::UnixListener;

use super::wire::{Conversation, STEP_TIMEOUT};
use super::{HandoffError, Params, borrowed};
use crate::state::Shared;
use crate::workers::Released;

/// How long one pane's task may take to let go of its worker.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an importer that exited may still have a step in flight: it is in the socket already,
/// or the socket reads EOF.
const LAST_WORDS: Duration = Duration::from_millis(500);
/// The detached server's log, in the session data dir (the CLI's `herdr server --detach` log).
const LOG_FILE_NAME: &str = "herdr-server.log";

/// `server.live_handoff`: `Ok` once the importer has taken over (the caller then stops this
/// supervisor without ending anything); an error after rolling back.
pub async fn export(shared: &Arc<Shared>, params: Params) -> Result<(), HandoffError> {
    let Ok(_busy) = shared.handoff.busy.try_lock() else { return Err(HandoffError::Busy) };
    let passable =
        shared.handoff.passable().ok_or(HandoffError::NotServing)?.map_err(HandoffError::Prepare)?;
    let started = Instant::now();
    let socket =
        paths::runtime_dir(&shared.config.api_socket).join(format!("handoff-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).map_err(HandoffError::Prepare)?;
    let _ = std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600));
    let token = random_token().map_err(HandoffError::Prepare)?;
    let exe = params.import_exe.clone().unwrap_or_else(|| shared.config.bin_path.clone());
    log::info!("handoff: starting the importer {}", exe.display());
    let (importer_pid, importer) = spawn_importer(shared, &exe, &socket, &token)?;
    let mut released = Vec::new();
    let outcome = converse(shared, &params, &listener, &importer, &token, &passable, &mut released).await;
    drop(listener);
    let _ = std::fs::remove_file(&socket);
    match outcome {
        Ok(()) => {
            for pane in released {
                pane.hand_over();
            }
            shared.handoff.commit(importer_pid);
            log::info!("handoff: committed to {} in {} ms", exe.display(), started.elapsed().as_millis());
            Ok(())
        }
        Err(e) => {
            log::warn!("handoff: {e}; serving on");
            if let Some(pidfd) = &importer {
                pidfd.kill();
                let _ = tokio::time::timeout(Duration::from_secs(2), pidfd.exited()).await;
            }
            let paused = !released.is_empty() || *shared.handoff.swapping().borrow();
            for pane in released {
                pane.reclaim();
            }
            if paused {
                shared.autosave.resume();
            }
            shared.handoff.set_swapping(false);
            Err(e)
        }
    }
}

/// The conversation up to the commit. `released` collects the panes let go of, so a failure
/// can take them back.
async fn converse(
    shared: &Arc<Shared>,
    params: &Params,
    listener: &UnixListener,
    importer: &Option<PidFd>,
    token: &str,
    passable: &super::Passable,
    released: &mut Vec<Released>,
) -> Result<(), HandoffError> {
    let Some(importer) = importer else { return Err(HandoffError::ImporterExited) };
    let stream = tokio::select! {
        accepted = tokio::time::timeout(STEP_TIMEOUT, listener.accept()) => match accepted {
            Ok(Ok((stream, _))) => stream,
            Ok(Err(e)) => return Err(HandoffError::Prepare(e)),
            Err(_) => return Err(super::wire::WireError::TimedOut.into()),
        },
        () = importer.exited() => return Err(HandoffError::ImporterExited),
    };
    let mut conv = Conversation::new(stream);
    match next(&mut conv, importer).await? {
        Step::Hello { token: given } if given == token => {}
        Step::Hello { .. } => return Err(HandoffError::BadToken),
        other => return Err(HandoffError::OutOfTurn(format!("{other:?}"))),
    }
    let manifest = Manifest {
        handoff_version: HANDOFF_VERSION,
        source_version: HERDR_VERSION.to_owned(),
        source_protocol: PROTOCOL_VERSION,
        expected_version: params.expected_version.clone(),
        expected_protocol: params.expected_protocol,
        api_socket: shared.config.api_socket.display().to_string(),
        worker_link_versions: shared
            .all_pane_handles()
            .iter()
            .filter_map(|h| h.link_version())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    conv.send(&Step::Manifest(manifest), &[]).await?;
    match next(&mut conv, importer).await? {
        Step::Validated => {}
        Step::Refused { reason } => return Err(HandoffError::Refused(reason)),
        other => return Err(HandoffError::OutOfTurn(format!("{other:?}"))),
    }
    // From here on nothing new is served until the importer does (or we resume).
    shared.handoff.set_swapping(true);
    shared.autosave.finish(shared.encoded_session());
    *released = release_all(shared).await;
    conv.send(&Step::Fds, &borrowed(passable)).await?;
    match next(&mut conv, importer).await? {
        Step::Ready => {}
        other => return Err(HandoffError::OutOfTurn(format!("{other:?}"))),
    }
    conv.send(&Step::Committed, &[]).await?;
    Ok(())
}

/// The importer's next step, or why there is none (it exited, it went quiet). An importer that
/// refuses sends its reason and exits at once; on a busy machine its exit can be seen before
/// the line is read, so what it wrote before exiting is still taken (the reason is the answer
/// the caller needs, not "it exited").
async fn next(conv: &mut Conversation, importer: &PidFd) -> Result<Step, HandoffError> {
    tokio::select! {
        biased;
        step = conv.recv() => Ok(step?),
        () = importer.exited() => match conv.recv_within(LAST_WORDS).await {
            Ok(step) => Ok(step),
            Err(_) => Err(HandoffError::ImporterExited),
        },
    }
}

/// Closes every pane's worker link without a `Shutdown`, all at once: each worker then waits
/// for the importer's `Adopt`.
async fn release_all(shared: &Arc<Shared>) -> Vec<Released> {
    let mut releasing = tokio::task::JoinSet::new();
    for handle in shared.all_pane_handles() {
        releasing.spawn(async move { handle.release(RELEASE_TIMEOUT).await });
    }
    let mut released = Vec::new();
    while let Some(done) = releasing.join_next().await {
        if let Ok(Some(pane)) = done {
            released.push(pane);
        }
    }
    released
}

/// Starts `exe server --handoff-import <socket> <token>` for this session, detached (its own
/// session, like `--detach`), with our environment. Its output goes where ours does when that is
/// the journal (stderr inherited with `$JOURNAL_STREAM`, so the importer's own logger sees the
/// stream it names and sends structured records, and a service's log stays in one place);
/// otherwise it is appended to the server log (a foreground supervisor's terminal is no place
/// for a daemon's output, and a detached one writes to that log already).
/// Returns its pid and a pidfd on it: it is our child, but the reaper reaps it, so only a pidfd
/// says when it exits and kills exactly it.
fn spawn_importer(
    shared: &Shared,
    exe: &Path,
    socket: &Path,
    token: &str,
) -> Result<(u32, Option<PidFd>), HandoffError> {
    let spawn_error = |source| HandoffError::Spawn { exe: exe.to_owned(), source };
    let mut command = Command::new(exe);
    command.arg("server");
    if let Some(session) = &shared.config.session_name {
        command.arg("--session").arg(session);
    }
    if !shared.config.persist {
        command.arg("--no-session");
    }
    command.arg("--handoff-import").arg(socket).arg(token);
    command.stdin(Stdio::null());
    if herdr_host::logging::stderr_is_journal() {
        command.stdout(Stdio::inherit()).stderr(Stdio::inherit());
    } else {
        let log_path: PathBuf = shared.config.data_dir.join(LOG_FILE_NAME);
        let log =
            OpenOptions::new().create(true).append(true).mode(0o600).open(&log_path).map_err(spawn_error)?;
        command.stdout(log.try_clone().map_err(spawn_error)?).stderr(log);
    }
    // SAFETY: the closure runs in the forked child before exec and only calls setsid(2), which is
    // async-signal-safe; it allocates nothing and touches no parent state.
    unsafe {
        command.pre_exec(|| nix::unistd::setsid().map(drop).map_err(std::io::Error::from));
    }
    let child = command.spawn().map_err(spawn_error)?;
    let pid = i32::try_from(child.id()).unwrap_or(0);
    // Opened before the reaper can reap it: a pidfd of a zombie still reports the exit.
    Ok((child.id(), PidFd::open(pid)))
}

fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
