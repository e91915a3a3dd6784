//! The target table's consistency and its dir rules.

use std::path::PathBuf;

use super::*;

#[test]
fn the_table_has_every_target_once_in_the_schemas_order() {
    let targets: Vec<Target> = SPECS.iter().map(|s| s.target).collect();
    assert_eq!(targets, Target::ALL);
    for target in Target::ALL {
        assert_eq!(spec(target).target, target);
    }
}

#[test]
fn every_current_version_meets_its_resume_minimum_and_every_target_has_a_primary_asset() {
    for s in SPECS {
        assert!(s.version >= s.resume_min, "{}", s.target);
        assert!(!s.assets.is_empty(), "{}", s.target);
    }
}

#[test]
fn dirs_follow_the_agents_variables() {
    let env = Env::with_home("/h");
    let dir = |t: Target, env: &Env| spec(t).dir.resolve(env, "x").expect("dir");
    assert_eq!(dir(Target::Claude, &env), PathBuf::from("/h/.claude"));
    assert_eq!(dir(Target::Devin, &env), PathBuf::from("/h/.config/devin"));
    assert_eq!(dir(Target::Omp, &env), PathBuf::from("/h/.omp/agent"));
    assert_eq!(dir(Target::AntigravityCli, &env), PathBuf::from("/h/.gemini/config"));
    let env = env.with_var("PI_CONFIG_DIR", ".my-omp").with_var("GROK_HOME", "/g");
    assert_eq!(dir(Target::Omp, &env), PathBuf::from("/h/.my-omp/agent"));
    assert_eq!(dir(Target::Grok, &env), PathBuf::from("/g"));
    let env = env.with_var("GROK_CONFIG_DIR", "/first");
    assert_eq!(dir(Target::Grok, &env), PathBuf::from("/first"), "herdr's own override wins");
    assert!(matches!(spec(Target::Claude).dir.resolve(&Env::default(), "Claude"), Err(Error::NoHome { .. })));
}
