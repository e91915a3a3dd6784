//! Which server a command talks to: the resolved session paths (`herdr_protocol::paths`) plus
//! the text that tells a user how to start that server.

use std::path::Path;

use herdr_protocol::paths::{self, PathEnv, PathError, SessionPaths, SocketSource};

/// The resolved target of one CLI invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub paths: SessionPaths,
    /// The raw `--session` value, if one was given (re-passed to a detached server).
    pub explicit_session: Option<String>,
}

impl Target {
    pub fn resolve(explicit_session: Option<&str>, env: &PathEnv) -> Result<Target, PathError> {
        let paths = paths::resolve(explicit_session, env)?;
        Ok(Target { paths, explicit_session: explicit_session.map(str::to_owned) })
    }

    pub fn api_socket(&self) -> &Path {
        &self.paths.api_socket
    }

    /// The session name for status output (`None` = default session).
    pub fn session_name(&self) -> Option<&str> {
        self.paths.session.as_ref().map(|s| s.as_str())
    }

    /// The command that starts (or attaches to) this target's server. Under a socket override
    /// the plain command already targets the overridden socket through the environment.
    pub fn start_command(&self) -> String {
        match (&self.paths.session, self.paths.source) {
            (Some(name), source) if source != SocketSource::SocketPathEnv => {
                format!("herdr --session {name}")
            }
            _ => "herdr".to_owned(),
        }
    }

    /// The `server_not_running` message.
    pub fn not_running_message(&self) -> String {
        format!(
            "no herdr server is running at {}; run `{}` to start or attach it",
            self.api_socket().display(),
            self.start_command()
        )
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn env(socket: Option<&str>, session: Option<&str>) -> PathEnv {
        PathEnv {
            home: Some(OsString::from("/h")),
            socket_path: socket.map(OsString::from),
            session: session.map(OsString::from),
            ..PathEnv::default()
        }
    }

    #[test]
    fn default_session_message() {
        let target = Target::resolve(None, &env(None, None)).expect("resolves");
        assert_eq!(
            target.not_running_message(),
            "no herdr server is running at /h/.config/herdr/herdr.sock; run `herdr` to start or attach it"
        );
    }

    #[test]
    fn named_session_message_names_the_session() {
        let target = Target::resolve(Some("work"), &env(None, None)).expect("resolves");
        assert_eq!(target.start_command(), "herdr --session work");
        let target = Target::resolve(None, &env(None, Some("s2"))).expect("resolves");
        assert_eq!(target.start_command(), "herdr --session s2");
    }

    #[test]
    fn socket_override_message_uses_plain_herdr() {
        let target = Target::resolve(None, &env(Some("/t/x.sock"), Some("s2"))).expect("resolves");
        assert_eq!(
            target.not_running_message(),
            "no herdr server is running at /t/x.sock; run `herdr` to start or attach it"
        );
    }
}
