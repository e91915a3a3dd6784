//! Pure edit of Hermes Agent's `config.yaml`: herdr's plugin (`herdr-agent-state`) in the list
//! of enabled plugins, `plugins.enabled`.
//!
//! The edit is line-based so the user's comments and layout survive (there is no
//! format-preserving YAML editor to lean on). It understands the forms Hermes writes and people
//! type: no `plugins` key, a `plugins:` map with or without `enabled:`, `enabled:` as a block
//! list or a flow list (`[a, b]`), and the older flat `plugins:` list. Anything else (anchors,
//! multi-line flow lists) is refused rather than guessed at.

/// The plugin's name, as its folder and `plugin.yaml` call it.
pub const PLUGIN: &str = "herdr-agent-state";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HermesEditError(pub String);

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A line that carries content (not blank, not a comment).
fn content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The value after `key:` on a `key: value` line at `at` indentation.
fn key_value<'a>(line: &'a str, at: usize, key: &str) -> Option<&'a str> {
    if indent(line) != at || !content(line) {
        return None;
    }
    let rest = line.trim_start().strip_prefix(key)?.strip_prefix(':')?;
    Some(strip_comment(rest).trim())
}

fn strip_comment(value: &str) -> &str {
    match value.find(" #") {
        Some(at) => &value[..at],
        None if value.trim_start().starts_with('#') => "",
        None => value,
    }
}

fn scalar(item: &str) -> &str {
    let item = strip_comment(item).trim();
    item.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| item.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(item)
}

/// A `- item` line's item.
fn list_item(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix("- ").map(scalar)
}

/// The items of a one-line flow list (`[a, "b"]`).
fn flow_items(value: &str) -> Option<Vec<String>> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let parts: Vec<&str> = inner.split(',').collect();
    // Nested lists or maps, or a quoted item holding a comma, would need a real parser.
    if inner.contains(['[', ']', '{', '}']) || parts.iter().any(|p| p.matches(['"', '\'']).count() % 2 == 1) {
        return None;
    }
    Some(parts.iter().map(|part| scalar(part).to_owned()).collect())
}

fn flow(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// The lines of the `plugins:` section: its index and the end of its block.
fn section(lines: &[&str]) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| key_value(l, 0, "plugins").is_some())?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| content(l) && indent(l) == 0 && !l.trim_start().starts_with('-'))
        .map_or(lines.len(), |offset| start + 1 + offset);
    Some((start, end))
}

fn join(lines: Vec<String>, trailing_newline: bool) -> String {
    let mut out = lines.join("\n");
    if trailing_newline && !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Whether the plugin is enabled.
pub fn is_enabled(text: &str) -> bool {
    matches!(edit(text, Want::Enabled), Ok(None))
}

/// `text` with the plugin enabled, or `None` when it already is.
pub fn enable(text: &str) -> Result<Option<String>, HermesEditError> {
    edit(text, Want::Enabled)
}

/// `text` without the plugin, or `None` when it was not there.
pub fn disable(text: &str) -> Result<Option<String>, HermesEditError> {
    edit(text, Want::Disabled)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Enabled,
    Disabled,
}

fn edit(text: &str, want: Want) -> Result<Option<String>, HermesEditError> {
    let lines: Vec<&str> = text.lines().collect();
    let newline = text.ends_with('\n');
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    let Some((start, end)) = section(&lines) else {
        if want == Want::Disabled {
            return Ok(None);
        }
        let mut text = text.trim_end_matches('\n').to_owned();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("plugins:\n  enabled:\n    - {PLUGIN}\n"));
        return Ok(Some(text));
    };
    let value = key_value(lines[start], 0, "plugins").unwrap_or_default();
    if !value.is_empty() {
        // `plugins: [a, b]`: the flat list, on one line.
        let items = flow_items(value).ok_or_else(|| unsupported("plugins"))?;
        return Ok(change_flow(items, want).map(|items| {
            out[start] = format!("plugins: {}", flow(&items));
            join(out, newline)
        }));
    }
    let body = &lines[start + 1..end];
    let child = body.iter().find(|l| content(l)).map(|l| indent(l));
    let enabled = child.and_then(|at| {
        body.iter().position(|l| key_value(l, at, "enabled").is_some()).map(|offset| (start + 1 + offset, at))
    });
    match (enabled, child) {
        (Some((at, key_indent)), _) => {
            let value = key_value(lines[at], key_indent, "enabled").unwrap_or_default();
            if !value.is_empty() {
                let items = flow_items(value).ok_or_else(|| unsupported("plugins.enabled"))?;
                return Ok(change_flow(items, want).map(|items| {
                    out[at] = format!("{}enabled: {}", " ".repeat(key_indent), flow(&items));
                    join(out, newline)
                }));
            }
            let list_end = (at + 1..end)
                .find(|&i| {
                    content(lines[i]) && !(indent(lines[i]) >= key_indent && list_item(lines[i]).is_some())
                })
                .unwrap_or(end);
            if !change_block(&mut out, at + 1, list_end, key_indent + 2, want) {
                return Ok(None);
            }
            if want == Want::Disabled && !(at + 1..list_end - 1).any(|i| list_item(&out[i]).is_some()) {
                let only_enabled = (start + 1..end - 1).all(|i| i == at || !content(&out[i]));
                if only_enabled {
                    // The section is what install added to a file without one: it goes whole.
                    out.drain(start..end - 1);
                } else {
                    out[at] = format!("{}enabled: []", " ".repeat(key_indent));
                }
            }
            Ok(Some(join(out, newline)))
        }
        // The older flat form: `plugins:` followed by `- name` items.
        (None, Some(at)) if body.iter().find(|l| content(l)).is_some_and(|l| list_item(l).is_some()) => {
            Ok(change_block(&mut out, start + 1, end, at, want).then(|| join(out, newline)))
        }
        (None, _) if want == Want::Disabled => Ok(None),
        (None, child) => {
            let at = child.unwrap_or(2);
            let lines = [format!("{}enabled:", " ".repeat(at)), format!("{}- {PLUGIN}", " ".repeat(at + 2))];
            out.splice(start + 1..start + 1, lines);
            Ok(Some(join(out, newline)))
        }
    }
}

fn unsupported(key: &str) -> HermesEditError {
    HermesEditError(format!(
        "`{key}` is written in a form herdr does not edit; add `{PLUGIN}` to it yourself"
    ))
}

fn change_flow(mut items: Vec<String>, want: Want) -> Option<Vec<String>> {
    let at = items.iter().position(|i| i == PLUGIN);
    match (want, at) {
        (Want::Enabled, Some(_)) | (Want::Disabled, None) => None,
        (Want::Enabled, None) => {
            items.insert(0, PLUGIN.to_owned());
            Some(items)
        }
        (Want::Disabled, Some(at)) => {
            items.remove(at);
            Some(items)
        }
    }
}

/// Adds or removes the plugin in the block list `out[from..to]`; new items go first, indented
/// like the list's first item (else `item_indent`). True if anything changed.
fn change_block(out: &mut Vec<String>, from: usize, to: usize, item_indent: usize, want: Want) -> bool {
    let ours = (from..to).find(|&i| list_item(&out[i]) == Some(PLUGIN));
    match (want, ours) {
        (Want::Enabled, Some(_)) | (Want::Disabled, None) => false,
        (Want::Enabled, None) => {
            let first = (from..to).find(|&i| list_item(&out[i]).is_some());
            let at = first.map_or(item_indent, |i| indent(&out[i]));
            out.insert(first.unwrap_or(from), format!("{}- {PLUGIN}", " ".repeat(at)));
            true
        }
        (Want::Disabled, Some(i)) => {
            out.remove(i);
            true
        }
    }
}

#[cfg(test)]
mod tests;
