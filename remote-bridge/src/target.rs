//! `herdr --remote TARGET`: the target forms upstream accepts (`host`, `user@host`,
//! `ssh://[user@]host[:port]`) and their resolution against `~/.ssh/config` into where to
//! connect, as whom, and with which keys. Pure: files and the environment come in as values.

use std::path::{Path, PathBuf};

use crate::ssh_config::{self, ConfigError, HostConfig};

/// The target as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The host part as typed: an alias to look up, or a host name or address.
    pub host: String,
    pub user: Option<String>,
    pub port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("empty ssh target")]
    Empty,
    #[error("bad ssh target {0:?}: expected host, user@host or ssh://user@host:port")]
    Malformed(String),
    #[error("bad port in ssh target {0:?}")]
    BadPort(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("no user name: the target names none, ~/.ssh/config neither, and $USER is unset")]
    NoUser,
}

impl Target {
    pub fn parse(raw: &str) -> Result<Target, TargetError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(TargetError::Empty);
        }
        if let Some(rest) = raw.strip_prefix("ssh://") {
            let rest = rest.strip_suffix('/').unwrap_or(rest);
            let (user, host_port) = split_user(rest, raw)?;
            let (host, port) = split_port(host_port, raw)?;
            return Ok(Target { host: host.to_owned(), user, port });
        }
        if raw.contains("://") || raw.contains('/') || raw.chars().any(char::is_whitespace) {
            return Err(TargetError::Malformed(raw.to_owned()));
        }
        let (user, host) = split_user(raw, raw)?;
        Ok(Target { host: host.to_owned(), user, port: None })
    }

    /// Resolves against the text of `~/.ssh/config` (empty when there is none). `home` and
    /// `local_user` expand `~`, `%d` and `%u` in identity files.
    pub fn resolve(
        &self,
        ssh_config: &str,
        home: &Path,
        local_user: Option<&str>,
    ) -> Result<Destination, TargetError> {
        let config: HostConfig = ssh_config::lookup(ssh_config, &self.host)?;
        let host_name = config
            .host_name
            .as_deref()
            .map_or_else(|| self.host.clone(), |h| h.replace("%h", &self.host).replace("%%", "%"));
        let user = self
            .user
            .clone()
            .or(config.user)
            .or_else(|| local_user.map(str::to_owned))
            .ok_or(TargetError::NoUser)?;
        let port = self.port.or(config.port).unwrap_or(22);
        let expand = |raw: &str| -> PathBuf {
            let mut out = String::new();
            let mut chars = raw.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, chars.peek().copied()) {
                    ('%', Some('d')) => out.push_str(&home.display().to_string()),
                    ('%', Some('u')) => out.push_str(local_user.unwrap_or_default()),
                    ('%', Some('r')) => out.push_str(&user),
                    ('%', Some('h')) => out.push_str(&host_name),
                    ('%', Some('%')) => out.push('%'),
                    _ => {
                        out.push(c);
                        continue;
                    }
                }
                chars.next();
            }
            match out.strip_prefix("~/") {
                Some(rest) => home.join(rest),
                None if out == "~" => home.to_path_buf(),
                None => PathBuf::from(out),
            }
        };
        let identity_files = config.identity_files.iter().map(|f| expand(f)).collect();
        Ok(Destination { alias: self.host.clone(), host: host_name, user, port, identity_files })
    }
}

/// Where to connect and how to authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// The host as the user typed it (for messages and the re-attach command).
    pub alias: String,
    /// The name or address to connect to (`HostName`, else the alias).
    pub host: String,
    pub user: String,
    pub port: u16,
    /// From the config, expanded; the default key files are added when connecting.
    pub identity_files: Vec<PathBuf>,
}

impl Destination {
    /// The host as `known_hosts` names it: `host`, or `[host]:port` off port 22.
    pub fn known_hosts_name(&self) -> String {
        if self.port == 22 { self.host.clone() } else { format!("[{}]:{}", self.host, self.port) }
    }
}

fn split_user<'a>(text: &'a str, raw: &str) -> Result<(Option<String>, &'a str), TargetError> {
    match text.rsplit_once('@') {
        Some((user, host)) if !user.is_empty() && !host.is_empty() => Ok((Some(user.to_owned()), host)),
        Some(_) => Err(TargetError::Malformed(raw.to_owned())),
        None if text.is_empty() => Err(TargetError::Malformed(raw.to_owned())),
        None => Ok((None, text)),
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_port<'a>(text: &'a str, raw: &str) -> Result<(&'a str, Option<u16>), TargetError> {
    let parse_port = |p: &str| {
        p.parse::<u16>().ok().filter(|&p| p != 0).ok_or_else(|| TargetError::BadPort(raw.to_owned()))
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(|| TargetError::Malformed(raw.to_owned()))?;
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(parse_port(port)?))),
                None => Err(TargetError::Malformed(raw.to_owned())),
            },
        };
    }
    match text.split_once(':') {
        Some((host, port)) if !host.is_empty() => Ok((host, Some(parse_port(port)?))),
        Some(_) => Err(TargetError::Malformed(raw.to_owned())),
        None if text.is_empty() => Err(TargetError::Malformed(raw.to_owned())),
        None => Ok((text, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(host: &str, user: Option<&str>, port: Option<u16>) -> Target {
        Target { host: host.into(), user: user.map(Into::into), port }
    }

    #[test]
    fn the_three_forms_parse() {
        assert_eq!(Target::parse("box"), Ok(target("box", None, None)));
        assert_eq!(Target::parse("me@box.example"), Ok(target("box.example", Some("me"), None)));
        assert_eq!(Target::parse("ssh://me@10.1.2.3:2222"), Ok(target("10.1.2.3", Some("me"), Some(2222))));
        assert_eq!(Target::parse("ssh://box/"), Ok(target("box", None, None)));
        assert_eq!(Target::parse("ssh://me@[::1]:2022"), Ok(target("::1", Some("me"), Some(2022))));
    }

    #[test]
    fn malformed_targets_are_refused() {
        assert_eq!(Target::parse(""), Err(TargetError::Empty));
        assert!(matches!(Target::parse("@box"), Err(TargetError::Malformed(_))));
        assert!(matches!(Target::parse("me@"), Err(TargetError::Malformed(_))));
        assert!(matches!(Target::parse("ssh://box:0"), Err(TargetError::BadPort(_))));
        assert!(matches!(Target::parse("ssh://box:http"), Err(TargetError::BadPort(_))));
        assert!(matches!(Target::parse("http://box"), Err(TargetError::Malformed(_))));
        assert!(matches!(Target::parse("a b"), Err(TargetError::Malformed(_))));
    }

    #[test]
    fn an_alias_resolves_through_the_config_and_typed_parts_win() {
        let config =
            "Host dev\n  HostName %h.example.net\n  User cfg\n  Port 2200\n  IdentityFile ~/.ssh/dev_%r\n";
        let home = Path::new("/home/me");
        let dest = Target::parse("dev").and_then(|t| t.resolve(config, home, Some("me"))).expect("resolve");
        assert_eq!(
            dest,
            Destination {
                alias: "dev".into(),
                host: "dev.example.net".into(),
                user: "cfg".into(),
                port: 2200,
                identity_files: vec![PathBuf::from("/home/me/.ssh/dev_cfg")],
            }
        );
        assert_eq!(dest.known_hosts_name(), "[dev.example.net]:2200");
        let typed = Target::parse("ssh://root@dev:22")
            .and_then(|t| t.resolve(config, home, Some("me")))
            .expect("resolve");
        assert_eq!((typed.user.as_str(), typed.port), ("root", 22));
        assert_eq!(typed.known_hosts_name(), "dev.example.net");
    }

    #[test]
    fn without_a_config_the_local_user_and_port_22_are_used() {
        let dest =
            Target::parse("plain").and_then(|t| t.resolve("", Path::new("/h"), Some("me"))).expect("resolve");
        assert_eq!((dest.host.as_str(), dest.user.as_str(), dest.port), ("plain", "me", 22));
        assert_eq!(
            Target::parse("plain").and_then(|t| t.resolve("", Path::new("/h"), None)),
            Err(TargetError::NoUser)
        );
    }
}
