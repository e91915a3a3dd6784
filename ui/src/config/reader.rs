//! Typed, forgiving reads from a parsed TOML table: each read returns the value or, when the
//! value has the wrong type or is out of range, records a [`Diagnostic`] and returns the
//! default. Unknown keys are reported once per table.

use toml::{Table, Value};

use super::Diagnostic;

pub(crate) struct Reader<'d> {
    pub file: String,
    pub diagnostics: &'d mut Vec<Diagnostic>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

impl Reader<'_> {
    pub fn report(&mut self, key: impl Into<String>, problem: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            file: self.file.clone(),
            key: key.into(),
            problem: problem.into(),
        });
    }

    /// Reports keys of `table` (at `path`) that are not in `known`.
    pub fn check_keys(&mut self, table: &Table, path: &str, known: &[&str]) {
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                self.report(join(path, key), "unknown key (ignored)");
            }
        }
    }

    /// The sub-table `key`, or `None` (absent, or reported when not a table).
    pub fn table<'t>(&mut self, table: &'t Table, path: &str, key: &str) -> Option<&'t Table> {
        match table.get(key)? {
            Value::Table(t) => Some(t),
            other => {
                self.report(join(path, key), format!("expected a table, found {}", other.type_str()));
                None
            }
        }
    }

    pub fn bool(&mut self, table: &Table, path: &str, key: &str, default: bool) -> bool {
        match table.get(key) {
            None => default,
            Some(Value::Boolean(b)) => *b,
            Some(other) => {
                self.report(
                    join(path, key),
                    format!("expected true or false, found {}; using {default}", other.type_str()),
                );
                default
            }
        }
    }

    pub fn int(&mut self, table: &Table, path: &str, key: &str, default: i64, range: (i64, i64)) -> i64 {
        match table.get(key) {
            None => default,
            Some(Value::Integer(n)) if (range.0..=range.1).contains(n) => *n,
            Some(Value::Integer(n)) => {
                self.report(
                    join(path, key),
                    format!("{n} is out of range {}..={}; using {default}", range.0, range.1),
                );
                default
            }
            Some(other) => {
                self.report(
                    join(path, key),
                    format!("expected an integer, found {}; using {default}", other.type_str()),
                );
                default
            }
        }
    }

    pub fn u16(&mut self, table: &Table, path: &str, key: &str, default: u16, range: (u16, u16)) -> u16 {
        let n = self.int(table, path, key, i64::from(default), (i64::from(range.0), i64::from(range.1)));
        u16::try_from(n).unwrap_or(default)
    }

    pub fn string(&mut self, table: &Table, path: &str, key: &str, default: &str) -> String {
        match table.get(key) {
            None => default.to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                self.report(
                    join(path, key),
                    format!("expected a string, found {}; using {default:?}", other.type_str()),
                );
                default.to_string()
            }
        }
    }

    pub fn opt_string(&mut self, table: &Table, path: &str, key: &str) -> Option<String> {
        match table.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.report(join(path, key), format!("expected a string, found {}", other.type_str()));
                None
            }
        }
    }

    /// One of `choices` (the first is the default).
    pub fn choice(&mut self, table: &Table, path: &str, key: &str, choices: &[&'static str]) -> &'static str {
        let default = choices[0];
        match table.get(key) {
            None => default,
            Some(Value::String(s)) => match choices.iter().find(|c| **c == s.as_str()) {
                Some(c) => c,
                None => {
                    self.report(
                        join(path, key),
                        format!("{s:?} is not one of {}; using {default:?}", choices.join(", ")),
                    );
                    default
                }
            },
            Some(other) => {
                self.report(
                    join(path, key),
                    format!("expected a string, found {}; using {default:?}", other.type_str()),
                );
                default
            }
        }
    }

    /// A string or an array of strings (key bindings, lists).
    pub fn strings(&mut self, value: &Value, key: &str) -> Option<Vec<String>> {
        match value {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Array(items) => {
                let strings: Option<Vec<String>> =
                    items.iter().map(|v| v.as_str().map(str::to_string)).collect();
                if strings.is_none() {
                    self.report(key, "expected a string or an array of strings; using the default");
                }
                strings
            }
            other => {
                self.report(
                    key,
                    format!("expected a string or an array of strings, found {}", other.type_str()),
                );
                None
            }
        }
    }
}
