//! Running one command on the remote host over an exec channel (blocking): its stdin fed from a
//! reader, its stdout and stderr collected, its exit status. Commands go through `sh -c` with
//! quoting, so a remote login shell that is not POSIX (fish, say) still runs them.

use std::io::{Read, Write};

use ssh2::Session;

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("cannot run `{command}` on the remote host: {source}")]
    Ssh { command: String, source: ssh2::Error },
    #[error("lost the remote command `{command}`: {source}")]
    Io { command: String, source: std::io::Error },
}

/// What a remote command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub fn success(&self) -> bool {
        self.status == 0
    }
}

/// `'text'` for sh, with embedded quotes closed, escaped and reopened.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Runs `script` with `sh -c`, writing `stdin` to it (then end of input).
pub fn run(session: &Session, script: &str, stdin: Option<&mut dyn Read>) -> Result<Output, ExecError> {
    let command = format!("exec sh -c {}", quote(script));
    let ssh = |source| ExecError::Ssh { command: script.to_owned(), source };
    let io = |source| ExecError::Io { command: script.to_owned(), source };
    let mut channel = session.channel_session().map_err(ssh)?;
    channel.exec(&command).map_err(ssh)?;
    if let Some(input) = stdin {
        // Large writes: libssh2 fills its window in one call instead of a round of calls per
        // 8 KiB, which is most of the time a copy of a 100 MB binary takes.
        let mut buf = vec![0u8; 1024 * 1024];
        loop {
            let n = input.read(&mut buf).map_err(io)?;
            if n == 0 {
                break;
            }
            channel.write_all(&buf[..n]).map_err(io)?;
        }
        channel.flush().map_err(io)?;
    }
    channel.send_eof().map_err(ssh)?;
    let mut stdout = Vec::new();
    channel.read_to_end(&mut stdout).map_err(io)?;
    let mut stderr = Vec::new();
    channel.stderr().read_to_end(&mut stderr).map_err(io)?;
    channel.wait_close().map_err(ssh)?;
    let status = channel.exit_status().map_err(ssh)?;
    Ok(Output {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(quote("plain"), "'plain'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
