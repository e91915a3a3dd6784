//! `herdr config check|reset-keys|commands` and `herdr --default-config`: local work on the user's
//! `config.toml` (`$XDG_CONFIG_HOME/herdr/config.toml`, else `~/.config/herdr/config.toml`).
//!
//! - `check` parses the file with the supervisor's own config model (so it reports exactly what
//!   a server would fall back on) and prints each problem as `FILE:LINE:COLUMN: KEY: PROBLEM`,
//!   the position found by [`locate`]; any problem exits 1.
//! - `reset-keys` copies the file to `config.toml.bak` and rewrites it without `[keys]`,
//!   `[keys.indexed]` and `[[keys.command]]` (see [`reset`]), so every binding is the default.
//! - `commands [--json]` lists the `[[keys.command]]` entries with the ids `command.invoke`
//!   takes (an extension: upstream hands its ids only to its client-shell endpoints). The ids
//!   come from the file; a server that has not reloaded an edited file refuses the new ones.
//! - `--default-config` prints [`DEFAULT_CONFIG`], which parses back to the model's defaults.

pub mod locate;
pub mod reset;

use std::path::{Path, PathBuf};

use clap::Subcommand;
use herdr_protocol::paths::{self, PathEnv};
use herdr_supervisor::commands::command_id;
use herdr_supervisor::config as model;

use crate::output::{EXIT_ERROR, Rendered};

/// The commented default `config.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("config/default.toml");

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Check config.toml and report problems with their line and column
    Check,
    /// Back up config.toml and remove its custom key bindings (`[keys]`, `[keys.indexed]`, `[[keys.command]]`)
    ResetKeys,
    /// List the custom commands (`[[keys.command]]`) with the ids `command.invoke` takes
    Commands {
        /// One JSON array: `command_id`, `key`, `type`, `command`, `description`
        #[arg(long)]
        json: bool,
    },
}

/// Where `config.toml` lives for this environment.
pub fn config_path(env: &PathEnv) -> Result<PathBuf, paths::PathError> {
    let dir =
        paths::config_dir(env.xdg_config_home.as_deref().map(Path::new), env.home.as_deref().map(Path::new))?;
    Ok(dir.join("config.toml"))
}

pub fn run(command: &ConfigCommand, env: &PathEnv) -> Rendered {
    let path = match config_path(env) {
        Ok(path) => path,
        Err(err) => return Rendered::stderr(format!("herdr: {err}\n"), EXIT_ERROR),
    };
    match command {
        ConfigCommand::Check => check(&path),
        ConfigCommand::ResetKeys => match reset::reset_keys(&path) {
            Ok(outcome) => Rendered::stdout(format!("{outcome}\n")),
            Err(err) => Rendered::stderr(format!("herdr: {err}\n"), EXIT_ERROR),
        },
        ConfigCommand::Commands { json } => commands(&path, *json),
    }
}

/// `herdr config commands [--json]` for the file at `path` (no file: no commands).
pub fn commands(path: &Path, json: bool) -> Rendered {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Rendered::stderr(format!("{}: cannot read: {err}\n", path.display()), EXIT_ERROR),
    };
    let (config, _) = model::parse(&text, &path.display().to_string());
    let entries = config.keys.commands.iter().enumerate().map(|(i, c)| (command_id(i, c), c));
    if json {
        let list: Vec<serde_json::Value> = entries
            .map(|(id, c)| {
                serde_json::json!({
                    "command_id": id, "key": c.key, "type": c.kind,
                    "command": c.command, "description": c.description,
                })
            })
            .collect();
        return Rendered::stdout(format!("{}\n", serde_json::Value::Array(list)));
    }
    Rendered::stdout(
        entries.map(|(id, c)| format!("{id}\t{}\t{}\t{}\n", c.key, c.kind, c.command)).collect::<String>(),
    )
}

/// `herdr config check` on the file at `path`.
pub fn check(path: &Path) -> Rendered {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Rendered::stdout(format!("{shown}: no config file; the defaults apply\n"));
        }
        Err(err) => return Rendered::stderr(format!("{shown}: cannot read: {err}\n"), EXIT_ERROR),
    };
    let problems = problems(&text, &shown);
    if problems.is_empty() {
        return Rendered::stdout(format!("{shown}: ok\n"));
    }
    let mut out: String = problems.iter().map(|p| format!("{p}\n")).collect();
    let count = problems.len();
    out.push_str(&format!("{shown}: {count} problem{}\n", if count == 1 { "" } else { "s" }));
    Rendered::stderr(out, EXIT_ERROR)
}

/// One problem of a config file, positioned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based line and column (in characters) of the key, the value or the syntax error.
    pub line: usize,
    pub column: usize,
    /// Dotted key; empty for a file-level problem.
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

/// Every problem the config model finds in `text`, with positions. A syntax error is one
/// problem at the error's position (the model then reads nothing).
pub fn problems(text: &str, file: &str) -> Vec<Problem> {
    if let Err(err) = toml::de::DeTable::parse(text) {
        let at = err.span().map_or(0, |span| span.start);
        let (line, column) = locate::line_column(text, at);
        let message = format!("not valid TOML: {}", err.message().trim_end());
        return vec![Problem { file: file.to_owned(), line, column, key: String::new(), message }];
    }
    let (_, diagnostics) = model::parse(text, file);
    diagnostics
        .into_iter()
        .map(|d| {
            let (line, column) = locate::key_position(text, &d.key).unwrap_or((1, 1));
            Problem { file: file.to_owned(), line, column, key: d.key, message: d.problem }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_config_parses_back_to_the_models_defaults() {
        let (mut config, diagnostics) = model::parse(DEFAULT_CONFIG, "default.toml");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        // Every binding is written out, so the model records them as overrides; what they
        // resolve to must be exactly the built-in table, and everything else the defaults.
        assert!(!config.keys.overrides.is_empty());
        config.keys.overrides.clear();
        assert_eq!(config, model::Config::default());
        assert!(problems(DEFAULT_CONFIG, "default.toml").is_empty());
    }

    #[test]
    fn commands_lists_each_entry_with_the_id_command_invoke_takes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        assert_eq!(commands(&path, false).stdout, "", "no file, no commands");
        let text = "[[keys.command]]\nkey = \"prefix+g\"\ntype = \"popup\"\ncommand = \"lazygit\"\n\n\
                    [[keys.command]]\nkey = \"prefix+y\"\ntype = \"shell\"\ncommand = \"echo hi\"\n";
        std::fs::write(&path, text).expect("write");
        let (config, _) = model::parse(text, "config.toml");
        let first = command_id(0, &config.keys.commands[0]);
        let second = command_id(1, &config.keys.commands[1]);
        let listed = commands(&path, false);
        assert_eq!(
            listed.stdout,
            format!("{first}\tprefix+g\tpopup\tlazygit\n{second}\tprefix+y\tshell\techo hi\n")
        );
        let json: serde_json::Value = serde_json::from_str(&commands(&path, true).stdout).expect("json");
        assert_eq!(json[1]["command_id"], second.as_str());
        assert_eq!(json[1]["type"], "shell");
    }

    #[test]
    fn problems_carry_the_line_and_column_of_their_key() {
        let text = "[ui]\nsidebar_width = 26\n  mouse_capture = \"yes\"\n\n[keys]\nnew_tab = 7\n";
        let found = problems(text, "config.toml");
        let capture = found.iter().find(|p| p.key == "ui.mouse_capture").expect("mouse_capture problem");
        assert_eq!((capture.line, capture.column), (3, 3), "{found:?}");
        assert_eq!(capture.to_string(), format!("config.toml:3:3: ui.mouse_capture: {}", capture.message));
        let new_tab = found.iter().find(|p| p.key == "keys.new_tab").expect("new_tab problem");
        assert_eq!((new_tab.line, new_tab.column), (6, 1), "{found:?}");
    }

    #[test]
    fn a_syntax_error_is_one_positioned_problem() {
        let found = problems("[ui]\nsidebar_width = = 3\n", "config.toml");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2, "{found:?}");
        assert!(found[0].column > 1, "{found:?}");
        assert!(found[0].message.starts_with("not valid TOML"), "{found:?}");
    }

    #[test]
    fn check_exits_non_zero_only_on_problems() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        assert_eq!(check(&path).exit, 0, "a missing file is the defaults");
        std::fs::write(&path, DEFAULT_CONFIG).expect("write");
        let good = check(&path);
        assert_eq!((good.exit, good.stderr.as_str()), (0, ""));
        std::fs::write(&path, "[ui]\nbogus = 1\n").expect("write");
        let bad = check(&path);
        assert_eq!(bad.exit, EXIT_ERROR);
        assert!(bad.stderr.contains(":2:1: ui.bogus: unknown key"), "{bad:?}");
    }
}
