//! The handlers over a real supervisor state (a pane whose worker never started): records carry
//! the metadata, changes publish schema-valid events, a stale `seq` publishes nothing, and the
//! expiry timer removes a token when its ttl runs out (on tokio's paused clock).

use std::sync::Arc;
use std::time::Duration;

use herdr_protocol::api::requests::{PaneReportMetadataParams, WorkspaceReportMetadataParams};
use herdr_protocol::api::{AgentStatus, ApiResult, Event};
use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::json;

use super::*;
use crate::session::PaneKey;

fn shared_with_pane() -> (Arc<Shared>, PaneKey) {
    Shared::with_one_pane()
}

fn pane_params(v: serde_json::Value) -> PaneReportMetadataParams {
    serde_json::from_value(v).expect("pane params")
}

fn workspace_params(v: serde_json::Value) -> WorkspaceReportMetadataParams {
    serde_json::from_value(v).expect("workspace params")
}

/// Every event published after `cursor`, each checked against the schema.
fn events_after(shared: &Shared, cursor: u64) -> Vec<Event> {
    let events: Vec<Event> = shared.hub.since(cursor).events.into_iter().map(|(_, e)| (*e).clone()).collect();
    for event in &events {
        if let Err(errors) = validate(SchemaKind::Event, &event.to_wire()) {
            panic!("{} does not validate: {errors:#?}", event.kind());
        }
    }
    events
}

#[tokio::test]
async fn pane_reports_fill_the_records_and_publish_once() {
    let (shared, key) = shared_with_pane();
    let cursor = shared.hub.cursor();
    let report = pane_params(json!({
        "pane_id": "w1:p1", "source": "test:bot", "seq": 3, "title": " Fix the build ",
        "display_agent": "Bot", "state_labels": {"idle": "resting"}, "tokens": {"branch": "main"},
    }));
    assert!(matches!(report_pane(&shared, report).await, Ok(ApiResult::Ok)));
    let info = shared.session().pane_info(key).expect("pane");
    assert_eq!((info.title.as_deref(), info.display_agent.as_deref()), (Some("Fix the build"), Some("Bot")));
    assert_eq!(info.state_labels.get("idle").map(String::as_str), Some("resting"));
    assert_eq!(info.tokens.get("branch").map(String::as_str), Some("main"));
    let events = events_after(&shared, cursor);
    assert!(matches!(&events[..], [Event::PaneAgentStatusChanged { .. }, Event::PaneUpdated { pane }]
        if pane.tokens.len() == 1));

    // Stale: same seq, another value — ok, nothing changes, nothing is published.
    let cursor = shared.hub.cursor();
    let stale =
        pane_params(json!({"pane_id": "w1:p1", "source": "test:bot", "seq": 3, "tokens": {"branch": "x"}}));
    assert!(matches!(report_pane(&shared, stale).await, Ok(ApiResult::Ok)));
    assert!(events_after(&shared, cursor).is_empty());
    assert_eq!(shared.session().pane_info(key).expect("pane").tokens["branch"], "main");

    let missing = pane_params(json!({"pane_id": "w1:p9", "source": "s", "title": "t"}));
    let Err(Failure::Api(e)) = report_pane(&shared, missing).await else { panic!("missing pane") };
    assert_eq!(e.code, "pane_not_found");
    let both = pane_params(json!({"pane_id": "w1:p1", "source": "s", "title": "t", "clear_title": true}));
    let Err(Failure::Api(e)) = report_pane(&shared, both).await else { panic!("contradiction") };
    assert_eq!(e.code, "invalid_metadata_request");
}

#[tokio::test(start_paused = true)]
async fn an_expired_token_vanishes_and_the_update_is_published() {
    let (shared, _key) = shared_with_pane();
    let report = workspace_params(json!({
        "workspace_id": "w1", "source": "ci", "ttl_ms": 250, "tokens": {"build": "running", "keep": null},
    }));
    let cursor = shared.hub.cursor();
    assert!(matches!(report_workspace(&shared, report).await, Ok(ApiResult::Ok)));
    assert!(shared.session().next_metadata_expiry().is_some());
    let lasting = workspace_params(json!({"workspace_id": "w1", "source": "ci", "tokens": {"owner": "me"}}));
    assert!(matches!(report_workspace(&shared, lasting).await, Ok(ApiResult::Ok)));

    let mut changes = shared.hub.watch();
    let expired = async {
        loop {
            let found = events_after(&shared, cursor).into_iter().any(|e| {
                matches!(e, Event::WorkspaceMetadataUpdated { workspace }
                    if !workspace.tokens.contains_key("build") && workspace.tokens.contains_key("owner"))
            });
            if found {
                return;
            }
            changes.changed().await.expect("hub alive");
        }
    };
    tokio::time::timeout(Duration::from_secs(5), expired).await.expect("the ttl ran out within 5 s");
    assert_eq!(shared.session().next_metadata_expiry(), None, "nothing left to expire: no timer");
}

#[tokio::test]
async fn a_detected_status_change_carries_the_reported_presentation() {
    let (shared, key) = shared_with_pane();
    let report = pane_params(json!({
        "pane_id": "w1:p1", "source": "test:bot", "title": "Fix the build", "display_agent": "Bot",
        "state_labels": {"working": "fixing"},
    }));
    assert!(matches!(report_pane(&shared, report).await, Ok(ApiResult::Ok)));
    let cursor = shared.hub.cursor();
    let effects = shared.session().set_pane_agent(key, Some("claude".into()), AgentStatus::Working);
    shared.apply(effects);
    let events = events_after(&shared, cursor);
    let changed = events.iter().find_map(|e| match e {
        Event::PaneAgentStatusChanged { title, display_agent, state_labels, .. } => {
            Some((title.clone(), display_agent.clone(), state_labels.get("working").cloned()))
        }
        _ => None,
    });
    assert_eq!(
        changed,
        Some((Some("Fix the build".into()), Some("Bot".into()), Some("fixing".into()))),
        "{events:?}"
    );
}
