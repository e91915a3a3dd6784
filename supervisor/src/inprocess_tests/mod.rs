//! In-process tests of the whole supervisor core with fake pane workers
//! (`workers/fake.rs`) behind the `Launcher` seam: the real session model, hub, pane tasks,
//! link frames, API transport and dispatch, without a `herdr-pane-worker` process. Time-bound
//! cases run on a paused tokio clock, so they take milliseconds and never race the wall clock.
//!
//! `restart.rs`: a dying worker, its pending requests and the restart budget; `routing.rs`: one
//! method of every API domain through the real transport and dispatch; `waits.rs`: event
//! streams, `agent.wait` and `pane.wait_for_output`.

mod restart;
mod routing;
mod waits;

use std::sync::Arc;

use herdr_host::runtime::RuntimeDir;
use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use crate::ServerConfig;
use crate::api::transport;
use crate::autosave::Autosave;
use crate::session::Session;
use crate::state::{HEADLESS_COLS, HEADLESS_ROWS, Shared};
use crate::workers::fake::{FakeWorker, FakeWorkers};

/// Answer lines from one API connection.
type Lines = tokio::io::Lines<BufReader<OwnedReadHalf>>;

/// How long a test waits for a line; on the paused clock this runs out only when nothing else
/// can happen, so a missing answer or event fails the test instead of hanging it.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// The next line from an API connection.
async fn line(lines: &mut Lines, what: &str) -> String {
    match tokio::time::timeout(PATIENCE, lines.next_line()).await {
        Ok(Ok(Some(line))) => line,
        Ok(Ok(None)) => panic!("the connection closed before {what}"),
        Ok(Err(e)) => panic!("could not read {what}: {e}"),
        Err(_) => panic!("no {what} within {PATIENCE:?}"),
    }
}

/// A supervisor state whose panes get fake workers.
#[derive(Clone)]
struct Harness {
    shared: Arc<Shared>,
    fakes: Arc<FakeWorkers>,
}

fn harness() -> Harness {
    let fakes = FakeWorkers::new();
    let runtime = RuntimeDir { workers: "/nonexistent/workers".into(), secret: String::new() };
    let shared = Shared::with_launcher(
        ServerConfig::for_tests(),
        runtime,
        Autosave::disabled(),
        Session::new(HEADLESS_COLS, HEADLESS_ROWS),
        crate::clients::Screens::shared(),
        fakes.clone(),
    );
    Harness { shared, fakes }
}

impl Harness {
    /// One API connection served by the real transport: the request line in, the answer out.
    async fn call(&self, method: &str, params: Value) -> Value {
        let (mut lines, _writer) = self.send(method, params).await;
        let line = line(&mut lines, "the answer").await;
        let answer: Value = serde_json::from_str(&line).expect("the answer is JSON");
        let kind = if answer.get("error").is_some() {
            SchemaKind::ErrorResponse
        } else {
            SchemaKind::SuccessResponse
        };
        if let Err(errors) = validate(kind, &answer) {
            panic!("{method}: {answer} does not fit the schema: {errors:?}");
        }
        answer
    }

    /// `call`, expecting a result.
    async fn ok(&self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params).await;
        assert_eq!(answer["id"], json!("t"), "{answer}");
        answer.get("result").cloned().unwrap_or_else(|| panic!("{method}: no result: {answer}"))
    }

    /// `call`, expecting an error; its code.
    async fn error_code(&self, method: &str, params: Value) -> String {
        let answer = self.call(method, params).await;
        let code =
            answer["error"]["code"].as_str().unwrap_or_else(|| panic!("{method}: not an error: {answer}"));
        code.to_owned()
    }

    /// Sends a request on a new connection; the lines that come back (a stream for
    /// `events.subscribe`), and the connection's writing half: the transport reads its
    /// hang-up as an abandoned wait, so hold it until the answer is in.
    async fn send(&self, method: &str, params: Value) -> (Lines, OwnedWriteHalf) {
        let (client, server) = UnixStream::pair().expect("a socketpair");
        tokio::spawn(transport::serve(self.shared.clone(), server));
        let (reader, mut writer) = client.into_split();
        let line = json!({"id": "t", "method": method, "params": params}).to_string();
        writer.write_all(format!("{line}\n").as_bytes()).await.expect("send the request");
        (BufReader::new(reader).lines(), writer)
    }

    /// Creates a workspace; its first pane's id and that pane's fake worker.
    async fn workspace(&self) -> (String, FakeWorker) {
        let created = self.ok("workspace.create", json!({"focus": true})).await;
        let worker = self.fakes.next_worker().await;
        let pane =
            created["root_pane"]["pane_id"].as_str().unwrap_or_else(|| panic!("no root pane: {created}"));
        (pane.to_owned(), worker)
    }
}
