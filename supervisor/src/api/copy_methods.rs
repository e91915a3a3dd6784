//! `pane.copy_motion`, `pane.copy_search` and `pane.selection.read`: protocol 22's client-owned
//! copy mode. The caller keeps the cursor, anchor and search itself and asks the pane's worker
//! about the text from its own points (screen coordinates: row 0 is the oldest history row);
//! the worker answers with the same motions, search and selection text as the TUI's copy mode
//! (`pane-worker`'s `copy` module), and neither the TUI's copy state nor the viewport moves.
//! So no pane has to be "in copy mode" for these calls.
//!
//! A `content_revision` the pane's output has moved past answers `content_changed`; a point
//! past the pane's text answers `invalid_params`.
//!
//! Not here: the TUI's own copy mode (`crate::clients::conn::copy`).

use herdr_protocol::api::requests::{
    CopyMotion, CopySearchDirection, PaneCopyMotionParams, PaneCopySearchParams, PaneSelectionReadParams,
    PaneTextPoint, PaneTextRange,
};
use herdr_protocol::api::{ApiError, ApiResult};
use herdr_protocol::ipc::{self, TextAnswer, TextQuery, WorkerRequest, WorkerResponse};

use super::envelope::Failure;
use super::panes::{ask, require_link, resolve};
use crate::state::Shared;

pub async fn selection_read(shared: &Shared, p: PaneSelectionReadParams) -> Result<ApiResult, Failure> {
    let query = TextQuery::Selection { anchor: point(p.anchor), cursor: point(p.cursor) };
    match query_pane(shared, &p.pane_id, query, p.content_revision).await? {
        (pane_id, TextAnswer::Selected(text)) => Ok(ApiResult::PaneSelection { pane_id, text }),
        (_, other) => Err(unexpected(&other).into()),
    }
}

pub async fn copy_motion(shared: &Shared, p: PaneCopyMotionParams) -> Result<ApiResult, Failure> {
    let query = TextQuery::Motion { cursor: point(p.cursor), motion: motion(p.motion) };
    match query_pane(shared, &p.pane_id, query, p.content_revision).await? {
        (pane_id, TextAnswer::Moved { cursor, revision }) => {
            Ok(ApiResult::PaneCopyMotion { pane_id, cursor: text_point(cursor), content_revision: revision })
        }
        (_, other) => Err(unexpected(&other).into()),
    }
}

/// The search runs from `cursor` (`previous`, the match the caller last showed, is where its
/// cursor already is after a search, so the cursor alone decides where the next match is).
pub async fn copy_search(shared: &Shared, p: PaneCopySearchParams) -> Result<ApiResult, Failure> {
    let backward = p.direction == CopySearchDirection::Backward;
    let query = TextQuery::Search { query: p.query, backward, cursor: point(p.cursor) };
    match query_pane(shared, &p.pane_id, query, Some(p.content_revision)).await? {
        (pane_id, TextAnswer::Found { matches, total, current, revision }) => {
            let listed = matches.len();
            let matches = matches
                .into_iter()
                .map(|(start, end)| PaneTextRange { start: text_point(start), end: text_point(end) })
                .collect();
            Ok(ApiResult::PaneCopySearch {
                pane_id,
                content_revision: revision,
                matches,
                total,
                current: listed_index(current, listed),
                current_global: current,
            })
        }
        (_, other) => Err(unexpected(&other).into()),
    }
}

async fn query_pane(
    shared: &Shared,
    pane_id: &str,
    query: TextQuery,
    revision: Option<u64>,
) -> Result<(String, TextAnswer), ApiError> {
    let target = resolve(shared, Some(pane_id))?;
    require_link(shared, &target, herdr_protocol::ipc::FACTS_VERSION)?;
    match ask(shared, &target, WorkerRequest::TextQuery { query, revision }).await? {
        WorkerResponse::Text(answer) => Ok((target.pane_id, answer)),
        other => Err(ApiError::internal(format!("unexpected answer from pane worker: {other:?}"))),
    }
}

fn unexpected(answer: &TextAnswer) -> ApiError {
    ApiError::internal(format!("pane worker answered another question: {answer:?}"))
}

/// The index of the current match within the listed ones (`None` when it is past the list).
fn listed_index(current: Option<u64>, listed: usize) -> Option<u32> {
    current.filter(|&i| usize::try_from(i).is_ok_and(|i| i < listed)).and_then(|i| u32::try_from(i).ok())
}

fn point(p: PaneTextPoint) -> (u32, u16) {
    (p.row, p.col)
}

fn text_point((row, col): (u32, u16)) -> PaneTextPoint {
    PaneTextPoint { row, col }
}

/// The API's motions are the vi motions of the TUI's copy mode.
fn motion(m: CopyMotion) -> ipc::CopyMotion {
    match m {
        CopyMotion::LineEnd => ipc::CopyMotion::LineEnd,
        CopyMotion::FirstNonBlank => ipc::CopyMotion::FirstNonBlank,
        CopyMotion::NextWordStart => ipc::CopyMotion::WordForward,
        CopyMotion::PreviousWordStart => ipc::CopyMotion::WordBackward,
        CopyMotion::NextWordEnd => ipc::CopyMotion::WordEnd,
        CopyMotion::NextBigWordStart => ipc::CopyMotion::BigWordForward,
        CopyMotion::PreviousBigWordStart => ipc::CopyMotion::BigWordBackward,
        CopyMotion::NextBigWordEnd => ipc::CopyMotion::BigWordEnd,
        CopyMotion::PreviousParagraph => ipc::CopyMotion::ParagraphBackward,
        CopyMotion::NextParagraph => ipc::CopyMotion::ParagraphForward,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_match_is_indexed_in_the_list_only_when_listed() {
        assert_eq!(listed_index(Some(2), 5), Some(2));
        assert_eq!(listed_index(Some(5), 5), None);
        assert_eq!(listed_index(None, 5), None);
    }

    #[test]
    fn word_motions_map_onto_copy_modes_vi_words() {
        assert_eq!(motion(CopyMotion::NextWordStart), ipc::CopyMotion::WordForward);
        assert_eq!(motion(CopyMotion::PreviousBigWordStart), ipc::CopyMotion::BigWordBackward);
        assert_eq!(motion(CopyMotion::NextParagraph), ipc::CopyMotion::ParagraphForward);
    }
}
