//! `herdr-pane-worker --ipc-fd N`: one pane's process, started by the herdr supervisor with one
//! end of a socketpair inherited as fd N. Everything else lives in the library.

use std::os::fd::{FromRawFd, OwnedFd};

use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let fd = herdr_pane_worker::parse_args(std::env::args().skip(1)).map_err(anyhow::Error::msg)?;
    // SAFETY: the supervisor's invocation contract hands us this fd as our end of the link and
    // nothing else in this process uses it; a bad number fails at the first socket call.
    let ipc = unsafe { OwnedFd::from_raw_fd(fd) };
    herdr_pane_worker::run(ipc).context("pane worker")
}
