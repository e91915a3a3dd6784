//! The request/response envelope: parsing a request line and writing response lines.
//!
//! A request that does not parse (bad JSON, missing or mistyped `id`/`method`/`params`, unknown
//! method, bad params) is answered with a blank id; every later error echoes the request's id.

use herdr_protocol::api::{ApiError, ApiResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::methods;

#[derive(Debug, Clone)]
pub struct Request {
    pub id: String,
    pub method: String,
    pub params: Value,
}

#[derive(Deserialize)]
struct RawRequest {
    id: String,
    method: String,
    params: Value,
}

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

pub fn parse(line: &str) -> Result<Request, String> {
    let raw: RawRequest = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if !methods::ALL.contains(&raw.method.as_str()) {
        let expected = methods::ALL.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
        return Err(format!("unknown variant `{}`, expected one of {expected}", raw.method));
    }
    if !raw.params.is_object() {
        return Err(format!("invalid type: {}, expected params object", kind_of(&raw.params)));
    }
    Ok(Request { id: raw.id, method: raw.method, params: raw.params })
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "map",
    }
}

/// Deserializes a method's params; failure is a parse failure (blank id).
pub fn params<T: for<'de> Deserialize<'de>>(req: &Request) -> Result<T, Failure> {
    T::deserialize(&req.params).map_err(|e| Failure::BadRequest(e.to_string()))
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
