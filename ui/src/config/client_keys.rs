//! A client's own `[keys]` carried to a supervisor on another machine (`herdr --remote` with
//! `--remote-keybindings local`): [`portable_keys`] cuts the local config file down to its
//! `[keys]` table without custom commands (those run on the server and stay the server's), and
//! [`KeysConfig::with_client_keys`] resolves that text into the keys one client's keymap uses,
//! with the server's custom commands still bound.

use std::fmt;

use toml::{Table, Value};

use super::reader::Reader;
use super::{Diagnostic, KeysConfig, keys};
use crate::keymap::Bindings;

/// The name client keys carry in diagnostics.
const CLIENT_KEYS_FILE: &str = "the client's [keys]";

/// Why a client's keys text was not used (the server's keys apply instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientKeysError {
    /// The text is not TOML.
    NotToml(String),
    /// The text has something besides one `[keys]` table.
    NotKeysTable,
}

impl fmt::Display for ClientKeysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientKeysError::NotToml(why) => write!(f, "the client's keys are not valid TOML: {why}"),
            ClientKeysError::NotKeysTable => f.write_str("the client's keys are not a single [keys] table"),
        }
    }
}

impl std::error::Error for ClientKeysError {}

/// The `[keys]` of config file text, custom commands removed, as TOML with one `[keys]` table
/// (empty when the file has none or is not TOML: this machine's defaults are then its keys).
pub fn portable_keys(config_text: &str) -> String {
    let mut keys = match config_text.parse::<Table>().map(|mut t| t.remove("keys")) {
        Ok(Some(Value::Table(keys))) => keys,
        _ => Table::new(),
    };
    keys.remove("command");
    let mut doc = Table::new();
    doc.insert("keys".to_owned(), Value::Table(keys));
    doc.to_string()
}

impl KeysConfig {
    /// These (the server's) keys with the prefix and binding overrides replaced by a client's
    /// `keys_toml` (as [`portable_keys`] makes it); the server's custom commands stay, and any
    /// the client sent are ignored. Problems with single bindings are diagnostics and those
    /// bindings keep their defaults, as in a config file.
    pub fn with_client_keys(
        &self,
        keys_toml: &str,
    ) -> Result<(KeysConfig, Vec<Diagnostic>), ClientKeysError> {
        let mut doc = keys_toml.parse::<Table>().map_err(|e| ClientKeysError::NotToml(e.to_string()))?;
        let mut client = match doc.remove("keys") {
            Some(Value::Table(keys)) if doc.is_empty() => keys,
            None if doc.is_empty() => Table::new(),
            _ => return Err(ClientKeysError::NotKeysTable),
        };
        client.remove("command");
        let mut diagnostics = Vec::new();
        let mut r = Reader { file: CLIENT_KEYS_FILE.to_owned(), diagnostics: &mut diagnostics };
        let parsed = keys::parse(&mut r, &client);
        let command_keys: Vec<String> = self.commands.iter().map(|c| c.key.clone()).collect();
        let (bindings, problems) =
            Bindings::from_config(Some(&parsed.prefix), &parsed.overrides, &command_keys);
        // `parse` resolved without the server's commands and reported the client's own
        // binding problems; only clashes with those commands are new.
        for p in problems {
            let key = format!("keys.{}", p.name);
            if !r.diagnostics.iter().any(|d| d.key == key && d.problem == p.problem) {
                r.report(key, p.problem);
            }
        }
        let keys = KeysConfig {
            prefix: parsed.prefix,
            overrides: parsed.overrides,
            commands: self.commands.clone(),
            bindings,
        };
        Ok((keys, diagnostics))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;
    use crate::keymap::{Action, Target, parse_key};

    const LOCAL: &str = "[ui]\nmouse_capture = false\n[keys]\nprefix = \"ctrl+a\"\nsplit_vertical = \"prefix+i\"\n\
                         [[keys.command]]\nkey = \"prefix+t\"\ncommand = \"htop\"\n";

    #[test]
    fn portable_keys_keep_only_the_keys_table_without_custom_commands() {
        let text = portable_keys(LOCAL);
        let doc: Table = text.parse().expect("portable keys are TOML");
        assert_eq!(doc.keys().collect::<Vec<_>>(), ["keys"], "{text}");
        let keys = doc["keys"].as_table().expect("a table");
        assert_eq!(keys.get("prefix").and_then(Value::as_str), Some("ctrl+a"));
        assert_eq!(keys.get("split_vertical").and_then(Value::as_str), Some("prefix+i"));
        assert!(keys.get("command").is_none(), "{text}");
    }

    #[test]
    fn a_file_without_keys_or_not_toml_gives_an_empty_keys_table() {
        for text in ["[ui]\nmouse_capture = true\n", "not = [toml", ""] {
            let doc: Table = portable_keys(text).parse().expect("TOML");
            assert_eq!(doc.get("keys").and_then(Value::as_table).map(Table::len), Some(0), "{text:?}");
        }
    }

    #[test]
    fn client_keys_replace_the_prefix_and_bindings_and_keep_the_server_commands() {
        let server_text =
            "[keys]\nprefix = \"ctrl+b\"\n[[keys.command]]\nkey = \"prefix+y\"\ncommand = \"true\"\n";
        let (server, diagnostics) = parse(server_text, "config.toml");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let (keys, diagnostics) = server.keys.with_client_keys(&portable_keys(LOCAL)).expect("valid keys");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(keys.prefix, "ctrl+a");
        assert_eq!(keys.bindings.prefix, parse_key("ctrl+a").expect("a key"));
        let bound = |key: &str| keys.bindings.prefixed.get(&parse_key(key).expect("a key")).cloned();
        assert_eq!(bound("i"), Some(Target::Action(Action::SplitVertical)));
        assert_eq!(bound("y"), Some(Target::Action(Action::Command(0))), "the server's command stays bound");
        assert_eq!(keys.commands, server.keys.commands);
        assert_ne!(keys.bindings, server.keys.bindings);
    }

    #[test]
    fn client_keys_that_are_not_a_keys_table_are_refused() {
        let server = parse("", "").0.keys;
        assert!(matches!(server.with_client_keys("prefix = [ctrl"), Err(ClientKeysError::NotToml(_))));
        assert_eq!(server.with_client_keys("[ui]\nx = 1\n").err(), Some(ClientKeysError::NotKeysTable));
        assert_eq!(server.with_client_keys("keys = 3\n").err(), Some(ClientKeysError::NotKeysTable));
    }

    #[test]
    fn a_bad_client_binding_is_a_diagnostic_and_keeps_its_default() {
        let server = parse("", "").0.keys;
        let (keys, diagnostics) =
            server.with_client_keys("[keys]\nsplit_vertical = 5\n").expect("valid TOML keys");
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].file, CLIENT_KEYS_FILE);
        assert_eq!(keys.bindings, server.bindings);
    }
}
