//! `server.reload_agent_manifests`: every pane's worker reloads its manifests, and the answer
//! lists the manifests now in force, read the same way the workers read them (bundled, with the
//! valid overrides from `<config dir>/agent-detection/*.toml`). `server.agent_manifests` lists
//! the same without reloading.

use std::fs;
use std::path::{Path, PathBuf};

use herdr_manifests::{ManifestSet, ManifestSource, OverrideFile, effective_manifests};
use herdr_protocol::api::{AgentManifestInfo, ApiResult};
use herdr_protocol::ipc::WorkerRequest;
use herdr_protocol::paths;

use crate::api::envelope::Failure;
use crate::state::Shared;

/// Where the workers look for manifest overrides.
const OVERRIDES_DIR_NAME: &str = "agent-detection";

fn overrides_dir() -> Option<PathBuf> {
    let env = paths::PathEnv::from_process_env();
    let config =
        paths::config_dir(env.xdg_config_home.as_deref().map(Path::new), env.home.as_deref().map(Path::new));
    config.ok().map(|dir| dir.join(OVERRIDES_DIR_NAME))
}

/// Every readable `*.toml` in `dir`, in name order (a missing dir has none).
fn read_overrides(dir: &Path) -> Vec<OverrideFile> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let contents = fs::read_to_string(&path).ok()?;
            Some(OverrideFile { path: path.display().to_string(), contents })
        })
        .collect()
}

/// The public description of each manifest in `set`.
pub fn manifest_infos(set: &ManifestSet) -> Vec<AgentManifestInfo> {
    set.agents()
        .filter_map(|agent| {
            let manifest = set.get(agent)?;
            let source_kind = match manifest.source {
                ManifestSource::Bundled => "bundled",
                ManifestSource::Override(_) => "local_override",
            };
            Some(AgentManifestInfo {
                agent: agent.label().to_owned(),
                source: manifest.source.describe(),
                source_kind: source_kind.to_owned(),
                local_override_shadowing_remote: false,
                active_version: manifest.version.clone(),
                cached_remote_version: None,
                remote_last_checked_unix: None,
                remote_update_result: None,
                remote_update_error: None,
                warning: set.warning(agent).map(str::to_owned),
            })
        })
        .collect()
}

/// `agent`'s manifest in force now (bundled, or its valid override), for the `last_turn` cut.
pub fn set_for(agent: herdr_manifests::Agent) -> ManifestSet {
    let overrides = overrides_dir().map(|dir| read_overrides(&dir)).unwrap_or_default();
    herdr_manifests::effective_manifests_for(&[agent], &overrides).set
}

/// The manifests in force now, as the workers load them.
fn current() -> Vec<AgentManifestInfo> {
    let overrides = overrides_dir().map(|dir| read_overrides(&dir)).unwrap_or_default();
    let loaded = effective_manifests(&overrides);
    for diagnostic in &loaded.diagnostics {
        log::warn!("agent detection: {}", diagnostic.message);
    }
    manifest_infos(&loaded.set)
}

pub async fn reload(shared: &Shared) -> Result<ApiResult, Failure> {
    for handle in shared.all_pane_handles() {
        handle.notify(shared.next_request_id(), WorkerRequest::ReloadManifests);
    }
    Ok(ApiResult::AgentManifestReload { manifests: current() })
}

pub async fn status(_shared: &Shared) -> Result<ApiResult, Failure> {
    Ok(ApiResult::AgentManifestStatus { last_check_unix: None, last_result: None, manifests: current() })
}

#[cfg(test)]
mod tests {
    use herdr_protocol::schema_check::{SchemaKind, validate};

    use super::*;

    #[test]
    fn an_override_replaces_its_agent_and_a_bad_one_is_a_warning() {
        let dir = std::env::temp_dir().join(format!("herdr-manifests-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let bundled = herdr_manifests::embedded::BUNDLED
            .iter()
            .find(|(name, _)| name.starts_with("claude"))
            .map(|(_, text)| *text)
            .expect("claude manifest");
        fs::write(dir.join("claude.toml"), bundled).expect("write override");
        fs::write(dir.join("codex.toml"), "this is not toml = = =").expect("write bad override");
        let loaded = effective_manifests(&read_overrides(&dir));
        let infos = manifest_infos(&loaded.set);
        let claude = infos.iter().find(|i| i.agent == "claude").expect("claude");
        assert_eq!(claude.source_kind, "local_override");
        let codex = infos.iter().find(|i| i.agent == "codex").expect("codex");
        assert_eq!(codex.source_kind, "bundled");
        assert!(codex.warning.is_some(), "the invalid override is reported");
        let result =
            serde_json::json!({"id": "t", "result": ApiResult::AgentManifestReload { manifests: infos }});
        assert_eq!(validate(SchemaKind::SuccessResponse, &result), Ok(()));
        let _ = fs::remove_dir_all(&dir);
    }
}
