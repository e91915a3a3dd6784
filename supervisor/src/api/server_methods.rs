//! `ping` and `server.*`.

use herdr_protocol::api::{ApiResult, ServerCapabilities};
use herdr_protocol::{HERDR_VERSION, PROTOCOL_VERSION};

pub fn ping() -> ApiResult {
    ApiResult::Pong {
        version: HERDR_VERSION.to_owned(),
        protocol: PROTOCOL_VERSION,
        capabilities: Some(ServerCapabilities {
            // Live handoff arrives with the persistence and handoff work.
            live_handoff: false,
            // `herdr server --detach` starts a daemonised supervisor.
            detached_server_daemon: true,
            endpoint_protocol_generation: None,
            health_check: false,
            surface_interest: false,
        }),
    }
}
