//! The request/response envelope: parsing a request line and writing response lines.
//!
//! A request that does not parse (bad JSON, missing or mistyped `id`/`method`/`params`, unknown
//! method, params that do not fit the method's type) is answered with a blank id; every later
//! error echoes the request's id. Parsing itself is `herdr_protocol::api::RequestEnvelope`.

use herdr_protocol::api::{ApiError, ApiResult, RequestEnvelope, RequestError};
use serde::Serialize;

/// An answer that is not a success.
#[derive(Debug)]
pub enum Failure {
    /// The request did not parse: answered with id `""` and `invalid_request`.
    BadRequest(String),
    /// A handler's error, with the request's id.
    Api(ApiError),
    /// The initial pane probe of an event wait failed: upstream reports it under the internal
    /// sub-request id `<id>:sub:0:probe`.
    Probe(ApiError),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

/// Parses a request line into its id and typed request (method and params at once); the error's
/// text is the message of the blank-id `invalid_request` answer.
pub fn parse(line: &str) -> Result<RequestEnvelope, RequestError> {
    RequestEnvelope::parse_line(line)
}

#[derive(Serialize)]
struct Success<'a> {
    id: &'a str,
    result: &'a ApiResult,
}

#[derive(Serialize)]
struct ErrorLine<'a> {
    id: &'a str,
    error: &'a ApiError,
}

pub fn success_line(id: &str, result: &ApiResult) -> String {
    serde_json::to_string(&Success { id, result })
        .unwrap_or_else(|e| error_line(id, &ApiError::internal(format!("could not encode result: {e}"))))
}

pub fn error_line(id: &str, error: &ApiError) -> String {
    serde_json::to_string(&ErrorLine { id, error }).unwrap_or_else(|_| {
        r#"{"id":"","error":{"code":"internal_error","message":"encoding failed"}}"#.into()
    })
}

/// The line for any outcome.
pub fn outcome_line(id: &str, outcome: &Result<ApiResult, Failure>) -> String {
    match outcome {
        Ok(result) => success_line(id, result),
        Err(Failure::Api(e)) => error_line(id, e),
        Err(Failure::Probe(e)) => error_line(&format!("{id}:sub:0:probe"), e),
        Err(Failure::BadRequest(msg)) => bad_request_line(msg),
    }
}

pub fn bad_request_line(msg: &str) -> String {
    error_line("", &ApiError::invalid_request(format!("invalid request: {msg}")))
}
