//! The small client-facing methods: `pane.input.set` (who handles right clicks in a pane, kept
//! in the session model), `product_announcement.dismiss` and `release_notes.dismiss` (recorded
//! in `dismissed.json` in herdr's config dir, shared by every session, so a dismissed notice
//! stays dismissed across restarts), and `pane.graphics.info|set|clear`, which answer
//! `feature_disabled`: off unless `[experimental] kitty_graphics`, and with the flag on still
//! disabled because the kitty graphics protocol is not built (ARCHITECTURE.md says why). Also
//! `pane.edit_scrollback`: the pane's scrollback in the user's editor, in a new zoomed pane split
//! off it, the same as `prefix+e` on the focused pane.

use std::path::{Path, PathBuf};

use herdr_protocol::api::requests::{
    PaneInputSetParams, PaneTarget, ProductAnnouncementDismissParams, ReleaseNotesDismissParams,
};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode};
use herdr_protocol::paths::{self, PathEnv};
use serde_json::{Value, json};

use super::envelope::Failure;
use crate::state::Shared;

/// The file the dismissals are kept in, in herdr's config dir.
pub const DISMISSED_FILE: &str = "dismissed.json";

/// `pane.input.set {pane_id, right_click}` → `ok`.
pub fn input_set(shared: &Shared, p: PaneInputSetParams) -> Result<ApiResult, Failure> {
    let mut session = shared.session();
    let key = session.resolve_pane(&p.pane_id)?;
    session.set_pane_right_click(key, p.right_click);
    Ok(ApiResult::Ok)
}

/// `pane.edit_scrollback {pane_id}` → `ok` once the editor's pane runs.
pub async fn edit_scrollback(shared: &Shared, p: PaneTarget) -> Result<ApiResult, Failure> {
    let key = shared.session().resolve_pane(&p.pane_id)?;
    match crate::clients::edit_scrollback(shared, key).await {
        Ok(()) => Ok(ApiResult::Ok),
        Err(crate::clients::CommandError::PaneGone) => Err(ApiError::pane_not_found(&p.pane_id).into()),
        Err(e) => Err(ApiError::internal(format!("cannot edit {}'s scrollback: {e}", p.pane_id)).into()),
    }
}

/// Why `pane.graphics.*` is refused, given the `[experimental] kitty_graphics` flag.
pub fn graphics_refusal(kitty_graphics: bool) -> ApiError {
    let message = if kitty_graphics {
        "pane graphics are unavailable: this herdr does not build the kitty graphics protocol \
         ([experimental] kitty_graphics is on but has no effect)"
    } else {
        "pane graphics are disabled; they need [experimental] kitty_graphics = true in config.toml"
    };
    ApiError::new(ErrorCode::FeatureDisabled, message)
}

/// `pane.graphics.info|set|clear` → `feature_disabled`. The pane must exist first, so a wrong
/// id is still `pane_not_found`.
pub fn graphics(shared: &Shared, pane_id: &str) -> Result<ApiResult, Failure> {
    shared.session().resolve_pane(pane_id)?;
    Err(graphics_refusal(shared.screens().config().kitty_graphics).into())
}

fn config_dir(env: &PathEnv) -> Option<PathBuf> {
    paths::config_dir(env.xdg_config_home.as_deref().map(Path::new), env.home.as_deref().map(Path::new)).ok()
}

fn require(field: &str, value: &str) -> Result<(), ApiError> {
    if value.trim().is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidParams, format!("{field} must not be empty")));
    }
    Ok(())
}

/// `product_announcement.dismiss {version, id}` → `ok`.
pub fn announcement_dismiss(p: ProductAnnouncementDismissParams) -> Result<ApiResult, Failure> {
    require("version", &p.version)?;
    require("id", &p.id)?;
    record(&PathEnv::from_process_env(), "product_announcement", json!({"version": p.version, "id": p.id}))?;
    Ok(ApiResult::Ok)
}

/// `release_notes.dismiss {version}` → `ok`.
pub fn release_notes_dismiss(p: ReleaseNotesDismissParams) -> Result<ApiResult, Failure> {
    require("version", &p.version)?;
    record(&PathEnv::from_process_env(), "release_notes", json!({"version": p.version}))?;
    Ok(ApiResult::Ok)
}

/// Sets `key` of the dismissals file to `value`, keeping the other keys; written atomically.
fn record(env: &PathEnv, key: &str, value: Value) -> Result<(), ApiError> {
    let dir = config_dir(env).ok_or_else(|| ApiError::internal("no config dir (HOME is not set)"))?;
    record_in(&dir, key, value).map_err(|e| ApiError::internal(format!("cannot record the dismissal: {e}")))
}

/// The dismissals file in `dir` with `key` set.
pub fn record_in(dir: &Path, key: &str, value: Value) -> std::io::Result<()> {
    let path = dir.join(DISMISSED_FILE);
    let mut state = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    state[key] = value;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("{DISMISSED_FILE}.tmp"));
    std::fs::write(&tmp, format!("{state:#}\n"))?;
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_says_why() {
        let off = graphics_refusal(false);
        assert_eq!(off.code, ErrorCode::FeatureDisabled);
        assert!(off.message.contains("kitty_graphics = true"), "{off:?}");
        let on = graphics_refusal(true);
        assert_eq!(on.code, ErrorCode::FeatureDisabled);
        assert!(on.message.contains("not build"), "{on:?}");
    }

    #[test]
    fn dismissals_keep_each_other() {
        let dir = tempfile::tempdir().expect("tempdir");
        record_in(dir.path(), "release_notes", json!({"version": "0.9.0"})).expect("record");
        record_in(dir.path(), "product_announcement", json!({"version": "0.9.0", "id": "a"}))
            .expect("record");
        record_in(dir.path(), "release_notes", json!({"version": "0.9.1"})).expect("record");
        let text = std::fs::read_to_string(dir.path().join(DISMISSED_FILE)).expect("file");
        let state: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            state,
            json!({"release_notes": {"version": "0.9.1"}, "product_announcement": {"version": "0.9.0", "id": "a"}})
        );
    }
}
