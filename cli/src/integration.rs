//! `herdr integration install|uninstall <TARGET>` and `herdr integration status [TARGET]
//! [--outdated-only]`: local edits of the agents' own config dirs (see `herdr-integrations`); no
//! server is involved. Output is text: install/uninstall print one line per file touched, status
//! prints one line per integration: `<target>: <state>`, then for an installed one its version and
//! whether native resume can use it (`version 8, resumes (needs 6)`, or `version 5, too old to
//! resume (needs 6)`), then `(<path>)`. Failures print `herdr: <why>` on stderr and exit 1.

use clap::Subcommand;
use clap::builder::{PossibleValue, PossibleValuesParser};
use herdr_integrations::{Env, IMPLEMENTED, IntegrationDetails, IntegrationState, Status, Target};

use crate::output::{EXIT_ERROR, Rendered};

#[derive(Debug, Subcommand)]
pub enum IntegrationCommand {
    /// Install (or update) herdr's hook or plugin for an agent
    Install {
        #[arg(value_name = "TARGET", value_parser = target_names())]
        target: String,
    },
    /// Remove herdr's hook or plugin from an agent's config, leaving everything else
    Uninstall {
        #[arg(value_name = "TARGET", value_parser = target_names())]
        target: String,
    },
    /// Show whether each integration is not_installed, current or outdated
    Status {
        #[arg(value_name = "TARGET", value_parser = target_names())]
        target: Option<String>,
        /// Only list integrations that need `herdr integration install` again
        #[arg(long)]
        outdated_only: bool,
    },
}

fn target_names() -> PossibleValuesParser {
    PossibleValuesParser::new(Target::ALL.map(|target| match target {
        // How people call that CLI; `herdr_integrations::parse_target` takes them too.
        Target::AntigravityCli => {
            PossibleValue::new(target.as_str()).aliases(["antigravity-cli", "antigravity", "agy"])
        }
        other => PossibleValue::new(other.as_str()),
    }))
}

/// Runs the command against `env` (the process environment in `herdr`, temp dirs in tests).
pub fn run(command: &IntegrationCommand, env: &Env) -> Rendered {
    match command {
        IntegrationCommand::Install { target } => {
            details(parse(target).and_then(|t| herdr_integrations::install(t, env)))
        }
        IntegrationCommand::Uninstall { target } => {
            details(parse(target).and_then(|t| herdr_integrations::uninstall(t, env)))
        }
        IntegrationCommand::Status { target, outdated_only } => {
            status(target.as_deref(), *outdated_only, env)
        }
    }
}

fn parse(name: &str) -> Result<Target, herdr_integrations::Error> {
    herdr_integrations::parse_target(name)
}

fn details(outcome: Result<IntegrationDetails, herdr_integrations::Error>) -> Rendered {
    match outcome {
        Ok(details) => {
            Rendered::stdout(details.messages.iter().map(|m| format!("{m}\n")).collect::<String>())
        }
        Err(err) => failure(&err),
    }
}

fn status(target: Option<&str>, outdated_only: bool, env: &Env) -> Rendered {
    let targets = match target.map(parse).transpose() {
        Ok(Some(target)) => vec![target],
        Ok(None) => IMPLEMENTED.to_vec(),
        Err(err) => return failure(&err),
    };
    let mut out = String::new();
    for target in targets {
        match herdr_integrations::status(target, env) {
            Ok(status) if outdated_only && status.state != IntegrationState::Outdated => {}
            Ok(status) => out.push_str(&status_line(&status)),
            Err(err) => return failure(&err),
        }
    }
    Rendered::stdout(out)
}

fn status_line(status: &Status) -> String {
    let resume = match (status.state, status.installed_version) {
        (IntegrationState::NotInstalled, _) => String::new(),
        (_, None) => format!(", version unknown, too old to resume (needs {})", status.resume_min),
        (_, Some(version)) if status.meets_resume_min() => {
            format!(", version {version}, resumes (needs {})", status.resume_min)
        }
        (_, Some(version)) => format!(", version {version}, too old to resume (needs {})", status.resume_min),
    };
    format!("{}: {}{resume} ({})\n", status.target, status.state.as_str(), status.path.display())
}

fn failure(err: &herdr_integrations::Error) -> Rendered {
    Rendered::stderr(format!("herdr: {err}\n"), EXIT_ERROR)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::{Cli, Command};

    fn parsed(args: &[&str]) -> IntegrationCommand {
        match Cli::try_parse_from(args).expect("parses").command {
            Some(Command::Integration(cmd)) => cmd,
            other => panic!("not an integration command: {other:?}"),
        }
    }

    #[test]
    fn install_status_uninstall_print_text_lines() {
        let home = tempfile::tempdir().expect("home");
        std::fs::create_dir_all(home.path().join(".claude")).expect("claude dir");
        let env = Env { home: Some(home.path().into()), ..Env::default() };
        let claude_script = home.path().join(".claude/hooks/herdr-agent-state.sh");

        let status = run(&parsed(&["herdr", "integration", "status"]), &env);
        assert_eq!(status.exit, 0);
        let claude = status.stdout.lines().find(|l| l.starts_with("claude:")).expect("a claude line");
        assert_eq!(claude, format!("claude: not_installed ({})", claude_script.display()));
        assert_eq!(status.stdout.lines().count(), 17, "{}", status.stdout);

        let installed = run(&parsed(&["herdr", "integration", "install", "claude"]), &env);
        assert_eq!(installed.exit, 0, "{installed:?}");
        assert!(
            installed.stdout.starts_with(&format!("installed {}", claude_script.display())),
            "{installed:?}"
        );

        let status = run(&parsed(&["herdr", "integration", "status", "claude"]), &env);
        assert_eq!(
            status.stdout,
            format!("claude: current, version 8, resumes (needs 6) ({})\n", claude_script.display())
        );
        let outdated = run(&parsed(&["herdr", "integration", "status", "--outdated-only"]), &env);
        assert_eq!(outdated, Rendered::stdout(""));

        let removed = run(&parsed(&["herdr", "integration", "uninstall", "claude"]), &env);
        assert_eq!(removed.exit, 0);
        assert!(removed.stdout.contains(&format!("removed {}", claude_script.display())), "{removed:?}");
    }

    #[test]
    fn refusals_are_one_line_on_stderr_with_exit_1() {
        let home = tempfile::tempdir().expect("home");
        let env = Env { home: Some(home.path().into()), ..Env::default() };
        let refused = run(&parsed(&["herdr", "integration", "install", "codex"]), &env);
        assert_eq!(refused.exit, EXIT_ERROR);
        assert!(refused.stderr.starts_with("herdr: Codex config directory"), "{refused:?}");
        let missing = run(&parsed(&["herdr", "integration", "install", "kimi"]), &env);
        assert!(missing.stderr.starts_with("herdr: Kimi Code CLI config directory"), "{missing:?}");
    }

    #[test]
    fn antigravity_answers_to_the_names_people_use() {
        for name in ["antigravity_cli", "antigravity-cli", "antigravity", "agy"] {
            let IntegrationCommand::Install { target } = parsed(&["herdr", "integration", "install", name])
            else {
                panic!("not an install");
            };
            assert_eq!(parse(&target).expect("parses"), Target::AntigravityCli, "{name}");
        }
    }

    #[test]
    fn unknown_targets_are_usage_errors() {
        let err =
            Cli::try_parse_from(["herdr", "integration", "install", "gemini"]).expect_err("usage error");
        assert_eq!(err.exit_code(), 2);
    }
}
