//! Starting and stopping a supervisor: bind, accept, signals, orderly shutdown.

use std::sync::Arc;

use anyhow::Context;
use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;

use crate::api::transport;
use crate::socket::{self, SocketIdentity};
use crate::state::Shared;
use crate::{ServerConfig, clients, reaper};

/// Runs a supervisor until `server.stop`, SIGTERM or SIGINT. Blocks the calling thread.
pub fn run(config: ServerConfig) -> anyhow::Result<()> {
    raise_fd_limit();
    reaper::become_subreaper().context("could not become a child subreaper")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(serve(config))
}

async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    let listener = socket::bind(&config.api_socket)?;
    let identity = SocketIdentity::of(&config.api_socket);
    let client_listener = socket::bind(&config.client_socket)?;
    let client_identity = SocketIdentity::of(&config.client_socket);
    log::info!("herdr supervisor listening on {}", config.api_socket.display());
    clients::clear_stale_scrollback(&config);
    let shared = Shared::new(config);
    tokio::spawn(reaper::reap_forever());
    spawn_signal_watch(&shared)?;
    let clients = tokio::spawn(clients::serve(shared.clone(), client_listener));

    let mut stop = shared.shutdown_signal();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(transport::serve(shared.clone(), stream));
                }
                Err(e) => log::warn!("accept failed: {e}"),
            },
            _ = stop.wait_for(|stopping| *stopping) => break,
        }
    }
    drop(listener);
    identity.remove_if_owned();
    client_identity.remove_if_owned();
    close_all_panes(&shared).await;
    // Attached terminals are told the server is stopping; a stuck one does not hold us up.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), clients).await;
    reaper::reap_remaining(std::time::Duration::from_secs(2)).await;
    log::info!("herdr supervisor stopped");
    Ok(())
}

/// Server stop ends every pane: each worker hangs up its program.
async fn close_all_panes(shared: &Arc<Shared>) {
    let mut closing = JoinSet::new();
    for handle in shared.take_all_panes() {
        closing.spawn(async move { handle.shutdown().await });
    }
    while closing.join_next().await.is_some() {}
}

fn spawn_signal_watch(shared: &Arc<Shared>) -> anyhow::Result<()> {
    let mut term = signal(SignalKind::terminate()).context("SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("SIGINT handler")?;
    // A daemon outlives the terminal that started it.
    let mut hup = signal(SignalKind::hangup()).context("SIGHUP handler")?;
    let shared = shared.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = term.recv() => break,
                _ = int.recv() => break,
                _ = hup.recv() => continue,
            }
        }
        shared.begin_shutdown();
    });
    Ok(())
}

/// Each API client and each pane's PTY master hold descriptors; lift the soft limit to the hard one.
fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}
