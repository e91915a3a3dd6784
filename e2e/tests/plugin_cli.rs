//! `herdr plugin …` end to end: against a real server (link a relative path, list as text and
//! JSON, disable, enable, action list/invoke, log list, unlink), with no server (the registry
//! edited by the CLI itself and seen by the server started afterwards), and `install` from a
//! git repository the test makes, with a `[[build]]` command: refused with no terminal and no
//! `--yes`, answered `N` and `y` on a real pseudo-terminal, `--ref` checked out, a failing build
//! rolled back, `uninstall` removing the checkout, and the `[[startup]]` command run when a
//! server starts.

use std::path::{Path, PathBuf};

use herdr_e2e::cli::CliOutput;
use herdr_e2e::git::git;
use herdr_e2e::pty::PtyProgram;
use herdr_e2e::{PATIENCE, TestServer, binaries, schema, wait_until};
use serde_json::Value;

const RECORDER: &str = "e2e.recorder";
const BUILT: &str = "e2e.built";

fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn config_dir(server: &TestServer) -> PathBuf {
    let xdg = server.env().iter().find(|(k, _)| k == "XDG_CONFIG_HOME").map(|(_, v)| v.clone());
    PathBuf::from(xdg.expect("XDG_CONFIG_HOME")).join("herdr")
}

/// `herdr ARGS…` run from `cwd`.
fn cli_in(server: &TestServer, cwd: &Path, args: &[&str]) -> CliOutput {
    let mut command = server.command(binaries::binary("herdr"));
    command.current_dir(cwd);
    herdr_e2e::cli::run(command, args, PATIENCE)
}

fn ok_text(out: &CliOutput) -> String {
    assert!(out.status.success(), "`herdr {}` failed: {}\n{}", out.args.join(" "), out.stdout, out.stderr);
    out.stdout.clone()
}

/// `plugin list --json`'s plugins, the envelope checked against the schema.
fn listed(server: &TestServer) -> Vec<Value> {
    let out = server.cli(&["plugin", "list", "--json"]);
    let envelope = out.stdout_envelope().unwrap_or_else(|| panic!("no envelope: {out:?}"));
    schema::validate_line(&envelope).expect("plugin_list validates");
    let result = out.result();
    assert_eq!(result["type"], "plugin_list", "{result}");
    result["plugins"].as_array().expect("plugins").clone()
}

#[test]
fn the_cli_drives_a_linked_plugin_through_the_server() {
    let server = TestServer::start();
    let linked = cli_in(&server, &tests_dir(), &["plugin", "link", "plugins/recorder"]).result();
    assert_eq!(linked["type"], "plugin_linked", "{linked}");
    let root = tests_dir().join("plugins/recorder").display().to_string();
    assert_eq!(linked["plugin"]["plugin_root"], root.as_str(), "the relative path was made absolute");

    let plugins = listed(&server);
    assert_eq!(plugins.len(), 1, "{plugins:?}");
    assert_eq!(
        (plugins[0]["plugin_id"].as_str(), plugins[0]["enabled"].as_bool()),
        (Some(RECORDER), Some(true))
    );
    let text = ok_text(&server.cli(&["plugin", "list"]));
    let config = config_dir(&server);
    assert_eq!(
        text,
        format!(
            "1 plugin installed:\n- {RECORDER} (Recorder) enabled [local:{root}]\n  config: {}\n",
            config.join("plugins/config").join(RECORDER).display()
        )
    );

    let disabled = server.cli(&["plugin", "disable", RECORDER]).result();
    assert_eq!(
        (disabled["type"].as_str(), disabled["plugin"]["enabled"].as_bool()),
        (Some("plugin_disabled"), Some(false))
    );
    assert!(
        ok_text(&server.cli(&["plugin", "list"])).contains(&format!("- {RECORDER} (Recorder) disabled ["))
    );
    let (code, _) = server.cli(&["plugin", "action", "invoke", "record-context"]).error();
    assert_eq!(code, "plugin_disabled");
    let enabled = server.cli(&["plugin", "enable", RECORDER]).result();
    assert_eq!(
        (enabled["type"].as_str(), enabled["plugin"]["enabled"].as_bool()),
        (Some("plugin_enabled"), Some(true))
    );

    let actions = server.cli(&["plugin", "action", "list", "--plugin", RECORDER]).result();
    assert_eq!(actions["type"], "plugin_action_list", "{actions}");
    assert_eq!(actions["actions"][0]["action_id"], "record-context", "{actions}");
    let invoked = server.cli(&["plugin", "action", "invoke", &format!("{RECORDER}.record-context")]).result();
    assert_eq!(invoked["type"], "plugin_action_invoked", "{invoked}");
    assert_eq!(invoked["context"]["invocation_source"], "cli", "{invoked}");
    let log_id = invoked["log"]["log_id"].as_str().expect("log id").to_owned();
    let entry = wait_until("the invoked action's log entry to succeed", PATIENCE, || {
        let logs = server.cli(&["plugin", "log", "list", "--plugin", RECORDER, "--limit", "10"]).result();
        let entry =
            logs["logs"].as_array().and_then(|l| l.iter().find(|e| e["log_id"] == log_id.as_str()).cloned());
        match entry {
            Some(entry) if entry["status"] == "succeeded" => Ok(entry),
            other => Err(format!("{other:?}")),
        }
    });
    assert_eq!(entry["stdout"], "recorded\n", "{entry}");

    let unlinked = server.cli(&["plugin", "unlink", RECORDER]).result();
    assert_eq!(
        (unlinked["type"].as_str(), unlinked["removed"].as_bool()),
        (Some("plugin_unlinked"), Some(true))
    );
    assert_eq!(ok_text(&server.cli(&["plugin", "list"])), "No plugins installed.\n");
    assert!(tests_dir().join("plugins/recorder/herdr-plugin.toml").is_file(), "unlink leaves the files");
}

#[test]
fn without_a_server_the_cli_edits_the_registry_itself() {
    let mut server = TestServer::prepare();
    let recorder = tests_dir().join("plugins/recorder").display().to_string();
    let linked = server.cli(&["plugin", "link", &recorder, "--disabled"]).result();
    assert_eq!(
        (linked["type"].as_str(), linked["plugin"]["enabled"].as_bool()),
        (Some("plugin_linked"), Some(false))
    );
    let config = config_dir(&server);
    assert!(config.join("plugins.json").is_file(), "the registry was written");
    assert!(config.join("plugins/state").join(RECORDER).is_dir(), "link creates the state dir");
    let dir = ok_text(&server.cli(&["plugin", "config-dir", RECORDER]));
    assert_eq!(dir, format!("{}\n", config.join("plugins/config").join(RECORDER).display()));
    assert!(
        ok_text(&server.cli(&["plugin", "list"]))
            .starts_with("1 plugin installed:\n- e2e.recorder (Recorder) disabled")
    );
    assert_eq!(listed(&server)[0]["plugin_id"], RECORDER);
    let (code, _) = server.cli(&["plugin", "enable", RECORDER]).error();
    assert_eq!(code, "server_not_running", "enable needs a server, as upstream");

    server.start_server();
    let seen = server.call("plugin.list", serde_json::json!({}));
    assert_eq!(seen["plugins"][0]["plugin_id"], RECORDER, "the server reads what the CLI wrote: {seen}");
    assert_eq!(seen["plugins"][0]["enabled"], false, "{seen}");
    server.stop();

    let out = server.cli(&["plugin", "uninstall", RECORDER]);
    assert_eq!(ok_text(&out), format!("Uninstalled {RECORDER}.\n"));
    assert!(Path::new(&recorder).join("herdr-plugin.toml").is_file(), "a linked directory is never deleted");
    assert_eq!(ok_text(&server.cli(&["plugin", "list"])), "No plugins installed.\n");
    let out = server.cli(&["plugin", "uninstall", RECORDER]);
    assert_eq!((out.status.code(), out.stderr.as_str()), (Some(1), "plugin not installed: e2e.recorder\n"));
}

const MANIFEST: &str = r#"id = "e2e.built"
name = "Built"
version = "0.1.0"
min_herdr_version = "0.1.0"
platforms = ["linux", "macos"]

[[build]]
command = ["sh", "build.sh"]

[[startup]]
command = ["sh", "-c", "echo \"$HERDR_PLUGIN_EVENT\" >> \"$HERDR_PLUGIN_STATE_DIR/startup.log\""]
"#;

/// A git repository holding the `e2e.built` plugin: tag `v1` builds `built` = "v1", `main`
/// one commit later builds "v2".
fn plugin_repo(server: &TestServer) -> (PathBuf, String) {
    let repo = server.work_dir("built-plugin");
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("herdr-plugin.toml"), MANIFEST).expect("manifest");
    std::fs::write(repo.join("build.sh"), "echo v1 > built\n").expect("build script");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "v1"]);
    git(&repo, &["tag", "v1"]);
    let v1 = git(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(repo.join("build.sh"), "echo v2 > built\n").expect("build script");
    git(&repo, &["commit", "--quiet", "-am", "v2"]);
    (repo, v1)
}

fn managed(server: &TestServer) -> PathBuf {
    config_dir(server).join("plugins/github").join(BUILT)
}

/// `herdr ARGS…` on a pseudo-terminal (stdin a tty), answering the prompt with `answer`.
fn answer_prompt(server: &TestServer, args: &[&str], answer: &str, then: &str) {
    let mut command = server.command(binaries::binary("herdr"));
    command.args(args);
    let mut program = PtyProgram::spawn(command, 120, 40);
    program.expect("the prompt", b"Install this plugin? [y/N] ", PATIENCE);
    assert!(
        program.recent().contains("    build: sh build.sh"),
        "the preview shows the build: {}",
        program.recent()
    );
    program.write(format!("{answer}\r").as_bytes());
    program.expect("the outcome", then.as_bytes(), PATIENCE);
}

#[test]
fn install_asks_before_building_and_uninstall_removes_the_checkout() {
    let mut server = TestServer::start();
    let (repo, v1) = plugin_repo(&server);
    let url = format!("file://{}", repo.display());

    let refused = server.cli(&["plugin", "install", &url]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(refused.stderr.contains("requires --yes when stdin is not interactive"), "{}", refused.stderr);
    assert!(!managed(&server).exists());

    answer_prompt(&server, &["plugin", "install", &url], "N", "plugin install cancelled");
    assert!(listed(&server).is_empty(), "nothing registered after N");
    let leftovers = wait_until("the cancelled install to clean up", PATIENCE, || {
        let names: Vec<_> = std::fs::read_dir(config_dir(&server).join("plugins"))
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        if names.iter().any(|n| n.starts_with(".tmp-install") || n == "github") {
            Err(format!("{names:?}"))
        } else {
            Ok(names)
        }
    });
    assert!(!leftovers.contains(&"github".to_owned()));

    answer_prompt(&server, &["plugin", "install", &url], "y", "Installed e2e.built from");
    assert_eq!(std::fs::read_to_string(managed(&server).join("built")).ok().as_deref(), Some("v2\n"));
    let plugins = listed(&server);
    assert_eq!(plugins[0]["plugin_id"], BUILT, "{plugins:?}");
    assert_eq!(plugins[0]["source"]["managed_path"], managed(&server).display().to_string().as_str());

    let out = server.cli(&["plugin", "uninstall", BUILT]);
    assert_eq!(ok_text(&out), "Uninstalled e2e.built.\n");
    assert!(!managed(&server).exists(), "uninstall removed the checkout");
    assert!(listed(&server).is_empty());

    let out = server.cli(&["plugin", "install", &url, "--ref", "v1", "--yes"]);
    assert!(ok_text(&out).starts_with(&format!("Installed {BUILT} from {url}.\nConfig: ")), "{out:?}");
    assert!(
        out.stderr.contains("Plugin install preview:") && out.stderr.contains(&format!("commit: {v1}")),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(managed(&server).join("built")).ok().as_deref(), Some("v1\n"));
    let source = listed(&server)[0]["source"].clone();
    assert_eq!(
        (source["requested_ref"].as_str(), source["resolved_commit"].as_str()),
        (Some("v1"), Some(v1.as_str()))
    );

    // Installing again replaces the managed checkout (here with main's v2 build).
    let again = server.cli(&["plugin", "install", &url, "--yes"]);
    assert!(again.stderr.contains(&format!("replaces: {BUILT} from ")), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(managed(&server).join("built")).ok().as_deref(), Some("v2\n"));
    assert_eq!(listed(&server).len(), 1);

    // Startup commands run when a server starts (not at install, link or enable).
    let startup_log = config_dir(&server).join("plugins/state").join(BUILT).join("startup.log");
    assert!(!startup_log.exists(), "install runs no startup command");
    server.stop();
    server.restart();
    let text = wait_until("the startup command to run", PATIENCE, || {
        std::fs::read_to_string(&startup_log).map_err(|e| e.to_string())
    });
    assert_eq!(text, "startup\n");
    let logs = wait_until("the startup run to be logged as succeeded", PATIENCE, || {
        let logs = server.cli(&["plugin", "log", "list", "--plugin", BUILT]).result();
        let logs = logs["logs"].as_array().cloned().unwrap_or_default();
        if logs.iter().any(|l| l["status"] == "succeeded") { Ok(logs) } else { Err(format!("{logs:?}")) }
    });
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["event"], "startup", "{logs:?}");

    // Not when a plugin is enabled; not at all for a disabled plugin. Startup runs are logged
    // before the server answers its first request, so an empty log is conclusive.
    let log_count = |server: &TestServer| {
        let logs = server.cli(&["plugin", "log", "list", "--plugin", BUILT]).result();
        logs["logs"].as_array().map_or(0, Vec::len)
    };
    server.cli(&["plugin", "disable", BUILT]).result();
    server.cli(&["plugin", "enable", BUILT]).result();
    assert_eq!(log_count(&server), 1, "enable starts no startup command");
    server.cli(&["plugin", "disable", BUILT]).result();
    server.stop();
    server.restart();
    assert_eq!(log_count(&server), 0, "a disabled plugin's startup command does not run");
    assert_eq!(std::fs::read_to_string(&startup_log).ok().as_deref(), Some("startup\n"));
}

#[test]
fn a_failing_build_installs_nothing() {
    let server = TestServer::start();
    let dir = server.work_dir("broken-plugin");
    std::fs::write(dir.join("herdr-plugin.toml"), MANIFEST.replace("e2e.built", "e2e.broken"))
        .expect("manifest");
    std::fs::write(dir.join("build.sh"), "echo half-built > built\necho compiler exploded >&2\nexit 3\n")
        .expect("script");
    let out = cli_in(&server, &dir, &["plugin", "install", "./", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    for needle in [
        "error: plugin build failed",
        "  plugin: e2e.broken",
        "  build: 1/1",
        "compiler exploded",
        "Plugin was not installed.",
    ] {
        assert!(out.stderr.contains(needle), "{needle:?} in {}", out.stderr);
    }
    assert!(listed(&server).is_empty(), "nothing registered");
    let plugins = config_dir(&server).join("plugins");
    assert!(!plugins.join("local/e2e.broken").exists(), "the copy was removed");
    let scratch: Vec<_> = std::fs::read_dir(&plugins)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(scratch.iter().all(|n| !n.starts_with(".tmp")), "{scratch:?}");
    assert!(!dir.join("built").exists(), "the build ran in the copy, not the source");
}

/// `herdr plugin pane open|focus|close` against a server: the keypad plugin's pane opens beside
/// the target, is focused and closed by id; a pane no plugin opened is refused.
#[test]
fn the_cli_opens_focuses_and_closes_a_plugin_pane() {
    let server = TestServer::start();
    let root = herdr_e2e::panes::create_workspace(&server).pane_id;
    ok_text(&cli_in(&server, &tests_dir(), &["plugin", "link", "plugins/keypad"]));
    let opened = server.cli(&[
        "plugin",
        "pane",
        "open",
        "--plugin",
        "e2e.keypad",
        "--entrypoint",
        "pad",
        "--target-pane",
        &root,
    ]);
    let envelope = opened.stdout_envelope().unwrap_or_else(|| panic!("no envelope: {opened:?}"));
    schema::validate_line(&envelope).expect("plugin_pane_opened validates");
    let result = opened.result();
    assert_eq!(result["type"], "plugin_pane_opened", "{result}");
    let pane = result["plugin_pane"]["pane"]["pane_id"].as_str().expect("the pane's id").to_owned();
    assert_ne!(pane, root);
    let focused = server.cli(&["plugin", "pane", "focus", &pane]).result();
    assert_eq!(focused["type"], "plugin_pane_focused", "{focused}");
    let closed = server.cli(&["plugin", "pane", "close", &pane]).result();
    assert_eq!(closed["type"], "plugin_pane_closed", "{closed}");
    let refused = server.cli(&["plugin", "pane", "close", &root]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        refused.stdout.contains("plugin_pane_not_found") || refused.stderr.contains("plugin_pane_not_found"),
        "{refused:?}"
    );
}
