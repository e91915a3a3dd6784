//! Agent detection for herdr: the per-agent manifests (TOML data in `manifests/agents/`, embedded
//! at build, overridable from the config dir), process identity, the screen evaluator, `explain`,
//! and the per-pane detection state machine.
//!
//! Pure by design: no PTYs, sockets, tokio or clocks. The pane worker supplies screen rows, OSC
//! title/progress and the foreground process list (through [`machine::PaneView`]) and passes
//! `Instant`s in; the supervisor does hook arbitration with what this crate publishes.
//!
//! Map: `schema` (file format) → `validate` (limits) → `compile` (regexes) → `regions` + `eval`
//! (verdict) / `explain` (evidence); `embedded` + `overrides` (the effective set); `identity`
//! (process → agent); `machine` (timing and publish rules).

pub mod agent;
pub mod compile;
pub mod embedded;
pub mod error;
pub mod eval;
pub mod explain;
pub mod identity;
pub mod machine;
pub mod overrides;
pub mod regions;
pub mod schema;
pub mod validate;

pub use agent::{Agent, AgentState};
pub use compile::{CompiledManifest, ManifestSource, compile};
pub use error::{ManifestError, ManifestProblem};
pub use eval::{Detection, DetectionInput, MatchedRule, evaluate};
pub use explain::{Explanation, explain};
pub use identity::{ForegroundProcess, Identity, IdentityEvidence, identify};
pub use machine::{
    AgentChangeReason, Detector, Foreground, PaneView, Publication, ScreenText, StateReport, Step,
};
pub use overrides::{
    Diagnostic, EffectiveManifests, ManifestSet, OverrideFile, effective_manifests, effective_manifests_for,
};
pub use regions::{Region, RegionError};
