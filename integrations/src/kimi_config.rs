//! Pure edit of Kimi Code's `config.toml`: herdr's `[[hooks]]` tables live in one block between
//! two marker comments, appended at the end of the file. Install replaces the block, uninstall
//! removes it; nothing outside it is touched. The edit is textual so the user's comments and
//! layout survive, and it is checked: the edited file must parse, or the install is refused (a
//! top-level `hooks = [...]` of the user's own cannot take `[[hooks]]` tables beside it).

use crate::spec::kimi_events;

pub const BEGIN: &str = "# >>> herdr kimi integration";
pub const END: &str = "# <<< herdr kimi integration";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KimiEditError {
    /// The original text is not TOML.
    Invalid(String),
    /// The file would not parse with herdr's block in it.
    Unsafe(String),
}

/// A TOML basic string.
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// herdr's block for the hook script at `script`, markers included.
pub fn block(script: &str) -> String {
    let mut out = format!("{BEGIN}\n");
    for (event, matcher, action) in kimi_events() {
        out.push_str("[[hooks]]\n");
        out.push_str(&format!("event = {}\n", quoted(event)));
        if let Some(matcher) = matcher {
            out.push_str(&format!("matcher = {}\n", quoted(matcher)));
        }
        let command = crate::hook_config::command_line(script, action);
        out.push_str(&format!("command = {}\ntimeout = 10\n\n", quoted(&command)));
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// Whether `text` holds a herdr block (current or not).
pub fn has_block(text: &str) -> bool {
    text.lines().any(|line| line.trim() == BEGIN)
}

/// `text` without herdr's block (and without the blank lines install put before it).
pub fn without_block(text: &str) -> String {
    if !has_block(text) {
        return text.to_owned();
    }
    let mut kept = Vec::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        match line.trim() {
            t if t == BEGIN => inside = true,
            t if t == END && inside => inside = false,
            _ if inside => {}
            _ => kept.push(line),
        }
    }
    let mut out: String = kept.concat();
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.trim().is_empty() { String::new() } else { out }
}

/// `text` with herdr's current block at the end.
pub fn with_block(text: &str, script: &str) -> Result<String, KimiEditError> {
    text.parse::<toml::Table>().map_err(|e| KimiEditError::Invalid(e.message().to_owned()))?;
    let mut out = without_block(text);
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&block(script));
    out.parse::<toml::Table>().map_err(|e| {
        KimiEditError::Unsafe(format!("herdr's [[hooks]] tables would not fit in it: {}", e.message()))
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "/home/u/.kimi-code/hooks/herdr-agent-state.sh";

    #[test]
    fn the_block_is_appended_parses_and_names_every_event() {
        let text = "# mine\ndefault_model = \"k2\"\n\n[providers.x]\nkey = 1\n";
        let edited = with_block(text, SCRIPT).expect("edits");
        assert!(edited.starts_with(text), "the user's text is kept as it was");
        let doc: toml::Table = edited.parse().expect("TOML");
        let hooks = doc["hooks"].as_array().expect("[[hooks]]");
        assert_eq!(hooks.len(), kimi_events().len());
        assert_eq!(hooks[0]["event"].as_str(), Some("SessionStart"));
        assert_eq!(hooks[0]["command"].as_str(), Some(format!("'{SCRIPT}' session").as_str()));
        assert_eq!(hooks[3]["matcher"].as_str(), Some("^AskUserQuestion$"));
        assert_eq!(doc["providers"]["x"]["key"].as_integer(), Some(1));
    }

    #[test]
    fn installing_again_is_a_fixed_point_and_removal_restores_the_file() {
        let text = "a = 1\n";
        let once = with_block(text, SCRIPT).expect("edits");
        assert_eq!(with_block(&once, SCRIPT).expect("edits"), once);
        assert_eq!(without_block(&once), text);
        assert_eq!(without_block(&with_block("", SCRIPT).expect("edits")), "");
        let moved = with_block(&once, "/elsewhere/herdr-agent-state.sh").expect("edits");
        assert_eq!(moved.matches(BEGIN).count(), 1, "the old block is replaced");
    }

    #[test]
    fn configs_herdr_cannot_extend_are_refused() {
        assert!(matches!(with_block("hooks = []\n", SCRIPT), Err(KimiEditError::Unsafe(_))));
        assert!(matches!(with_block("[broken\n", SCRIPT), Err(KimiEditError::Invalid(_))));
    }
}
