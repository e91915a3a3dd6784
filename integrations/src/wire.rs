//! The `integration.*` API over an [`Env`]: params, and the protocol's own results
//! (`ApiResult::{IntegrationList, IntegrationInstall, IntegrationUninstall}`), so the supervisor
//! only maps the error.

use herdr_protocol::api::{ApiResult, IntegrationInfo};
use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::error::Error;
// `{self}`: the module only, not the crate root's re-exported `install` function of the same path.
use crate::install::{self};
use crate::spec::spec;
use crate::target::{IMPLEMENTED, Target};

/// `integration.install` / `integration.uninstall` params.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetParams {
    pub target: Target,
}

/// `integration.list {}`: every target.
pub fn list(env: &Env) -> Result<ApiResult, Error> {
    let mut integrations = Vec::new();
    for target in IMPLEMENTED {
        let spec = spec(target);
        let status = install::status(target, env)?;
        integrations.push(IntegrationInfo {
            target,
            label: spec.label.to_owned(),
            command: spec.command.to_owned(),
            available: install::available(target, env)?,
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
