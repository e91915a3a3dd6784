//! A scripted [`Conversation`] for the agent flows' tests: each request is matched to the next
//! scripted reply by method (a mismatch fails the test), and `pause` advances a manual clock.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agent::start::Conversation;
use crate::connect::ConnectError;
use crate::request::ApiRequest;

pub struct Script {
    pub replies: VecDeque<(&'static str, Value)>,
    pub sent: Vec<Value>,
    pub clock: Instant,
}

impl Script {
    pub fn new(replies: Vec<(&'static str, Value)>) -> Self {
        Script { replies: replies.into(), sent: Vec::new(), clock: Instant::now() }
    }

    pub fn methods(&self) -> Vec<String> {
        self.sent.iter().map(|r| r["method"].as_str().unwrap_or_default().to_owned()).collect()
    }
}

impl Conversation for Script {
    fn send(&mut self, request: &ApiRequest) -> Result<Value, ConnectError> {
        self.sent.push(request.to_value());
        let (method, reply) =
            self.replies.pop_front().unwrap_or_else(|| panic!("unscripted request {request:?}"));
        assert_eq!(request.method(), method, "request order");
        Ok(reply)
    }

    fn now(&self) -> Instant {
        self.clock
    }

    fn pause(&mut self, duration: Duration) {
        self.clock += duration;
    }
}
