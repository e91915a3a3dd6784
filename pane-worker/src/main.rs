//! `herdr-pane-worker --ipc-fd N [--scrollback-limit-bytes B]`: one pane's process, started by the
//! herdr supervisor with one end of a socketpair inherited as fd N. Everything else lives in the
//! library.

use std::{
    io::Write,
    os::fd::{FromRawFd, OwnedFd},
};

use anyhow::Context;

/// Warnings go to stderr, which the supervisor forwards to its own log.
///
/// Never `eprintln!`: it panics when stderr fails, and a worker outlives its supervisor, whose
/// terminal or journal stream may be gone by then. A lost warning must not kill the pane.
struct StderrLog;

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let line =
                format!("herdr-pane-worker[{}]: {}: {}\n", std::process::id(), record.level(), record.args());
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }

    fn flush(&self) {}
}

static LOG: StderrLog = StderrLog;

fn main() -> anyhow::Result<()> {
    // Only fails if a logger is already set, which cannot happen this early.
    let _ = log::set_logger(&LOG).map(|()| log::set_max_level(log::LevelFilter::Warn));
    let args = herdr_pane_worker::parse_args(std::env::args().skip(1))?;
    if let Some(bytes) = args.scrollback_limit_bytes {
        herdr_pane_worker::engine::set_scrollback_limit(bytes);
    }
    // SAFETY: the supervisor's invocation contract hands us this fd as our end of the link and
    // nothing else in this process uses it; a bad number fails at the first socket call.
    let ipc = unsafe { OwnedFd::from_raw_fd(args.ipc_fd) };
    herdr_pane_worker::run(ipc).context("pane worker")
}
