//! The far side before attaching: which platform the remote host is, which `herdr` it has (on
//! PATH and in the usual install dirs) and its version, and what its supervisor says through
//! `herdr status server --json` — turned into one [`Decision`]. The probing runs over exec
//! channels; the decision is pure.

use serde_json::Value;
use ssh2::Session;

use crate::exec::{self, ExecError, quote};

/// Where herdr is commonly installed, after whatever `command -v herdr` finds on PATH.
const INSTALL_DIRS: [&str; 6] = [
    "$HOME/.local/bin",
    "$HOME/.cargo/bin",
    "/usr/local/bin",
    "/opt/homebrew/bin",
    "$HOME/.nix-profile/bin",
    "/run/current-system/sw/bin",
];

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("the remote host's probe printed nothing usable (status {status}): {stderr}")]
    Garbled { status: i32, stderr: String },
    #[error("`{command}` failed on the remote host (status {status}): {detail}")]
    Failed { command: String, status: i32, detail: String },
    #[error("`herdr status server --json` on the remote host printed something that is not its JSON: {0}")]
    BadStatus(String),
}

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `uname -sm`, e.g. `Linux x86_64`.
    pub platform: String,
    /// The remote `$HOME`.
    pub home: String,
    /// Each executable `herdr` found, with the first line of its `--version`, in search order.
    pub candidates: Vec<(String, String)>,
}

impl Probe {
    /// The first `herdr` whose `--version` line is `version_line`.
    pub fn matching(&self, version_line: &str) -> Option<&str> {
        self.candidates.iter().find(|(_, v)| v == version_line).map(|(path, _)| path.as_str())
    }

    /// Parses the probe script's output: platform, home, then `path\tversion` lines.
    pub fn parse(stdout: &str) -> Option<Probe> {
        let mut lines = stdout.lines();
        let platform = lines.next()?.trim().to_owned();
        let home = lines.next()?.trim().to_owned();
        if platform.is_empty() || home.is_empty() {
            return None;
        }
        let mut candidates: Vec<(String, String)> = Vec::new();
        for line in lines {
            if let Some((path, version)) = line.split_once('\t')
                && !candidates.iter().any(|(p, _)| p == path)
            {
                candidates.push((path.to_owned(), version.trim().to_owned()));
            }
        }
        Some(Probe { platform, home, candidates })
    }
}

/// This machine as `uname -sm` prints it (only the platforms herdr builds for are named).
pub fn local_platform() -> String {
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Darwin",
        other => other,
    };
    let arch = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("macos", "aarch64") => "arm64",
        (_, arch) => arch,
    };
    format!("{os} {arch}")
}

/// Runs the probe over `session`.
pub fn probe(session: &Session) -> Result<Probe, ProbeError> {
    let dirs: Vec<String> = INSTALL_DIRS.iter().map(|d| format!("\"{d}/herdr\"")).collect();
    let script = format!(
        "uname -sm; printf '%s\\n' \"$HOME\"; \
         for c in \"$(command -v herdr 2>/dev/null)\" {}; do \
           if [ -n \"$c\" ] && [ -f \"$c\" ] && [ -x \"$c\" ]; then \
             printf '%s\\t%s\\n' \"$c\" \"$(\"$c\" --version 2>/dev/null | head -n 1)\"; \
           fi; \
         done",
        dirs.join(" ")
    );
    let output = exec::run(session, &script, None)?;
    Probe::parse(&output.stdout)
        .ok_or(ProbeError::Garbled { status: output.status, stderr: output.stderr.trim().to_owned() })
}

/// `herdr [--session N] ARGS…` as a remote command line.
pub fn herdr_command(herdr: &str, session_name: Option<&str>, args: &[&str]) -> String {
    let mut command = quote(herdr);
    if let Some(name) = session_name {
        command.push_str(" --session ");
        command.push_str(&quote(name));
    }
    for arg in args {
        command.push(' ');
        command.push_str(&quote(arg));
    }
    command
}

/// What the remote supervisor said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub running: bool,
    pub version: Option<String>,
    pub protocol: Option<u64>,
    /// The remote herdr's own verdict: its server is of another build.
    pub restart_needed: bool,
    pub live_handoff: bool,
}

impl ServerStatus {
    pub fn parse(json: &str) -> Result<ServerStatus, ProbeError> {
        let value: Value =
            serde_json::from_str(json.trim()).map_err(|e| ProbeError::BadStatus(format!("{e}: {json}")))?;
        let running =
            value["running"].as_bool().ok_or_else(|| ProbeError::BadStatus(json.trim().to_owned()))?;
        Ok(ServerStatus {
            running,
            version: value["version"].as_str().map(str::to_owned),
            protocol: value["protocol"].as_u64(),
            restart_needed: running
                && (value["restart_needed"].as_bool() != Some(false)
                    || value["compatible"].as_bool() == Some(false)),
            live_handoff: value["capabilities"]["live_handoff"].as_bool().unwrap_or(false),
        })
    }
}

/// `herdr status server --json` with the remote `herdr`.
pub fn server_status(
    session: &Session,
    herdr: &str,
    session_name: Option<&str>,
) -> Result<ServerStatus, ProbeError> {
    let command = herdr_command(herdr, session_name, &["status", "server", "--json"]);
    let output = exec::run(session, &command, None)?;
    if !output.success() {
        return Err(ProbeError::Failed {
            command,
            status: output.status,
            detail: output.stderr.trim().to_owned(),
        });
    }
    ServerStatus::parse(&output.stdout)
}

/// Runs a remote herdr command that must succeed; returns its stdout.
pub fn run_herdr(
    session: &Session,
    herdr: &str,
    session_name: Option<&str>,
    args: &[&str],
) -> Result<String, ProbeError> {
    let command = herdr_command(herdr, session_name, args);
    let output = exec::run(session, &command, None)?;
    if output.success() {
        Ok(output.stdout)
    } else {
        let detail = format!("{}{}", output.stdout.trim(), output.stderr.trim());
        Err(ProbeError::Failed { command, status: output.status, detail })
    }
}

/// What to do about the remote supervisor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A compatible one runs: attach.
    Attach,
    /// None runs: start one (`server --detach`), then attach.
    Start,
    /// One of another build runs and `--handoff` was given: hand it over live to this build.
    Handoff,
    /// One of another build runs and nothing may replace it: the text says what to do.
    Refuse(String),
}

/// The decision for `status` given whether `--handoff` was asked for.
pub fn decide(status: &ServerStatus, handoff: bool, herdr: &str) -> Decision {
    if !status.running {
        return Decision::Start;
    }
    if !status.restart_needed {
        return Decision::Attach;
    }
    let running = format!(
        "the herdr server running on the remote host is version {} (protocol {}), not this build's ({herdr})",
        status.version.as_deref().unwrap_or("unknown"),
        status.protocol.map_or_else(|| "unknown".to_owned(), |p| p.to_string()),
    );
    if handoff && status.live_handoff {
        Decision::Handoff
    } else if handoff {
        Decision::Refuse(format!(
            "{running}, and it cannot hand its panes over live; stop it there with `herdr server stop` (this ends its panes)"
        ))
    } else {
        Decision::Refuse(format!(
            "{running}; run again with --handoff to hand its panes over to this build live, or stop it there with \
             `herdr server stop` (this ends its panes)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(running: bool, restart_needed: bool, live_handoff: bool) -> ServerStatus {
        ServerStatus {
            running,
            version: Some("0.0.9".into()),
            protocol: Some(21),
            restart_needed,
            live_handoff,
        }
    }

    #[test]
    fn the_probe_output_parses_and_the_matching_version_wins() {
        let probe = Probe::parse(
            "Linux x86_64\n/home/u\n/usr/local/bin/herdr\therdr 0.0.9\n/home/u/.local/bin/herdr\therdr 0.1.0\n\
             /usr/local/bin/herdr\therdr 0.0.9\n",
        )
        .expect("parse");
        assert_eq!(probe.platform, "Linux x86_64");
        assert_eq!(probe.home, "/home/u");
        assert_eq!(probe.candidates.len(), 2, "duplicates (PATH and an install dir) are listed once");
        assert_eq!(probe.matching("herdr 0.1.0"), Some("/home/u/.local/bin/herdr"));
        assert_eq!(probe.matching("herdr 9"), None);
        assert_eq!(Probe::parse("Linux x86_64\n"), None);
    }

    #[test]
    fn status_json_parses_as_the_cli_prints_it() {
        let running = ServerStatus::parse(
            r#"{"status":"running","running":true,"version":"0.1.0","protocol":22,
                "capabilities":{"live_handoff":true},"compatible":true,"restart_needed":false}"#,
        )
        .expect("parse");
        assert_eq!(
            running,
            ServerStatus {
                running: true,
                version: Some("0.1.0".into()),
                protocol: Some(22),
                restart_needed: false,
                live_handoff: true
            }
        );
        let stopped = ServerStatus::parse(r#"{"running":false,"capabilities":null,"restart_needed":false}"#)
            .expect("parse");
        assert!(!stopped.running && !stopped.restart_needed);
        let old = ServerStatus::parse(r#"{"running":true,"compatible":false,"restart_needed":null}"#)
            .expect("parse");
        assert!(old.restart_needed);
        assert!(ServerStatus::parse("herdr: no").is_err());
    }

    #[test]
    fn the_decision_follows_the_status_and_the_handoff_flag() {
        assert_eq!(decide(&status(false, false, false), false, "0.1.0"), Decision::Start);
        assert_eq!(decide(&status(true, false, false), false, "0.1.0"), Decision::Attach);
        assert_eq!(decide(&status(true, true, true), true, "0.1.0"), Decision::Handoff);
        let Decision::Refuse(text) = decide(&status(true, true, true), false, "0.1.0") else {
            panic!("refuse")
        };
        assert!(text.contains("--handoff") && text.contains("0.0.9"), "{text}");
        let Decision::Refuse(text) = decide(&status(true, true, false), true, "0.1.0") else {
            panic!("refuse")
        };
        assert!(text.contains("cannot hand"), "{text}");
    }

    #[test]
    fn herdr_commands_are_quoted() {
        assert_eq!(
            herdr_command("/h/my bin/herdr", Some("work"), &["status", "server", "--json"]),
            "'/h/my bin/herdr' --session 'work' 'status' 'server' '--json'"
        );
    }

    #[test]
    fn the_local_platform_is_in_uname_form() {
        let platform = local_platform();
        assert!(platform.starts_with("Linux ") || platform.starts_with("Darwin "), "{platform}");
    }
}
