//! The environment and working directory of a plugin command, as upstream's guide lists them:
//! `HERDR_SOCKET_PATH`, `HERDR_BIN_PATH`, `HERDR_ENV=1`, `HERDR_PLUGIN_ID/ROOT/CONFIG_DIR/
//! STATE_DIR/CONTEXT_JSON`, the available `HERDR_WORKSPACE_ID/TAB_ID/PANE_ID`, and per kind
//! `HERDR_PLUGIN_ACTION_ID`, `HERDR_PLUGIN_EVENT` (+ `_EVENT_JSON` for hooks) or
//! `HERDR_PLUGIN_ENTRYPOINT_ID`; link clicks add `HERDR_PLUGIN_CLICKED_URL` and
//! `HERDR_PLUGIN_LINK_HANDLER_ID`.

use std::path::{Path, PathBuf};

/// Variables a plugin command never inherits from the server: systemd's notify socket and
/// journal stream (a plugin must not speak for the service), and any `HERDR_PLUGIN_*` of an
/// outer plugin. The session secret is never in the environment (it lives in the 0600 runtime
/// dir), so there is nothing of it to strip.
pub const STRIPPED: &[&str] = &["NOTIFY_SOCKET", "JOURNAL_STREAM"];

/// The prefix of the per-plugin variables.
pub const PLUGIN_PREFIX: &str = "HERDR_PLUGIN_";

/// `<config_dir>/plugins/config/<id>`: user-editable config (`.env` files and the like).
pub fn config_dir(herdr_config_dir: &Path, plugin_id: &str) -> PathBuf {
    herdr_config_dir.join("plugins").join("config").join(plugin_id)
}

/// `<config_dir>/plugins/state/<id>`: the plugin's runtime state.
pub fn state_dir(herdr_config_dir: &Path, plugin_id: &str) -> PathBuf {
    herdr_config_dir.join("plugins").join("state").join(plugin_id)
}

/// `<config_dir>/plugins/github/<owner>/<repo>[/…]`: where `herdr plugin install` keeps checkouts.
pub fn managed_checkouts_dir(herdr_config_dir: &Path) -> PathBuf {
    herdr_config_dir.join("plugins").join("github")
}

/// Creates a plugin's config and state dirs (0700).
pub fn ensure_user_dirs(herdr_config_dir: &Path, plugin_id: &str) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    for dir in [config_dir(herdr_config_dir, plugin_id), state_dir(herdr_config_dir, plugin_id)] {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    Ok(())
}

/// What started the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    Action {
        action_id: String,
    },
    /// A `[[startup]]` command (`HERDR_PLUGIN_EVENT=startup`).
    Startup,
    /// An `[[events]]` hook with the event envelope as JSON.
    Event {
        name: String,
        json: String,
    },
    Pane {
        entrypoint: String,
    },
}

/// Everything the environment is built from.
#[derive(Debug, Clone)]
pub struct EnvInput<'a> {
    pub plugin_id: &'a str,
    pub plugin_root: &'a Path,
    pub herdr_config_dir: &'a Path,
    pub socket_path: &'a Path,
    pub bin_path: &'a Path,
    /// `HERDR_PLUGIN_CONTEXT_JSON`.
    pub context_json: &'a str,
    pub workspace_id: Option<&'a str>,
    pub tab_id: Option<&'a str>,
    pub pane_id: Option<&'a str>,
    pub clicked_url: Option<&'a str>,
    pub link_handler_id: Option<&'a str>,
    pub invocation: &'a Invocation,
}

/// The variables to set, in a stable order.
pub fn build(input: &EnvInput<'_>) -> Vec<(String, String)> {
    let path = |p: &Path| p.display().to_string();
    let mut env = vec![
        ("HERDR_ENV", "1".to_owned()),
        ("HERDR_SOCKET_PATH", path(input.socket_path)),
        ("HERDR_BIN_PATH", path(input.bin_path)),
        ("HERDR_PLUGIN_ID", input.plugin_id.to_owned()),
        ("HERDR_PLUGIN_ROOT", path(input.plugin_root)),
        ("HERDR_PLUGIN_CONFIG_DIR", path(&config_dir(input.herdr_config_dir, input.plugin_id))),
        ("HERDR_PLUGIN_STATE_DIR", path(&state_dir(input.herdr_config_dir, input.plugin_id))),
        ("HERDR_PLUGIN_CONTEXT_JSON", input.context_json.to_owned()),
    ];
    let optional = [
        ("HERDR_WORKSPACE_ID", input.workspace_id),
        ("HERDR_TAB_ID", input.tab_id),
        ("HERDR_PANE_ID", input.pane_id),
        ("HERDR_PLUGIN_CLICKED_URL", input.clicked_url),
        ("HERDR_PLUGIN_LINK_HANDLER_ID", input.link_handler_id),
    ];
    env.extend(optional.into_iter().filter_map(|(k, v)| Some((k, v?.to_owned()))));
    match input.invocation {
        Invocation::Action { action_id } => env.push(("HERDR_PLUGIN_ACTION_ID", action_id.clone())),
        Invocation::Startup => env.push(("HERDR_PLUGIN_EVENT", "startup".to_owned())),
        Invocation::Event { name, json } => {
            env.push(("HERDR_PLUGIN_EVENT", name.clone()));
            env.push(("HERDR_PLUGIN_EVENT_JSON", json.clone()));
        }
        Invocation::Pane { entrypoint } => env.push(("HERDR_PLUGIN_ENTRYPOINT_ID", entrypoint.clone())),
    }
    env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// Whether an inherited variable must be removed before the command starts.
pub fn is_stripped(name: &str) -> bool {
    STRIPPED.contains(&name) || name.starts_with(PLUGIN_PREFIX)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn input<'a>(invocation: &'a Invocation) -> EnvInput<'a> {
        EnvInput {
            plugin_id: "example.layout",
            plugin_root: Path::new("/src/layout"),
            herdr_config_dir: Path::new("/home/u/.config/herdr"),
            socket_path: Path::new("/run/herdr.sock"),
            bin_path: Path::new("/bin/herdr"),
            context_json: "{}",
            workspace_id: Some("w1"),
            tab_id: None,
            pane_id: Some("w1-1"),
            clicked_url: None,
            link_handler_id: None,
            invocation,
        }
    }

    #[test]
    fn an_event_hook_gets_the_plugin_variables_and_the_event_json() {
        let inv = Invocation::Event { name: "pane.agent_status_changed".into(), json: "{\"x\":1}".into() };
        let env: BTreeMap<_, _> = build(&input(&inv)).into_iter().collect();
        assert_eq!(env["HERDR_ENV"], "1");
        assert_eq!(env["HERDR_PLUGIN_ID"], "example.layout");
        assert_eq!(env["HERDR_PLUGIN_ROOT"], "/src/layout");
        assert_eq!(env["HERDR_PLUGIN_CONFIG_DIR"], "/home/u/.config/herdr/plugins/config/example.layout");
        assert_eq!(env["HERDR_PLUGIN_STATE_DIR"], "/home/u/.config/herdr/plugins/state/example.layout");
        assert_eq!(env["HERDR_PLUGIN_EVENT"], "pane.agent_status_changed");
        assert_eq!(env["HERDR_PLUGIN_EVENT_JSON"], "{\"x\":1}");
        assert_eq!(env["HERDR_WORKSPACE_ID"], "w1");
        assert_eq!(env["HERDR_PANE_ID"], "w1-1");
        assert!(!env.contains_key("HERDR_TAB_ID"));
        assert!(!env.contains_key("HERDR_PLUGIN_ACTION_ID"));
    }

    #[test]
    fn each_kind_names_itself() {
        let action = Invocation::Action { action_id: "apply".into() };
        let env: BTreeMap<_, _> = build(&input(&action)).into_iter().collect();
        assert_eq!(env["HERDR_PLUGIN_ACTION_ID"], "apply");
        assert!(!env.contains_key("HERDR_PLUGIN_EVENT"));
        let env: BTreeMap<_, _> = build(&input(&Invocation::Startup)).into_iter().collect();
        assert_eq!(env["HERDR_PLUGIN_EVENT"], "startup");
        let pane = Invocation::Pane { entrypoint: "board".into() };
        let env: BTreeMap<_, _> = build(&input(&pane)).into_iter().collect();
        assert_eq!(env["HERDR_PLUGIN_ENTRYPOINT_ID"], "board");
        assert!(is_stripped("NOTIFY_SOCKET") && is_stripped("HERDR_PLUGIN_ID") && !is_stripped("PATH"));
    }
}
