//! Install / uninstall / status against temp HOMEs: refusal without the agent's dir, idempotence,
//! the user's settings surviving, only herdr's entries removed, and the status transitions.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use herdr_integrations::{Env, Error, IntegrationState, Target, install, status, uninstall};
use serde_json::{Value, json};

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Home { dir: tempfile::tempdir().expect("temp home") }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn env(&self) -> Env {
        Env { home: Some(self.dir.path().to_owned()), ..Env::default() }
    }

    fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        fs::create_dir_all(&path).expect("mkdir");
        path
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).expect("read")
    }

    /// Every file under the home with its bytes and mode: "nothing changed" means equal snapshots.
    fn snapshot(&self) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, u32)>) {
            for entry in fs::read_dir(dir).expect("read_dir") {
                let path = entry.expect("entry").path();
                let meta = fs::symlink_metadata(&path).expect("meta");
                if meta.is_dir() {
                    walk(&path, out);
                } else {
                    out.insert(path.clone(), (fs::read(&path).expect("read"), meta.permissions().mode()));
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(self.dir.path(), &mut out);
        out
    }
}

fn state(target: Target, env: &Env) -> IntegrationState {
    status(target, env).expect("status").state
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/bin/status"
  }
}
"#;

#[test]
fn claude_install_refuses_without_the_config_dir_and_writes_nothing() {
    let home = Home::new();
    let err = install(Target::Claude, &home.env()).expect_err("refused");
    assert!(matches!(err, Error::AgentDirMissing { .. }), "{err}");
    assert_eq!(err.code(), "invalid_request");
    assert!(home.snapshot().is_empty());
    assert!(!home.path(".claude").exists());
}

#[test]
fn claude_install_writes_the_script_and_one_session_hook_keeping_user_settings() {
    let home = Home::new();
    home.write(".claude/settings.json", CLAUDE_SETTINGS);
    let details = install(Target::Claude, &home.env()).expect("installs");
    assert_eq!(details.messages.len(), 2, "{details:?}");

    let script = home.path(".claude/hooks/herdr-agent-state.sh");
    let mode = fs::metadata(&script).expect("script").permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert!(home.read(".claude/hooks/herdr-agent-state.sh").contains("HERDR_INTEGRATION_VERSION=8"));

    let settings: Value = serde_json::from_str(&home.read(".claude/settings.json")).expect("json");
    let original: Value = serde_json::from_str(CLAUDE_SETTINGS).expect("json");
    let keys: Vec<&String> = settings.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "statusLine"], "key order kept");
    for key in ["model", "permissions", "statusLine"] {
        assert_eq!(settings[key], original[key]);
    }
    assert_eq!(settings["hooks"]["Stop"], original["hooks"]["Stop"]);
    let command = format!("'{}' session", script.display());
    assert_eq!(
        settings["hooks"]["SessionStart"],
        json!([{"hooks": [{"type": "command", "command": command, "timeout": 10}]}])
    );
}

#[test]
fn installing_twice_changes_nothing_and_uninstall_restores_the_users_file_byte_for_byte() {
    let home = Home::new();
    home.write(".claude/settings.json", CLAUDE_SETTINGS);
    install(Target::Claude, &home.env()).expect("first install");
    let after_first = home.snapshot();
    let details = install(Target::Claude, &home.env()).expect("second install");
    assert_eq!(home.snapshot(), after_first, "second install rewrote something");
    assert!(
        details.messages.iter().all(|m| m.contains("up to date") || m.contains("already")),
        "{details:?}"
    );

    let details = uninstall(Target::Claude, &home.env()).expect("uninstall");
    assert_eq!(details.messages.len(), 2, "{details:?}");
    // The original uses the two-space layout herdr renders with, so the round trip is exact.
    assert_eq!(home.read(".claude/settings.json"), CLAUDE_SETTINGS);
    assert!(!home.path(".claude/hooks/herdr-agent-state.sh").exists());
}

#[test]
fn a_user_hook_in_the_same_event_survives_uninstall() {
    let home = Home::new();
    let settings = r#"{
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo started"
                    }
                ]
            }
        ]
    }
}
"#;
    home.write(".claude/settings.json", settings);
    install(Target::Claude, &home.env()).expect("installs");
    let installed = home.read(".claude/settings.json");
    assert!(
        installed.contains("\n    \"hooks\": {\n        \"SessionStart\""),
        "four-space indentation kept"
    );
    uninstall(Target::Claude, &home.env()).expect("uninstall");
    assert_eq!(home.read(".claude/settings.json"), settings);
}

#[test]
fn claude_status_goes_not_installed_current_outdated_current_not_installed() {
    let home = Home::new();
    home.mkdir(".claude");
    let env = home.env();
    assert_eq!(state(Target::Claude, &env), IntegrationState::NotInstalled);
    install(Target::Claude, &env).expect("install");
    assert_eq!(state(Target::Claude, &env), IntegrationState::Current);
    assert_eq!(
        status(Target::Claude, &env).expect("status").path,
        home.path(".claude/hooks/herdr-agent-state.sh")
    );

    // An older script (marker 7) is outdated; reinstalling brings it back.
    let script = home.read(".claude/hooks/herdr-agent-state.sh");
    home.write(
        ".claude/hooks/herdr-agent-state.sh",
        &script.replace("HERDR_INTEGRATION_VERSION=8", "HERDR_INTEGRATION_VERSION=7"),
    );
    assert_eq!(state(Target::Claude, &env), IntegrationState::Outdated);
    let details = install(Target::Claude, &env).expect("reinstall");
    assert!(details.messages[0].contains("version 7 -> 8"), "{details:?}");
    assert_eq!(state(Target::Claude, &env), IntegrationState::Current);

    // The script without its settings entry does nothing: outdated.
    home.write(".claude/settings.json", "{}\n");
    assert_eq!(state(Target::Claude, &env), IntegrationState::Outdated);
    install(Target::Claude, &env).expect("reinstall");
    assert_eq!(state(Target::Claude, &env), IntegrationState::Current);

    uninstall(Target::Claude, &env).expect("uninstall");
    assert_eq!(state(Target::Claude, &env), IntegrationState::NotInstalled);
    assert_eq!(home.read(".claude/settings.json"), "{}\n");
}

#[test]
fn claude_config_dir_overrides_home() {
    let home = Home::new();
    let dir = home.mkdir("elsewhere/claude");
    let env = home.env().with_var("CLAUDE_CONFIG_DIR", &dir);
    install(Target::Claude, &env).expect("installs");
    assert!(dir.join("hooks/herdr-agent-state.sh").is_file());
    let settings: Value = serde_json::from_str(&home.read("elsewhere/claude/settings.json")).expect("json");
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"].as_str().expect("command");
    assert!(command.contains(&dir.join("hooks/herdr-agent-state.sh").display().to_string()));
    assert!(!home.path(".claude").exists());
}

#[test]
fn an_unparsable_settings_file_is_left_alone_and_nothing_is_written() {
    let home = Home::new();
    home.write(".claude/settings.json", "{ \"model\": \"opus\", // comment\n}");
    let before = home.snapshot();
    let err = install(Target::Claude, &home.env()).expect_err("refused");
    assert!(matches!(err, Error::InvalidJson { .. }), "{err}");
    assert_eq!(home.snapshot(), before);
}

#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let home = Home::new();
    home.write("dotfiles/claude-settings.json", "{\"model\": \"opus\"}\n");
    home.mkdir(".claude");
    std::os::unix::fs::symlink(
        home.path("dotfiles/claude-settings.json"),
        home.path(".claude/settings.json"),
    )
    .expect("symlink");
    install(Target::Claude, &home.env()).expect("installs");
    let meta = fs::symlink_metadata(home.path(".claude/settings.json")).expect("meta");
    assert!(meta.file_type().is_symlink());
    assert!(home.read("dotfiles/claude-settings.json").contains("SessionStart"));
}

#[test]
fn codex_install_writes_hooks_json_and_enables_the_feature_keeping_config_comments() {
    let home = Home::new();
    let config = "# my settings\nmodel = \"gpt-5\" # default\n\n[features]\nweb_search = true\n";
    home.write(".codex/config.toml", config);
    let env = home.env();
    assert_eq!(state(Target::Codex, &env), IntegrationState::NotInstalled);
    let details = install(Target::Codex, &env).expect("installs");
    assert_eq!(details.messages.len(), 3, "{details:?}");

    let script = home.path(".codex/herdr-agent-state.sh");
    assert!(home.read(".codex/herdr-agent-state.sh").contains("AGENT = \"codex\""));
    let hooks: Value = serde_json::from_str(&home.read(".codex/hooks.json")).expect("json");
    assert_eq!(
        hooks,
        json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command",
            "command": format!("'{}' session", script.display()), "timeout": 10}]}]}})
    );
    assert_eq!(
        home.read(".codex/config.toml"),
        "# my settings\nmodel = \"gpt-5\" # default\n\n[features]\nhooks = true\nweb_search = true\n"
    );
    assert_eq!(state(Target::Codex, &env), IntegrationState::Current);

    let snapshot = home.snapshot();
    install(Target::Codex, &env).expect("again");
    assert_eq!(home.snapshot(), snapshot);

    // Turning the feature off makes the integration outdated (its hook would never run).
    home.write(".codex/config.toml", "[features]\nhooks = false\n");
    assert_eq!(state(Target::Codex, &env), IntegrationState::Outdated);

    uninstall(Target::Codex, &env).expect("uninstall");
    assert_eq!(state(Target::Codex, &env), IntegrationState::NotInstalled);
    assert!(!script.exists());
    // herdr cannot tell a hooks.json it created from one the user emptied: it stays, empty.
    assert_eq!(home.read(".codex/hooks.json"), "{}\n");
    assert_eq!(home.read(".codex/config.toml"), "[features]\nhooks = false\n", "config.toml untouched");
}

#[test]
fn codex_honours_codex_home_and_refuses_a_config_it_cannot_edit_safely() {
    let home = Home::new();
    let dir = home.mkdir("ch");
    let env = home.env().with_var("CODEX_HOME", &dir);
    home.write("ch/config.toml", "features = { web_search = true }\n");
    let before = home.snapshot();
    let err = install(Target::Codex, &env).expect_err("refused");
    assert!(matches!(err, Error::UnexpectedShape { .. }), "{err}");
    assert_eq!(home.snapshot(), before, "nothing written");

    home.write("ch/config.toml", "");
    install(Target::Codex, &env).expect("installs");
    assert!(dir.join("herdr-agent-state.sh").is_file());
    assert_eq!(home.read("ch/config.toml"), "[features]\nhooks = true\n");
}

#[test]
fn pi_extension_goes_under_the_agent_dir_which_must_exist() {
    let home = Home::new();
    let err = install(Target::Pi, &home.env()).expect_err("no ~/.pi/agent");
    assert!(matches!(err, Error::AgentDirMissing { .. }));

    home.mkdir(".pi/agent");
    install(Target::Pi, &home.env()).expect("installs");
    let text = home.read(".pi/agent/extensions/herdr-agent-state.ts");
    assert!(text.contains("HERDR_INTEGRATION_VERSION=8"));
    assert!(text.contains("\"herdr:pi\""));

    let custom = home.mkdir("pi-home");
    let env = home.env().with_var("PI_CODING_AGENT_DIR", &custom);
    assert_eq!(state(Target::Pi, &env), IntegrationState::NotInstalled);
    install(Target::Pi, &env).expect("installs");
    assert!(custom.join("extensions/herdr-agent-state.ts").is_file());
    assert_eq!(state(Target::Pi, &env), IntegrationState::Current);
    uninstall(Target::Pi, &env).expect("uninstall");
    assert_eq!(state(Target::Pi, &env), IntegrationState::NotInstalled);
    assert!(
        home.path(".pi/agent/extensions/herdr-agent-state.ts").is_file(),
        "the other install is untouched"
    );
}

#[test]
fn opencode_plugin_goes_under_the_xdg_config_dir() {
    let home = Home::new();
    assert!(matches!(install(Target::Opencode, &home.env()), Err(Error::AgentDirMissing { .. })));
    let xdg = home.mkdir("xdg");
    home.mkdir("xdg/opencode");
    let env = home.env().with_var("XDG_CONFIG_HOME", xdg);
    install(Target::Opencode, &env).expect("installs");
    let text = home.read("xdg/opencode/plugins/herdr-agent-state.js");
    assert!(text.contains("HERDR_INTEGRATION_VERSION=10"));
    assert_eq!(state(Target::Opencode, &env), IntegrationState::Current);
    home.write("xdg/opencode/plugins/herdr-agent-state.js", &text.replace("=10", "=9"));
    assert_eq!(state(Target::Opencode, &env), IntegrationState::Outdated);
}

#[test]
fn uninstalling_what_is_not_installed_says_so() {
    let home = Home::new();
    let details = uninstall(Target::Claude, &home.env()).expect("fine");
    assert_eq!(details.messages, ["Claude Code integration is not installed"]);
    assert!(home.snapshot().is_empty());
}

#[test]
fn no_home_is_a_clear_error() {
    let err = install(Target::Claude, &Env::default()).expect_err("no home");
    assert!(matches!(err, Error::NoHome { .. }));
    assert!(err.to_string().contains("HOME"));
}
