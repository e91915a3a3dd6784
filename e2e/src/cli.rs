//! Running the `herdr` command line against a test server and reading what it printed.
//!
//! The CLI prints whole response envelopes (one compact JSON line, keys sorted) on stdout for
//! success and on stderr for errors, raw text for reads, and nothing for input commands. Every
//! envelope it prints is schema-checked as it is captured.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::schema;

/// What one CLI run printed and how it exited.
#[derive(Debug, Clone)]
pub struct CliOutput {
    pub args: Vec<String>,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Parses `text` as one protocol envelope (`{"id": …}` with `result` or `error`), if it is one.
pub fn envelope(text: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let object = value.as_object()?;
    (object.contains_key("id") && (object.contains_key("result") || object.contains_key("error")))
        .then_some(value)
}

impl CliOutput {
    fn describe(&self) -> String {
        format!(
            "`herdr {}` exited {:?}\n  stdout: {}\n  stderr: {}",
            self.args.join(" "),
            self.status.code(),
            self.stdout,
            self.stderr
        )
    }

    /// Asserts exit 0 and returns stdout verbatim (for `pane read`).
    pub fn text(&self) -> &str {
        assert!(self.status.success(), "expected success: {}", self.describe());
        &self.stdout
    }

    /// Asserts exit 0 with nothing on stdout (the input commands are silent).
    pub fn silent(&self) {
        assert!(
            self.status.success() && self.stdout.is_empty(),
            "expected silent success: {}",
            self.describe()
        );
    }

    /// Asserts exit 0 and a success envelope on stdout; returns its `result`.
    pub fn result(&self) -> Value {
        assert!(self.status.success(), "expected success: {}", self.describe());
        let value =
            envelope(&self.stdout).unwrap_or_else(|| panic!("no envelope on stdout: {}", self.describe()));
        value.get("result").cloned().unwrap_or_else(|| panic!("no result: {}", self.describe()))
    }

    /// Asserts exit 1 and an error envelope on stderr; returns `(code, message)`.
    pub fn error(&self) -> (String, String) {
        assert_eq!(self.status.code(), Some(1), "expected exit 1: {}", self.describe());
        let value =
            envelope(&self.stderr).unwrap_or_else(|| panic!("no envelope on stderr: {}", self.describe()));
        let code = value["error"]["code"].as_str().unwrap_or_default().to_owned();
        let message = value["error"]["message"].as_str().unwrap_or_default().to_owned();
        (code, message)
    }

    /// The stdout envelope as printed (key order preserved), for checking the CLI's sorted keys.
    pub fn stdout_envelope(&self) -> Option<Value> {
        envelope(&self.stdout)
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        // A read error just ends the capture; the exit status still tells the story.
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn wait_with_deadline(child: &mut Child, timeout: Duration, what: &str) -> ExitStatus {
    let started = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait().expect("try_wait on a child we spawned") {
            return status;
        }
        if started.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not exit within {timeout:?}");
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Runs a prepared `herdr` command with a deadline, captures both streams, and schema-checks any
/// envelope on either of them.
pub fn run(mut command: Command, args: &[&str], timeout: Duration) -> CliOutput {
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child =
        command.spawn().unwrap_or_else(|error| panic!("cannot start `herdr {}`: {error}", args.join(" ")));
    let stdout = drain(child.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.stderr.take().expect("stderr is piped"));
    let status = wait_with_deadline(&mut child, timeout, &format!("`herdr {}`", args.join(" ")));
    let output = CliOutput {
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        status,
        stdout: stdout.join().expect("stdout reader thread"),
        stderr: stderr.join().expect("stderr reader thread"),
    };
    for text in [&output.stdout, &output.stderr] {
        if let Some(value) = envelope(text) {
            schema::validate_line(&value).unwrap_or_else(|violation| {
                panic!("schema violation in CLI output: {violation}\n{}", output.describe())
            });
        }
    }
    output
}
