//! One [`Edit`] of an agent's own config file, planned on the file's text: what install writes,
//! what uninstall leaves, whether the file is as install would leave it, and whether it holds
//! anything of herdr's. Pure: `install` reads the files and writes the results.

use std::path::Path;

use serde_json::{Value, json};

use crate::codex_features::{self, FeatureEditError};
use crate::error::Error;
use crate::hermes_config;
use crate::hook_config::{self, Wanted};
use crate::kimi_config::{self, KimiEditError};
use crate::spec::{Edit, Shape};

/// What uninstall does to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    Keep,
    Write(String),
    Delete,
}

/// The paths an edit needs: the hook script the config points at, and its file name (how
/// herdr's entries are recognised).
#[derive(Debug, Clone, Copy)]
pub struct Script<'a> {
    pub path: &'a str,
    pub name: &'a str,
}

pub fn file(edit: &Edit) -> &'static str {
    match edit {
        Edit::JsonHooks { file, .. }
        | Edit::LegacyJsonHooks { file, .. }
        | Edit::CodexFeatures { file }
        | Edit::KimiHooks { file }
        | Edit::HermesPlugin { file }
        | Edit::GrokHooks { file } => file,
    }
}

/// Grok's whole hook file: its `SessionStart` runs the script through `sh`.
fn grok_text(script: &str) -> String {
    let command = format!("sh {}", hook_config::command_line(script, "session"));
    let doc = json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": command, "timeout": 10}]}]}});
    hook_config::render(&doc, None)
}

/// An empty (or blank) config counts as `{}`, as agents treat it.
fn parse_json(path: &Path, text: Option<&str>) -> Result<Value, Error> {
    match text {
        Some(text) if !text.trim().is_empty() => {
            serde_json::from_str(text).map_err(|source| Error::InvalidJson { path: path.to_owned(), source })
        }
        _ => Ok(Value::Object(serde_json::Map::new())),
    }
}

fn shape_error(path: &Path, problem: String) -> Error {
    Error::UnexpectedShape { path: path.to_owned(), problem }
}

fn wanted(shape: Shape, script: Script<'_>, events: &[(&str, &str)]) -> Wanted {
    hook_config::wanted(shape, script.path, events)
}

/// The file's new text, or `None` when it already is as install leaves it.
pub fn install_text(
    edit: &Edit,
    path: &Path,
    current: Option<&str>,
    script: Script<'_>,
) -> Result<Option<String>, Error> {
    match *edit {
        Edit::JsonHooks { shape, events, .. } => {
            let wanted = wanted(shape, script, events);
            let mut doc = parse_json(path, current)?;
            if current.is_some() && hook_config::is_current(&doc, shape, script.name, &wanted) {
                return Ok(None);
            }
            hook_config::install(&mut doc, shape, script.name, &wanted)
                .map_err(|e| shape_error(path, e.0))?;
            Ok(Some(hook_config::render(&doc, current)))
        }
        Edit::LegacyJsonHooks { .. } => match uninstall_text(edit, path, current, script.name)? {
            Removal::Write(text) => Ok(Some(text)),
            Removal::Keep | Removal::Delete => Ok(None),
        },
        Edit::CodexFeatures { .. } => codex_features::ensure_hooks_enabled(current.unwrap_or_default())
            .map_err(|e| match e {
                FeatureEditError::Invalid(message) => Error::InvalidToml { path: path.to_owned(), message },
                FeatureEditError::Unsafe(why) => {
                    shape_error(path, format!("{why}; add `hooks = true` under `[features]` yourself"))
                }
            }),
        Edit::KimiHooks { .. } => {
            let text = current.unwrap_or_default();
            let edited = kimi_config::with_block(text, script.path).map_err(|e| match e {
                KimiEditError::Invalid(message) => Error::InvalidToml { path: path.to_owned(), message },
                KimiEditError::Unsafe(why) => shape_error(path, why),
            })?;
            Ok((edited != text || current.is_none()).then_some(edited))
        }
        Edit::HermesPlugin { .. } => {
            hermes_config::enable(current.unwrap_or_default()).map_err(|e| shape_error(path, e.0))
        }
        Edit::GrokHooks { .. } => {
            let text = grok_text(script.path);
            Ok((current != Some(text.as_str())).then_some(text))
        }
    }
}

/// What uninstall does to the file (`current` is `None` when it does not exist).
pub fn uninstall_text(
    edit: &Edit,
    path: &Path,
    current: Option<&str>,
    script_name: &str,
) -> Result<Removal, Error> {
    let Some(text) = current else { return Ok(Removal::Keep) };
    match *edit {
        Edit::JsonHooks { shape, .. } | Edit::LegacyJsonHooks { shape, .. } => {
            let mut doc = parse_json(path, Some(text))?;
            let changed =
                hook_config::uninstall(&mut doc, shape, script_name).map_err(|e| shape_error(path, e.0))?;
            Ok(if changed { Removal::Write(hook_config::render(&doc, Some(text))) } else { Removal::Keep })
        }
        // Other hooks may rely on the flag, and Codex enables hooks by default nowadays.
        Edit::CodexFeatures { .. } => Ok(Removal::Keep),
        Edit::KimiHooks { .. } if kimi_config::has_block(text) => {
            Ok(Removal::Write(kimi_config::without_block(text)))
        }
        Edit::KimiHooks { .. } => Ok(Removal::Keep),
        Edit::HermesPlugin { .. } => {
            Ok(match hermes_config::disable(text).map_err(|e| shape_error(path, e.0))? {
                Some(text) => Removal::Write(text),
                None => Removal::Keep,
            })
        }
        Edit::GrokHooks { .. } => Ok(Removal::Delete),
    }
}

/// Whether the file is as install would leave it.
pub fn is_current(edit: &Edit, current: Option<&str>, script: Script<'_>) -> bool {
    match *edit {
        Edit::JsonHooks { shape, events, .. } => {
            current.and_then(|text| parse_json(Path::new(""), Some(text)).ok()).is_some_and(|doc| {
                hook_config::is_current(&doc, shape, script.name, &wanted(shape, script, events))
            })
        }
        Edit::LegacyJsonHooks { .. } => !has_owned(edit, current, script.name),
        Edit::CodexFeatures { .. } => current
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|doc| codex_features::hooks_enabled(&doc)),
        Edit::KimiHooks { .. } => current.is_some_and(|text| {
            kimi_config::with_block(text, script.path).is_ok_and(|edited| edited == text)
        }),
        Edit::HermesPlugin { .. } => current.is_some_and(hermes_config::is_enabled),
        Edit::GrokHooks { .. } => current == Some(grok_text(script.path).as_str()),
    }
}

/// Whether the file holds anything of herdr's.
pub fn has_owned(edit: &Edit, current: Option<&str>, script_name: &str) -> bool {
    let Some(text) = current else { return false };
    match *edit {
        Edit::JsonHooks { shape, .. } | Edit::LegacyJsonHooks { shape, .. } => {
            parse_json(Path::new(""), Some(text))
                .is_ok_and(|doc| hook_config::has_owned(&doc, shape, script_name))
        }
        Edit::CodexFeatures { .. } => false,
        Edit::KimiHooks { .. } => kimi_config::has_block(text),
        Edit::HermesPlugin { .. } => hermes_config::is_enabled(text),
        Edit::GrokHooks { .. } => true,
    }
}
