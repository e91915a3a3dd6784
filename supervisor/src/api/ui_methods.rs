//! Methods about what attached clients show: `notification.show` (a toast, or the configured
//! desktop notification, in the foreground client), `client.window_title.set|clear` (the
//! foreground client's terminal title; the client restores its terminal's own title on clear and
//! at detach) and `server.reload_config` (re-read `config.toml` and apply it to every client). The work itself is in [`crate::clients`].

use herdr_protocol::api::requests::{ClientWindowTitleSetParams, NotificationShowParams, NotificationSound};
use herdr_protocol::api::{ApiError, ApiResult, ClientWindowTitleReason, ErrorCode, NotificationShowReason};

use super::envelope::Failure;
use crate::clients::notify::{self, Alert, Delivery};
use crate::clients::reload_config;
use crate::state::Shared;

/// Upstream's limits on notification text.
const MAX_TITLE: usize = 80;
const MAX_BODY: usize = 240;

/// `notification.show {title, body?, position?, sound?}` → `notification_show`.
pub fn notification_show(shared: &Shared, p: NotificationShowParams) -> Result<ApiResult, Failure> {
    let title = notify::sanitize(&p.title, MAX_TITLE);
    if title.is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidParams, "title must not be empty").into());
    }
    let body = p.body.map(|b| notify::sanitize(&b, MAX_BODY)).filter(|b| !b.is_empty());
    let config = shared.screens().config();
    let answer = |shown, reason| Ok(ApiResult::NotificationShow { shown, reason });
    let Some(delivery) = Delivery::from_config(&config) else {
        return answer(false, NotificationShowReason::Disabled);
    };
    if !shared.screens().has_clients() {
        return answer(false, NotificationShowReason::NoForegroundClient);
    }
    let position = match &p.position {
        Some(position) => position.name().to_owned(),
        None => config.ui.toast.herdr_position.to_owned(),
    };
    let sound = !matches!(p.sound.unwrap_or_default(), NotificationSound::None)
        && config.ui.sound.enabled
        && !notify::sound_disabled_by_env();
    let shown = shared.screens().alert(Alert { title, body, delivery: Some(delivery), position, sound });
    if shown {
        answer(true, NotificationShowReason::Shown)
    } else {
        // The last client left between the check and the send.
        answer(false, NotificationShowReason::NoForegroundClient)
    }
}

/// A window title's length limit (characters, after control characters are removed).
const MAX_WINDOW_TITLE: usize = 256;

/// `client.window_title.set {title}` → `client_window_title` (`set`, or
/// `no_foreground_client` with nothing changed while no terminal client is attached).
pub fn window_title_set(shared: &Shared, p: ClientWindowTitleSetParams) -> Result<ApiResult, Failure> {
    let title = notify::sanitize(&p.title, MAX_WINDOW_TITLE);
    if title.is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidParams, "title must not be empty").into());
    }
    Ok(window_title(shared, Some(title)))
}

/// `client.window_title.clear {}` → `client_window_title` (`cleared`; `changed` says whether a
/// title was set).
pub fn window_title_clear(shared: &Shared) -> ApiResult {
    window_title(shared, None)
}

fn window_title(shared: &Shared, title: Option<String>) -> ApiResult {
    let screens = shared.screens();
    if !screens.has_clients() {
        return ApiResult::ClientWindowTitle {
            changed: false,
            reason: ClientWindowTitleReason::NoForegroundClient,
        };
    }
    let reason =
        if title.is_some() { ClientWindowTitleReason::Set } else { ClientWindowTitleReason::Cleared };
    ApiResult::ClientWindowTitle { changed: screens.set_window_title(title), reason }
}

/// `server.reload_config {}` → `config_reload {status, diagnostics}`.
pub fn reload(shared: &Shared) -> ApiResult {
    let outcome = reload_config(shared);
    ApiResult::ConfigReload { status: outcome.status, diagnostics: outcome.diagnostics }
}

#[cfg(test)]
mod tests {
    use herdr_protocol::api::ConfigReloadStatus;
    use herdr_protocol::schema_check::{SchemaKind, validate};
    use serde_json::json;

    use super::*;

    fn check(result: &ApiResult) {
        let envelope = json!({ "id": "t", "result": result });
        if let Err(errors) = validate(SchemaKind::SuccessResponse, &envelope) {
            panic!("{envelope} does not validate: {errors:?}");
        }
    }

    #[test]
    fn every_notification_and_reload_result_validates() {
        for reason in [
            NotificationShowReason::Shown,
            NotificationShowReason::Disabled,
            NotificationShowReason::RateLimited,
            NotificationShowReason::NoForegroundClient,
            NotificationShowReason::Busy,
        ] {
            check(&ApiResult::NotificationShow { shown: reason == NotificationShowReason::Shown, reason });
        }
        for reason in [
            ClientWindowTitleReason::Set,
            ClientWindowTitleReason::Cleared,
            ClientWindowTitleReason::NoForegroundClient,
        ] {
            check(&ApiResult::ClientWindowTitle {
                changed: reason != ClientWindowTitleReason::NoForegroundClient,
                reason,
            });
        }
        for status in [ConfigReloadStatus::Applied, ConfigReloadStatus::Partial, ConfigReloadStatus::Failed] {
            check(&ApiResult::ConfigReload {
                status,
                diagnostics: vec!["config.toml: ui.x: unknown key".into()],
            });
        }
    }

    #[test]
    fn the_wire_names_are_upstreams() {
        let result =
            ApiResult::NotificationShow { shown: false, reason: NotificationShowReason::NoForegroundClient };
        assert_eq!(
            serde_json::to_value(&result).expect("json"),
            json!({"type": "notification_show", "shown": false, "reason": "no_foreground_client"})
        );
        let result = ApiResult::ConfigReload { status: ConfigReloadStatus::Partial, diagnostics: vec![] };
        assert_eq!(
            serde_json::to_value(&result).expect("json"),
            json!({"type": "config_reload", "status": "partial", "diagnostics": []})
        );
    }

    #[test]
    fn show_params_follow_the_schema() {
        let p: NotificationShowParams =
            serde_json::from_value(json!({"title": "t", "position": "top-left", "sound": "done"}))
                .expect("parse");
        assert_eq!(p.position.map(|p| p.name()), Some("top-left"));
        assert!(matches!(p.sound, Some(NotificationSound::Done)));
        assert!(
            serde_json::from_value::<NotificationShowParams>(json!({"title": "t", "position": "middle"}))
                .is_err()
        );
    }
}
