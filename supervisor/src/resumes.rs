//! Native agent resume at run time: the thin shell around the pure planner
//! (`agents::resume`).
//!
//! At start-up, [`plan_restored`] turns each restored pane whose saved session ref resumes into a
//! [`SpawnOrigin::Resume`] spawn of the agent's resume command (in the pane's saved cwd, under
//! a `sh` that becomes the user's shell when the agent exits: `resume::in_shell`); the
//! other panes restore as they would without it (a shell, or their saved command). Such a pane
//! is first offered to its surviving worker like any restored pane; only when none answers
//! does it wait, with nothing running (`workers::awaiting`), until the first foreground client
//! has attached and its size has been applied to the layout ([`client_sized`]). Then every
//! waiting pane, in every workspace and tab, starts at once at its own size: agents draw their
//! first screen for the real terminal, not the headless one.
//!
//! Upstream also waits up to `PENDING_AGENT_RESUME_THEME_WAIT` (750 ms) for the client's
//! terminal theme, so an agent querying colours gets the host's. Our client protocol carries no
//! theme (panes answer colour queries from their own terminal), so there is nothing to wait for:
//! resumes start with the first sized paint.
//!
//! Panes that resume are exactly the `SpawnOrigin::Resume` spawns: anything that replays saved
//! screen history into restored panes must skip them (the agent redraws its own conversation).

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use herdr_protocol::api::AgentSessionInfo;

use crate::agents::resume;
use crate::session::{Effects, PaneKey, Session, SpawnOrigin};
use crate::state::Shared;

/// The restored panes whose agent resume waits for a sized client. Emptied by the first one.
#[derive(Debug, Default)]
pub struct PendingResumes {
    keys: Mutex<Vec<PaneKey>>,
}

impl PendingResumes {
    /// Remembers the panes that wait (their worker was not adopted), before any client attaches.
    pub fn arm(&self, keys: Vec<PaneKey>) {
        *self.keys.lock().unwrap_or_else(PoisonError::into_inner) = keys;
    }

    fn take(&self) -> Vec<PaneKey> {
        std::mem::take(&mut *self.keys.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Plans native resume for the restored spawns in `restored` (all of them with
/// [`SpawnOrigin::Restored`]): the resumable ones become [`SpawnOrigin::Resume`] spawns of their
/// resume argv. Nothing changes when `enabled` is false (`[session] resume_agents_on_restore =
/// false`).
pub fn plan_restored(session: &Session, restored: &mut Effects, enabled: bool) {
    if !enabled {
        return;
    }
    let saved: Vec<(usize, &AgentSessionInfo)> = restored
        .spawns
        .iter()
        .enumerate()
        .filter(|(_, spawn)| spawn.origin == SpawnOrigin::Restored)
        .filter_map(|(index, spawn)| Some((index, session.pane_agent(spawn.pane)?.session_ref()?)))
        .collect();
    for planned in resume::plan(saved, &|path: &Path| path.exists()) {
        let Some(spawn) = restored.spawns.get_mut(planned.key) else { continue };
        match planned.outcome {
            Ok(argv) => {
                log::info!("resume: pane {} will resume its agent with {argv:?}", spawn.pane_id);
                spawn.origin = SpawnOrigin::Resume;
                spawn.argv = Some(resume::in_shell(argv));
                // The agent redraws its own conversation; the saved screen would only sit above it.
                spawn.replay = None;
            }
            Err(skip) => {
                log::info!(
                    "resume: pane {} restores without its agent: the saved session ref is {}",
                    spawn.pane_id,
                    skip.as_str()
                );
            }
        }
    }
}

/// The foreground client's size is applied to the layout: start every waiting resume (once per
/// server; later calls find nothing).
pub fn client_sized(shared: &Shared) {
    let keys = shared.resumes.take();
    if keys.is_empty() {
        return;
    }
    log::info!("resume: a client sized the layout; starting {} agent resumes", keys.len());
    for key in keys {
        if let Some(handle) = shared.pane_handle(key) {
            handle.start_resume();
        }
    }
}
