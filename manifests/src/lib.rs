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
//! (process → agent); `machine` (timing and publish rules); `last_turn_spec` + `last_turn` (the
//! `last_turn` read's cut of an agent's reply).

pub mod agent;
pub mod compile;
pub mod embedded;
pub mod error;
pub mod eval;
pub mod explain;
pub mod identity;
pub mod last_turn;
pub mod last_turn_spec;
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
pub use last_turn::{LastTurn, last_turn};
pub use last_turn_spec::LastTurnSpec;
pub use machine::{
    AgentChangeReason, Detector, Foreground, PaneView, Publication, ScreenText, StateReport, Step,
};
pub use overrides::{
    Diagnostic, EffectiveManifests, ManifestSet, OverrideFile, effective_manifests, effective_manifests_for,
};
pub use regions::{Region, RegionError};
