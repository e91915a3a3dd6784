//! The supervisor's log: lines on stderr (the terminal of a foreground `herdr server`, or the
//! log file a detached one writes to). `HERDR_LOG` sets the level (`error` … `trace`; default `info`).

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

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

/// Installs the logger once; later calls are ignored.
pub fn init() {
    let level =
        std::env::var("HERDR_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(log::LevelFilter::Info);
    if log::set_boxed_logger(Box::new(StderrLog { level })).is_ok() {
        log::set_max_level(level);
    }
}
