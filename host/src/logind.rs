//! Saving before the host shuts down or reboots, on Linux with systemd-logind.
//!
//! A power-off or reboot kills every process of the user at once; SIGTERM alone races the panes
//! dying. So the supervisor holds a logind *delay* inhibitor on `shutdown`: when logind
//! announces a shutdown (`PrepareForShutdown(true)`) it waits, at most `InhibitDelayMaxSec` (5 s
//! by default), until every delay inhibitor is released. We save the session, then release ours.
//! The OS bounds the delay, so herdr never blocks a shutdown for long; a cancelled shutdown
//! (`PrepareForShutdown(false)`) lets saving go on and takes a new inhibitor for the next one.
//!
//! This is the only module that talks D-Bus. Without a system bus or a login1 service it logs
//! once and returns: the supervisor then saves on SIGTERM as it always did. Every bus operation
//! is async and bounded by [`CALL_TIMEOUT`]; the blocking save runs off the runtime thread.

use std::future::poll_fn;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_core::Stream;
use zbus::fdo;
use zbus::message::Type as MessageType;
use zbus::{Connection, MatchRule, MessageStream};

const SERVICE: &str = "org.freedesktop.login1";
const PATH: &str = "/org/freedesktop/login1";
const MANAGER: &str = "org.freedesktop.login1.Manager";
const NOTICE: &str = "PrepareForShutdown";
/// What logind shows for our inhibitor (`systemd-inhibit --list`).
const WHO: &str = "herdr";
const WHY: &str = "saving the herdr session";

/// Bounds connecting to the bus and each call on it: a stuck bus never holds the supervisor up.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// What a shutdown notice does to the session; the server wires these to the autosave.
pub struct Hooks {
    /// The save before a shutdown. It blocks (it writes the file), so it runs on a blocking
    /// thread; nothing may be saved after it until [`Hooks::resume`].
    pub save: Arc<dyn Fn() + Send + Sync>,
    /// The announced shutdown was cancelled: saving goes on as before.
    pub resume: Box<dyn Fn() + Send>,
}

#[derive(Debug, thiserror::Error)]
enum LogindError {
    #[error("cannot reach the system bus: {0}")]
    Bus(#[source] zbus::Error),
    #[error("timed out {0}")]
    TimedOut(&'static str),
    #[error("{what} failed: {source}")]
    Call {
        what: &'static str,
        #[source]
        source: zbus::Error,
    },
}

impl LogindError {
    /// No bus, or a bus without logind: the ordinary case on machines without systemd.
    fn is_absent(&self) -> bool {
        match self {
            Self::Bus(_) => true,
            Self::Call { source: zbus::Error::FDO(error), .. } => {
                matches!(**error, fdo::Error::ServiceUnknown(_) | fdo::Error::NameHasNoOwner(_))
            }
            Self::TimedOut(_) | Self::Call { .. } => false,
        }
    }
}

/// Holds a delay inhibitor and saves through `hooks` on every shutdown notice, until the bus
/// connection ends. Returns at once (logging why) when logind is not there.
pub async fn save_before_shutdown(hooks: Hooks) {
    let (connection, mut notices, inhibitor) = match watch().await {
        Ok(parts) => parts,
        Err(error) if error.is_absent() => {
            log::info!("no logind: shutdown saves rely on SIGTERM ({error})");
            return;
        }
        Err(error) => {
            log::warn!("logind: {error}; shutdown saves rely on SIGTERM");
            return;
        }
    };
    log::info!("logind: holding a shutdown delay inhibitor");
    let mut inhibitor = Some(inhibitor);
    while let Some(shutting_down) = next_notice(&mut notices).await {
        if shutting_down {
            log::info!("logind: shutdown announced: saving the session");
            let save = Arc::clone(&hooks.save);
            if let Err(error) = tokio::task::spawn_blocking(move || save()).await {
                log::warn!("logind: the save before shutdown failed: {error}");
            }
            // Closing the descriptor is what tells logind we are done.
            if inhibitor.take().is_some() {
                log::info!("logind: session saved; delay inhibitor released");
            }
        } else {
            (hooks.resume)();
            log::info!("logind: shutdown cancelled: saving resumes");
            if inhibitor.is_none() {
                match inhibit(&connection).await {
                    Ok(fd) => {
                        inhibitor = Some(fd);
                        log::info!("logind: holding a shutdown delay inhibitor again");
                    }
                    Err(error) => log::warn!("logind: {error}; the next shutdown saves on SIGTERM"),
                }
            }
        }
    }
    log::warn!("logind: the system bus connection ended; shutdown saves rely on SIGTERM");
}

/// Connects, subscribes to shutdown notices, and takes the first inhibitor — subscribed first,
/// so a notice that follows the inhibitor cannot be missed.
async fn watch() -> Result<(Connection, MessageStream, OwnedFd), LogindError> {
    let building = zbus::connection::Builder::system().method_timeout(CALL_TIMEOUT).build();
    let connection = tokio::time::timeout(CALL_TIMEOUT, building)
        .await
        .map_err(|_| LogindError::TimedOut("connecting to the system bus"))?
        .map_err(LogindError::Bus)?;
    let call = |what| move |source| LogindError::Call { what, source };
    // A well-known sender: the bus delivers only what login1's owner sends, not look-alikes.
    let rule = MatchRule::builder()
        .msg_type(MessageType::Signal)
        .sender(SERVICE)
        .interface(MANAGER)
        .member(NOTICE)
        .path(PATH)
        .build()
        .map_err(call("building the PrepareForShutdown match rule"))?;
    let notices = MessageStream::for_match_rule(rule, &connection, None)
        .await
        .map_err(call("subscribing to PrepareForShutdown"))?;
    let inhibitor = inhibit(&connection).await?;
    Ok((connection, notices, inhibitor))
}

/// `Manager.Inhibit("shutdown", …, "delay")`: logind waits for us while the returned
/// descriptor is open.
async fn inhibit(connection: &Connection) -> Result<OwnedFd, LogindError> {
    let call = |source| LogindError::Call { what: "Inhibit", source };
    let reply = connection
        .call_method(Some(SERVICE), PATH, Some(MANAGER), "Inhibit", &("shutdown", WHO, WHY, "delay"))
        .await
        .map_err(call)?;
    let body = reply.body();
    // A dup of the descriptor the reply carries; the reply's own copy closes when it drops.
    let fd: zbus::OwnedFd = body.deserialize().map_err(call)?;
    Ok(fd.into())
}

/// The next `PrepareForShutdown` argument, or `None` once the connection is gone.
async fn next_notice(notices: &mut MessageStream) -> Option<bool> {
    loop {
        match poll_fn(|cx| Pin::new(&mut *notices).poll_next(cx)).await? {
            Ok(message) => match message.body().deserialize::<bool>() {
                Ok(shutting_down) => return Some(shutting_down),
                Err(error) => log::warn!("logind: ignoring a malformed PrepareForShutdown: {error}"),
            },
            Err(error) => log::warn!("logind: reading the system bus: {error}"),
        }
    }
}
