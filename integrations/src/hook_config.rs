//! Pure edits of the JSON hook configs agents keep, in each agent's own layout ([`Shape`]):
//! Claude-style matcher groups, Copilot's direct handlers, Cursor's bare commands, MastraCode's
//! top-level event lists, and Antigravity's named block.
//!
//! herdr owns a hook handler when its command runs a script with the target's script name
//! (`herdr-agent-state.sh`, whatever the directory, so entries left by an older install under
//! another config path are cleaned up too; `sh <script>` counts). Only owned handlers are added
//! or removed; every other key keeps its value and its place (serde_json's `preserve_order`).
//! Formatting is re-rendered with the file's own indentation.

use serde_json::{Map, Value, json};

use crate::spec::Shape;

/// Why a config cannot be edited: the caller names the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError(pub String);

/// The hook command herdr installs: the script path, single-quoted for the shell, then `action`.
pub fn command_line(script: &str, action: &str) -> String {
    format!("'{}' {action}", script.replace('\'', r"'\''"))
}

/// The entry herdr wants in an event's list for `command`, in `shape`'s layout.
pub fn entry(shape: Shape, command: &str) -> Value {
    match shape {
        Shape::Grouped { matcher, timeout } => {
            let handler = json!({"type": "command", "command": command, "timeout": timeout});
            match matcher {
                Some(matcher) => json!({"matcher": matcher, "hooks": [handler]}),
                None => json!({"hooks": [handler]}),
            }
        }
        Shape::Direct { timeout_sec } => {
            json!({"type": "command", "bash": command, "timeoutSec": timeout_sec})
        }
        Shape::Simple => json!({"command": command}),
        Shape::Flat { timeout_ms, description } => {
            json!({"type": "command", "command": command, "timeout": timeout_ms, "description": description})
        }
        Shape::Block { timeout, .. } => json!({"type": "command", "command": command, "timeout": timeout}),
    }
}

/// What herdr wants in a config: `(event, entry)` pairs, in order.
pub type Wanted = Vec<(String, Value)>;

/// The wanted entries for `events` (`(event, action)` pairs) running `script`.
pub fn wanted(shape: Shape, script: &str, events: &[(&str, &str)]) -> Wanted {
    events
        .iter()
        .map(|(event, action)| ((*event).to_owned(), entry(shape, &command_line(script, action))))
        .collect()
}

/// Whether a handler object is herdr's: the program its command runs is named `script_name`.
pub fn is_owned_handler(handler: &Value, script_name: &str) -> bool {
    ["command", "bash", "powershell"]
        .iter()
        .filter_map(|field| handler.get(field).and_then(Value::as_str))
        .filter_map(program)
        .any(|program| std::path::Path::new(&program).file_name().is_some_and(|name| name == script_name))
}

/// The program a command runs: its first shell word, unquoted, or the second when the first
/// is a shell (`sh '<script>' session`, as Grok's hooks are written).
fn program(command: &str) -> Option<String> {
    let (first, rest) = word(command)?;
    if matches!(first.as_str(), "sh" | "bash" | "/bin/sh" | "/bin/bash") {
        return word(rest).map(|(second, _)| second);
    }
    Some(first)
}

/// The first shell word of `text`, unquoted (single or double quotes, or bare up to a space),
/// and the rest.
fn word(text: &str) -> Option<(String, &str)> {
    let text = text.trim_start();
    let quote = text.chars().next()?;
    if quote != '\'' && quote != '"' {
        let end = text.find(char::is_whitespace).unwrap_or(text.len());
        return (end > 0).then(|| (text[..end].to_owned(), &text[end..]));
    }
    // Our own quoting closes and reopens around an embedded quote: `'a'\''b'`.
    let mut word = String::new();
    let mut rest = text;
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
            _ => return Some((word, rest)),
        }
    }
}

fn handlers(group: &Value) -> impl Iterator<Item = &Value> {
    group.get("hooks").and_then(Value::as_array).into_iter().flatten()
}

/// Whether an entry of an event's list holds an owned handler.
fn entry_owned(shape: Shape, entry: &Value, script_name: &str) -> bool {
    match shape {
        Shape::Grouped { .. } => handlers(entry).any(|h| is_owned_handler(h, script_name)),
        _ => is_owned_handler(entry, script_name),
    }
}

fn root_mut(doc: &mut Value) -> Result<&mut Map<String, Value>, ShapeError> {
    doc.as_object_mut().ok_or_else(|| ShapeError("the top level is not an object".into()))
}

/// The object of event lists for a list shape; `create` adds a missing `hooks` object.
fn events_mut(
    doc: &mut Value,
    shape: Shape,
    create: bool,
) -> Result<Option<&mut Map<String, Value>>, ShapeError> {
    let root = root_mut(doc)?;
    if matches!(shape, Shape::Flat { .. }) {
        return Ok(Some(root));
    }
    if create {
        root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    }
    match root.get_mut("hooks") {
        None => Ok(None),
        Some(Value::Object(hooks)) => {
            for (name, list) in hooks.iter() {
                if !list.is_array() {
                    return Err(ShapeError(format!("\"hooks.{name}\" is not a list")));
                }
            }
            Ok(Some(hooks))
        }
        Some(_) => Err(ShapeError("\"hooks\" is not an object".into())),
    }
}

fn events(doc: &Value, shape: Shape) -> Option<&Map<String, Value>> {
    match shape {
        Shape::Flat { .. } => doc.as_object(),
        _ => doc.get("hooks").and_then(Value::as_object),
    }
}

/// Antigravity's block: every event with its one handler.
fn block(wanted: &Wanted) -> Value {
    let mut block = Map::new();
    for (event, entry) in wanted {
        if let Value::Array(list) = block.entry(event.clone()).or_insert_with(|| Value::Array(Vec::new())) {
            list.push(entry.clone());
        }
    }
    Value::Object(block)
}

/// Removes owned handlers from one event's list, keeping the first entry equal to each of
/// `keep` (marked in `found`). Entries that the removal empties go; entries the user left
/// empty are the user's business. Returns whether anything was removed.
fn prune(
    shape: Shape,
    list: &mut Vec<Value>,
    script_name: &str,
    keep: &[&Value],
    found: &mut [bool],
) -> bool {
    let before = list.clone();
    list.retain_mut(|entry| {
        if let Some(i) = keep.iter().zip(found.iter()).position(|(k, f)| !*f && *k == entry) {
            found[i] = true;
            return true;
        }
        match shape {
            Shape::Grouped { .. } => {
                let Some(Value::Array(hs)) = entry.get_mut("hooks") else { return true };
                let had = hs.len();
                hs.retain(|h| !is_owned_handler(h, script_name));
                !(hs.is_empty() && had > 0)
            }
            _ => !is_owned_handler(entry, script_name),
        }
    });
    *list != before
}

/// Makes `wanted` herdr's only entries: identical entries already in place stay where they are
/// (so installing twice changes nothing); every other owned handler (older lifecycle entries,
/// stale paths) goes; missing entries are appended to their event's list.
pub fn install(doc: &mut Value, shape: Shape, script_name: &str, wanted: &Wanted) -> Result<(), ShapeError> {
    if let Shape::Block { name, .. } = shape {
        root_mut(doc)?.insert(name.to_owned(), block(wanted));
        return Ok(());
    }
    if shape == Shape::Simple {
        // Cursor reads only files that say which hooks format they use.
        root_mut(doc)?.entry("version").or_insert(json!(1));
    }
    let Some(map) = events_mut(doc, shape, true)? else { return Ok(()) };
    for (event, _) in wanted {
        if map.get(event).is_some_and(|list| !list.is_array()) {
            return Err(ShapeError(format!("\"{event}\" is not a list")));
        }
    }
    let mut found = vec![false; wanted.len()];
    let mut emptied = Vec::new();
    for (name, list) in map.iter_mut() {
        let Value::Array(list) = list else { continue };
        let mine: Vec<usize> = (0..wanted.len()).filter(|&i| wanted[i].0 == *name).collect();
        let keep: Vec<&Value> = mine.iter().map(|&i| &wanted[i].1).collect();
        let mut kept = vec![false; mine.len()];
        let removed = prune(shape, list, script_name, &keep, &mut kept);
        for (i, k) in mine.iter().zip(kept) {
            found[*i] |= k;
        }
        if removed && list.is_empty() && mine.is_empty() {
            emptied.push(name.clone());
        }
    }
    for name in emptied {
        map.shift_remove(&name);
    }
    for ((event, entry), found) in wanted.iter().zip(found) {
        if !found
            && let Value::Array(list) = map.entry(event.clone()).or_insert_with(|| Value::Array(Vec::new()))
        {
            list.push(entry.clone());
        }
    }
    Ok(())
}

/// Removes every herdr-owned handler; entries, event lists and the `hooks` object that this
/// leaves empty go too. Returns whether anything was removed.
pub fn uninstall(doc: &mut Value, shape: Shape, script_name: &str) -> Result<bool, ShapeError> {
    if let Shape::Block { name, .. } = shape {
        return Ok(root_mut(doc)?.shift_remove(name).is_some());
    }
    let Some(map) = events_mut(doc, shape, false)? else { return Ok(false) };
    let mut changed = false;
    let mut emptied = Vec::new();
    for (name, list) in map.iter_mut() {
        let Value::Array(list) = list else { continue };
        if prune(shape, list, script_name, &[], &mut []) {
            changed = true;
            if list.is_empty() {
                emptied.push(name.clone());
            }
        }
    }
    for name in emptied {
        map.shift_remove(&name);
    }
    let hooks_empty = map.is_empty();
    if changed && hooks_empty && !matches!(shape, Shape::Flat { .. }) {
        root_mut(doc)?.shift_remove("hooks");
    }
    Ok(changed)
}

/// Whether `doc` holds exactly `wanted` and no other herdr-owned handler.
pub fn is_current(doc: &Value, shape: Shape, script_name: &str, wanted: &Wanted) -> bool {
    if let Shape::Block { name, .. } = shape {
        return doc.get(name) == Some(&block(wanted));
    }
    if shape == Shape::Simple && doc.get("version").is_none() {
        return false;
    }
    let Some(map) = events(doc, shape) else { return false };
    let mut found = vec![false; wanted.len()];
    for (name, list) in map {
        for entry in list.as_array().into_iter().flatten() {
            let matching =
                (0..wanted.len()).find(|&i| !found[i] && wanted[i].0 == *name && wanted[i].1 == *entry);
            match matching {
                Some(i) => found[i] = true,
                None if entry_owned(shape, entry, script_name) => return false,
                None => {}
            }
        }
    }
    found.into_iter().all(|f| f)
}

/// Whether `doc` holds any herdr-owned handler.
pub fn has_owned(doc: &Value, shape: Shape, script_name: &str) -> bool {
    if let Shape::Block { name, .. } = shape {
        return doc.get(name).is_some();
    }
    events(doc, shape).is_some_and(|map| {
        map.values().filter_map(Value::as_array).flatten().any(|entry| entry_owned(shape, entry, script_name))
    })
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
