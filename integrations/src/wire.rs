//! The `integration.*` API over an [`Env`]: params, and the protocol's own results
//! (`ApiResult::{IntegrationList, IntegrationInstall, IntegrationUninstall}`), so the supervisor
//! only maps the error.

use herdr_protocol::api::{ApiResult, IntegrationInfo};
use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::error::Error;
// `{self}`: the module only, not the crate root's re-exported `install` function of the same path.
use crate::install::{self};
use crate::target::{IMPLEMENTED, Installable, Target};

/// `integration.install` / `integration.uninstall` params.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetParams {
    pub target: Target,
}

/// `integration.list {}`: the targets this build implements (the others cannot be installed, so
/// listing them would only invite a `not_implemented`).
pub fn list(env: &Env) -> Result<ApiResult, Error> {
    let mut integrations = Vec::new();
    for target in IMPLEMENTED {
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
    Ok(ApiResult::IntegrationList { integrations })
}

/// `integration.install {target}`.
pub fn install(params: TargetParams, env: &Env) -> Result<ApiResult, Error> {
    let details = install::install(params.target, env)?;
    Ok(ApiResult::IntegrationInstall { target: params.target, details })
}

/// `integration.uninstall {target}`.
pub fn uninstall(params: TargetParams, env: &Env) -> Result<ApiResult, Error> {
    let details = install::uninstall(params.target, env)?;
    Ok(ApiResult::IntegrationUninstall { target: params.target, details })
}
