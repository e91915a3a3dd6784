//! The second build of the worker-upgrade drill: `herdr` and `herdr-pane-worker` built with
//! `HERDR_LINK_VERSION_BUMP=1` (one worker link version newer) and copied to `target/link-next/`
//! by `scripts/test`. Missing binaries fail the test with the command that builds them: a drill
//! that cannot run must not pass.

use std::path::PathBuf;

use herdr_e2e::binaries;

/// The command `scripts/test` runs to make the link-next binaries.
pub const BUILD: &str = "HERDR_LINK_VERSION_BUMP=1 cargo build -p herdr-cli --bin herdr -p herdr-pane-worker \
     --bin herdr-pane-worker && mkdir -p target/link-next && cp target/debug/herdr target/debug/herdr-pane-worker \
     target/link-next/ && cargo build --workspace --bins";

/// `target/link-next/`, next to the profile folder the normal binaries are in.
pub fn dir() -> PathBuf {
    let bins = binaries::bin_dir();
    bins.parent().map_or_else(|| bins.join("link-next"), |target| target.join("link-next"))
}

/// The link-next `herdr` and `herdr-pane-worker`, panicking with the build command when either
/// is missing.
pub fn binaries() -> (PathBuf, PathBuf) {
    let dir = dir();
    let (herdr, worker) = (dir.join("herdr"), dir.join("herdr-pane-worker"));
    for path in [&herdr, &worker] {
        assert!(
            path.is_file(),
            "{} is missing: build the link-next binaries with\n  {BUILD}",
            path.display()
        );
    }
    (herdr, worker)
}
