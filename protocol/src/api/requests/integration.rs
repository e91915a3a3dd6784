//! Params of `integration.install` and `integration.uninstall`.

use serde::{Deserialize, Serialize};

use crate::api::integrations::IntegrationTarget;

/// `integration.install`, `integration.uninstall`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrationTargetParams {
    pub target: IntegrationTarget,
}
