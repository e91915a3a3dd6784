//! `ping` and `server.*`.

use herdr_protocol::api::ApiError;
use herdr_protocol::api::{ApiResult, ServerCapabilities};
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};

use super::envelope::{Failure, Request};
use crate::handoff::{self, HandoffError};
use crate::state::Shared;

pub fn ping() -> ApiResult {
    let build = crate::build_info::record();
    ApiResult::Pong {
        version: HERDR_VERSION.to_owned(),
        protocol: PROTOCOL_VERSION,
        capabilities: Some(ServerCapabilities {
            // `server.live_handoff`: the sockets and the workers go to the new binary.
            live_handoff: true,
            // `herdr server --detach` starts a daemonised supervisor.
            detached_server_daemon: true,
            endpoint_protocol_generation: None,
            health_check: false,
            surface_interest: false,
        }),
        binary: Some(build.binary.clone()),
        service: Some(build.service.clone()),
    }
}

/// `server.live_handoff`: answers `ok` once the new binary serves the session (the caller's
/// connection is the last this supervisor answers); any failure leaves this one serving.
pub async fn live_handoff(shared: &Shared, req: &Request) -> Result<ApiResult, Failure> {
    let params: handoff::Params = serde_json::from_value(req.params.clone())
        .map_err(|e| Failure::BadRequest(format!("invalid server.live_handoff params: {e}")))?;
    let Some(shared) = shared.arc() else { return Err(ApiError::internal("supervisor is stopping").into()) };
    match handoff::export(&shared, params).await {
        Ok(()) => Ok(ApiResult::Ok),
        Err(e @ HandoffError::Busy) => Err(ApiError::new("handoff_in_progress", e.to_string()).into()),
        Err(e) => Err(ApiError::new("handoff_failed", e.to_string()).into()),
    }
}
