//! Plugin ids and local ids (actions, panes, link handlers), as upstream's guide defines them.

/// The longest plugin id accepted.
pub const MAX_ID_LEN: usize = 120;

/// A plugin id: non-empty, at most [`MAX_ID_LEN`] characters of ASCII letters, digits, dot,
/// colon, underscore and hyphen. Surrounding whitespace is trimmed.
pub fn normalize_plugin_id(raw: &str) -> Option<String> {
    normalize(raw, |c| c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '_' | '-'))
}

/// A local id inside one plugin (action, pane entrypoint, link handler): like a plugin id but
/// without dots, since `plugin.id.action` qualifies it.
pub fn normalize_local_id(raw: &str) -> Option<String> {
    normalize(raw, |c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-'))
}

fn normalize(raw: &str, allowed: impl Fn(char) -> bool) -> Option<String> {
    let id = raw.trim();
    (!id.is_empty() && id.len() <= MAX_ID_LEN && id.chars().all(allowed)).then(|| id.to_owned())
}

/// `plugin.id.action`: the globally unique name of an action.
pub fn qualified_action_id(plugin_id: &str, action_id: &str) -> String {
    format!("{plugin_id}.{action_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_ids_allow_dots_and_local_ids_do_not() {
        assert_eq!(normalize_plugin_id(" example.layout ").as_deref(), Some("example.layout"));
        assert_eq!(normalize_plugin_id("a:b_c-d"), Some("a:b_c-d".to_owned()));
        assert_eq!(normalize_plugin_id(""), None);
        assert_eq!(normalize_plugin_id("has space"), None);
        assert_eq!(normalize_plugin_id(&"x".repeat(121)), None);
        assert_eq!(normalize_local_id("apply"), Some("apply".to_owned()));
        assert_eq!(normalize_local_id("a.b"), None);
        assert_eq!(qualified_action_id("example.layout", "apply"), "example.layout.apply");
    }
}
