//! The texts herdr installs, rendered for one target, and the version marker they carry.
//!
//! Every asset holds one line containing `HERDR_INTEGRATION_VERSION=N`; `status` compares that N
//! with the version this build writes.

use crate::target::Implemented;

const HOOK_SCRIPT: &str = include_str!("../assets/herdr-agent-state.sh");
const PI_EXTENSION: &str = include_str!("../assets/pi-extension.ts");
const OPENCODE_PLUGIN: &str = include_str!("../assets/opencode-plugin.js");

/// The marker's key.
pub const VERSION_KEY: &str = "HERDR_INTEGRATION_VERSION=";

/// The file herdr installs for `target`, as written.
pub fn render(target: Implemented) -> String {
    let template = match target {
        Implemented::Claude | Implemented::Codex => HOOK_SCRIPT,
        Implemented::Pi => PI_EXTENSION,
        Implemented::Opencode => OPENCODE_PLUGIN,
    };
    template
        .replace("{{AGENT}}", target.agent())
        .replace("{{LABEL}}", target.label())
        .replace("{{TARGET}}", target.target().as_str())
        .replace("{{VERSION}}", &target.version().to_string())
}

/// The version an installed file declares, if it has a readable marker.
pub fn version_of(text: &str) -> Option<u32> {
    text.lines().find_map(|line| {
        let at = line.find(VERSION_KEY)?;
        let digits: String =
            line[at + VERSION_KEY.len()..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_carries_its_current_version_and_no_placeholder() {
        for target in [Implemented::Claude, Implemented::Codex, Implemented::Pi, Implemented::Opencode] {
            let text = render(target);
            assert_eq!(version_of(&text), Some(target.version()), "{target:?}");
            assert!(!text.contains("{{"), "{target:?} has an unfilled placeholder");
        }
    }

    #[test]
    fn hook_scripts_name_their_agent() {
        assert!(render(Implemented::Claude).contains("AGENT = \"claude\""));
        assert!(render(Implemented::Codex).contains("AGENT = \"codex\""));
    }

    #[test]
    fn the_embedded_python_has_no_single_quote_that_would_end_the_shell_string() {
        let text = render(Implemented::Claude);
        let start = text.find("HERDR_REPORT_PY='").expect("program assignment") + "HERDR_REPORT_PY='".len();
        let body = &text[start..];
        let end = body.find('\'').expect("closing quote");
        assert!(body[end + 1..].trim_start().starts_with("python3 -c"), "the program ends early");
    }

    #[test]
    fn markers_are_read_from_any_comment_style() {
        assert_eq!(version_of("#!/bin/sh\n# HERDR_INTEGRATION_VERSION=7\n"), Some(7));
        assert_eq!(version_of("// HERDR_INTEGRATION_VERSION=12 (js)\n"), Some(12));
        assert_eq!(version_of("no marker\n"), None);
        assert_eq!(version_of("# HERDR_INTEGRATION_VERSION=\n"), None);
    }
}
