//! `config.toml`: the settings the terminal UI reads (`[ui]`, `[keys]`, `[theme]`, and the
//! `[server]` headless size), with upstream's keys and defaults. Parsing never fails: a broken
//! file, a wrong type or an out-of-range value becomes a [`Diagnostic`] (file, key, problem) and
//! that setting keeps its default. Tables owned by other parts (`terminal`, `update`, `session`,
//! `worktrees`, `remote`, `advanced`, `experimental`, `onboarding`) are accepted as known here
//! and validated by their owners.
//!
//! Pure apart from [`load`], which only reads the file.

mod client_keys;
mod keys;
mod reader;
mod theme;
mod ui;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;
use std::time::Duration;

use toml::Table;

use crate::keymap::Bindings;
use crate::render::Theme;

pub use client_keys::{ClientKeysError, portable_keys};
pub use keys::{CustomCommand, KeysConfig};
pub use theme::ThemeConfig;
pub use ui::{SIDEBAR_TOKENS, SoundConfig, TOAST_POSITIONS, ToastConfig, UiConfig};

use reader::Reader;

/// How long a worker that lost its supervisor waits for the next one before it hangs up its
/// program (`[session] worker_orphan_timeout_secs`): long enough to survive a night, short enough
/// that panes nobody comes back for end.
pub const DEFAULT_ORPHAN_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// One problem found in a config file; the setting it names fell back to its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    /// Dotted key path (`ui.toast.delay_seconds`); empty for a file-level problem.
    pub key: String,
    pub problem: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.problem)
        }
    }
}

/// The TUI's view of `config.toml`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub ui: UiConfig,
    pub keys: KeysConfig,
    pub theme: ThemeConfig,
    pub headless_cols: u16,
    pub headless_rows: u16,
    /// `[session] worker_orphan_timeout_secs`: how long panes outlive a supervisor that died
    /// while no new one adopts them (default a day).
    pub worker_orphan_timeout_secs: u64,
    /// `[experimental] pane_history`: save each pane's recent screen at stop and replay it into
    /// the pane started again after a restart (off by default: screens can hold secrets).
    pub pane_history: bool,
    /// `[experimental] kitty_graphics`: whether `pane.graphics.*` may be used (off by default;
    /// with it on they still answer `feature_disabled`, see ARCHITECTURE.md "Kitty graphics").
    pub kitty_graphics: bool,
    /// `[session] resume_agents_on_restore`: restored agent panes start their agent's own resume
    /// command (default true).
    pub resume_agents_on_restore: bool,
    /// `[worktrees] directory`: where `worktree.create` puts a checkout without a `path`
    /// (`<directory>/<repo>/<branch slug>`), as written (`~` is expanded where it is used).
    pub worktrees_directory: String,
    /// `[advanced] scrollback_limit_bytes` (alias `scrollback_lines`, upstream's older name for
    /// the same byte budget): the most memory one pane's scrollback may take. The terminal
    /// engine keeps whole pages, at least two, so a tiny budget still keeps some history.
    pub scrollback_limit_bytes: usize,
}

/// Upstream's default `[advanced] scrollback_limit_bytes` (10 MB: about 10,000 rows of 120 columns).
pub const DEFAULT_SCROLLBACK_LIMIT_BYTES: usize = 10_000_000;

/// Upstream's default `[worktrees] directory`.
pub const DEFAULT_WORKTREES_DIRECTORY: &str = "~/.herdr/worktrees";

impl Default for Config {
    fn default() -> Self {
        parse("", "").0
    }
}

const TOP_LEVEL: &[&str] = &[
    "onboarding",
    "server",
    "theme",
    "terminal",
    "update",
    "keys",
    "ui",
    "session",
    "worktrees",
    "remote",
    "advanced",
    "experimental",
];

/// Parses config text; `file` names it in diagnostics.
pub fn parse(text: &str, file: &str) -> (Config, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let table = match text.parse::<Table>() {
        Ok(table) => table,
        Err(e) => {
            let problem = format!("not valid TOML, using all defaults: {}", e.to_string().trim_end());
            diagnostics.push(Diagnostic { file: file.to_string(), key: String::new(), problem });
            Table::new()
        }
    };
    let mut r = Reader { file: file.to_string(), diagnostics: &mut diagnostics };
    r.check_keys(&table, "", TOP_LEVEL);
    let empty = Table::new();
    let ui_table = r.table(&table, "", "ui").unwrap_or(&empty);
    let ui = ui::parse(&mut r, ui_table);
    let keys_table = r.table(&table, "", "keys").unwrap_or(&empty);
    let keys = keys::parse(&mut r, keys_table);
    let theme_table = r.table(&table, "", "theme").unwrap_or(&empty);
    let theme = theme::parse(&mut r, theme_table);
    let server = r.table(&table, "", "server").unwrap_or(&empty);
    r.check_keys(server, "server", &["headless_cols", "headless_rows"]);
    let headless_cols = r.u16(server, "server", "headless_cols", 120, (2, 10000));
    let headless_rows = r.u16(server, "server", "headless_rows", 40, (2, 10000));
    let session = r.table(&table, "", "session").unwrap_or(&empty);
    let default_orphan = DEFAULT_ORPHAN_TIMEOUT.as_secs();
    let orphan =
        r.int(session, "session", "worker_orphan_timeout_secs", default_orphan as i64, (1, 30 * 86_400));
    let worker_orphan_timeout_secs = u64::try_from(orphan).unwrap_or(default_orphan);
    // Other `[experimental]` keys are upstream's; only these two are read here.
    let experimental = r.table(&table, "", "experimental").unwrap_or(&empty);
    let pane_history = r.bool(experimental, "experimental", "pane_history", false);
    let kitty_graphics = r.bool(experimental, "experimental", "kitty_graphics", false);
    let resume_agents_on_restore = r.bool(session, "session", "resume_agents_on_restore", true);
    let worktrees = r.table(&table, "", "worktrees").unwrap_or(&empty);
    r.check_keys(worktrees, "worktrees", &["directory"]);
    let worktrees_directory = r.string(worktrees, "worktrees", "directory", DEFAULT_WORKTREES_DIRECTORY);
    let advanced = r.table(&table, "", "advanced").unwrap_or(&empty);
    r.check_keys(advanced, "advanced", &["scrollback_limit_bytes", "scrollback_lines"]);
    let key = if advanced.contains_key("scrollback_limit_bytes") {
        "scrollback_limit_bytes"
    } else {
        "scrollback_lines"
    };
    let default_scrollback = DEFAULT_SCROLLBACK_LIMIT_BYTES as i64;
    let scrollback = r.int(advanced, "advanced", key, default_scrollback, (0, 1 << 32));
    let scrollback_limit_bytes = usize::try_from(scrollback).unwrap_or(DEFAULT_SCROLLBACK_LIMIT_BYTES);
    let config = Config {
        ui,
        keys,
        theme,
        headless_cols,
        headless_rows,
        worker_orphan_timeout_secs,
        pane_history,
        kitty_graphics,
        resume_agents_on_restore,
        worktrees_directory,
        scrollback_limit_bytes,
    };
    (config, diagnostics)
}

/// Reads and parses `path`. A missing file is the defaults without complaint; an unreadable one
/// is a diagnostic.
pub fn load(path: &Path) -> (Config, Vec<Diagnostic>) {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &file),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Config::default(), Vec::new()),
        Err(e) => {
            let problem = format!("cannot read, using all defaults: {e}");
            (Config::default(), vec![Diagnostic { file, key: String::new(), problem }])
        }
    }
}

impl Config {
    /// The key table for the keymap.
    pub fn bindings(&self) -> &Bindings {
        &self.keys.bindings
    }

    /// The resolved colour theme.
    pub fn theme(&self) -> &Theme {
        &self.theme.resolved
    }
}
