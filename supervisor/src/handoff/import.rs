//! The new supervisor's side of a live handoff (`herdr server --handoff-import <sock> <token>`):
//! prove the token, check the manifest, take the sockets and the lock, then run as usual — its
//! adoption phase adopts every worker — and start serving once the old one commits.

use std::path::Path;

use anyhow::Context;
use herdr_protocol::handoff::{self, Step};
use herdr_protocol::ipc::VersionRange;
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};
use tokio::net::UnixStream;

use super::wire::Conversation;
use crate::ServerConfig;
use crate::server::Sockets;

/// Runs the importer until the session it took over stops. Blocks the thread.
pub fn import_blocking(config: ServerConfig, socket: &Path, token: &str) -> anyhow::Result<()> {
    crate::server::prepare_process()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async {
        let sockets = take_over(&config, socket, token).await?;
        let stop = crate::server::termination()?;
        crate::server::run(config, sockets, stop).await
    })
}

/// Up to the `fds` step: the session's sockets, bound by the old supervisor.
async fn take_over(config: &ServerConfig, socket: &Path, token: &str) -> anyhow::Result<Sockets> {
    let stream = UnixStream::connect(socket)
        .await
        .with_context(|| format!("cannot reach the handoff socket {}", socket.display()))?;
    let mut conv = Conversation::new(stream);
    conv.send(&Step::Hello { token: token.to_owned() }, &[]).await?;
    let manifest = match conv.recv().await? {
        Step::Manifest(manifest) => manifest,
        other => anyhow::bail!("expected the handoff manifest, got {other:?}"),
    };
    let api_socket = config.api_socket.display().to_string();
    let importer = handoff::Importer {
        version: HERDR_VERSION,
        protocol: PROTOCOL_VERSION,
        api_socket: &api_socket,
        links: VersionRange::OURS,
    };
    if let Err(reason) = handoff::validate(&manifest, &importer) {
        conv.send(&Step::Refused { reason: reason.to_string() }, &[]).await?;
        // Exiting at once could reach the exporter before the refusal does, and then it could
        // only say the importer exited: wait until it has read the reason and hung up.
        let _ = conv.recv().await;
        anyhow::bail!("refused the handoff: {reason}");
    }
    conv.send(&Step::Validated, &[]).await?;
    match conv.recv().await? {
        Step::Fds => {}
        other => anyhow::bail!("expected the session's sockets, got {other:?}"),
    }
    let [lock, api, client]: [std::os::fd::OwnedFd; 3] = conv
        .take_fds()
        .try_into()
        .map_err(|fds: Vec<_>| anyhow::anyhow!("expected 3 descriptors, got {}", fds.len()))?;
    log::info!(
        "handoff: importing the session from herdr {} (protocol {}, worker links {:?})",
        manifest.source_version,
        manifest.source_protocol,
        manifest.worker_link_versions
    );
    Ok(Sockets::handed_over(config, lock, api, client, conv)?)
}

/// After the adoption phase: tell the old supervisor, and serve only once it has committed.
/// Any failure ends the process at once, as a crash would: the workers wait for whoever serves
/// the session next (the old supervisor takes them back).
pub async fn announce_ready(mut conv: Conversation) {
    let committed = match conv.send(&Step::Ready, &[]).await {
        Ok(()) => conv.recv().await,
        Err(e) => Err(e),
    };
    match committed {
        Ok(Step::Committed) => log::info!("handoff: committed; serving the session"),
        other => {
            log::error!("handoff: the old supervisor did not commit ({other:?}); leaving the session to it");
            std::process::exit(1);
        }
    }
}
