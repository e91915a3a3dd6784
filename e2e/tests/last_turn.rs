//! The `last_turn` read (a herdr extension) end to end: a fake claude answers a prompt with a
//! tool call, a multi-line reply and a status line above its boxed composer; `herdr agent read
//! T --source last-turn` and `herdr pane read ID --source last-turn` return the reply only, far
//! smaller than a `recent` read of the same turn. A plain shell pane is refused (`invalid_params`).
//!
//! The reads go through the CLI: protocol 22's schema does not know the `last_turn` source, so the
//! harness's schema-checked calls are used only for the protocol-22 `recent` read beside it.

use herdr_e2e::agents::{self, AgentWorkspace};
use herdr_e2e::wire::{self, Reply};
use herdr_e2e::{PATIENCE, TestServer};
use serde_json::json;

const REPLY: &str = "Read(src/net.rs)\n⎿  Read 88 lines\n\nReviewed the retry loop:\n\
                     - backoff never resets after a success\n- the timeout is read on every call";

fn start_claude(server: &TestServer) -> AgentWorkspace {
    let workspace = agents::create_agent_workspace(server, &[("FAKE_AGENT_WORK_MS", "300")]);
    let started = agents::start_agent(server, "reviewer", "claude", &workspace.ids.pane_id).result();
    assert_eq!(started["type"], "agent_started", "{started}");
    workspace
}

#[test]
fn last_turn_reads_return_the_reply_only_and_are_smaller_than_recent() {
    let server = TestServer::start();
    let workspace = start_claude(&server);
    let pane = workspace.ids.pane_id.as_str();
    let mark = workspace.log.mark();
    let prompt = "check src/net.rs, multi-line-reply please";
    let prompted =
        server.cli(&["agent", "prompt", "reviewer", prompt, "--wait", "--timeout", "30000"]).result();
    assert_eq!(prompted["type"], "agent_prompted", "{prompted}");
    workspace.log.wait_event("idle", mark, PATIENCE);

    // The CLI prints the text, as for any `read`.
    let cli_text = |args: &[&str]| server.cli(args).text().trim_end_matches('\n').to_string();
    assert_eq!(cli_text(&["agent", "read", "reviewer", "--source", "last-turn"]), REPLY);
    assert_eq!(cli_text(&["pane", "read", pane, "--source", "last-turn"]), REPLY);
    let two = cli_text(&["pane", "read", pane, "--source", "last-turn", "--lines", "2"]);
    assert_eq!(two, "- backoff never resets after a success\n- the timeout is read on every call");

    // The whole result, on the wire (unchecked: protocol 22's schema has no `last_turn` source).
    let read = |params: serde_json::Value, method: &str| -> serde_json::Value {
        let line = format!("{}\n", json!({"id": "lt", "method": method, "params": params}));
        match wire::exchange(server.socket(), line.as_bytes(), PATIENCE).expect("server answers") {
            Reply::Line(text) => serde_json::from_str(&text).expect("JSON answer"),
            other => panic!("no answer: {other:?}"),
        }
    };
    let by_agent = read(json!({"target": "reviewer", "source": "last_turn"}), "agent.read");
    let result = &by_agent["result"]["read"];
    assert_eq!(result["source"], "last_turn", "{by_agent}");
    assert_eq!(result["format"], "text", "{by_agent}");
    assert_eq!(result["pane_id"], pane, "{by_agent}");
    assert_eq!(result["text"], REPLY, "{by_agent}");
    assert_eq!(result["truncated"], false, "{by_agent}");
    let cut = read(json!({"pane_id": pane, "source": "last_turn", "lines": 2}), "pane.read");
    assert_eq!(cut["result"]["read"]["truncated"], true, "{cut}");

    let recent = server.call("pane.read", json!({"pane_id": pane, "source": "recent", "lines": 1000}));
    let recent_text = recent["read"]["text"].as_str().unwrap_or_default();
    assert!(recent_text.contains(prompt) && recent_text.contains("? for shortcuts"), "{recent_text}");
    let (turn_bytes, recent_bytes) = (REPLY.len(), recent_text.len());
    println!("same turn: last_turn read {turn_bytes} bytes, recent read {recent_bytes} bytes");
    assert!(
        turn_bytes * 2 < recent_bytes,
        "last_turn {turn_bytes} B is not much smaller than recent {recent_bytes} B"
    );
}

#[test]
fn a_pane_without_an_agent_has_no_last_turn() {
    let server = TestServer::start();
    let workspace = agents::create_agent_workspace(&server, &[]);
    let output = server.cli(&["pane", "read", &workspace.ids.pane_id, "--source", "last-turn"]);
    let (code, message) = output.error();
    assert_eq!(code, "invalid_params", "{message}");
    assert!(message.contains("last_turn needs an agent pane"), "{message}");
}
