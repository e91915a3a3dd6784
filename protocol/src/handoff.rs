//! The live-handoff conversation's steps (`herdr server live-handoff`): one JSON line per step
//! between the old supervisor (exporter) and the new one (importer) over a private socket, and
//! whether an importer takes the exporter's manifest ([`validate`], pure). The socket itself,
//! with the descriptors passed beside the `fds` step, is the supervisor's (`handoff/wire.rs`).

use serde::{Deserialize, Serialize};

use crate::ipc::VersionRange;

/// The version of this conversation; an importer that speaks another one refuses.
pub const HANDOFF_VERSION: u32 = 1;
/// What the exporter tells the importer before anything is handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub handoff_version: u32,
    pub source_version: String,
    pub source_protocol: u32,
    pub expected_version: Option<String>,
    pub expected_protocol: Option<u32>,
    /// The session's API socket: an importer configured for another session refuses.
    pub api_socket: String,
    /// The link versions the session's workers speak (each once, ascending): an importer that
    /// cannot drive one of them refuses, and the exporter serves on.
    #[serde(default)]
    pub worker_link_versions: Vec<u32>,
}

/// One step of the conversation, in order: `hello` (importer), `manifest` (exporter),
/// `validated` or `refused` (importer), `fds` with the descriptors (exporter), `ready`
/// (importer, every worker adopted), `committed` (exporter, about to exit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    Hello { token: String },
    Manifest(Manifest),
    Validated,
    Refused { reason: String },
    Fds,
    Ready,
    Committed,
}

/// What an importer is: its version, protocol, the session socket it would serve and the worker
/// link versions it drives.
#[derive(Debug, Clone, Copy)]
pub struct Importer<'a> {
    pub version: &'a str,
    pub protocol: u32,
    pub api_socket: &'a str,
    pub links: VersionRange,
}

/// Why an importer refuses a manifest; its text is the `Refused` step's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("handoff version {0} is not this binary's {HANDOFF_VERSION}")]
    HandoffVersion(u32),
    #[error("expected protocol {expected}, this binary speaks protocol {ours}")]
    Protocol { expected: u32, ours: u32 },
    #[error("expected version {expected}, this binary is version {ours}")]
    Version { expected: String, ours: String },
    #[error("the session's socket is {session}, this importer would serve {ours}")]
    Socket { session: String, ours: String },
    #[error("a worker speaks link version {unknown}, this binary drives link versions {}..={}", .ours.min, .ours.max)]
    LinkVersion { unknown: u32, ours: VersionRange },
}

/// Whether `importer` takes `manifest`; the error is the reason it refuses.
pub fn validate(manifest: &Manifest, importer: &Importer<'_>) -> Result<(), Refusal> {
    let Importer { version, protocol, api_socket, links } = *importer;
    if manifest.handoff_version != HANDOFF_VERSION {
        return Err(Refusal::HandoffVersion(manifest.handoff_version));
    }
    if let Some(expected) = manifest.expected_protocol
        && expected != protocol
    {
        return Err(Refusal::Protocol { expected, ours: protocol });
    }
    if let Some(expected) = &manifest.expected_version
        && expected != version
    {
        return Err(Refusal::Version { expected: expected.clone(), ours: version.to_owned() });
    }
    if manifest.api_socket != api_socket {
        return Err(Refusal::Socket { session: manifest.api_socket.clone(), ours: api_socket.to_owned() });
    }
    // A newer worker might talk down to us, but only its own minimum says so, and the manifest
    // does not carry it: refuse rather than find out by failing to adopt.
    if let Some(unknown) = manifest.worker_link_versions.iter().find(|v| !links.contains(**v)) {
        return Err(Refusal::LinkVersion { unknown: *unknown, ours: links });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest {
            handoff_version: HANDOFF_VERSION,
            source_version: "0.9.0".into(),
            source_protocol: 22,
            expected_version: None,
            expected_protocol: None,
            api_socket: "/run/herdr.sock".into(),
            worker_link_versions: vec![11],
        }
    }

    const IMPORTER: Importer<'static> = Importer {
        version: "0.9.0",
        protocol: 22,
        api_socket: "/run/herdr.sock",
        links: VersionRange { min: 11, max: 12 },
    };

    #[test]
    fn validates_what_was_expected_of_the_importer() {
        assert_eq!(validate(&manifest(), &IMPORTER), Ok(()));
        let wrong_protocol = Manifest { expected_protocol: Some(99), ..manifest() };
        let refusal = validate(&wrong_protocol, &IMPORTER).expect_err("refused").to_string();
        assert!(refusal.contains("expected protocol 99"), "{refusal}");
        let wrong_version = Manifest { expected_version: Some("1.0.0".into()), ..manifest() };
        assert!(validate(&wrong_version, &IMPORTER).is_err());
        assert!(validate(&manifest(), &Importer { api_socket: "/run/other.sock", ..IMPORTER }).is_err());
        let future = Manifest { handoff_version: 2, ..manifest() };
        assert!(validate(&future, &IMPORTER).is_err());
    }

    #[test]
    fn an_importer_refuses_workers_whose_link_it_cannot_drive() {
        let both = Manifest { worker_link_versions: vec![11, 12], ..manifest() };
        assert_eq!(validate(&both, &IMPORTER), Ok(()));
        let newer = Manifest { worker_link_versions: vec![11, 13], ..manifest() };
        let refusal = validate(&newer, &IMPORTER).expect_err("refused").to_string();
        assert_eq!(refusal, "a worker speaks link version 13, this binary drives link versions 11..=12");
        let older = Manifest { worker_link_versions: vec![10], ..manifest() };
        assert_eq!(
            validate(&older, &IMPORTER),
            Err(Refusal::LinkVersion { unknown: 10, ours: IMPORTER.links })
        );
        // A manifest from before the field: nothing to check.
        let json = serde_json::to_value(manifest()).expect("json");
        let mut old = json.as_object().expect("object").clone();
        old.remove("worker_link_versions");
        let old: Manifest = serde_json::from_value(old.into()).expect("an older exporter's manifest");
        assert_eq!(validate(&old, &IMPORTER), Ok(()));
    }

    #[test]
    fn steps_are_tagged_json_lines() {
        let line = serde_json::to_string(&Step::Hello { token: "ab".into() }).expect("encodes");
        assert_eq!(line, r#"{"step":"hello","token":"ab"}"#);
        let back: Step = serde_json::from_str(r#"{"step":"committed"}"#).expect("decodes");
        assert_eq!(back, Step::Committed);
    }
}
