//! What a `[[keys.command]]` entry or `edit_scrollback` does, worked out from the session
//! snapshot (pure): run a shell command detached with the focused pane's `HERDR_*` environment,
//! or open a pane split from the focused one running a program (zoomed for `popup` and for the
//! scrollback editor). Also the scrollback editor's script and the private file it edits.
//!
//! Not here: starting anything (the connection does, `conn::launch`); the worker read of the
//! scrollback. `popup` is not upstream's bordered modal terminal: it runs in a new zoomed pane
//! that closes with its program (the help says so).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use herdr_protocol::api::{SessionSnapshot, SplitDirection};

use crate::ServerConfig;
use crate::config::CustomCommand;

/// How a custom command or the scrollback editor runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CommandPlan {
    /// `sh -c command`, detached, output discarded, in `cwd` with `env` added.
    Shell { command: String, cwd: Option<String>, env: Vec<(String, String)> },
    /// A new focused pane split from `target` toward `direction` (`right` or `down`) running
    /// `argv`, zoomed when `zoom`; it closes when the program exits.
    Pane { target: String, direction: SplitDirection, argv: Vec<String>, zoom: bool },
    /// The command cannot run here; the reason becomes a toast.
    Refused(String),
}

/// The plan for `command` given the session now; `None` without a focused pane.
pub(super) fn plan(
    command: &CustomCommand,
    snapshot: &SessionSnapshot,
    server: &ServerConfig,
) -> Option<CommandPlan> {
    let (workspace, tab, pane) = focus(snapshot)?;
    let argv = vec!["sh".to_owned(), "-c".to_owned(), command.command.clone()];
    Some(match command.kind {
        "shell" => CommandPlan::Shell {
            command: command.command.clone(),
            cwd: snapshot.panes.iter().find(|p| p.pane_id == pane).and_then(|p| p.cwd.clone()),
            env: server.pane_env(workspace, tab, pane),
        },
        "pane" => CommandPlan::Pane {
            target: pane.to_owned(),
            direction: direction(snapshot, pane),
            argv,
            zoom: false,
        },
        "popup" => CommandPlan::Pane {
            target: pane.to_owned(),
            direction: direction(snapshot, pane),
            argv,
            zoom: true,
        },
        other => CommandPlan::Refused(format!("{other} commands are not supported")),
    })
}

/// The focused workspace, tab and pane ids.
fn focus(snapshot: &SessionSnapshot) -> Option<(&str, &str, &str)> {
    Some((
        snapshot.focused_workspace_id.as_deref()?,
        snapshot.focused_tab_id.as_deref()?,
        snapshot.focused_pane_id.as_deref()?,
    ))
}

/// Side by side when the pane is at least twice as wide as tall (cells are about twice as tall
/// as wide), else stacked: the new pane gets the roomier half.
fn direction(snapshot: &SessionSnapshot, pane: &str) -> SplitDirection {
    let rect = snapshot.layouts.iter().flat_map(|l| &l.panes).find(|p| p.pane_id == pane).map(|p| p.rect);
    match rect {
        Some(r) if u32::from(r.width) < 2 * u32::from(r.height) => SplitDirection::Down,
        _ => SplitDirection::Right,
    }
}

/// The scrollback editor's pane: `$VISUAL`, else `$EDITOR`, else `vi` (word-split, so
/// `code -w` works) on `file`, which is deleted when the editor exits or the pane is closed.
pub(super) fn edit_plan(snapshot: &SessionSnapshot, file: &Path) -> Option<CommandPlan> {
    let (_, _, pane) = focus(snapshot)?;
    let script = "trap 'rm -f -- \"$1\"' EXIT; trap 'exit 129' HUP; trap 'exit 143' TERM; \
                  ${VISUAL:-${EDITOR:-vi}} \"$1\"";
    let argv = ["sh", "-c", script, "herdr-edit-scrollback"].map(str::to_owned).into_iter();
    Some(CommandPlan::Pane {
        target: pane.to_owned(),
        direction: direction(snapshot, pane),
        argv: argv.chain([file.display().to_string()]).collect(),
        zoom: true,
    })
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
