//! `pane.report_metadata` and `workspace.report_metadata`: display-only metadata from scripts
//! and hooks. The rules live in `crate::metadata` (pure) and the session applies them; these
//! handlers parse, map a refusal to its wire code, publish what changed and re-arm the expiry
//! timer when the report set a ttl. Both answer `ok`, also for a stale `seq`.

use herdr_protocol::api::requests::{PaneReportMetadataParams, WorkspaceReportMetadataParams};
use herdr_protocol::api::{ApiError, ApiResult, ErrorCode};

use super::envelope::Failure;
use crate::metadata::expiry;
use crate::metadata::{MetadataError, PaneReport};
use crate::session::{Effects, ReportError, WorkspaceReport};
use crate::state::Shared;

/// The public error of a refused report (its code is one of the `*metadata*` codes).
fn refused(e: MetadataError) -> Failure {
    ApiError::new(ErrorCode::from_wire(e.code()), e.to_string()).into()
}

fn failure(e: ReportError) -> Failure {
    match e {
        ReportError::Target(e) => e.into(),
        ReportError::Metadata(e) => refused(e),
    }
}

/// Publishes the change and, when the report set a ttl, lets the timer see its expiry.
fn settle(shared: &Shared, effects: Effects, with_ttl: bool) -> ApiResult {
    shared.apply(effects);
    if with_ttl {
        shared.metadata_expiry.rearm(shared);
    }
    ApiResult::Ok
}

pub async fn report_pane(shared: &Shared, p: PaneReportMetadataParams) -> Result<ApiResult, Failure> {
    let report = PaneReport::parse(&p).map_err(refused)?;
    let effects =
        shared.session().report_pane_metadata(p.pane_id.as_str(), &report, expiry::now()).map_err(failure)?;
    Ok(settle(shared, effects, report.ttl.is_some()))
}

pub async fn report_workspace(
    shared: &Shared,
    p: WorkspaceReportMetadataParams,
) -> Result<ApiResult, Failure> {
    let report = WorkspaceReport::parse(&p.source, p.seq, p.ttl_ms, &p.tokens).map_err(refused)?;
    let effects = shared
        .session()
        .report_workspace_metadata(p.workspace_id.as_str(), &report, expiry::now())
        .map_err(failure)?;
    Ok(settle(shared, effects, report.ttl.is_some()))
}

#[cfg(test)]
#[path = "metadata_tests.rs"]
mod tests;
