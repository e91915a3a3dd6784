//! Agent notifications at run time: the watcher task that turns `pane_agent_status_changed`
//! events on the hub into alerts after `ui.toast.delay_seconds` (delivered only if the pane is
//! still in that state when it elapses), herdr's own toasts and pane bells. Which changes deserve
//! an alert and how it is worded is pure data in `herdr_ui::alert`.
//!
//! Agent alerts pass the `herdr_ui::alert_gate` rate limits on their way to the client, which
//! also remembers the panes that alerted for `prefix+o` ([`Screens::open_alert_target`]).
//!
//! Pane bells ([`pane_bell`], internals §7.4 "pane BEL is forwarded"): a program's BEL (already
//! limited to one per 100 ms by its worker) rings the foreground client's terminal as a bare
//! sound alert, under the same one-bell-per-second limit as the agent alerts' bells and the same
//! sound switches. A pane no client shows when it rings is remembered until one does, so its tab
//! carries a bell marker ([`Screens::belled_panes`]).
//!
//! Not here: drawing the toast ([`crate::render::draw_toast`]), playing mp3 sounds (the client
//! rings the terminal bell instead).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) use herdr_ui::alert::{Alert, AlertKind, Delivery, agent_alert, decide, sanitize};
use herdr_ui::alert::{bell_enabled, in_active_tab};

use crate::session::PaneKey;
use crate::state::Shared;
use herdr_protocol::api::{AgentStatus, Event};

use super::{Screens, paint, visibility};

impl Screens {
    /// Sends an agent alert about `pane_id` to the foreground client through the rate limits;
    /// the pane is remembered for `prefix+o` even when nothing is left to deliver.
    pub(crate) fn agent_alert(&self, pane_id: &str, kind: AlertKind, alert: Alert) {
        let admitted = self.gate().admit(std::time::Instant::now(), pane_id, kind, alert);
        if let Some(alert) = admitted {
            self.alert(alert);
        }
    }

    /// The most recently alerted pane that `open` says still exists, forgotten so that the next
    /// call goes one alert further back.
    pub(crate) fn open_alert_target(&self, open: impl Fn(&str) -> bool) -> Option<String> {
        self.gate().take_latest(open)
    }

    fn gate(&self) -> std::sync::MutexGuard<'_, herdr_ui::alert_gate::AlertGate> {
        self.gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Rings the foreground client's bell at `now` unless one rang less than a second ago (or
    /// `enabled` is false); true when a client was sent it.
    fn ring_bell(&self, now: Instant, enabled: bool) -> bool {
        enabled && self.gate().admit_bell(now) && self.alert(Alert::bell())
    }

    fn bells(&self) -> std::sync::MutexGuard<'_, HashSet<PaneKey>> {
        self.bells.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers that `key` rang unseen; a new mark repaints the clients (their tab bars).
    fn mark_bell(&self, key: PaneKey) {
        if self.bells().insert(key) {
            self.mark_dirty();
        }
    }

    /// Forgets the bells of the panes clients show now (`shown`) and of panes that no longer
    /// exist (not in `live`).
    pub(super) fn settle_bells(&self, shown: &HashSet<PaneKey>, live: &[(PaneKey, String)]) {
        self.bells().retain(|key| !shown.contains(key) && live.iter().any(|(k, _)| k == key));
    }

    /// The panes that rang while no client showed them, since then.
    pub(crate) fn belled_panes(&self) -> HashSet<PaneKey> {
        self.bells().clone()
    }
}

/// `key`'s program rang the bell (its worker's `Bell`): ring the foreground client's terminal and
/// mark the pane when no attached client shows it (every client shows the same panes).
/// A herdr toast (no sound) at the configured toast position: what herdr itself has to say
/// (a config reload, a command that failed, something not available).
pub(crate) fn toast(shared: &Shared, title: &str, body: Option<String>) {
    shared.screens().alert(Alert {
        title: title.to_owned(),
        body,
        delivery: Some(Delivery::Herdr),
        position: shared.screens().config().ui.toast.herdr_position.to_owned(),
        sound: false,
    });
}

pub(crate) fn pane_bell(shared: &Shared, key: PaneKey) {
    let screens = shared.screens();
    let (snapshot, panes) = paint::capture(shared);
    if !visibility::wanted(&snapshot, &panes, screens.has_clients()).contains(&key) {
        screens.mark_bell(key);
    }
    let enabled = bell_enabled(&screens.config(), sound_disabled_by_env());
    screens.ring_bell(Instant::now(), enabled);
}

/// Turns agent status changes on the event hub into alerts for the foreground client until
/// shutdown.
pub(super) async fn watch_agents(shared: Arc<Shared>) {
    let mut cursor = shared.hub.cursor();
    let mut last: HashMap<String, AgentStatus> =
        shared.session().snapshot().panes.into_iter().map(|p| (p.pane_id, p.agent_status)).collect();
    let mut events = shared.hub.watch();
    let mut stop = shared.shutdown_signal();
    loop {
        tokio::select! {
            changed = events.changed() => if changed.is_err() { return },
            _ = stop.wait_for(|stopping| *stopping) => return,
        }
        let batch = shared.hub.since(cursor);
        for (seq, event) in batch.events {
            cursor = seq;
            let Event::PaneAgentStatusChanged { pane_id, agent_status, .. } = &*event else { continue };
            let previous = last.insert(pane_id.clone(), *agent_status).unwrap_or_default();
            let snapshot = shared.session().snapshot();
            let shown = shared.screens().has_clients()
                && shared.screens().terminal_focused()
                && in_active_tab(&snapshot, pane_id);
            let Some(kind) = decide(previous, *agent_status, shown) else { continue };
            let config = shared.screens().config();
            let delay = Duration::from_secs(u64::from(config.ui.toast.delay_seconds));
            let (shared, pane_id, status) = (shared.clone(), pane_id.clone(), *agent_status);
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let snapshot = shared.session().snapshot();
                let still = snapshot.panes.iter().any(|p| p.pane_id == pane_id && p.agent_status == status);
                if still {
                    let mut alert = agent_alert(&shared.screens().config(), &snapshot, &pane_id, kind);
                    alert.sound &= !sound_disabled_by_env();
                    shared.screens().agent_alert(&pane_id, kind, alert);
                }
            });
        }
    }
}

/// `HERDR_DISABLE_SOUND` (any value) silences herdr's own sounds and the bells panes ring.
pub(crate) fn sound_disabled_by_env() -> bool {
    std::env::var_os("HERDR_DISABLE_SOUND").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_bell_rings_the_client_once_per_second_while_sound_is_on() {
        let screens = Screens::default();
        let mut client = screens.subscribe_alerts();
        let t0 = Instant::now();
        assert!(screens.ring_bell(t0, true));
        assert_eq!(client.try_recv().map(|a| (a.sound, a.delivery)), Ok((true, None)));
        // A runaway program: its worker sends ten a second, the client hears one.
        for tenth in 1..10 {
            assert!(!screens.ring_bell(t0 + Duration::from_millis(tenth * 100), true));
        }
        assert!(client.try_recv().is_err(), "limited to one per second");
        assert!(screens.ring_bell(t0 + Duration::from_secs(1), true));
        assert!(client.try_recv().is_ok_and(|a| a.sound));
        // Sound off: nothing, and the allowance is not used up.
        assert!(!screens.ring_bell(t0 + Duration::from_secs(3), false));
        assert!(client.try_recv().is_err());
        assert!(screens.ring_bell(t0 + Duration::from_secs(3), true));
    }

    /// A supervisor state whose workspace has a focused tab and a background tab, one pane each
    /// (workers never started): the keys of the focused tab's pane and the background one's.
    fn shared_with_two_tabs() -> (Arc<Shared>, PaneKey, PaneKey) {
        let shared = Shared::new(crate::ServerConfig::for_tests());
        let mut session = shared.session();
        for (method, params) in [
            ("workspace.create", serde_json::json!({"focus": true})),
            ("tab.create", serde_json::json!({"focus": false})),
        ] {
            assert!(matches!(session.handle_json(method, params), Some(Ok(_))), "{method}");
        }
        let focused = session.focused_pane().expect("a focused pane");
        let hidden = session.pane_keys().into_iter().find(|k| *k != focused).expect("the other tab's pane");
        drop(session);
        (shared, focused, hidden)
    }

    #[test]
    fn a_pane_ringing_where_no_client_sees_it_is_marked_until_shown() {
        let (shared, focused, hidden) = shared_with_two_tabs();
        let screens = shared.screens();
        // No client attached: nobody sees any pane.
        pane_bell(&shared, focused);
        assert_eq!(screens.belled_panes(), HashSet::from([focused]));
        // A client attaches and shows the focused tab: its pane's mark goes, a later bell there
        // marks nothing, the background tab's pane is marked.
        let _client = screens.subscribe_alerts();
        let (snapshot, panes) = paint::capture(&shared);
        let shown = visibility::wanted(&snapshot, &panes, true);
        assert_eq!(shown, HashSet::from([focused]));
        screens.settle_bells(&shown, &panes);
        assert!(screens.belled_panes().is_empty());
        pane_bell(&shared, focused);
        pane_bell(&shared, hidden);
        assert_eq!(screens.belled_panes(), HashSet::from([hidden]));
        // The mark stays while the pane is hidden and goes with the pane.
        screens.settle_bells(&shown, &panes);
        assert_eq!(screens.belled_panes(), HashSet::from([hidden]));
        screens.settle_bells(&shown, &panes[..0]);
        assert!(screens.belled_panes().is_empty());
    }
}
