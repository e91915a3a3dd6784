//! Pure edit of Codex's `config.toml`: make sure `[features] hooks = true`, which Codex needs to
//! run `hooks.json` at all.
//!
//! The edit is textual so comments, ordering and formatting of everything else survive (the
//! `toml` crate would re-render the whole file). To stay safe without a format-preserving TOML
//! editor, every edit is verified: the edited text must parse to exactly the original document
//! plus `features.hooks = true`, or it is refused and the user is asked to add the line.

use toml::{Table, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeatureEditError {
    /// The original text is not TOML.
    Invalid(String),
    /// `features` exists but is not a table, or the textual edit did not verify.
    Unsafe(String),
}

/// Whether the document already enables hooks.
pub fn hooks_enabled(doc: &Table) -> bool {
    doc.get("features").and_then(|f| f.get("hooks")).and_then(Value::as_bool) == Some(true)
}

/// The edited text, or `None` when hooks are already enabled.
pub fn ensure_hooks_enabled(text: &str) -> Result<Option<String>, FeatureEditError> {
    let original: Table =
        text.parse().map_err(|e: toml::de::Error| FeatureEditError::Invalid(e.message().to_owned()))?;
    if hooks_enabled(&original) {
        return Ok(None);
    }
    let mut expected = original.clone();
    match expected.entry("features").or_insert_with(|| Value::Table(Table::new())) {
        Value::Table(features) => {
            features.insert("hooks".into(), Value::Boolean(true));
        }
        _ => return Err(FeatureEditError::Unsafe("`features` is not a table".into())),
    }
    let edited = edit_text(text);
    let reparsed: Table = edited.parse().map_err(|e: toml::de::Error| {
        FeatureEditError::Unsafe(format!("the edit would not parse: {}", e.message()))
    })?;
    if reparsed != expected {
        return Err(FeatureEditError::Unsafe(
            "`features` is written in a form herdr does not edit (inline or dotted keys)".into(),
        ));
    }
    Ok(Some(edited))
}

/// Sets `hooks = true` inside the `[features]` table, adding the key or the table as needed.
fn edit_text(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(header) = lines.iter().position(|l| table_header(l) == Some("features")) else {
        let mut out = text.to_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("[features]\nhooks = true\n");
        return out;
    };
    let end = lines[header + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .map_or(lines.len(), |offset| header + 1 + offset);
    let existing = (header + 1..end).find(|&i| key_of(lines[i]) == Some("hooks"));
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in lines.iter().enumerate() {
        if Some(i) == existing {
            out.push_str("hooks = true");
            out.push_str(if line.ends_with("\r\n") {
                "\r\n"
            } else if line.ends_with('\n') {
                "\n"
            } else {
                ""
            });
            continue;
        }
        out.push_str(line);
        if i == header && existing.is_none() {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("hooks = true\n");
        }
    }
    out
}

/// The name of a `[table]` header line (not `[[array]]`), comments allowed after it.
fn table_header(line: &str) -> Option<&str> {
    let line = line.trim();
    let inner = line.strip_prefix('[').filter(|rest| !rest.starts_with('['))?;
    let (name, after) = inner.split_once(']')?;
    let after = after.trim_start();
    (after.is_empty() || after.starts_with('#')).then(|| name.trim())
}

/// The bare key a `key = value` line sets.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && !key.starts_with('#')).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(text: &str) -> String {
        ensure_hooks_enabled(text).expect("editable").expect("changed")
    }

    #[test]
    fn an_empty_file_gets_the_table() {
        assert_eq!(edited(""), "[features]\nhooks = true\n");
    }

    #[test]
    fn other_content_and_comments_survive_when_the_table_is_appended() {
        let text = "# my codex\nmodel = \"o3\" # fast\n\n[tui]\ntheme = \"dark\"";
        assert_eq!(edited(text), format!("{text}\n\n[features]\nhooks = true\n"));
    }

    #[test]
    fn the_key_is_added_to_an_existing_table_in_place() {
        let text = "[features] # flags\nweb_search = true\n\n[tui]\nx = 1\n";
        assert_eq!(edited(text), "[features] # flags\nhooks = true\nweb_search = true\n\n[tui]\nx = 1\n");
    }

    #[test]
    fn a_false_value_is_flipped_on_its_own_line() {
        let text = "[features]\nother = 1\nhooks = false # off\n[x]\nhooks = false\n";
        assert_eq!(edited(text), "[features]\nother = 1\nhooks = true\n[x]\nhooks = false\n");
    }

    #[test]
    fn already_enabled_is_left_alone() {
        assert_eq!(ensure_hooks_enabled("[features]\nhooks = true\n"), Ok(None));
        assert_eq!(ensure_hooks_enabled("features = { hooks = true }\n"), Ok(None));
    }

    #[test]
    fn forms_the_text_edit_cannot_handle_are_refused_not_mangled() {
        assert!(matches!(
            ensure_hooks_enabled("features = { web_search = true }\n"),
            Err(FeatureEditError::Unsafe(_))
        ));
        assert!(matches!(ensure_hooks_enabled("features = 3\n"), Err(FeatureEditError::Unsafe(_))));
        assert!(matches!(ensure_hooks_enabled("features.hooks = false\n"), Err(FeatureEditError::Unsafe(_))));
    }

    #[test]
    fn invalid_toml_is_reported() {
        assert!(matches!(ensure_hooks_enabled("[features\n"), Err(FeatureEditError::Invalid(_))));
    }

    #[test]
    fn array_tables_named_features_are_not_mistaken_for_the_table() {
        assert_eq!(table_header("[[features]]"), None);
        assert_eq!(table_header(" [ features ] # c"), Some("features"));
    }
}
