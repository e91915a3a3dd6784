//! `herdr agent send TARGET TEXT` (herdr 0.7): writes TEXT into the agent's pane as typed
//! input — no Enter, no bracketed paste — and prints nothing on success, as 0.7 did (scripts
//! follow it with `pane send-keys … Enter`). Mapped onto protocol 22 as `agent.get` (the target's
//! pane) then `pane.send_text`; errors print their envelope on stderr, exit 1.

use clap::Args;
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{AgentRequest, AgentTarget, PaneRequest, PaneSendTextParams};
use serde_json::Value;

use super::start::{Conversation, SocketConversation, StartFailure};
use crate::output::{self, EXIT_ERROR, Rendered};
use crate::request::ApiRequest;
use crate::target::Target;

const ID: &str = "cli:agent:send";

#[derive(Debug, Clone, Args)]
pub struct SendArgs {
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Text to write into the agent's pane (not submitted: no Enter)
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    pub text: String,
}

/// The two requests; `Ok` is the `pane.send_text` reply.
pub fn run(args: &SendArgs, conv: &mut impl Conversation) -> Result<Value, StartFailure> {
    let get = AgentRequest::Get(AgentTarget { target: args.target.clone() });
    let reply = conv.send(&ApiRequest::new(ID, Request::Agent(get)))?;
    if reply.get("error").is_some() {
        return Err(StartFailure::Envelope(reply));
    }
    let pane = reply["result"]["agent"]["pane_id"].as_str().unwrap_or_default().to_owned();
    let send = PaneRequest::SendText(PaneSendTextParams { pane_id: pane.into(), text: args.text.clone() });
    let reply = conv.send(&ApiRequest::new(ID, Request::Pane(send)))?;
    if reply.get("error").is_some() {
        return Err(StartFailure::Envelope(reply));
    }
    Ok(reply)
}

pub fn run_against(target: &Target, args: &SendArgs) -> Rendered {
    if let Err(refused) = crate::call::guard(target, ID) {
        return refused;
    }
    match run(args, &mut SocketConversation { target }) {
        Ok(_) => Rendered::default(),
        Err(StartFailure::Envelope(error)) => Rendered::stderr(output::sorted_line(&error), EXIT_ERROR),
        Err(StartFailure::Connect(err)) => crate::call::connect_failure(target, ID, err),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::script::Script;

    #[test]
    fn the_text_goes_to_the_agents_pane_without_enter() {
        let args = SendArgs { target: "reviewer".into(), text: "--review this".into() };
        let agent = json!({"id": ID, "result": {"type": "agent_info", "agent": {"pane_id": "w1:p3"}}});
        let mut script = Script::new(vec![
            ("agent.get", agent),
            ("pane.send_text", json!({"id": ID, "result": {"type": "ok"}})),
        ]);
        run(&args, &mut script).expect("sent");
        assert_eq!(script.sent[0]["params"], json!({"target": "reviewer"}));
        assert_eq!(script.sent[1]["params"], json!({"pane_id": "w1:p3", "text": "--review this"}));
    }

    #[test]
    fn an_unknown_agent_sends_nothing() {
        let args = SendArgs { target: "nobody".into(), text: "hi".into() };
        let missing =
            json!({"id": ID, "error": {"code": "agent_not_found", "message": "agent nobody not found"}});
        let mut script = Script::new(vec![("agent.get", missing)]);
        assert!(
            matches!(run(&args, &mut script), Err(StartFailure::Envelope(e)) if e["error"]["code"] == "agent_not_found")
        );
        assert_eq!(script.methods(), ["agent.get"]);
    }
}
