//! The part of `~/.ssh/config` a `herdr --remote` target needs: the `Host` blocks that match an
//! alias and, from them, `HostName`, `User`, `Port` and `IdentityFile`, with OpenSSH's rules —
//! keywords are case-insensitive, `Keyword value` or `Keyword=value`, the first value obtained
//! for a keyword wins (so specific blocks go first), `IdentityFile` accumulates, patterns use
//! `*`, `?` and `!negation`. Lines before the first `Host` apply to every host. `Match` blocks
//! and `Include` are not evaluated (a `Match` block's options are skipped, never misapplied).
//! Pure: the caller reads the file.

/// What the config says about one host alias.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostConfig {
    pub host_name: Option<String>,
    pub user: Option<String>,
    pub port: Option<u16>,
    /// As written (`~` and `%` tokens are expanded by the caller, who knows HOME and the user).
    pub identity_files: Vec<String>,
}

/// Why a config line could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("ssh config line {line}: bad port {value:?}")]
    BadPort { line: usize, value: String },
}

/// The options of every block of `text` that matches `alias`, merged first-wins.
pub fn lookup(text: &str, alias: &str) -> Result<HostConfig, ConfigError> {
    let mut config = HostConfig::default();
    // Before the first Host line, options apply to everyone.
    let mut active = true;
    for (index, raw) in text.lines().enumerate() {
        let Some((keyword, value)) = split_line(raw) else { continue };
        match keyword.to_ascii_lowercase().as_str() {
            "host" => active = host_matches(&value, alias),
            "match" => active = false,
            "hostname" if active => {
                config.host_name.get_or_insert(value);
            }
            "user" if active => {
                config.user.get_or_insert(value);
            }
            "port" if active && config.port.is_none() => {
                let port = value.parse().map_err(|_| ConfigError::BadPort { line: index + 1, value })?;
                config.port = Some(port);
            }
            "identityfile" if active => config.identity_files.push(value),
            _ => {}
        }
    }
    Ok(config)
}

/// `Keyword value`, `Keyword=value` or `Keyword = "value"`; `None` for blanks and comments.
fn split_line(raw: &str) -> Option<(String, String)> {
    let line = raw.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let end = line.find(|c: char| c.is_whitespace() || c == '=').unwrap_or(line.len());
    let keyword = &line[..end];
    let rest = line[end..].trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim();
    let value = rest.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(rest);
    Some((keyword.to_owned(), value.to_owned()))
}

/// A `Host` line's pattern list against `alias`: some positive pattern matches and no negated
/// one does.
fn host_matches(patterns: &str, alias: &str) -> bool {
    let mut matched = false;
    for pattern in patterns.split_whitespace() {
        if let Some(negated) = pattern.strip_prefix('!') {
            if glob(negated, alias) {
                return false;
            }
        } else if glob(pattern, alias) {
            matched = true;
        }
    }
    matched
}

/// `*` any run, `?` one character; ASCII case-insensitive like OpenSSH's host matching.
fn glob(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.to_ascii_lowercase().chars().collect();
    let text: Vec<char> = text.to_ascii_lowercase().chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "\
# global defaults come first
IdentityFile ~/.ssh/global_key

Host build build.lan
    HostName 10.0.0.7
    User ci
    Port 2222
    IdentityFile ~/.ssh/build_ed25519

Host *.lan !secret.lan
    User lanuser
    Port=2200

Match host build
    User never

Host *
    User fallback
    IdentityFile = \"~/.ssh/id with space\"
";

    #[test]
    fn an_alias_takes_its_block_then_the_wildcards_first_value_winning() {
        let config = lookup(CONFIG, "build").expect("parse");
        assert_eq!(config.host_name.as_deref(), Some("10.0.0.7"));
        assert_eq!(config.user.as_deref(), Some("ci"));
        assert_eq!(config.port, Some(2222));
        assert_eq!(
            config.identity_files,
            ["~/.ssh/global_key", "~/.ssh/build_ed25519", "~/.ssh/id with space"]
        );
    }

    #[test]
    fn patterns_match_with_wildcards_and_negation() {
        let lan = lookup(CONFIG, "printer.LAN").expect("parse");
        assert_eq!((lan.user.as_deref(), lan.port, lan.host_name), (Some("lanuser"), Some(2200), None));
        let secret = lookup(CONFIG, "secret.lan").expect("parse");
        assert_eq!((secret.user.as_deref(), secret.port), (Some("fallback"), None));
    }

    #[test]
    fn match_blocks_are_never_applied() {
        let config = lookup("Match all\n  User nobody\nHost x\n  User real\n", "x").expect("parse");
        assert_eq!(config.user.as_deref(), Some("real"));
    }

    #[test]
    fn a_bad_port_names_its_line() {
        assert_eq!(
            lookup("Host a\n  Port ssh\n", "a"),
            Err(ConfigError::BadPort { line: 2, value: "ssh".into() })
        );
    }

    #[test]
    fn glob_handles_stars_and_question_marks() {
        assert!(glob("*", "anything"));
        assert!(glob("a*c", "abbbc"));
        assert!(glob("h?st", "host"));
        assert!(!glob("h?st", "hoost"));
        assert!(glob("*.example.*", "a.example.com"));
        assert!(!glob("a*c", "abcd"));
    }
}
