//! Running the real `herdr` binary in a hermetic environment, and a scripted socket peer that
//! records the request lines the CLI sends and answers each connection with a given line.
//!
//! The peer stands in for a server only where a real one cannot produce the case under test
//! (another protocol version, a crafted key order); flows against the real server are the
//! `e2e` crate's job.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// A temp config home; every run gets `XDG_CONFIG_HOME` pointing into it and no inherited
/// `HERDR_*` variables, so the developer's real sessions are never touched.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox { dir: tempfile::tempdir().expect("tempdir") }
    }

    pub fn config_home(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    /// Where the default session's API socket resolves in this sandbox.
    pub fn default_socket(&self) -> PathBuf {
        self.config_home().join("herdr").join("herdr.sock")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_herdr"));
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("HERDR_") {
                command.env_remove(&key);
            }
        }
        command.env("XDG_CONFIG_HOME", self.config_home()).args(args).stdin(Stdio::null());
        command
    }

    /// Runs `herdr args…` with extra env, failing the test if it does not exit within 20 s.
    pub fn run_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut command = self.command(args);
        for (key, value) in env {
            command.env(key, value);
        }
        finish(command, Duration::from_secs(20), args)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }
}

fn finish(mut command: Command, limit: Duration, args: &[&str]) -> Output {
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn herdr");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    // Collect output on another thread so a large stdout cannot block the child on a full pipe.
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        let _ = done.send(child.wait_with_output().expect("collect output"));
    });
    match finished.recv_timeout(limit) {
        Ok(output) => output,
        Err(_) => {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("`herdr {}` did not exit within {limit:?}", args.join(" "));
        }
    }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A listening socket that answers the n-th request line with `replies[n]` (one line each),
/// records every request line it received, and stops listening after the last reply.
pub struct ScriptedPeer {
    pub socket: PathBuf,
    received: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedPeer {
    pub fn start(socket: PathBuf, replies: Vec<String>) -> Self {
        let listener = UnixListener::bind(&socket).expect("bind scripted peer");
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        thread::spawn(move || {
            for reply in replies {
                // Connections that send nothing (liveness probes) do not use up a reply.
                let (stream, line) = loop {
                    let Ok((stream, _)) = listener.accept() else { return };
                    let mut line = String::new();
                    match BufReader::new(&stream).read_line(&mut line) {
                        Ok(0) => continue,
                        Ok(_) => break (stream, line),
                        Err(_) => return,
                    }
                };
                log.lock().unwrap().push(serde_json::from_str(&line).unwrap_or(Value::String(line)));
                let mut writer = &stream;
                let _ = writer.write_all(reply.as_bytes()).and_then(|()| writer.write_all(b"\n"));
            }
        });
        ScriptedPeer { socket, received }
    }

    /// The request lines received so far, parsed.
    pub fn received(&self) -> Vec<Value> {
        self.received.lock().unwrap().clone()
    }
}

/// A `pong` reply for protocol `protocol`.
pub fn pong(protocol: u32) -> String {
    format!(
        "{{\"id\":\"cli:ping\",\"result\":{{\"type\":\"pong\",\"version\":\"0.1.0\",\"protocol\":{protocol},\
         \"capabilities\":{{\"live_handoff\":false,\"detached_server_daemon\":true}}}}}}"
    )
}
