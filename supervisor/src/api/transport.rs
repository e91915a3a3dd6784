//! One API connection: a single bounded request line in, one response line out (or, for
//! `events.subscribe`, a stream), with the reference transport's limits.

use std::sync::Arc;
use std::time::Duration;

use herdr_host::socket::peer_is_same_user;
use herdr_protocol::api::requests::{EventsRequest, ServerRequest};
use herdr_protocol::api::{Request, RequestEnvelope};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::{dispatch, envelope, events};
use crate::state::Shared;

/// The first line must arrive within this long.
pub const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest accepted request line, excluding the newline.
pub const MAX_LINE: usize = 1024 * 1024;
/// A client that does not take a response (or event) within this long is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn serve(shared: Arc<Shared>, stream: UnixStream) {
    if !peer_is_same_user(&stream) {
        log::warn!("refused an API connection from another user");
        return;
    }
    let (mut reader, mut writer) = stream.into_split();
    let line = match tokio::time::timeout(FIRST_LINE_TIMEOUT, read_line(&mut reader)).await {
        Ok(Some(line)) => line,
        _ => return,
    };
    if line.trim().is_empty() {
        return;
    }
    let RequestEnvelope { id, request } = match envelope::parse(&line) {
        Ok(envelope) => envelope,
        Err(e) => {
            let _ = write_line(&mut writer, &envelope::bad_request_line(&e.to_string())).await;
            return;
        }
    };
    let request = match request {
        Request::Events(EventsRequest::Subscribe(p)) => {
            events::subscribe(&shared, &id, p, reader, writer).await;
            return;
        }
        other => other,
    };
    // A committed handoff stops this supervisor too, ending nothing (`server::run`).
    let stops = matches!(request, Request::Server(ServerRequest::Stop(_) | ServerRequest::LiveHandoff(_)));
    let outcome = if dispatch::waits(&request) {
        // Long waits are abandoned when the client goes away.
        let mut swapping = shared.handoff.swapping();
        tokio::select! {
            outcome = dispatch::dispatch(&shared, request) => outcome,
            () = hangup(&mut reader) => return,
            () = crate::handoff::began(&mut swapping) => Err(crate::handoff::ended_error().into()),
        }
    } else {
        dispatch::dispatch(&shared, request).await
    };
    let _ = write_line(&mut writer, &envelope::outcome_line(&id, &outcome)).await;
    if stops && outcome.is_ok() {
        shared.begin_shutdown();
    }
}

/// Reads up to the first newline. None on EOF first, an oversized line or invalid UTF-8: such
/// connections are dropped without a reply.
async fn read_line(reader: &mut OwnedReadHalf) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 8192];
    loop {
        let n = reader.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        if let Some(pos) = chunk[..n].iter().position(|&b| b == b'\n') {
            buf.extend_from_slice(&chunk[..pos]);
            if buf.len() > MAX_LINE {
                return None;
            }
            return String::from_utf8(buf).ok();
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_LINE {
            return None;
        }
    }
}

/// Resolves when the client closes its side (anything it sends after the request is ignored).
pub async fn hangup(reader: &mut OwnedReadHalf) {
    let mut sink = [0u8; 1024];
    loop {
        match reader.read(&mut sink).await {
            Ok(0) | Err(_) => return,
            Ok(_) => continue,
        }
    }
}

pub async fn write_line(writer: &mut OwnedWriteHalf, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    match tokio::time::timeout(WRITE_TIMEOUT, writer.write_all(&bytes)).await {
        Ok(result) => result,
        Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
    }
}
