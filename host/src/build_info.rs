//! Which binary this supervisor runs and how it was started: what `ping` reports as `binary` and
//! `service`, so `herdr status` and `herdr update --handoff` can tell that the running server is
//! another build than the `herdr` on disk (an install replaced the file, a copy elsewhere).
//!
//! The identity is device, inode, size and mtime of the running image, read by `fstat` of
//! `/proc/self/exe`: that link names the file the process was executed from even after the path
//! has been replaced or removed, so it is cheap (no hashing) and stays true for the whole run.
//! The same function gives a CLI its own identity to compare against.

use std::os::fd::AsFd;
use std::path::Path;
use std::sync::OnceLock;

use herdr_protocol::api::{ServerBinary, ServiceMode, ServiceState};

/// What a supervisor says about itself; recorded once, at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInfo {
    pub binary: ServerBinary,
    pub service: ServiceState,
}

static RECORDED: OnceLock<BuildInfo> = OnceLock::new();

/// Records this process's binary and start mode (the first call wins) and returns them.
pub fn record() -> &'static BuildInfo {
    RECORDED.get_or_init(|| BuildInfo { binary: current_binary(), service: current_service() })
}

/// `device:inode:size:mtime_sec.mtime_nsec` of the file behind `path` (opened, so a
/// `/proc/<pid>/exe` link yields the running image, not what the path names now).
pub fn identity_of(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let stat = nix::sys::stat::fstat(file.as_fd()).map_err(std::io::Error::from)?;
    Ok(format!(
        "{}:{}:{}:{}.{:09}",
        stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime, stat.st_mtime_nsec
    ))
}

/// The running image's identity (see [`identity_of`]); "unknown: …" when `/proc` cannot say,
/// which never equals another identity.
pub fn current_identity() -> String {
    identity_of(Path::new("/proc/self/exe")).unwrap_or_else(|err| format!("unknown: {err}"))
}

fn current_binary() -> ServerBinary {
    let path = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|err| format!("unknown ({err})"));
    ServerBinary { path, identity: current_identity() }
}

fn current_service() -> ServiceState {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let systemd_env =
        std::env::var_os("INVOCATION_ID").is_some() || std::env::var_os("NOTIFY_SOCKET").is_some();
    let pid = std::process::id();
    let session_leader = nix::unistd::getsid(None).is_ok_and(|sid| sid == nix::unistd::getpid());
    service_state(systemd_env, &cgroup, session_leader, pid)
}

/// How a supervisor runs, from what systemd leaves in its environment (`INVOCATION_ID`,
/// `NOTIFY_SOCKET`), its `/proc/self/cgroup` text, and whether it leads its own session (both
/// `--detach` and a handoff's importer start with `setsid`; a foreground server does not).
///
/// The variables alone are not enough: a terminal emulator run as a service passes them to every
/// shell it starts. A service's main process sits in the unit's own cgroup, so its leaf must be a
/// `.service` too (a terminal's shells live in `.scope`s).
pub fn service_state(systemd_env: bool, cgroup: &str, session_leader: bool, pid: u32) -> ServiceState {
    let unit = if systemd_env { unit_of(cgroup) } else { None };
    let mode = if unit.is_some() {
        ServiceMode::Systemd
    } else if session_leader {
        ServiceMode::Detached
    } else {
        ServiceMode::Foreground
    };
    ServiceState { mode, unit, pid }
}

/// The service unit a cgroup v2 path ends in (`…/app.slice/herdr.service` → `herdr.service`,
/// `…/app.slice/herdr@work.service` → `herdr@work.service`); none when the leaf is a scope or
/// a slice.
fn unit_of(cgroup: &str) -> Option<String> {
    let path = cgroup.lines().find_map(|line| line.strip_prefix("0::"))?;
    path.rsplit('/').next().filter(|leaf| leaf.ends_with(".service")).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER_UNIT: &str = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/herdr.service\n";

    #[test]
    fn a_systemd_service_is_named_by_its_cgroup() {
        let state = service_state(true, USER_UNIT, true, 9);
        assert_eq!(
            state,
            ServiceState { mode: ServiceMode::Systemd, unit: Some("herdr.service".into()), pid: 9 }
        );
        let templated = "12:cpu:/x\n0::/user.slice/user@1000.service/app.slice/herdr@work.service\n";
        assert_eq!(service_state(true, templated, false, 1).unit.as_deref(), Some("herdr@work.service"));
    }

    #[test]
    fn without_systemd_the_session_tells_detached_from_foreground() {
        // A shell inside a unit's cgroup is not the unit unless systemd's variables say so.
        assert_eq!(service_state(false, USER_UNIT, true, 3).mode, ServiceMode::Detached);
        assert_eq!(service_state(false, USER_UNIT, false, 3).mode, ServiceMode::Foreground);
        assert_eq!(service_state(false, USER_UNIT, false, 3).unit, None);
    }

    #[test]
    fn systemd_variables_outside_a_service_cgroup_are_not_a_service() {
        // A shell of a terminal emulator that runs as a service inherits INVOCATION_ID.
        let terminal_shell = "0::/user.slice/user@1000.service/app.slice/vte-spawn-1f.scope\n";
        assert_eq!(service_state(true, terminal_shell, false, 1).mode, ServiceMode::Foreground);
        assert_eq!(service_state(true, "0::/\n", true, 1).mode, ServiceMode::Detached);
        assert_eq!(service_state(true, "", false, 1).unit, None);
    }

    #[test]
    fn identity_changes_when_the_file_is_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("herdr");
        std::fs::write(&path, b"build one").expect("write");
        let first = identity_of(&path).expect("identity");
        assert_eq!(identity_of(&path).expect("identity"), first, "stable while the file is the same");
        // What an install does: a new file renamed over the old path.
        let next = dir.path().join("herdr.new");
        std::fs::write(&next, b"build two!").expect("write");
        std::fs::rename(&next, &path).expect("rename");
        assert_ne!(identity_of(&path).expect("identity"), first);
        assert!(current_identity().split(':').count() == 4, "{}", current_identity());
    }
}
