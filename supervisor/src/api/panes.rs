//! Pane methods answered by the pane's worker: reads, input, output waits, process info, scrolling.
//! The supervisor resolves the pane, forwards the request and shapes the answer.

use herdr_protocol::api::requests::{
    OptionalPane, OutputMatch, PaneReadParams, PaneScrollParams, PaneSendInputParams, PaneSendKeysParams,
    PaneSendTextParams, PaneWaitForOutputParams,
};
use std::time::Duration;

use herdr_protocol::api::{
    ApiError, ApiResult, ErrorCode, PaneProcessInfo, PaneProcessInfoProcess, PaneReadResult, ReadFormat,
    ReadSource,
};
use herdr_protocol::ipc::{self, Matcher, ReadSpec, WorkerRequest, WorkerResponse};

use super::envelope::Failure;
use crate::session::PaneKey;
use crate::state::Shared;

/// Reads never return more than this many lines.
pub const MAX_READ_LINES: u32 = 1000;

/// A pane resolved to its key and its public ids at the time of the request.
pub(super) struct Target {
    pub key: PaneKey,
    pub pane_id: String,
    pub workspace_id: String,
    pub tab_id: String,
}

pub(super) fn resolve(shared: &Shared, pane_id: Option<&str>) -> Result<Target, ApiError> {
    let session = shared.session();
    let key = match pane_id {
        Some(id) => session.resolve_pane(id)?,
        None => session.focused_pane().ok_or_else(ApiError::no_active_pane)?,
    };
    let (workspace_id, tab_id, pane_id) =
        session.pane_ids(key).ok_or_else(|| ApiError::pane_not_found(pane_id.unwrap_or("")))?;
    Ok(Target { key, pane_id, workspace_id, tab_id })
}

/// Refuses a question that a worker adopted from an older build (before its upgrade) could not
/// decode: link versions before `since` do not have it.
pub(super) fn require_link(shared: &Shared, target: &Target, since: u32) -> Result<(), ApiError> {
    let old = shared.pane_handle(target.key).and_then(|h| h.link_version()).is_some_and(|v| v < since);
    if old {
        let message =
            format!("{}'s worker is from an older herdr and is being upgraded; try again", target.pane_id);
        return Err(ApiError::new(herdr_protocol::api::ErrorCode::ServerUnavailable, message));
    }
    Ok(())
}

pub(super) async fn ask(
    shared: &Shared,
    target: &Target,
    body: WorkerRequest,
) -> Result<WorkerResponse, ApiError> {
    let handle = shared.pane_handle(target.key).ok_or_else(|| ApiError::pane_not_found(&target.pane_id))?;
    match handle.request(shared.next_request_id(), body).await {
        Ok(WorkerResponse::Error { code, message }) => Err(ApiError::new(code, message)),
        Ok(response) => Ok(response),
        Err(_) => Err(ApiError::pane_not_found(&target.pane_id)),
    }
}

fn unexpected(response: &WorkerResponse) -> ApiError {
    ApiError::internal(format!("unexpected answer from pane worker: {response:?}"))
}

pub(super) fn read_spec(source: ReadSource, lines: Option<u32>, format: ReadFormat) -> ReadSpec {
    ReadSpec {
        source: match source {
            ReadSource::Visible => ipc::ReadSource::Visible,
            // Waits and watches given `last_turn` read `recent` (reads take `read_last_turn`).
            ReadSource::Recent | ReadSource::LastTurn => ipc::ReadSource::Recent,
            ReadSource::RecentUnwrapped => ipc::ReadSource::RecentUnwrapped,
            ReadSource::Detection => ipc::ReadSource::Detection,
        },
        lines: lines.map(|n| n.min(MAX_READ_LINES)),
        format: match format {
            ReadFormat::Text => ipc::ReadFormat::Text,
            ReadFormat::Ansi => ipc::ReadFormat::Ansi,
        },
    }
}

pub(super) fn read_result(
    target: &Target,
    source: ReadSource,
    format: ReadFormat,
    out: ipc::ReadOutput,
) -> PaneReadResult {
    PaneReadResult {
        pane_id: target.pane_id.clone(),
        workspace_id: target.workspace_id.clone(),
        tab_id: target.tab_id.clone(),
        source,
        format,
        text: out.text,
        revision: out.revision,
        truncated: out.truncated,
    }
}

pub async fn read(shared: &Shared, p: PaneReadParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    if p.source == ReadSource::LastTurn {
        return read_last_turn(shared, &target, p.lines).await;
    }
    // Detection text is always plain.
    let format = if p.source == ReadSource::Detection { ReadFormat::Text } else { p.format() };
    match ask(shared, &target, WorkerRequest::Read(read_spec(p.source, p.lines, format))).await? {
        WorkerResponse::Read(out) => {
            Ok(ApiResult::PaneRead { read: Box::new(read_result(&target, p.source, format, out)) })
        }
        other => Err(unexpected(&other).into()),
    }
}

/// A `last_turn` read's byte cap: the reply is cut to fit at a line boundary (`truncated`).
pub const LAST_TURN_MAX_BYTES: usize = 64 * 1024;

/// `source: "last_turn"` (extension): the pane's recent text (the most a read returns), cut to
/// the agent's reply to the last prompt with its manifest's `[last_turn]` table, then bounded to
/// the last `lines` lines and [`LAST_TURN_MAX_BYTES`]. Always plain text. A pane without a known
/// agent (detected, or a managed launch's kind) is `invalid_params`: there is no turn to cut.
pub(super) async fn read_last_turn(
    shared: &Shared,
    target: &Target,
    lines: Option<u32>,
) -> Result<ApiResult, Failure> {
    let label = {
        let session = shared.session();
        session
            .pane_agent(target.key)
            .and_then(|a| a.foreground_agent().or(a.managed_kind()).map(str::to_owned))
    };
    let Some(agent) = label.as_deref().and_then(herdr_manifests::Agent::lookup) else {
        let message = format!("last_turn needs an agent pane: {} runs no known agent", target.pane_id);
        return Err(ApiError::new(ErrorCode::InvalidParams, message).into());
    };
    let spec = ReadSpec {
        source: ipc::ReadSource::Recent,
        lines: Some(MAX_READ_LINES),
        format: ipc::ReadFormat::Text,
    };
    let out = match ask(shared, target, WorkerRequest::Read(spec)).await? {
        WorkerResponse::Read(out) => out,
        other => return Err(unexpected(&other).into()),
    };
    let manifests = super::agents::manifest_set_for(agent);
    let turn = herdr_manifests::last_turn(manifests.get(agent), &out.text);
    let max_lines = lines.map(|n| n.min(MAX_READ_LINES) as usize);
    let (text, truncated) = turn.bounded(max_lines, LAST_TURN_MAX_BYTES);
    let cut = ipc::ReadOutput { text, revision: out.revision, truncated };
    Ok(ApiResult::PaneRead {
        read: Box::new(read_result(target, ReadSource::LastTurn, ReadFormat::Text, cut)),
    })
}

pub async fn send_text(shared: &Shared, p: PaneSendTextParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    expect_ok(ask(shared, &target, WorkerRequest::SendText(p.text)).await?)
}

pub async fn send_keys(shared: &Shared, p: PaneSendKeysParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    expect_ok(ask(shared, &target, WorkerRequest::SendKeys(p.keys)).await?)
}

pub async fn send_input(shared: &Shared, p: PaneSendInputParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    expect_ok(ask(shared, &target, WorkerRequest::SendInput { text: p.text, keys: p.keys }).await?)
}

/// `pane.scroll`: puts the pane's viewport this many rows above the live screen (clamped to its
/// history; 0 follows output again). A visible pane shows the scrolled view at once.
pub async fn scroll(shared: &Shared, p: PaneScrollParams) -> Result<ApiResult, Failure> {
    let target = resolve(shared, Some(&p.pane_id))?;
    let to = match u32::try_from(p.offset_from_bottom).unwrap_or(u32::MAX) {
        0 => ipc::ScrollTo::Bottom,
        rows => ipc::ScrollTo::OffsetFromBottom(rows),
    };
    expect_ok(ask(shared, &target, WorkerRequest::Scroll(to)).await?)
}

fn expect_ok(response: WorkerResponse) -> Result<ApiResult, Failure> {
    match response {
        WorkerResponse::Ok => Ok(ApiResult::Ok),
        other => Err(unexpected(&other).into()),
    }
}

/// The worker's matcher; a regex is checked here so a bad one is refused before anything runs.
pub(super) fn compile_match(matcher: OutputMatch) -> Result<Matcher, ApiError> {
    Ok(match matcher {
        OutputMatch::Substring(s) => Matcher::Substring(s),
        OutputMatch::Regex(r) => {
            regex::Regex::new(&r)
                .map_err(|e| ApiError::new(ErrorCode::InvalidRegex, format!("invalid regex: {e}")))?;
            Matcher::Regex(r)
        }
    })
}

/// Waits and watches on `recent` read the unwrapped log, as upstream does.
pub(super) fn wait_source(source: ReadSource) -> ReadSource {
    if matches!(source, ReadSource::Recent | ReadSource::LastTurn) {
        ReadSource::RecentUnwrapped
    } else {
        source
    }
}

pub async fn wait_for_output(shared: &Shared, p: PaneWaitForOutputParams) -> Result<ApiResult, Failure> {
    let matcher = compile_match(p.matcher)?;
    let target = resolve(shared, Some(&p.pane_id))?;
    let source = wait_source(p.source);
    let body = WorkerRequest::WaitOutput { read: read_spec(source, p.lines, ReadFormat::Text), matcher };
    let asked = ask(shared, &target, body);
    let response = match p.timeout_ms {
        Some(ms) => tokio::time::timeout(Duration::from_millis(ms), asked)
            .await
            .map_err(|_| ApiError::new(ErrorCode::Timeout, "timed out waiting for output match"))??,
        None => asked.await?,
    };
    match response {
        WorkerResponse::Matched { matched_line, read } => Ok(ApiResult::OutputMatched {
            pane_id: target.pane_id.clone(),
            revision: read.revision,
            matched_line: Some(matched_line),
            read: Box::new(read_result(&target, source, ReadFormat::Text, read)),
        }),
        other => Err(unexpected(&other).into()),
    }
}

pub async fn process_info(shared: &Shared, p: OptionalPane) -> Result<ApiResult, Failure> {
    let target = resolve(shared, p.pane_id.as_deref())?;
    match ask(shared, &target, WorkerRequest::ProcessInfo).await? {
        WorkerResponse::ProcessInfo(info) => Ok(ApiResult::PaneProcessInfo {
            process_info: Box::new(PaneProcessInfo {
                pane_id: target.pane_id.clone(),
                shell_pid: info.shell_pid,
                foreground_process_group_id: info.foreground_process_group_id,
                tty: info.tty,
                foreground_processes: info
                    .foreground_processes
                    .into_iter()
                    .map(|p| PaneProcessInfoProcess {
                        pid: p.pid,
                        name: p.name,
                        argv0: p.argv0,
                        argv: p.argv,
                        cmdline: p.cmdline,
                        cwd: p.cwd,
                    })
                    .collect(),
            }),
        }),
        other => Err(unexpected(&other).into()),
    }
}
