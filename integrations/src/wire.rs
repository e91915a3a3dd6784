//! The `integration.*` API: params and results with the exact protocol-22 wire shapes
//! (`integration_list`, `integration_install`, `integration_uninstall`), computed over an [`Env`].
//!
//! These types live here until the protocol crate's `ApiResult` grows the three variants; the
//! supervisor's handler is then a thin mapping.

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::error::Error;
use crate::install::{self, Details, IntegrationState};
use crate::target::Target;

/// `integration.install` / `integration.uninstall` params.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetParams {
    pub target: Target,
}

/// One row of `integration.list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrationInfo {
    pub target: Target,
    /// The agent's display name.
    pub label: String,
    /// The agent's executable.
    pub command: String,
    /// Whether installing would work here: the agent's config dir exists.
    pub available: bool,
    pub state: IntegrationState,
}

/// A success `result`, internally tagged on `type` like every API result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum IntegrationResult {
    IntegrationList { integrations: Vec<IntegrationInfo> },
    IntegrationInstall { target: Target, details: Details },
    IntegrationUninstall { target: Target, details: Details },
}

/// `integration.list {}`: the targets this build implements (the others cannot be installed, so
/// listing them would only invite a `not_implemented`).
pub fn list(env: &Env) -> Result<IntegrationResult, Error> {
    let mut integrations = Vec::new();
    for target in Target::IMPLEMENTED {
        let implemented = target.implemented()?;
        let status = install::status(target, env)?;
        integrations.push(IntegrationInfo {
            target,
            label: implemented.label().to_owned(),
            command: implemented.command().to_owned(),
            available: install::agent_dir(target, env)?.is_dir(),
            state: status.state,
        });
    }
    Ok(IntegrationResult::IntegrationList { integrations })
}

/// `integration.install {target}`.
pub fn install(params: TargetParams, env: &Env) -> Result<IntegrationResult, Error> {
    let details = install::install(params.target, env)?;
    Ok(IntegrationResult::IntegrationInstall { target: params.target, details })
}

/// `integration.uninstall {target}`.
pub fn uninstall(params: TargetParams, env: &Env) -> Result<IntegrationResult, Error> {
    let details = install::uninstall(params.target, env)?;
    Ok(IntegrationResult::IntegrationUninstall { target: params.target, details })
}
