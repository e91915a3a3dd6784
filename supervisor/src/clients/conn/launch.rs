//! Carrying out custom commands (`[[keys.command]]`) and `edit_scrollback` for a connection:
//! a detached `sh -c` for `shell`, a new pane running the program for `pane` and the scrollback
//! editor, a popup over the layout for `popup` ([`crate::popups`]), `plugin.action.invoke`
//! for `plugin_action`. A failure becomes a toast on this client's terminal.
//!
//! Not here: deciding what runs where (pure, [`crate::clients::commands`]).

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use herdr_protocol::api::requests::{PluginActionInvokeParams, ZoomMode};
use herdr_protocol::api::{ApiResult, SplitDirection};
use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec, WorkerRequest, WorkerResponse};

use super::Connection;
use crate::api::envelope::Failure;
use crate::clients::calls;
use crate::clients::commands::{self, CommandPlan};
use crate::clients::notify::toast;
use crate::config::CustomCommand;
use crate::popups::{self, PopupError, PopupSpec};
use crate::session::{HandleError, PaneKey};
use crate::state::Shared;
use crate::workers::{ForwardError, StartError};

/// The most scrollback lines a worker reads at once (its read limit).
const SCROLLBACK_LINES: u32 = 1000;

/// Why a custom command or the scrollback editor did not run: the toast's detail line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandError {
    #[error("the pane is gone")]
    PaneGone,
    #[error("unexpected answer from the pane: {0:?}")]
    UnexpectedAnswer(Box<WorkerResponse>),
    #[error("the pane did not answer: {0:?}")]
    NoAnswer(ForwardError),
    /// Writing the scrollback file, or starting `sh`, failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The plan refused to run (its reason, in the user's words).
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Split(HandleError),
    #[error("pane.split is not a session method")]
    NotSessionMethod,
    #[error("{0}")]
    Start(#[from] StartError),
    #[error("{0}")]
    Popup(#[from] PopupError),
}

impl Connection {
    /// `[[keys.command]]` entry `index` (config order).
    pub(super) async fn custom_command(&mut self, index: usize) {
        let config = self.hub.config();
        let Some(command) = config.keys.commands.get(index) else { return };
        let snapshot = self.hub.shared.session().snapshot();
        let Some(plan) = commands::plan(command, &snapshot, &self.hub.shared.config) else { return };
        if let Err(problem) = carry_out(&self.hub.shared, plan).await {
            toast(&self.hub.shared, "command failed", Some(format!("{}: {problem}", command.command)));
        }
    }

    /// `prefix+e`: the focused pane's scrollback in `$VISUAL`/`$EDITOR`/`vi`, in a new zoomed pane.
    pub(super) async fn edit_scrollback(&mut self) {
        let focused = self.hub.shared.session().focused_pane();
        let Some(key) = focused else { return };
        if let Err(problem) = edit_scrollback(&self.hub.shared, key).await {
            toast(&self.hub.shared, "cannot edit scrollback", Some(problem.to_string()));
        }
    }
}

/// `command` as its key would run it, with the session's focus as it is now (`command.invoke`
/// moves the focus to its target first); `selected_text` goes into a plugin action's context.
pub(crate) async fn run_custom_command(
    shared: &Shared,
    command: &CustomCommand,
    selected_text: Option<String>,
) -> Result<(), CommandError> {
    let snapshot = shared.session().snapshot();
    let plan = commands::plan(command, &snapshot, &shared.config)
        .ok_or_else(|| CommandError::Refused("no pane is focused".to_owned()))?;
    let plan = match plan {
        CommandPlan::PluginAction { action_id, mut context } => {
            context.selected_text = selected_text;
            CommandPlan::PluginAction { action_id, context }
        }
        other => other,
    };
    carry_out(shared, plan).await
}

/// `key`'s scrollback (up to the worker's read limit) in `$VISUAL`/`$EDITOR`/`vi`, in a new
/// zoomed pane split off it: `prefix+e` for the focused pane, `pane.edit_scrollback` for any.
pub(crate) async fn edit_scrollback(shared: &Shared, key: PaneKey) -> Result<(), CommandError> {
    let (pane_id, snapshot) = {
        let session = shared.session();
        (session.pane_ids(key).map(|(_, _, pane)| pane), session.snapshot())
    };
    let Some(pane_id) = pane_id else { return Err(CommandError::PaneGone) };
    let handle = shared.pane_handle(key).ok_or(CommandError::PaneGone)?;
    let spec = ReadSpec {
        source: ReadSource::RecentUnwrapped,
        lines: Some(SCROLLBACK_LINES),
        format: ReadFormat::Text,
    };
    let text = match handle.request(shared.next_request_id(), WorkerRequest::Read(spec)).await {
        Ok(WorkerResponse::Read(out)) => out.text,
        Ok(other) => return Err(CommandError::UnexpectedAnswer(Box::new(other))),
        Err(e) => return Err(CommandError::NoAnswer(e)),
    };
    let dir = commands::scrollback_dir(&shared.config);
    let file = commands::write_scrollback(&dir, &pane_id, &text)?;
    let result = carry_out(shared, commands::edit_plan_for(&snapshot, &pane_id, &file)).await;
    if result.is_err() {
        // The editor never started, so nothing else will delete the file.
        let _ = std::fs::remove_file(&file);
    }
    result
}

async fn carry_out(shared: &Shared, plan: CommandPlan) -> Result<(), CommandError> {
    match plan {
        CommandPlan::Shell { command, cwd, env } => {
            let cwd = match cwd {
                Some(cwd) => Some(cwd),
                None => working_dir(shared, pane_of(&env)).await,
            };
            let mut child = Command::new("sh");
            child.arg("-c").arg(&command).envs(env).stdin(Stdio::null()).stdout(Stdio::null());
            child.stderr(Stdio::null()).process_group(0);
            if let Some(cwd) = cwd.filter(|c| std::path::Path::new(c).is_dir()) {
                child.current_dir(cwd);
            }
            // Detached: the supervisor reaps every child (it is a subreaper), so dropping the
            // handle leaves no zombie.
            Ok(child.spawn().map(drop)?)
        }
        CommandPlan::Pane { target, direction, argv, zoom } => {
            open_pane(shared, &target, direction, argv, zoom).await
        }
        CommandPlan::Popup { pane, argv, cwd, env, title, width, height } => {
            // Where the pane's programs are now, as for a split (the record may lag a `cd`).
            let cwd = working_dir(shared, Some(&pane)).await.or(cwd);
            let spec = PopupSpec { argv, cwd, env, title, width, height };
            Ok(popups::open(shared, spec).await.map(drop)?)
        }
        CommandPlan::PluginAction { action_id, context } => {
            let params = PluginActionInvokeParams { action_id, plugin_id: None, context: Some(*context) };
            match crate::plugins::invoke::invoke(shared, params) {
                Ok(_) => Ok(()),
                Err(Failure::Api(e) | Failure::Probe(e)) => Err(CommandError::Refused(e.message)),
                Err(Failure::BadRequest(reason)) => Err(CommandError::Refused(reason)),
            }
        }
        CommandPlan::Refused(reason) => Err(CommandError::Refused(reason)),
    }
}

/// Splits `target` with a new focused pane running `argv` (instead of the user's shell), zoomed
/// when `zoom`. The session's `pane.split` makes the pane; its spawn is given the program before
/// the worker starts.
async fn open_pane(
    shared: &Shared,
    target: &str,
    direction: SplitDirection,
    argv: Vec<String>,
    zoom: bool,
) -> Result<(), CommandError> {
    // Where the pane's processes are now, asked of its worker: the record's `cwd` may lag a `cd`
    // by a report. Without an answer the split takes the session's idea of the directory.
    let cwd = working_dir(shared, Some(target)).await;
    let outcome = shared.session().handle(calls::split(target, direction, cwd));
    let (result, mut effects) = match outcome {
        Some(Ok(done)) => done,
        Some(Err(e)) => return Err(CommandError::Split(e)),
        None => return Err(CommandError::NotSessionMethod),
    };
    for spawn in &mut effects.spawns {
        spawn.argv = Some(argv.clone());
        shared.session().set_pane_program(spawn.pane, argv.clone());
    }
    for (_, started) in shared.apply(effects) {
        match started.await {
            Ok(Ok(_pid)) => {}
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => return Err(StartError::TaskGone.into()),
        }
    }
    if let (true, ApiResult::PaneInfo { pane }) = (zoom, result)
        && let Some(Err(e)) = shared.session_call(calls::zoom(&pane.pane_id, Some(ZoomMode::On))).await
    {
        log::debug!("zooming a command's pane failed: {e:?}");
    }
    Ok(())
}

/// The pane `HERDR_PANE_ID` in `env` names (a shell command's pane).
fn pane_of(env: &[(String, String)]) -> Option<&str> {
    env.iter().find(|(k, _)| k == "HERDR_PANE_ID").map(|(_, v)| v.as_str())
}

/// Where `pane_id`'s programs are: its foreground process's directory, else its shell's (read
/// from `/proc`, as the worker reports their pids); `None` when the worker cannot say.
async fn working_dir(shared: &Shared, pane_id: Option<&str>) -> Option<String> {
    let key = shared.session().resolve_pane(pane_id?).ok()?;
    let handle = shared.pane_handle(key)?;
    let Ok(WorkerResponse::ProcessInfo(info)) =
        handle.request(shared.next_request_id(), WorkerRequest::ProcessInfo).await
    else {
        return None;
    };
    let foreground = info.foreground_processes.iter().find_map(|p| p.cwd.clone());
    foreground.or_else(|| {
        let link = std::fs::read_link(format!("/proc/{}/cwd", info.shell_pid?)).ok()?;
        Some(link.display().to_string())
    })
}
