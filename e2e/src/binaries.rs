//! Where the binaries under test are: next to the test executable's `deps/` folder
//! (`target/debug/deps/<test>` → `target/debug/`), or `HERDR_E2E_BIN_DIR` when set (to run the
//! suites against a release build).
//!
//! The suites do not build anything: `scripts/test` runs `cargo build --workspace --bins` first.

use std::env;
use std::path::PathBuf;

/// The folder holding `herdr` and `herdr-pane-worker`.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = env::var_os("HERDR_E2E_BIN_DIR") {
        return PathBuf::from(dir);
    }
    let exe = env::current_exe().expect("the test executable knows its own path");
    let deps = exe.parent().expect("the test executable lives in a folder");
    let dir = if deps.file_name().is_some_and(|name| name == "deps") {
        deps.parent().expect("target/<profile>/deps has a parent")
    } else {
        deps
    };
    dir.to_path_buf()
}

/// The path of one binary, panicking with the build command when it is missing.
pub fn binary(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --workspace --bins` (scripts/test does) before the e2e suites",
        path.display()
    );
    path
}
