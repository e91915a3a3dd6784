//! Which hub events an `events.subscribe` stream wants, and the line it writes for each: the
//! reference's event shape plus the extension field `seq`. Output and scroll subscriptions are
//! not hub events (a pane's worker and the mirrored screens feed them): the supervisor's
//! handler keeps those beside this filter.

use std::collections::HashSet;

use herdr_protocol::api::{AgentStatus, Event};
use serde_json::Value;

/// The hub events a subscription stream wants.
#[derive(Debug, Default)]
pub struct Filter {
    /// Lifecycle event types (`Event::subscription_type`) subscribed to.
    pub lifecycle: HashSet<&'static str>,
    /// Agent-status subscriptions.
    pub statuses: Vec<StatusWatch>,
}

/// One agent-status subscription: a pane, and optionally the status it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusWatch {
    pub pane_id: String,
    pub status: Option<AgentStatus>,
}

impl StatusWatch {
    /// The line to write at once when `now` (the pane's status event as it is now) already has
    /// the status this subscription waits for.
    pub fn already(&self, now: &Event) -> Option<Value> {
        match now {
            Event::PaneAgentStatusChanged { agent_status, .. } if self.status == Some(*agent_status) => {
                now.to_subscription_wire()
            }
            _ => None,
        }
    }
}

impl Filter {
    /// The stream line of hub event `seq`, if the subscription wants it.
    pub fn line_for(&self, seq: u64, event: &Event) -> Option<Value> {
        let mut line = if let Event::PaneAgentStatusChanged { pane_id, agent_status, .. } = event {
            let wanted = self
                .statuses
                .iter()
                .any(|w| &w.pane_id == pane_id && w.status.is_none_or(|s| s == *agent_status));
            if wanted { event.to_subscription_wire() } else { None }
        } else {
            self.lifecycle.contains(event.subscription_type()).then(|| event.to_wire())
        }?;
        if let Value::Object(map) = &mut line {
            map.insert("seq".into(), Value::from(seq));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(pane_id: &str, agent_status: AgentStatus) -> Event {
        Event::PaneAgentStatusChanged {
            pane_id: pane_id.into(),
            workspace_id: "w1".into(),
            agent_status,
            agent: Some("claude".into()),
            title: None,
            display_agent: None,
            state_labels: Default::default(),
        }
    }

    #[test]
    fn a_stream_gets_the_lifecycle_kinds_and_statuses_it_asked_for_with_their_seq() {
        let filter = Filter {
            lifecycle: HashSet::from(["pane.focused"]),
            statuses: vec![StatusWatch { pane_id: "w1:p1".into(), status: Some(AgentStatus::Idle) }],
        };
        let focused = Event::PaneFocused { pane_id: "w1:p2".into(), workspace_id: "w1".into() };
        let line = filter.line_for(7, &focused).expect("pane.focused is subscribed");
        assert_eq!(line["event"], "pane_focused");
        assert_eq!(line["seq"], 7);
        let closed = Event::PaneClosed { pane_id: "w1:p2".into(), workspace_id: "w1".into() };
        assert_eq!(filter.line_for(8, &closed), None, "pane.closed is not");
        let idle = filter.line_for(9, &status("w1:p1", AgentStatus::Idle)).expect("the watched status");
        assert_eq!(line_event(&idle), "pane.agent_status_changed");
        assert_eq!(idle["seq"], 9);
        assert_eq!(filter.line_for(10, &status("w1:p1", AgentStatus::Working)), None, "another status");
        assert_eq!(filter.line_for(11, &status("w1:p2", AgentStatus::Idle)), None, "another pane");
    }

    #[test]
    fn a_status_that_already_holds_is_written_at_once() {
        let watch = StatusWatch { pane_id: "w1:p1".into(), status: Some(AgentStatus::Done) };
        assert!(watch.already(&status("w1:p1", AgentStatus::Done)).is_some());
        assert_eq!(watch.already(&status("w1:p1", AgentStatus::Idle)), None);
        let any = StatusWatch { status: None, ..watch };
        assert_eq!(any.already(&status("w1:p1", AgentStatus::Idle)), None, "no status to wait for");
    }

    fn line_event(line: &Value) -> &str {
        line["event"].as_str().expect("event name")
    }
}
