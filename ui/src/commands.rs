//! What a `[[keys.command]]` entry or `edit_scrollback` does, worked out from the session
//! snapshot: run a shell command detached with the focused pane's `HERDR_*` environment (which
//! the caller supplies), open a pane split from the focused one running a program (zoomed for
//! the scrollback editor), open a popup over the layout running it, or invoke a plugin action
//! with the focus as its context; and the scrollback editor's script.
//!
//! Not here: starting anything and the private file the editor edits (the supervisor's
//! `clients/commands.rs`, `conn/launch.rs` and `popups`); the worker read of the scrollback.

use std::path::Path;

use herdr_protocol::api::requests::PluginInvocationContext;
use herdr_protocol::api::{PaneId, SessionSnapshot, SplitDirection, TabId, WorkspaceId};

use crate::config::CustomCommand;
use crate::popup::PopupSize;

/// How a custom command or the scrollback editor runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPlan {
    /// `sh -c command`, detached, output discarded, in `cwd` with `env` added.
    Shell { command: String, cwd: Option<String>, env: Vec<(String, String)> },
    /// A new focused pane split from `target` toward `direction` (`right` or `down`) running
    /// `argv`, zoomed when `zoom`; it closes when the program exits.
    Pane { target: String, direction: SplitDirection, argv: Vec<String>, zoom: bool },
    /// A popup over the layout running `argv` in `pane`'s directory (`cwd` as the session last
    /// knew it) with `env` added; it closes when the program exits.
    Popup {
        pane: String,
        argv: Vec<String>,
        cwd: Option<String>,
        env: Vec<(String, String)>,
        title: String,
        width: Option<PopupSize>,
        height: Option<PopupSize>,
    },
    /// `plugin.action.invoke` of `action_id` with the focused pane's context.
    PluginAction { action_id: String, context: Box<PluginInvocationContext> },
    /// The command cannot run here; the reason becomes a toast.
    Refused(String),
}

/// The plan for `command` given the session now; `None` without a focused pane. `pane_env`
/// gives the `HERDR_*` variables of a pane from its workspace, tab and pane ids.
pub fn plan(
    command: &CustomCommand,
    snapshot: &SessionSnapshot,
    pane_env: impl FnOnce(&str, &str, &str) -> Vec<(String, String)>,
) -> Option<CommandPlan> {
    let (workspace, tab, pane) = focus(snapshot)?;
    let argv = vec!["sh".to_owned(), "-c".to_owned(), command.command.clone()];
    Some(match command.kind {
        "shell" => CommandPlan::Shell {
            command: command.command.clone(),
            cwd: snapshot.panes.iter().find(|p| p.pane_id == pane).and_then(|p| p.cwd.clone()),
            env: pane_env(workspace, tab, pane),
        },
        "pane" => CommandPlan::Pane {
            target: pane.to_owned(),
            direction: direction(snapshot, pane),
            argv,
            zoom: false,
        },
        // A popup belongs to no pane: upstream gives it no `HERDR_PANE_ID`.
        "popup" => CommandPlan::Popup {
            pane: pane.to_owned(),
            argv,
            cwd: snapshot.panes.iter().find(|p| p.pane_id == pane).and_then(|p| p.cwd.clone()),
            env: pane_env(workspace, tab, pane).into_iter().filter(|(k, _)| k != "HERDR_PANE_ID").collect(),
            title: command.description.clone().unwrap_or_else(|| command.command.clone()),
            width: command.width,
            height: command.height,
        },
        "plugin_action" => CommandPlan::PluginAction {
            action_id: command.command.clone(),
            context: Box::new(plugin_context(snapshot, workspace, tab, pane)),
        },
        other => CommandPlan::Refused(format!("{other} commands are not supported")),
    })
}

/// What a plugin action chosen from a pane's menu is told: that pane (and its tab and
/// workspace) as the focus, `invocation_source` = `source`. `None` for a pane not in the session.
pub fn pane_plugin_context(
    snapshot: &SessionSnapshot,
    pane: &str,
    source: &str,
) -> Option<PluginInvocationContext> {
    let info = snapshot.panes.iter().find(|p| p.pane_id == pane)?;
    let mut context = plugin_context(snapshot, &info.workspace_id, &info.tab_id, pane);
    context.invocation_source = Some(source.to_owned());
    Some(context)
}

/// What a plugin action started from the TUI is told about the pane it concerns (a key-bound
/// one: the focus; a clicked link: the clicked pane). `invocation_source` is `keybinding`.
pub fn plugin_context(
    snapshot: &SessionSnapshot,
    workspace: &str,
    tab: &str,
    pane: &str,
) -> PluginInvocationContext {
    let info = snapshot.panes.iter().find(|p| p.pane_id == pane);
    PluginInvocationContext {
        invocation_source: Some("keybinding".to_owned()),
        workspace_id: Some(WorkspaceId::new(workspace)),
        workspace_label: snapshot
            .workspaces
            .iter()
            .find(|w| w.workspace_id == workspace)
            .map(|w| w.label.clone()),
        tab_id: Some(TabId::new(tab)),
        tab_label: snapshot.tabs.iter().find(|t| t.tab_id == tab).map(|t| t.label.clone()),
        focused_pane_id: Some(PaneId::new(pane)),
        focused_pane_cwd: info.and_then(|p| p.foreground_cwd.clone().or_else(|| p.cwd.clone())),
        focused_pane_agent: info.and_then(|p| p.agent.clone()),
        focused_pane_status: info.map(|p| p.agent_status),
        ..Default::default()
    }
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

/// The scrollback editor's pane, split off `pane` (a public id) and zoomed: `$VISUAL`, else
/// `$EDITOR`, else `vi` (word-split, so `code -w` works) on `file`, which is deleted when the
/// editor exits or the pane is closed. `prefix+e` asks for the focused pane,
/// `pane.edit_scrollback` for any.
pub fn edit_plan_for(snapshot: &SessionSnapshot, pane: &str, file: &Path) -> CommandPlan {
    let script = "trap 'rm -f -- \"$1\"' EXIT; trap 'exit 129' HUP; trap 'exit 143' TERM; \
                  ${VISUAL:-${EDITOR:-vi}} \"$1\"";
    let argv = ["sh", "-c", script, "herdr-edit-scrollback"].map(str::to_owned).into_iter();
    CommandPlan::Pane {
        target: pane.to_owned(),
        direction: direction(snapshot, pane),
        argv: argv.chain([file.display().to_string()]).collect(),
        zoom: true,
    }
}

/// The id `command.invoke` knows `[[keys.command]]` entry `index` (config order) by:
/// `cmd_<fingerprint>_<index>`, the fingerprint a 64-bit FNV-1a hash of the entry's key, kind
/// and command. The same config always gives the same ids (across restarts too, and `herdr
/// config commands` lists them from the file), and an id taken before the entry at `index` was
/// edited no longer matches, so a stale id is refused instead of running another command.
pub fn command_id(index: usize, command: &CustomCommand) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let fields = [command.key.as_str(), command.kind, command.command.as_str()];
    let hash = fields.iter().enumerate().fold(OFFSET, |hash, (i, field)| {
        // A separator byte between fields, so ("ab", "c") and ("a", "bc") differ.
        let bytes = field.bytes().chain((i + 1 < fields.len()).then_some(0));
        bytes.fold(hash, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME))
    });
    format!("cmd_{hash:016x}_{index}")
}

/// The entry of `commands` that `id` names ([`command_id`]), if the config still has it.
pub fn find_command<'a>(commands: &'a [CustomCommand], id: &str) -> Option<&'a CustomCommand> {
    let index: usize = id.rsplit_once('_')?.1.parse().ok()?;
    commands.get(index).filter(|command| command_id(index, command) == id)
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
