//! `herdr --remote` from the `herdr` binary: it execs `herdr-remote` (next to `herdr`, or
//! `$HERDR_REMOTE_BIN`) with the same arguments. The ssh side (`herdr-remote-bridge`, libssh2 on
//! libssl and libcrypto) lives only in that binary, so every other `herdr` call, an attach or a
//! `herdr pane read`, starts without loading those libraries.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::output::{EXIT_ERROR, Rendered};

/// The remote binary's file name.
pub const REMOTE_BIN_NAME: &str = "herdr-remote";
/// Set by [`hand_over`] for `herdr-remote`: the `herdr` executable that ran it (the build a
/// host without herdr is offered a copy of).
pub const HERDR_EXE_ENV: &str = "HERDR_REMOTE_HERDR_EXE";

/// The `herdr-remote` executable: `$HERDR_REMOTE_BIN`, else next to the `herdr` binary.
pub fn remote_exe(env_override: Option<&OsStr>, herdr_exe: &Path) -> PathBuf {
    crate::server::beside_herdr(env_override, herdr_exe, REMOTE_BIN_NAME)
}

/// Replaces this process with `herdr-remote` run on `args` (program name first); returns only
/// when that cannot start, saying why.
pub fn hand_over(args: &[OsString]) -> Rendered {
    let herdr = match std::env::current_exe() {
        Ok(path) => path,
        Err(err) => {
            return Rendered::stderr(
                format!("herdr --remote: cannot find this executable: {err}\n"),
                EXIT_ERROR,
            );
        }
    };
    let exe = remote_exe(std::env::var_os("HERDR_REMOTE_BIN").as_deref(), &herdr);
    let program = args.first().cloned().unwrap_or_else(|| OsString::from("herdr"));
    let err = std::process::Command::new(&exe)
        .arg0(program)
        .args(args.iter().skip(1))
        .env(HERDR_EXE_ENV, &herdr)
        .exec();
    Rendered::stderr(
        format!("herdr --remote needs {}, which is built and installed beside herdr: {err}\n", exe.display()),
        EXIT_ERROR,
    )
}

/// In `herdr-remote`: the `herdr` that handed over ([`HERDR_EXE_ENV`]), else the `herdr` beside
/// this executable.
pub fn herdr_exe() -> std::io::Result<PathBuf> {
    match std::env::var_os(HERDR_EXE_ENV).filter(|v| !v.is_empty()) {
        Some(path) => Ok(PathBuf::from(path)),
        None => Ok(std::env::current_exe()?.with_file_name("herdr")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remote_binary_sits_beside_herdr() {
        let herdr = Path::new("/opt/herdr/bin/herdr");
        assert_eq!(remote_exe(None, herdr), PathBuf::from("/opt/herdr/bin/herdr-remote"));
    }
}
