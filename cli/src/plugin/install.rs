//! `herdr plugin install` and `uninstall`. Install fetches the source into a scratch directory
//! under `<config>/plugins` (a `git clone`, `--ref` checked out detached, or a copy of a local
//! directory), validates the manifest, shows a preview on stderr and asks `[y/N]` unless
//! `--yes` (refusing outright when stdin is no terminal), runs the `[[build]]` commands
//! ([`super::build`]), refuses a build that changed the manifest, moves the checkout to its
//! managed path (replacing an earlier install of the same plugin) and registers it through
//! `plugin.link` with its source, or in the registry itself when no server runs. Any failure
//! removes what it made. Uninstall unregisters and removes only a checkout install made.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use herdr_plugins::install::{self, InstallSource};
use herdr_plugins::load_manifest;
use herdr_plugins::manifest::Loaded;
use herdr_plugins::registry::{RegistryEntry, Source, SourceKind};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{
    PluginLinkParams, PluginRequest, PluginSourceInfo, PluginSourceKind, PluginTarget,
};

use super::{ID, InstallArgs, Reach, ask, offline};
use crate::output::{self, EXIT_ERROR, Rendered};
use crate::request::{ApiRequest, Caller};
use crate::target::Target;

fn failed(message: impl Into<String>) -> Rendered {
    let mut text = message.into();
    text.push('\n');
    Rendered::stderr(text, EXIT_ERROR)
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

/// `herdr plugin install SOURCE [--ref REF] [--yes]`.
pub fn install(
    args: &InstallArgs,
    target: &Target,
    caller: &Caller,
    config: &Path,
) -> Result<Rendered, Rendered> {
    let source = InstallSource::parse(&args.source, caller.cwd.as_deref(), caller.home.as_deref())
        .map_err(|e| Rendered::usage(&e.to_string()))?;
    if args.git_ref.is_some() && !source.is_git() {
        return Err(Rendered::usage("--ref applies only to git sources"));
    }
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(Rendered::usage("plugin install requires --yes when stdin is not interactive"));
    }
    let scratch = install::temp_dir(config, std::process::id(), now_ms());
    std::fs::create_dir_all(&scratch)
        .map_err(|e| failed(format!("cannot create {}: {e}", scratch.display())))?;
    let outcome = install_in(args, &source, target, config, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    outcome
}

fn install_in(
    args: &InstallArgs,
    source: &InstallSource,
    target: &Target,
    config: &Path,
    scratch: &Path,
) -> Result<Rendered, Rendered> {
    let checkout = scratch.join("checkout");
    let commit = fetch(source, args.git_ref.as_deref(), &checkout)?;
    let root = source.manifest_root(&checkout);
    let preview = load(&root)?;
    let id = preview.manifest.id.clone();
    let existing = offline::entry(config, &id)?;
    if let Some(existing) = &existing {
        let managed = existing.source.managed_path.as_deref();
        if !managed.is_some_and(|p| install::is_managed_path(config, &id, Path::new(p))) {
            return Err(failed(format!(
                "plugin {id} is already linked from a local path; uninstall/unlink it before installing"
            )));
        }
    }
    print_preview(&preview, source, args.git_ref.as_deref(), commit.as_deref(), existing.as_ref());
    if !args.yes && !confirm("Install this plugin?")? {
        return Ok(Rendered::stderr("plugin install cancelled\n", output::EXIT_OK));
    }
    super::build::run_all(&preview.manifest, &root).map_err(|failure| failed(failure.to_string()))?;
    if load(&root)?.manifest != preview.manifest {
        return Err(failed("plugin build changed herdr-plugin.toml after install preview; aborting install"));
    }

    let managed = install::managed_path(config, source, &id);
    let backup = scratch.join("previous");
    let replaced = managed.exists();
    if replaced {
        std::fs::rename(&managed, &backup)
            .map_err(|e| failed(format!("cannot replace {}: {e}", managed.display())))?;
    }
    let placed = place(&checkout, &managed).and_then(|()| {
        let final_root = source.manifest_root(&managed);
        let loaded = load(&final_root)?;
        register(target, config, loaded, source_info(source, args.git_ref.as_deref(), commit, &managed))
    });
    match placed {
        Ok(id) => Ok(Rendered::stdout(format!(
            "Installed {id} from {}.\nConfig: {}\n",
            source.display(),
            herdr_plugins::env::config_dir(config, &id).display()
        ))),
        Err(refused) => {
            let _ = std::fs::remove_dir_all(&managed);
            if replaced {
                let _ = std::fs::rename(&backup, &managed);
            }
            Err(refused)
        }
    }
}

fn load(root: &Path) -> Result<Loaded, Rendered> {
    load_manifest(root).map_err(|e| output::cli_error(ID, e.code(), &e.to_string()))
}

fn place(checkout: &Path, managed: &Path) -> Result<(), Rendered> {
    if let Some(parent) = managed.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| failed(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::rename(checkout, managed)
        .map_err(|e| failed(format!("cannot install into {}: {e}", managed.display())))
}

/// Fetches `source` into `checkout`; the resolved commit for git sources.
fn fetch(source: &InstallSource, git_ref: Option<&str>, checkout: &Path) -> Result<Option<String>, Rendered> {
    let Some(url) = source.clone_url() else {
        let InstallSource::Local { path } = source else { return Ok(None) };
        if !path.is_dir() {
            return Err(failed(format!("plugin source is not a directory: {}", path.display())));
        }
        copy_dir(path, checkout).map_err(|e| failed(format!("cannot copy {}: {e}", path.display())))?;
        return Ok(None);
    };
    let checkout_arg = checkout.display().to_string();
    git(None, &["clone", "--quiet", "--", &url, &checkout_arg])?;
    if let Some(reference) = git_ref {
        let commit = [format!("{reference}^{{commit}}"), format!("origin/{reference}^{{commit}}")]
            .into_iter()
            .find_map(|spec| git(Some(checkout), &["rev-parse", "--verify", "--quiet", &spec]).ok())
            .ok_or_else(|| failed(format!("git: no branch, tag or commit {reference} in {url}")))?;
        git(Some(checkout), &["checkout", "--quiet", "--detach", &commit])?;
    }
    git(Some(checkout), &["rev-parse", "HEAD"]).map(Some)
}

/// Runs git without a terminal prompt; its trimmed stdout.
fn git(cwd: Option<&Path>, args: &[&str]) -> Result<String, Rendered> {
    let mut command = Command::new("git");
    command.args(args).stdin(Stdio::null()).env("GIT_TERMINAL_PROMPT", "0");
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let out = command.output().map_err(|e| failed(format!("cannot run git: {e}")))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    Err(failed(format!("git {} failed with {}: {stderr}", args.first().unwrap_or(&""), out.status)))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (kind, dest) = (entry.file_type()?, to.join(entry.file_name()));
        if kind.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

fn source_info(
    source: &InstallSource,
    git_ref: Option<&str>,
    commit: Option<String>,
    managed: &Path,
) -> Source {
    let (kind, owner, repo, subdir) = match source {
        InstallSource::Github { owner, repo, subdir } => {
            (SourceKind::Github, Some(owner.clone()), Some(repo.clone()), subdir.clone())
        }
        InstallSource::Git { .. } | InstallSource::Local { .. } => (SourceKind::Local, None, None, None),
    };
    Source {
        kind,
        owner,
        repo,
        subdir,
        requested_ref: git_ref.map(str::to_owned),
        resolved_commit: commit,
        managed_path: Some(managed.display().to_string()),
        installed_unix_ms: Some(now_ms()),
    }
}

fn wire_source(source: &Source) -> PluginSourceInfo {
    PluginSourceInfo {
        kind: Some(match source.kind {
            SourceKind::Github => PluginSourceKind::Github,
            SourceKind::Local => PluginSourceKind::Local,
        }),
        owner: source.owner.clone(),
        repo: source.repo.clone(),
        subdir: source.subdir.clone(),
        requested_ref: source.requested_ref.clone(),
        resolved_commit: source.resolved_commit.clone(),
        managed_path: source.managed_path.clone(),
        installed_unix_ms: source.installed_unix_ms,
    }
}

/// Registers the installed plugin (enabled) with the server, or in the registry when none runs.
fn register(target: &Target, config: &Path, loaded: Loaded, source: Source) -> Result<String, Rendered> {
    let request = ApiRequest::new(
        ID,
        Request::Plugin(PluginRequest::Link(PluginLinkParams {
            path: loaded.root.display().to_string(),
            enabled: Some(true),
            source: Some(wire_source(&source)),
        })),
    );
    let entry = RegistryEntry::new(loaded, true, source);
    match ask(target, &request)? {
        Reach::Reply(reply) if reply.get("error").is_some() => {
            Err(Rendered::stderr(output::sorted_line(&reply), EXIT_ERROR))
        }
        Reach::Reply(_) => Ok(entry.id().to_owned()),
        Reach::NotRunning => offline::register(config, &entry).map(|()| entry.id().to_owned()),
    }
}

fn print_preview(
    loaded: &Loaded,
    source: &InstallSource,
    git_ref: Option<&str>,
    commit: Option<&str>,
    existing: Option<&RegistryEntry>,
) {
    let m = &loaded.manifest;
    let mut out =
        format!("Plugin install preview:\n  id: {}\n  name: {}\n  version: {}\n", m.id, m.name, m.version);
    out.push_str(&format!("  source: {}\n", source.display()));
    if let Some(reference) = git_ref {
        out.push_str(&format!("  ref: {reference}\n"));
    }
    if let Some(commit) = commit {
        out.push_str(&format!("  commit: {commit}\n"));
    }
    out.push_str(&format!(
        "  actions: {}\n  startup commands: {}\n  events: {}\n  panes: {}\n  link handlers: {}\n  build commands: {}\n",
        m.actions.len(),
        m.startup.len(),
        m.events.len(),
        m.panes.len(),
        m.link_handlers.len(),
        m.build.len()
    ));
    for (index, build) in m.build.iter().enumerate() {
        let skipped = if super::build::supported(m, index) { "" } else { " (skipped on this platform)" };
        out.push_str(&format!("    build{skipped}: {}\n", build.command.join(" ")));
    }
    for startup in &m.startup {
        out.push_str(&format!("    startup: {}\n", startup.command.join(" ")));
    }
    for action in &m.actions {
        out.push_str(&format!("    action {}: {}\n", action.id, action.command.join(" ")));
    }
    for event in &m.events {
        out.push_str(&format!("    event {}: {}\n", event.on, event.command.join(" ")));
    }
    for pane in &m.panes {
        out.push_str(&format!("    pane {}: {}\n", pane.id, pane.command.join(" ")));
    }
    for warning in &loaded.warnings {
        out.push_str(&format!("  warning: {warning}\n"));
    }
    if let Some(existing) = existing {
        out.push_str(&format!("  replaces: {} from {}\n", existing.id(), existing.plugin_root));
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(out.as_bytes()).and_then(|()| err.flush());
}

/// Asks on the terminal; only `y`/`yes` (any case) is a yes.
fn confirm(prompt: &str) -> Result<bool, Rendered> {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{prompt} [y/N] ").and_then(|()| err.flush());
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| failed(format!("cannot read the answer: {e}")))?;
    Ok(matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// `herdr plugin uninstall ID|owner/repo[/subdir]`.
pub fn uninstall(which: &str, target: &Target, caller: &Caller, config: &Path) -> Result<Rendered, Rendered> {
    let entries = offline::entries(config)?;
    let by_source =
        InstallSource::parse(which, caller.cwd.as_deref(), caller.home.as_deref()).ok().and_then(|s| {
            let InstallSource::Github { owner, repo, subdir } = s else { return None };
            entries.iter().find(|e| {
                e.source.kind == SourceKind::Github
                    && e.source.owner.as_deref() == Some(owner.as_str())
                    && e.source.repo.as_deref() == Some(repo.as_str())
                    && e.source.subdir == subdir
            })
        });
    let entry = by_source.or_else(|| entries.iter().find(|e| e.id() == which)).cloned();
    let Some(entry) = entry else { return Err(failed(format!("plugin not installed: {which}"))) };
    let id = entry.id().to_owned();
    let request =
        ApiRequest::new(ID, Request::Plugin(PluginRequest::Unlink(PluginTarget { plugin_id: id.clone() })));
    let removed = match ask(target, &request)? {
        Reach::Reply(reply) if reply.get("error").is_some() => {
            return Err(Rendered::stderr(output::sorted_line(&reply), EXIT_ERROR));
        }
        Reach::Reply(reply) => reply["result"]["removed"].as_bool() == Some(true),
        Reach::NotRunning => offline::unregister(config, &id)?,
    };
    if !removed {
        return Err(failed(format!("plugin not installed: {which}")));
    }
    if let Some(path) = entry.source.managed_path.as_deref().map(PathBuf::from) {
        if install::is_managed_path(config, &id, &path) && path.exists() {
            std::fs::remove_dir_all(&path)
                .map_err(|e| failed(format!("cannot remove {}: {e}", path.display())))?;
        } else if path.exists() {
            return Err(failed(format!("refusing to delete unmanaged plugin path: {}", path.display())));
        }
    }
    Ok(Rendered::stdout(format!("Uninstalled {id}.\n")))
}
