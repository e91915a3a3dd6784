//! The integration targets: the API's `IntegrationTarget` (from herdr-protocol, re-exported as
//! [`Target`]) and the names the command line accepts for them. Every target is implemented;
//! what each one installs is its row in [`crate::spec`].

use crate::error::Error;

pub use herdr_protocol::api::IntegrationTarget as Target;

/// The targets this build can install, in the order `status` and `integration.list` show them.
pub const IMPLEMENTED: [Target; 17] = Target::ALL;

/// A target by its wire name; `antigravity-cli`, `antigravity` and `agy` are accepted too, as
/// people call that CLI.
pub fn parse_target(name: &str) -> Result<Target, Error> {
    let wanted = match name {
        "antigravity-cli" | "antigravity" | "agy" => "antigravity_cli",
        other => other,
    };
    Target::ALL
        .into_iter()
        .find(|t| t.as_str() == wanted)
        .ok_or_else(|| Error::UnknownTarget { name: name.to_owned(), expected: names(&Target::ALL) })
}

fn names(targets: &[Target]) -> String {
    targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_name_antigravity() {
        for alias in ["antigravity_cli", "antigravity-cli", "antigravity", "agy"] {
            assert_eq!(parse_target(alias).expect("parses"), Target::AntigravityCli);
        }
        assert_eq!(parse_target("qodercli").expect("parses"), Target::Qodercli);
    }

    #[test]
    fn parse_errors_name_the_input_and_every_target() {
        let err = parse_target("gemini").expect_err("unknown");
        assert_eq!(err.code(), "invalid_request");
        let text = err.to_string();
        assert!(
            text.starts_with("unknown integration target \"gemini\" (expected one of: pi, omp,"),
            "{text}"
        );
        assert!(text.ends_with("antigravity_cli, grok)"), "{text}");
    }
}
