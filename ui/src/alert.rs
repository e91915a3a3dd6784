//! Agent alerts as data: which agent status changes deserve one ([`decide`]), the [`Alert`] the
//! foreground client's paint task delivers (a toast in its frame, OSC 9 or the desktop notifier
//! through the client, a bell), worded from the session snapshot and the config
//! ([`agent_alert`]), and the sanitising of `notification.show` text.
//!
//! Upstream's rule (internals §7.4): an agent becoming blocked "needs attention", an agent
//! completing "finished"; neither is announced for a pane the user is looking at (its tab is the
//! active one while a client's terminal has focus).
//!
//! Not here: the rate limits ([`crate::alert_gate`]), watching the hub and delivering (the
//! supervisor's `clients/notify.rs`), drawing the toast ([`crate::render::draw_toast`]).

use herdr_protocol::api::{AgentStatus, SessionSnapshot};

use crate::config::Config;

/// What kind of agent change an alert announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlertKind {
    /// The agent became blocked (upstream's `request` sound).
    NeedsAttention,
    /// The agent finished its work (upstream's `done` sound).
    Finished,
}

/// How a notification reaches the user (`ui.toast.delivery`, without `off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// A toast drawn in the frame.
    Herdr,
    /// OSC 9 to the client's terminal.
    Terminal,
    /// The desktop notifier on the client's machine.
    System,
}

impl Delivery {
    /// The configured delivery; `None` when notifications are off.
    pub fn from_config(config: &Config) -> Option<Delivery> {
        match config.ui.toast.delivery {
            "herdr" => Some(Delivery::Herdr),
            "terminal" => Some(Delivery::Terminal),
            "system" => Some(Delivery::System),
            _ => None,
        }
    }
}

/// One notification for the foreground client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub title: String,
    pub body: Option<String>,
    /// `None`: nothing but the sound.
    pub delivery: Option<Delivery>,
    /// Toast corner (`bottom-right`, ...).
    pub position: String,
    /// Ring the bell with it.
    pub sound: bool,
}

impl Alert {
    /// Nothing but a bell (a pane's program rang it).
    pub fn bell() -> Alert {
        Alert { title: String::new(), body: None, delivery: None, position: String::new(), sound: true }
    }
}

/// Whether a pane whose status went from `previous` to `now` is announced. `shown`: the pane is
/// in the active tab and a client's terminal has focus, so the user sees it already.
pub fn decide(previous: AgentStatus, now: AgentStatus, shown: bool) -> Option<AlertKind> {
    if shown || previous == now {
        return None;
    }
    match (previous, now) {
        (_, AgentStatus::Blocked) => Some(AlertKind::NeedsAttention),
        // The session turns an unseen completion into `done`; a completion to plain idle (only
        // possible while shown, or racing a focus change) counts too, a first idle does not.
        (_, AgentStatus::Done) | (AgentStatus::Working | AgentStatus::Blocked, AgentStatus::Idle) => {
            Some(AlertKind::Finished)
        }
        _ => None,
    }
}

/// Whether the pane is in the focused tab of `snapshot`.
pub fn in_active_tab(snapshot: &SessionSnapshot, pane_id: &str) -> bool {
    snapshot.layouts.iter().any(|l| {
        Some(&l.tab_id) == snapshot.focused_tab_id.as_ref() && l.panes.iter().any(|p| p.pane_id == pane_id)
    })
}

/// The alert for `kind` about `pane_id`, worded from the snapshot's labels and the config.
pub fn agent_alert(config: &Config, snapshot: &SessionSnapshot, pane_id: &str, kind: AlertKind) -> Alert {
    let pane = snapshot.panes.iter().find(|p| p.pane_id == pane_id);
    let agent = pane.and_then(|p| p.display_agent.clone().or_else(|| p.agent.clone()));
    let agent = agent.unwrap_or_else(|| "agent".to_owned());
    let title = match kind {
        AlertKind::NeedsAttention => format!("{agent} needs attention"),
        AlertKind::Finished => format!("{agent} finished"),
    };
    let workspace = pane
        .and_then(|p| snapshot.workspaces.iter().find(|w| w.workspace_id == p.workspace_id))
        .map(|w| w.label.clone());
    let tab = pane.and_then(|p| snapshot.tabs.iter().find(|t| t.tab_id == p.tab_id)).map(|t| t.label.clone());
    let body = match (workspace, tab) {
        (Some(w), Some(t)) => Some(format!("{w} · {t}")),
        (w, t) => w.or(t),
    };
    let sound = &config.ui.sound;
    let agent_sound = sound.agents.get(&agent).copied().unwrap_or("default");
    Alert {
        title,
        body,
        delivery: Delivery::from_config(config),
        position: config.ui.toast.herdr_position.to_owned(),
        sound: sound.enabled && agent_sound != "off",
    }
}

/// Whether a pane's bell is forwarded: `ui.sound.enabled` and no `HERDR_DISABLE_SOUND`.
pub fn bell_enabled(config: &Config, disabled_by_env: bool) -> bool {
    config.ui.sound.enabled && !disabled_by_env
}

/// Upstream's sanitising of `notification.show` text: control characters and runs of whitespace
/// become one space, trimmed, at most `max` characters.
pub fn sanitize(text: &str, max: usize) -> String {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let collapsed = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentStatus::{Blocked, Done, Idle, Unknown, Working};

    #[test]
    fn blocking_and_finishing_in_the_background_notify() {
        assert_eq!(decide(Working, Blocked, false), Some(AlertKind::NeedsAttention));
        assert_eq!(decide(Idle, Blocked, false), Some(AlertKind::NeedsAttention));
        assert_eq!(decide(Working, Done, false), Some(AlertKind::Finished));
        assert_eq!(decide(Blocked, Done, false), Some(AlertKind::Finished));
        assert_eq!(decide(Working, Idle, false), Some(AlertKind::Finished));
        assert_eq!(decide(Blocked, Idle, false), Some(AlertKind::Finished));
    }

    #[test]
    fn a_pane_the_user_looks_at_never_notifies() {
        for (from, to) in [(Working, Blocked), (Working, Done), (Working, Idle)] {
            assert_eq!(decide(from, to, true), None, "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn starting_work_first_detection_and_repeats_do_not_notify() {
        assert_eq!(decide(Idle, Working, false), None);
        assert_eq!(decide(Unknown, Idle, false), None);
        assert_eq!(decide(Unknown, Working, false), None);
        assert_eq!(decide(Done, Idle, false), None);
        assert_eq!(decide(Blocked, Blocked, false), None);
        assert_eq!(decide(Done, Done, false), None);
        assert_eq!(decide(Working, Unknown, false), None);
    }

    #[test]
    fn only_panes_of_the_focused_tab_count_as_in_view() {
        let snapshot = crate::tests_fixtures::session("api_bg_tab");
        let pane_of = |tab: &str| {
            snapshot.panes.iter().find(|p| p.tab_id == tab).map(|p| p.pane_id.clone()).expect("a pane")
        };
        let focused_tab = snapshot.focused_tab_id.clone().expect("a focused tab");
        let other_tab = snapshot.tabs.iter().find(|t| t.tab_id != focused_tab).expect("the second tab");
        assert!(in_active_tab(&snapshot, &pane_of(&focused_tab)));
        assert!(!in_active_tab(&snapshot, &pane_of(&other_tab.tab_id)));
        let alert = agent_alert(
            &Config::default(),
            &snapshot,
            &pane_of(&other_tab.tab_id),
            AlertKind::NeedsAttention,
        );
        assert_eq!(alert.title, "agent needs attention");
        assert_eq!(alert.body.as_deref(), Some("api · bg"));
        assert_eq!(alert.delivery, None);
    }

    #[test]
    fn alerts_follow_the_config() {
        let (config, _) = crate::config::parse(
            "[ui.toast]\ndelivery = \"terminal\"\n[ui.toast.herdr]\nposition = \"top-left\"\n\
             [ui.sound.agents]\nclaude = \"off\"\n",
            "config.toml",
        );
        let alert =
            agent_alert(&config, &crate::tests_fixtures::session("empty"), "w1:p1", AlertKind::Finished);
        assert_eq!(alert.title, "agent finished");
        assert_eq!(alert.delivery, Some(Delivery::Terminal));
        assert_eq!(alert.position, "top-left");
        assert!(alert.sound);
        assert_eq!(Delivery::from_config(&Config::default()), None, "off by default");
    }

    #[test]
    fn sound_off_in_the_config_or_the_environment_silences_pane_bells() {
        let (quiet, diagnostics) = crate::config::parse("[ui.sound]\nenabled = false\n", "config.toml");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert!(bell_enabled(&Config::default(), false));
        assert!(!bell_enabled(&quiet, false));
        assert!(!bell_enabled(&Config::default(), true));
    }

    #[test]
    fn notification_text_is_sanitized() {
        assert_eq!(sanitize("  a\n\tb\x07  c  ", 80), "a b c");
        assert_eq!(sanitize(&"x".repeat(100), 80).len(), 80);
        assert_eq!(sanitize(" \n ", 80), "");
    }
}
