//! The texts herdr installs, rendered for one target, and the version marker they carry.
//!
//! Every asset holds one line containing `HERDR_INTEGRATION_VERSION=N`; `status` compares that N
//! with the version this build writes. One template per kind of integration, filled from the
//! target table: the shell hook serves every hook-based agent, the Pi extension Pi and OMP, the
//! OpenCode plugin OpenCode and Kilo.

use crate::spec::{HookSettings, Spec, Template};

const HOOK_SCRIPT: &str = include_str!("../assets/hook.sh");
const PI_EXTENSION: &str = include_str!("../assets/pi-extension.ts");
const OPENCODE_PLUGIN: &str = include_str!("../assets/opencode-plugin.js");
const HERMES_INIT: &str = include_str!("../assets/hermes-plugin.py");
const HERMES_MANIFEST: &str = include_str!("../assets/hermes-plugin.yaml");

/// The marker's key.
pub const VERSION_KEY: &str = "HERDR_INTEGRATION_VERSION=";

/// The file `template` renders to for `spec`, as written.
pub fn render(spec: &Spec, template: Template) -> String {
    let text = match template {
        Template::Hook(settings) => hook(HOOK_SCRIPT, settings),
        Template::PiExtension => PI_EXTENSION.to_owned(),
        Template::OpencodePlugin => OPENCODE_PLUGIN.to_owned(),
        Template::HermesInit => HERMES_INIT.to_owned(),
        Template::HermesManifest => HERMES_MANIFEST.to_owned(),
    };
    text.replace("{{AGENT}}", spec.agent())
        .replace("{{LABEL}}", spec.label)
        .replace("{{TARGET}}", spec.target.as_str())
        .replace("{{VERSION}}", &spec.version.to_string())
}

fn python_bool(value: bool) -> &'static str {
    if value { "True" } else { "False" }
}

fn hook(template: &str, settings: HookSettings) -> String {
    let events: Vec<String> = settings.session_events.iter().map(|e| format!("\"{e}\"")).collect();
    // A trailing comma keeps a one-event tuple a tuple.
    let events = if events.is_empty() { "()".to_owned() } else { format!("({},)", events.join(", ")) };
    let note = if settings.lifecycle { " and what it is doing (working, idle, blocked)" } else { "" };
    template
        .replace("{{SESSION_EVENTS}}", &events)
        .replace("{{LIFECYCLE}}", python_bool(settings.lifecycle))
        .replace("{{DEVIN_LIST}}", python_bool(settings.devin_list))
        .replace("{{LIFECYCLE_NOTE}}", note)
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
    use crate::spec::SPECS;
    use crate::target::Target;

    #[test]
    fn every_asset_carries_its_current_version_and_no_placeholder() {
        for spec in &SPECS {
            for asset in spec.assets {
                let text = render(spec, asset.template);
                assert_eq!(version_of(&text), Some(spec.version), "{} {}", spec.target, asset.path);
                assert!(!text.contains("{{"), "{} {} has an unfilled placeholder", spec.target, asset.path);
                assert!(text.contains(&format!("HERDR_INTEGRATION_ID={}", spec.target)), "{}", asset.path);
            }
        }
    }

    fn primary(target: Target) -> String {
        let spec = crate::spec::spec(target);
        render(spec, spec.assets[0].template)
    }

    #[test]
    fn scripts_and_plugins_name_their_agent_and_source() {
        assert!(primary(Target::Claude).contains("AGENT = \"claude\""));
        assert!(primary(Target::Codex).contains("AGENT = \"codex\""));
        assert!(primary(Target::AntigravityCli).contains("AGENT = \"agy\""));
        assert!(primary(Target::AntigravityCli).contains("SOURCE = \"herdr:antigravity_cli\""));
        assert!(primary(Target::AntigravityCli).contains("SESSION_EVENTS = (\"preinvocation\",)"));
        assert!(primary(Target::Kimi).contains("LIFECYCLE = True"));
        assert!(primary(Target::Devin).contains("DEVIN_LIST = True"));
        assert!(primary(Target::Omp).contains("const SOURCE = \"herdr:omp\""));
        assert!(primary(Target::Kilo).contains("const AGENT = \"kilo\""));
    }

    #[test]
    fn the_embedded_python_has_no_single_quote_that_would_end_the_shell_string() {
        for spec in SPECS.iter().filter(|s| s.hook_script().is_some()) {
            let text = primary(spec.target);
            let start =
                text.find("HERDR_REPORT_PY='").expect("program assignment") + "HERDR_REPORT_PY='".len();
            let body = &text[start..];
            let end = body.find('\'').expect("closing quote");
            assert!(
                body[end + 1..].trim_start().starts_with("python3 -c"),
                "{}: the program ends early",
                spec.target
            );
        }
    }

    #[test]
    fn markers_are_read_from_any_comment_style() {
        assert_eq!(version_of("#!/bin/sh\n# HERDR_INTEGRATION_VERSION=7\n"), Some(7));
        assert_eq!(version_of("// HERDR_INTEGRATION_VERSION=12 (js)\n"), Some(12));
        assert_eq!(version_of("no marker\n"), None);
        assert_eq!(version_of("# HERDR_INTEGRATION_VERSION=\n"), None);
    }
}
