//! Every target against a temp HOME: install writes its files where the agent reads them, in the
//! agent's format (each config parsed as JSON, TOML or YAML), next to a config of the user's own;
//! status reads the installed version and says current; installing again changes nothing;
//! uninstall removes herdr's files and entries and leaves the user's intact.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use herdr_integrations::spec::{Edit, SPECS, Spec};
use herdr_integrations::{Env, IntegrationState, Target, install, status, uninstall};
use serde_json::Value;
use yaml_rust2::YamlLoader;

/// What the user had in each config herdr edits: the text, and a string that must survive.
const USER_MARK: &str = "user-owned-setting";

fn user_config(spec: &Spec, file: &str) -> String {
    let hook = format!("notify-send {USER_MARK}");
    match (spec.target, file) {
        (Target::Copilot, _) => {
            format!(
                r#"{{"theme": "dark", "hooks": {{"Stop": [{{"type": "command", "bash": "{hook}", "timeoutSec": 5}}]}}}}"#
            )
        }
        (Target::Cursor, _) => format!(r#"{{"version": 1, "hooks": {{"stop": [{{"command": "{hook}"}}]}}}}"#),
        (Target::Mastracode, _) => {
            format!(r#"{{"Stop": [{{"type": "command", "command": "{hook}", "timeout": 100}}]}}"#)
        }
        (Target::AntigravityCli, _) => {
            format!(r#"{{"mine": {{"Stop": [{{"type": "command", "command": "{hook}"}}]}}}}"#)
        }
        (Target::Hermes, _) => format!("model: {USER_MARK}\nplugins:\n  enabled:\n    - other-plugin\n"),
        (_, f) if f.ends_with(".toml") => format!("# mine\nmodel = \"{USER_MARK}\"\n"),
        (_, f) if f.ends_with(".json") => format!(
            r#"{{"theme": "dark", "hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "{hook}"}}]}}]}}}}"#
        ),
        (target, file) => panic!("no user config for {target} {file}"),
    }
}

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Home { dir: tempfile::tempdir().expect("temp home") }
    }

    fn env(&self) -> Env {
        Env::with_home(self.dir.path())
    }

    fn agent_dir(&self, spec: &Spec) -> PathBuf {
        spec.dir.resolve(&self.env(), spec.label).expect("dir")
    }

    fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in fs::read_dir(dir).expect("read_dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.insert(path.clone(), fs::read(&path).expect("read"));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.dir.path(), &mut out);
        out
    }
}

fn edit_file(edit: &Edit) -> &'static str {
    herdr_integrations::edits::file(edit)
}

/// Parses `path` by its extension; panics when it is not valid.
fn parse(path: &Path) -> Parsed {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => {
            Parsed::Json(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        }
        Some("toml") => {
            Parsed::Toml(text.parse().unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display())))
        }
        Some("yaml") => {
            let docs = YamlLoader::load_from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
            Parsed::Yaml(docs.into_iter().next().unwrap_or(yaml_rust2::Yaml::Null))
        }
        other => panic!("unexpected config type {other:?}"),
    }
}

#[derive(Debug)]
enum Parsed {
    Json(Value),
    Toml(toml::Table),
    Yaml(yaml_rust2::Yaml),
}

/// Every hook command herdr's edit put in a parsed config.
fn commands(parsed: &Parsed) -> Vec<String> {
    fn json_strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("command" | "bash", Value::String(text)) => out.push(text.clone()),
                        _ => json_strings(value, out),
                    }
                }
            }
            Value::Array(list) => list.iter().for_each(|v| json_strings(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match parsed {
        Parsed::Json(value) => json_strings(value, &mut out),
        Parsed::Toml(table) => {
            for hook in table.get("hooks").and_then(|h| h.as_array()).into_iter().flatten() {
                out.extend(hook.get("command").and_then(|c| c.as_str()).map(str::to_owned));
            }
        }
        Parsed::Yaml(doc) => {
            for item in doc["plugins"]["enabled"].as_vec().into_iter().flatten() {
                out.extend(item.as_str().map(str::to_owned));
            }
        }
    }
    out
}

fn prepare(home: &Home, spec: &Spec) -> PathBuf {
    let dir = home.agent_dir(spec);
    if !spec.creates_dir {
        fs::create_dir_all(&dir).expect("agent dir");
    }
    for edit in spec.edits {
        if matches!(edit, Edit::GrokHooks { .. } | Edit::LegacyJsonHooks { .. }) {
            continue;
        }
        let path = dir.join(edit_file(edit));
        fs::create_dir_all(path.parent().expect("parent")).expect("config dir");
        fs::write(&path, user_config(spec, edit_file(edit))).expect("user config");
    }
    // A file of the user's own beside herdr's (another extension, another Grok hook file).
    let own = dir.join(spec.assets[0].path).with_file_name("users-own-file");
    fs::create_dir_all(own.parent().expect("parent")).expect("asset dir");
    fs::write(&own, USER_MARK).expect("user file");
    own
}

fn check_installed(home: &Home, spec: &Spec) {
    let dir = home.agent_dir(spec);
    for asset in spec.assets {
        let path = dir.join(asset.path);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.contains(&format!("HERDR_INTEGRATION_VERSION={}", spec.version)), "{}", path.display());
        let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        let executable = path.extension().is_some_and(|e| e == "sh");
        assert_eq!(mode, if executable { 0o755 } else { 0o644 }, "{}", path.display());
    }
    let script = spec.hook_script();
    for edit in spec.edits {
        if matches!(edit, Edit::LegacyJsonHooks { .. }) {
            continue;
        }
        let path = dir.join(edit_file(edit));
        let parsed = parse(&path);
        let found = commands(&parsed);
        match edit {
            Edit::CodexFeatures { .. } => {
                let Parsed::Toml(doc) = &parsed else { panic!("TOML") };
                assert_eq!(doc["features"]["hooks"].as_bool(), Some(true));
                assert_eq!(doc["model"].as_str(), Some(USER_MARK));
            }
            Edit::HermesPlugin { .. } => {
                assert_eq!(found, ["herdr-agent-state", "other-plugin"], "{}", path.display());
                let Parsed::Yaml(doc) = &parsed else { panic!("YAML") };
                assert_eq!(doc["model"].as_str(), Some(USER_MARK));
            }
            Edit::JsonHooks { events, .. } => {
                let ours: Vec<&String> =
                    found.iter().filter(|c| c.contains(script.expect("a script"))).collect();
                assert_eq!(ours.len(), events.len(), "{}: {found:?}", path.display());
                let text = fs::read_to_string(&path).expect("read");
                assert!(text.contains(USER_MARK), "{}: the user's hook is gone", path.display());
            }
            Edit::KimiHooks { .. } => {
                assert_eq!(found.len(), herdr_integrations::spec::kimi_events().len());
                let Parsed::Toml(doc) = &parsed else { panic!("TOML") };
                assert_eq!(doc["model"].as_str(), Some(USER_MARK));
            }
            Edit::GrokHooks { .. } => {
                assert_eq!(found.len(), 1);
                assert!(found[0].starts_with("sh '") && found[0].ends_with("herdr-agent-state.sh' session"));
            }
            Edit::LegacyJsonHooks { .. } => {}
        }
    }
}

fn check_uninstalled(home: &Home, spec: &Spec, own: &Path) {
    let dir = home.agent_dir(spec);
    for asset in spec.assets {
        assert!(!dir.join(asset.path).exists(), "{} left behind", asset.path);
    }
    assert_eq!(fs::read_to_string(own).expect("the user's file stays"), USER_MARK);
    for edit in spec.edits {
        let path = dir.join(edit_file(edit));
        let Ok(text) = fs::read_to_string(&path) else { continue };
        parse(&path);
        if let Some(script) = spec.hook_script() {
            assert!(!text.contains(script), "{}: herdr's entries are left:\n{text}", path.display());
        }
        if !matches!(edit, Edit::LegacyJsonHooks { .. } | Edit::GrokHooks { .. }) {
            assert!(text.contains(USER_MARK), "{}: the user's setting is gone:\n{text}", path.display());
        }
        if let Edit::HermesPlugin { .. } = edit {
            assert!(!text.contains("herdr-agent-state"), "{text}");
        }
    }
}

#[test]
fn every_target_installs_reports_its_version_and_uninstalls_only_its_own() {
    for spec in &SPECS {
        let home = Home::new();
        let own = prepare(&home, spec);
        let env = home.env();
        assert_eq!(
            status(spec.target, &env).expect("status").state,
            IntegrationState::NotInstalled,
            "{}",
            spec.target
        );

        install(spec.target, &env).unwrap_or_else(|e| panic!("{}: {e}", spec.target));
        check_installed(&home, spec);
        let installed = status(spec.target, &env).expect("status");
        assert_eq!(installed.state, IntegrationState::Current, "{}", spec.target);
        assert_eq!(installed.installed_version, Some(spec.version), "{}", spec.target);
        assert!(installed.meets_resume_min(), "{}", spec.target);
        assert_eq!(installed.path, home.agent_dir(spec).join(spec.assets[0].path));

        let after = home.snapshot();
        install(spec.target, &env).expect("again");
        assert_eq!(home.snapshot(), after, "{}: a second install rewrote something", spec.target);

        uninstall(spec.target, &env).unwrap_or_else(|e| panic!("{}: {e}", spec.target));
        check_uninstalled(&home, spec, &own);
        assert_eq!(
            status(spec.target, &env).expect("status").state,
            IntegrationState::NotInstalled,
            "{}",
            spec.target
        );
    }
}

#[test]
fn every_target_but_mastracode_refuses_without_its_config_dir() {
    for spec in &SPECS {
        let home = Home::new();
        let outcome = install(spec.target, &home.env());
        if spec.creates_dir {
            outcome.unwrap_or_else(|e| panic!("{}: {e}", spec.target));
            assert!(home.agent_dir(spec).is_dir());
        } else {
            let err = outcome.expect_err("refused");
            assert_eq!(err.code(), "invalid_request", "{}: {err}", spec.target);
            assert!(home.snapshot().is_empty(), "{}: wrote something", spec.target);
        }
    }
}

#[test]
fn an_old_version_is_outdated_and_too_old_to_resume() {
    let home = Home::new();
    let spec = herdr_integrations::spec::spec(Target::Claude);
    prepare(&home, spec);
    install(Target::Claude, &home.env()).expect("installs");
    let script = home.agent_dir(spec).join(spec.assets[0].path);
    let text = fs::read_to_string(&script).expect("script");
    fs::write(&script, text.replace("HERDR_INTEGRATION_VERSION=8", "HERDR_INTEGRATION_VERSION=5"))
        .expect("old");
    let old = status(Target::Claude, &home.env()).expect("status");
    assert_eq!(
        (old.state, old.installed_version, old.meets_resume_min()),
        (IntegrationState::Outdated, Some(5), false)
    );
}

#[test]
fn droid_moves_old_hooks_out_of_hooks_json() {
    let home = Home::new();
    let spec = herdr_integrations::spec::spec(Target::Droid);
    prepare(&home, spec);
    let dir = home.agent_dir(spec);
    let old = format!(
        r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "'{}' idle"}}, {{"type": "command", "command": "mine"}}]}}]}}}}"#,
        dir.join("hooks/herdr-agent-state.sh").display()
    );
    fs::write(dir.join("hooks.json"), old).expect("legacy hooks");
    assert_eq!(status(Target::Droid, &home.env()).expect("status").state, IntegrationState::Outdated);
    install(Target::Droid, &home.env()).expect("installs");
    let legacy: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("hooks.json")).expect("read")).expect("json");
    assert_eq!(
        legacy["hooks"]["Stop"][0]["hooks"],
        serde_json::json!([{"type": "command", "command": "mine"}])
    );
    assert_eq!(status(Target::Droid, &home.env()).expect("status").state, IntegrationState::Current);
}

#[test]
fn omp_refuses_to_share_pis_agent_dir() {
    let home = Home::new();
    let shared = home.dir.path().join("agent");
    fs::create_dir_all(&shared).expect("dir");
    let env = home.env().with_var("PI_CODING_AGENT_DIR", &shared);
    let err = install(Target::Omp, &env).expect_err("refused");
    assert!(err.to_string().contains("same directory"), "{err}");
    install(Target::Pi, &env).expect("pi installs");
}

#[test]
fn agent_dir_variables_move_the_install() {
    let home = Home::new();
    let cases = [
        (Target::Copilot, "COPILOT_HOME"),
        (Target::Kimi, "KIMI_CODE_HOME"),
        (Target::Hermes, "HERMES_HOME"),
        (Target::Qodercli, "QODER_CONFIG_DIR"),
        (Target::Qwen, "QWEN_HOME"),
        (Target::Cursor, "CURSOR_CONFIG_DIR"),
        (Target::AntigravityCli, "ANTIGRAVITY_CLI_CONFIG_DIR"),
        (Target::Grok, "GROK_HOME"),
    ];
    for (target, var) in cases {
        let dir = home.dir.path().join(format!("moved-{target}"));
        fs::create_dir_all(&dir).expect("dir");
        let env = home.env().with_var(var, &dir);
        install(target, &env).unwrap_or_else(|e| panic!("{target}: {e}"));
        let spec = herdr_integrations::spec::spec(target);
        assert!(dir.join(spec.assets[0].path).is_file(), "{target} under ${var}");
    }
}
