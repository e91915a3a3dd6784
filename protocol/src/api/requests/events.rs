//! Params of `events.subscribe` and `events.wait`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::api::ids::{PaneId, TabId, WorkspaceId};
use crate::api::records::{AgentStatus, ReadSource};
use crate::api::requests::pane::OutputMatch;

macro_rules! lifecycle_subscriptions {
    ($($variant:ident = $name:literal,)*) => {
        /// The plain lifecycle subscription types: each streams the events of that type.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum LifecycleSubscription {
            $($variant,)*
        }

        impl LifecycleSubscription {
            /// Every type, in the schema's order.
            pub const ALL: &'static [LifecycleSubscription] = &[$(LifecycleSubscription::$variant,)*];

            /// The wire name (`workspace.created`), which is also the event's name on the stream.
            pub fn name(self) -> &'static str {
                match self {
                    $(LifecycleSubscription::$variant => $name,)*
                }
            }

            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(LifecycleSubscription::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

lifecycle_subscriptions! {
    WorkspaceCreated = "workspace.created",
    WorkspaceUpdated = "workspace.updated",
    WorkspaceMetadataUpdated = "workspace.metadata_updated",
    WorkspaceRenamed = "workspace.renamed",
    WorkspaceMoved = "workspace.moved",
    WorkspaceReordered = "workspace.reordered",
    WorkspaceClosed = "workspace.closed",
    WorkspaceFocused = "workspace.focused",
    WorktreeCreated = "worktree.created",
    WorktreeOpened = "worktree.opened",
    WorktreeRemoved = "worktree.removed",
    TabCreated = "tab.created",
    TabClosed = "tab.closed",
    TabFocused = "tab.focused",
    TabRenamed = "tab.renamed",
    TabMoved = "tab.moved",
    PaneCreated = "pane.created",
    PaneClosed = "pane.closed",
    PaneUpdated = "pane.updated",
    PaneFocused = "pane.focused",
    PaneMoved = "pane.moved",
    PaneExited = "pane.exited",
    PaneAgentDetected = "pane.agent_detected",
    LayoutUpdated = "layout.updated",
}

/// `pane.output_matched`: a line of the pane's output matching `matcher`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputSubscription {
    pub pane_id: PaneId,
    pub source: ReadSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u32>,
    #[serde(rename = "match")]
    pub matcher: OutputMatch,
    #[serde(default, deserialize_with = "super::present", skip_serializing_if = "Option::is_none")]
    pub strip_ansi: Option<bool>,
}

/// `pane.agent_status_changed`: one pane's status changes (only to `agent_status`, if given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentStatusSubscription {
    pub pane_id: PaneId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_status: Option<AgentStatus>,
}

/// `pane.scroll_changed`: one pane's scroll position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneSubscription {
    pub pane_id: PaneId,
}

/// One entry of `events.subscribe`'s `subscriptions`, told apart by its `type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscription {
    Lifecycle(LifecycleSubscription),
    OutputMatched(OutputSubscription),
    AgentStatusChanged(AgentStatusSubscription),
    ScrollChanged(PaneSubscription),
}

const OUTPUT_MATCHED: &str = "pane.output_matched";
const AGENT_STATUS_CHANGED: &str = "pane.agent_status_changed";
const SCROLL_CHANGED: &str = "pane.scroll_changed";

impl Subscription {
    pub fn name(&self) -> &'static str {
        match self {
            Subscription::Lifecycle(kind) => kind.name(),
            Subscription::OutputMatched(_) => OUTPUT_MATCHED,
            Subscription::AgentStatusChanged(_) => AGENT_STATUS_CHANGED,
            Subscription::ScrollChanged(_) => SCROLL_CHANGED,
        }
    }
}

impl<'de> Deserialize<'de> for Subscription {
    /// By hand rather than `#[serde(tag)]`, to keep the server's message for an unknown type
    /// (`unknown subscription type `x``) and the field errors of the parameterised ones.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
        let field = |e: serde_json::Error| D::Error::custom(e);
        Ok(match kind {
            OUTPUT_MATCHED => {
                Subscription::OutputMatched(OutputSubscription::deserialize(&value).map_err(field)?)
            }
            AGENT_STATUS_CHANGED => {
                Subscription::AgentStatusChanged(AgentStatusSubscription::deserialize(&value).map_err(field)?)
            }
            SCROLL_CHANGED => {
                Subscription::ScrollChanged(PaneSubscription::deserialize(&value).map_err(field)?)
            }
            other => match LifecycleSubscription::from_name(other) {
                Some(kind) => Subscription::Lifecycle(kind),
                None => return Err(D::Error::custom(format!("unknown subscription type `{other}`"))),
            },
        })
    }
}

impl Serialize for Subscription {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = match self {
            Subscription::Lifecycle(_) => Value::Object(Map::new()),
            Subscription::OutputMatched(s) => serde_json::to_value(s).map_err(serde::ser::Error::custom)?,
            Subscription::AgentStatusChanged(s) => {
                serde_json::to_value(s).map_err(serde::ser::Error::custom)?
            }
            Subscription::ScrollChanged(s) => serde_json::to_value(s).map_err(serde::ser::Error::custom)?,
        };
        // `type` first, as the reference writes it.
        let mut map = Map::new();
        map.insert("type".into(), Value::from(self.name()));
        if let Value::Object(rest) = fields {
            map.extend(rest);
        }
        map.serialize(serializer)
    }
}

/// `events.subscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsSubscribeParams {
    pub subscriptions: Vec<Subscription>,
    /// Extension (resumable events, not in protocol 22): replay the matching events after this
    /// hub sequence number (the `seq` of the last event line seen) before going live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    /// Extension: the `epoch` of the subscribe ack that `after_seq` came from; another epoch (a
    /// restarted or handed-over supervisor) is answered as truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<String>,
}

/// `EventMatch`: the event `events.wait` waits for, by the event's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventMatch {
    WorkspaceCreated {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace_id: Option<WorkspaceId>,
    },
    WorkspaceUpdated {
        workspace_id: WorkspaceId,
    },
    WorkspaceClosed {
        workspace_id: WorkspaceId,
    },
    WorkspaceRenamed {
        workspace_id: WorkspaceId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    WorkspaceMoved {
        workspace_id: WorkspaceId,
    },
    WorkspaceFocused {
        workspace_id: WorkspaceId,
    },
    TabCreated {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<TabId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace_id: Option<WorkspaceId>,
    },
    TabClosed {
        tab_id: TabId,
    },
    TabRenamed {
        tab_id: TabId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    TabMoved {
        tab_id: TabId,
    },
    TabFocused {
        tab_id: TabId,
    },
    PaneCreated {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pane_id: Option<PaneId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace_id: Option<WorkspaceId>,
    },
    PaneClosed {
        pane_id: PaneId,
    },
    PaneFocused {
        pane_id: PaneId,
    },
    PaneMoved {
        pane_id: PaneId,
    },
    PaneOutputChanged {
        pane_id: PaneId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_revision: Option<u64>,
    },
    PaneExited {
        pane_id: PaneId,
    },
    PaneAgentDetected {
        pane_id: PaneId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    PaneAgentStatusChanged {
        pane_id: PaneId,
        agent_status: AgentStatus,
    },
}

impl EventMatch {
    /// The event name it matches (`pane_agent_status_changed`).
    pub fn event_name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("event").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default()
    }
}

/// `events.wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsWaitParams {
    pub match_event: EventMatch,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
