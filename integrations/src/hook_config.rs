//! Pure edits of the JSON hook configs Claude Code (`settings.json`) and Codex (`hooks.json`)
//! share the shape of:
//!
//! ```json
//! {"hooks": {"SessionStart": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}
//! ```
//!
//! herdr owns a hook entry when its command runs a script named [`SCRIPT_NAME`] (whatever the
//! directory, so entries left by an older install under another config path are cleaned up too).
//! Only owned entries are added or removed; every other key keeps its value and its place
//! (serde_json's `preserve_order`). Formatting is re-rendered with the file's own indentation.

use serde_json::{Map, Value, json};

/// The file name of herdr's hook script; recognising entries by it is what makes them "ours".
pub const SCRIPT_NAME: &str = "herdr-agent-state.sh";

/// Why a config cannot be edited: the caller names the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError(pub String);

/// The hook command herdr installs: the script path, single-quoted for the shell, then `action`.
pub fn command_line(script: &str, action: &str) -> String {
    format!("'{}' {action}", script.replace('\'', r"'\''"))
}

/// The matcher group herdr installs for one event.
pub fn herdr_group(script: &str, action: &str) -> Value {
    json!({"hooks": [{"type": "command", "command": command_line(script, action), "timeout": 5}]})
}

/// Whether a hook handler object is herdr's: its command's program is a [`SCRIPT_NAME`].
pub fn is_owned_handler(handler: &Value) -> bool {
    handler.get("command").and_then(Value::as_str).and_then(program).is_some_and(|program| {
        std::path::Path::new(&program).file_name().is_some_and(|name| name == SCRIPT_NAME)
    })
}

/// The first shell word of `command`, unquoted (single or double quotes, or bare up to a space).
fn program(command: &str) -> Option<String> {
    let command = command.trim_start();
    let mut chars = command.chars();
    match chars.next()? {
        quote @ ('\'' | '"') => {
            // Our own quoting closes and reopens around an embedded quote: `'a'\''b'`.
            let mut word = String::new();
            let mut rest = command;
            loop {
                let body = rest.strip_prefix(quote)?;
                let end = body.find(quote)?;
                word.push_str(&body[..end]);
                rest = &body[end + 1..];
                match rest.strip_prefix("\\'") {
                    Some(after) if quote == '\'' => {
                        word.push('\'');
                        rest = after;
                    }
                    _ => return Some(word),
                }
            }
        }
        _ => Some(command.split_whitespace().next()?.to_owned()),
    }
}

/// Whether `doc` holds `group` under `event` and no other herdr-owned handler anywhere.
pub fn is_current(doc: &Value, event: &str, group: &Value) -> bool {
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else { return false };
    let mut found = false;
    for (name, groups) in hooks {
        for g in groups.as_array().into_iter().flatten() {
            if name == event && g == group && !found {
                found = true;
            } else if handlers(g).any(is_owned_handler) {
                return false;
            }
        }
    }
    found
}

/// Whether `doc` holds any herdr-owned handler.
pub fn has_owned(doc: &Value) -> bool {
    doc.get("hooks")
        .and_then(Value::as_object)
        .is_some_and(|hooks| hooks.values().flat_map(groups).any(|g| handlers(g).any(is_owned_handler)))
}

fn groups(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

fn handlers(group: &Value) -> impl Iterator<Item = &Value> {
    group.get("hooks").and_then(Value::as_array).into_iter().flatten()
}

/// Makes `group` herdr's only entry: an identical group already under `event` stays where it is
/// (so installing twice changes nothing); every other owned handler (older lifecycle entries,
/// stale paths) goes; otherwise `group` is appended to `event`'s list.
pub fn install(doc: &mut Value, event: &str, group: &Value) -> Result<(), ShapeError> {
    let root = doc.as_object_mut().ok_or_else(|| ShapeError("the top level is not an object".into()))?;
    let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let hooks = hooks.as_object_mut().ok_or_else(|| ShapeError("\"hooks\" is not an object".into()))?;
    check_shape(hooks)?;
    let mut kept = false;
    for (name, groups) in hooks.iter_mut() {
        let keep_one = name == event && !kept;
        kept |= prune(groups, keep_one.then_some(group));
    }
    drop_emptied(hooks);
    if !kept {
        let list = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.push(group.clone());
        }
    }
    Ok(())
}

/// Removes every herdr-owned handler; groups, event lists and the `hooks` object that this
/// leaves empty go too. Returns whether anything was removed.
pub fn uninstall(doc: &mut Value) -> Result<bool, ShapeError> {
    let Some(root) = doc.as_object_mut() else {
        return Err(ShapeError("the top level is not an object".into()));
    };
    let Some(hooks_value) = root.get_mut("hooks") else { return Ok(false) };
    let hooks = hooks_value.as_object_mut().ok_or_else(|| ShapeError("\"hooks\" is not an object".into()))?;
    check_shape(hooks)?;
    let before = hooks.clone();
    for groups in hooks.values_mut() {
        prune(groups, None);
    }
    drop_emptied(hooks);
    let changed = *hooks != before;
    if changed && hooks.is_empty() {
        root.shift_remove("hooks");
    }
    Ok(changed)
}

fn check_shape(hooks: &Map<String, Value>) -> Result<(), ShapeError> {
    for (name, groups) in hooks {
        if !groups.is_array() {
            return Err(ShapeError(format!("\"hooks.{name}\" is not a list")));
        }
    }
    Ok(())
}

/// Removes owned handlers from one event's groups, keeping the first group equal to `keep`.
/// Returns whether `keep` was found and kept. A group emptied by the removal is marked `null`
/// for [`drop_emptied`]; groups that were empty to begin with are the user's business.
fn prune(groups: &mut Value, keep: Option<&Value>) -> bool {
    let Value::Array(list) = groups else { return false };
    let mut kept = false;
    for group in list.iter_mut() {
        if keep.is_some_and(|k| k == group) && !kept {
            kept = true;
            continue;
        }
        let Some(Value::Array(handlers)) = group.get_mut("hooks") else { continue };
        let before = handlers.len();
        handlers.retain(|h| !is_owned_handler(h));
        if handlers.is_empty() && before > 0 {
            *group = Value::Null;
        }
    }
    kept
}

fn drop_emptied(hooks: &mut Map<String, Value>) {
    let mut emptied = Vec::new();
    for (name, groups) in hooks.iter_mut() {
        if let Value::Array(list) = groups {
            let before = list.len();
            list.retain(|g| !g.is_null());
            if list.is_empty() && before > 0 {
                emptied.push(name.clone());
            }
        }
    }
    for name in emptied {
        hooks.shift_remove(&name);
    }
}

/// Renders `doc` like the file it came from: the first indented line's indentation (two spaces
/// for a new file) and a trailing newline.
pub fn render(doc: &Value, original: Option<&str>) -> String {
    use serde::Serialize;
    let indent = original.and_then(detect_indent).unwrap_or_else(|| "  ".to_owned());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Serializing a Value into memory cannot fail.
    if doc.serialize(&mut serializer).is_err() {
        return format!("{doc}\n");
    }
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push('\n');
    text
}

fn detect_indent(text: &str) -> Option<String> {
    text.lines().skip(1).find_map(|line| {
        let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        (!indent.is_empty() && line.len() > indent.len()).then_some(indent)
    })
}

#[cfg(test)]
mod tests;
