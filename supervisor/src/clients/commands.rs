//! The files and settings behind custom commands and the scrollback editor: where the private
//! scrollback files go, writing one, clearing those a killed server left, and a command's plan
//! with this server's `HERDR_*` environment. What a command does is worked out in
//! `herdr_ui::commands`.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use herdr_protocol::api::SessionSnapshot;
pub(super) use herdr_ui::commands::{CommandPlan, edit_plan_for};

use crate::ServerConfig;
use crate::config::CustomCommand;

/// The plan for `command` given the session now, with `server`'s environment for the pane.
pub(super) fn plan(
    command: &CustomCommand,
    snapshot: &SessionSnapshot,
    server: &ServerConfig,
) -> Option<CommandPlan> {
    herdr_ui::commands::plan(command, snapshot, |workspace, tab, pane| server.pane_env(workspace, tab, pane))
}

/// Where scrollback files go: a `scrollback` directory (0700) next to the API socket, the
/// session's own runtime directory.
pub(super) fn scrollback_dir(server: &ServerConfig) -> PathBuf {
    let socket = std::path::absolute(&server.api_socket).unwrap_or_else(|_| server.api_socket.clone());
    socket.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf).join("scrollback")
}

/// Removes scrollback files a previous server of this session left behind (it was killed while
/// an editor had one open; a normal exit deletes each file with its editor). Called once this
/// server owns the session's sockets, so no live editor of another server can be using them.
pub(crate) fn clear_stale_scrollback(server: &ServerConfig) {
    let Ok(entries) = std::fs::read_dir(scrollback_dir(server)) else { return };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `text` to a new file only this user can read (0600) in `dir` (made 0700 if missing),
/// named after the pane and the time so edits of the same pane never collide.
pub(super) fn write_scrollback(dir: &Path, pane_id: &str, text: &str) -> std::io::Result<PathBuf> {
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let safe: String = pane_id.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let path = dir.join(format!("{safe}-{nanos}.txt"));
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path)?;
    file.write_all(text.as_bytes())?;
    if !text.is_empty() && !text.ends_with('\n') {
        file.write_all(b"\n")?;
    }
    Ok(path)
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
