//! `[keys]`: the prefix, binding overrides (a string or an array of strings; an empty array
//! unbinds) and `[[keys.command]]` custom commands, resolved into the keymap's [`Bindings`].

use toml::{Table, Value};

use super::reader::Reader;
use crate::keymap::Bindings;
use crate::popup::PopupSize;

/// A `[[keys.command]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    pub key: String,
    /// `popup`, `pane`, `shell` or `plugin_action`.
    pub kind: &'static str,
    pub command: String,
    pub description: Option<String>,
    /// A popup's outer size: cells, or `"NN%"` of the pane area.
    pub width: Option<PopupSize>,
    pub height: Option<PopupSize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeysConfig {
    pub prefix: String,
    /// Bindings as written, `(name, keys)`, in file order.
    pub overrides: Vec<(String, Vec<String>)>,
    pub commands: Vec<CustomCommand>,
    /// The resolved table (defaults + overrides + commands).
    pub bindings: Bindings,
}

pub(crate) fn parse(r: &mut Reader<'_>, t: &Table) -> KeysConfig {
    let prefix = r.string(t, "keys", "prefix", "ctrl+b");
    let mut overrides = Vec::new();
    let mut commands = Vec::new();
    for (name, value) in t {
        match name.as_str() {
            "prefix" => {}
            // Indexed bindings are unset upstream by default; accepted, not bound yet.
            "indexed" => {}
            "command" => commands = custom_commands(r, value),
            _ => {
                if let Some(keys) = r.strings(value, &format!("keys.{name}")) {
                    overrides.push((name.clone(), keys));
                }
            }
        }
    }
    let command_keys: Vec<String> = commands.iter().map(|c: &CustomCommand| c.key.clone()).collect();
    let (bindings, problems) = Bindings::from_config(Some(&prefix), &overrides, &command_keys);
    for p in problems {
        r.report(format!("keys.{}", p.name), p.problem);
    }
    KeysConfig { prefix, overrides, commands, bindings }
}

fn custom_commands(r: &mut Reader<'_>, value: &Value) -> Vec<CustomCommand> {
    let Some(items) = value.as_array() else {
        r.report("keys.command", "expected [[keys.command]] entries");
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let path = format!("keys.command[{index}]");
        let Some(t) = item.as_table() else {
            r.report(path, "expected a table");
            continue;
        };
        r.check_keys(t, &path, &["key", "type", "command", "description", "width", "height"]);
        let (Some(key), Some(command)) = (r.opt_string(t, &path, "key"), r.opt_string(t, &path, "command"))
        else {
            r.report(path, "needs both `key` and `command`; skipped");
            continue;
        };
        let size = |r: &mut Reader<'_>, k: &str| popup_size(r, t.get(k)?, &format!("{path}.{k}"));
        let width = size(r, "width");
        let height = size(r, "height");
        out.push(CustomCommand {
            key,
            kind: r.choice(t, &path, "type", &["popup", "pane", "shell", "plugin_action"]),
            command,
            description: r.opt_string(t, &path, "description"),
            width,
            height,
        });
    }
    out
}

/// A popup side as written: a number of cells or a `"NN%"` string; anything else is reported
/// and left to the default.
fn popup_size(r: &mut Reader<'_>, value: &Value, path: &str) -> Option<PopupSize> {
    let size = match value {
        Value::Integer(n) => u16::try_from(*n).ok().map(PopupSize::Cells),
        Value::String(text) if text.ends_with('%') => PopupSize::parse(text).ok(),
        _ => None,
    };
    if size.is_none() {
        r.report(path, format!("expected a number of cells or a percentage like \"80%\", found {value}"));
    }
    size
}

#[cfg(test)]
mod tests {
    use crate::config::parse;
    use crate::keymap::{Action, Target, parse_key};
    use crate::popup::PopupSize;

    #[test]
    fn an_unknown_command_type_is_a_diagnostic_and_the_command_stays_bound() {
        let text = "[[keys.command]]\nkey = \"prefix+t\"\ntype = \"window\"\ncommand = \"htop\"\n\
                    [[keys.command]]\nkey = \"prefix+y\"\ncommand = \"true\"\ntype = \"shell\"\n";
        let (config, diagnostics) = parse(text, "config.toml");
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].key, "keys.command[0].type");
        assert!(diagnostics[0].problem.contains("\"window\""), "{diagnostics:?}");
        let kinds: Vec<&str> = config.keys.commands.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["popup", "shell"], "an unknown type falls back to popup");
        let bindings = config.bindings();
        let bound = |key: &str| bindings.prefixed.get(&parse_key(key).expect("a key")).cloned();
        assert_eq!(bound("t"), Some(Target::Action(Action::Command(0))));
        assert_eq!(bound("y"), Some(Target::Action(Action::Command(1))));
    }

    #[test]
    fn popup_sizes_are_cells_or_percentages() {
        let text = "[[keys.command]]\nkey = \"prefix+t\"\ncommand = \"htop\"\nwidth = \"80%\"\nheight = 20\n\
                    [[keys.command]]\nkey = \"prefix+y\"\ncommand = \"htop\"\nwidth = \"wide\"\nheight = -1\n";
        let (config, diagnostics) = parse(text, "config.toml");
        let first = &config.keys.commands[0];
        assert_eq!((first.width, first.height), (Some(PopupSize::Percent(80)), Some(PopupSize::Cells(20))));
        let second = &config.keys.commands[1];
        assert_eq!((second.width, second.height), (None, None));
        let keys: Vec<&str> = diagnostics.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["keys.command[1].width", "keys.command[1].height"], "{diagnostics:?}");
    }

    #[test]
    fn a_command_without_a_key_or_command_is_skipped_with_a_diagnostic() {
        let (config, diagnostics) = parse("[[keys.command]]\nkey = \"prefix+t\"\n", "config.toml");
        assert!(config.keys.commands.is_empty());
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].key, "keys.command[0]");
    }
}
