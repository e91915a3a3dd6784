//! `pane.link.activate {pane_id, viewport_row, col, offset_from_bottom?, content_revision?}`:
//! the URL under a cell of the pane's screen (`herdr_ui::links`: plain-text URLs; the worker's
//! grid keeps no OSC 8 hyperlinks, see ARCHITECTURE.md), given to the first plugin link handler
//! whose pattern matches it (`plugins::invoke::link`), else opened with the desktop's opener
//! (`xdg-open`, `open` on macOS) as argv, never through a shell. A ctrl+click on a pane in the
//! TUI comes here too. The row is found from the pane's
//! live scroll position (or the caller's `offset_from_bottom`) and read with the copy methods'
//! text question, so `content_revision` is checked the same way.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use herdr_protocol::api::requests::PaneLinkActivateParams;
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode};
use herdr_protocol::ipc::{CopyMotion, FACTS_VERSION, TextAnswer, TextQuery, WorkerRequest, WorkerResponse};

use super::envelope::Failure;
use super::panes::{Target, ask, require_link, resolve};
use crate::state::Shared;

/// The program that opens a URL on this system.
const OPENER: &str = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };

pub async fn activate(shared: &Shared, p: PaneLinkActivateParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    require_link(shared, &target, FACTS_VERSION)?;
    let WorkerResponse::Facts(facts) = ask(shared, &target, WorkerRequest::Facts).await? else {
        return Err(ApiError::internal("the pane's worker answered another question").into());
    };
    let max = u64::from(facts.scroll.max_offset_from_bottom);
    let offset = p.offset_from_bottom.unwrap_or(u64::from(facts.scroll.offset_from_bottom));
    if offset > max || p.viewport_row >= facts.viewport_rows {
        let message = format!(
            "row {} at offset {offset} is outside {}'s {} rows and {max} rows of history",
            p.viewport_row, target.pane_id, facts.viewport_rows
        );
        return Err(ApiError::new(ErrorCode::InvalidParams, message).into());
    }
    let row = u32::try_from(max - offset + u64::from(p.viewport_row))
        .map_err(|_| ApiError::new(ErrorCode::InvalidParams, "the row is past the pane's history"))?;
    let Some(text) = row_text(shared, &target, row, p.content_revision).await? else {
        return Ok(ApiResult::PaneLinkActivated { handled: false, url: None });
    };
    let Some(url) = herdr_ui::links::url_at(&text, p.col) else {
        return Ok(ApiResult::PaneLinkActivated { handled: false, url: None });
    };
    let context = {
        let snapshot = shared.session().snapshot();
        herdr_ui::commands::plugin_context(&snapshot, &target.workspace_id, &target.tab_id, &target.pane_id)
    };
    match crate::plugins::invoke::link(shared, &url, context) {
        Some(ran) => drop(ran?),
        None => open(&url)?,
    }
    Ok(ApiResult::PaneLinkActivated { handled: true, url: Some(url) })
}

/// Screen row `row`'s text up to its last non-blank cell (`None` for a blank row).
async fn row_text(
    shared: &Shared,
    target: &Target,
    row: u32,
    revision: Option<u64>,
) -> Result<Option<String>, ApiError> {
    let end = WorkerRequest::TextQuery {
        query: TextQuery::Motion { cursor: (row, 0), motion: CopyMotion::LineEnd },
        revision,
    };
    let end = match ask(shared, target, end).await? {
        WorkerResponse::Text(TextAnswer::Moved { cursor: (r, col), .. }) if r == row => col,
        WorkerResponse::Text(TextAnswer::Moved { .. }) => return Ok(None),
        other => return Err(ApiError::internal(format!("unexpected answer from pane worker: {other:?}"))),
    };
    let select = WorkerRequest::TextQuery {
        query: TextQuery::Selection { anchor: (row, 0), cursor: (row, end) },
        revision,
    };
    match ask(shared, target, select).await? {
        WorkerResponse::Text(TextAnswer::Selected(text)) => Ok(Some(text)),
        other => Err(ApiError::internal(format!("unexpected answer from pane worker: {other:?}"))),
    }
}

/// Starts the opener on `url`, detached (the supervisor reaps it as the subreaper).
fn open(url: &str) -> Result<(), ApiError> {
    let mut opener = Command::new(OPENER);
    opener.arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
    opener.spawn().map(drop).map_err(|e| ApiError::internal(format!("cannot open {url} with {OPENER}: {e}")))
}
