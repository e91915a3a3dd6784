//! The supervisor's log. Started by systemd with stderr connected to the journal
//! (`$JOURNAL_STREAM` names stderr's device and inode, `systemd.exec(5)`), records go to journald
//! as structured entries (priority, message, code location); otherwise they are lines on stderr
//! (the terminal of a foreground `herdr server`, or the log file a detached one writes to).
//! `HERDR_LOG` sets the level (`error` … `trace`; default `info`).

use std::ffi::OsStr;
use std::io::Write;
use std::os::fd::AsFd;
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable systemd sets to `<device>:<inode>` of the journal stream it gave stdout/stderr.
pub const JOURNAL_STREAM_ENV: &str = "JOURNAL_STREAM";

struct StderrLog {
    level: log::LevelFilter,
}

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let line = format!(
            "{}.{:03} herdr[{}] {} {}\n",
            since_epoch.as_secs(),
            since_epoch.subsec_millis(),
            std::process::id(),
            record.level(),
            record.args()
        );
        // One write per line so concurrent writers (workers share the stream) do not interleave.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {}
}

/// Whether `journal_stream` (the value of `$JOURNAL_STREAM`) names the file `(dev, ino)`. A
/// process whose stderr was redirected after systemd started it (a shell inside a unit) keeps
/// the variable but is no longer connected, so the identity must match, not just the variable.
pub fn names_stream(journal_stream: Option<&OsStr>, dev: u64, ino: u64) -> bool {
    journal_stream.and_then(OsStr::to_str).is_some_and(|value| value == format!("{dev}:{ino}"))
}

/// Whether this process's stderr is the journal stream systemd gave it (a live handoff's
/// importer then inherits it, see `handoff/export.rs`).
pub fn stderr_is_journal() -> bool {
    let Ok(stat) = nix::sys::stat::fstat(std::io::stderr().as_fd()) else {
        return false;
    };
    names_stream(std::env::var_os(JOURNAL_STREAM_ENV).as_deref(), stat.st_dev, stat.st_ino)
}

/// Installs the logger once; later calls are ignored.
pub fn init() {
    let level =
        std::env::var("HERDR_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(log::LevelFilter::Info);
    let installed = if stderr_is_journal() {
        // journald's socket may be missing (a container without it): stderr still reaches the
        // journal through the stream, as plain lines.
        match systemd_journal_logger::JournalLog::new() {
            Ok(journal) => journal.with_syslog_identifier("herdr".to_owned()).install().is_ok(),
            Err(_) => log::set_boxed_logger(Box::new(StderrLog { level })).is_ok(),
        }
    } else {
        log::set_boxed_logger(Box::new(StderrLog { level })).is_ok()
    };
    if installed {
        log::set_max_level(level);
    }
    // Every supervisor entry point starts here: say which image runs, and record it before
    // anything could replace the file (`ping` reports the same).
    let build = crate::build_info::record();
    log::info!(
        "herdr {} running {} (identity {}), {:?} pid {}{}",
        herdr_protocol::HERDR_VERSION,
        build.binary.path,
        build.binary.identity,
        build.service.mode,
        build.service.pid,
        build.service.unit.as_deref().map(|u| format!(" in {u}")).unwrap_or_default()
    );
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::names_stream;

    #[test]
    fn the_journal_stream_must_name_stderr_itself() {
        assert!(names_stream(Some(OsStr::new("64769:123456")), 64769, 123456));
        assert!(!names_stream(Some(OsStr::new("64769:123456")), 64769, 123457));
        assert!(!names_stream(Some(OsStr::new("64769:123456")), 1, 123456));
        assert!(!names_stream(None, 64769, 123456));
        assert!(!names_stream(Some(OsStr::new("")), 0, 0));
        assert!(!names_stream(Some(OsStr::new("garbage")), 0, 0));
    }
}
