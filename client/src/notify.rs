//! Desktop notifications the supervisor asks for ([`ServerToClient::Notify`]): OSC 9 written to
//! the client's own terminal (wrapped in tmux's DCS passthrough when the client runs inside
//! tmux, which otherwise swallows it), or the desktop notifier run as a detached child.
//!
//! Not here: deciding when to notify (the supervisor does), sounds.
//!
//! [`ServerToClient::Notify`]: herdr_protocol::client::ServerToClient::Notify

use std::process::{Command, Stdio};

/// The OSC 9 bytes for `title` and `body`, tmux-wrapped when `in_tmux`. Control characters are
/// dropped so the text cannot end the sequence early or inject another one.
pub(crate) fn osc9(title: &str, body: Option<&str>, in_tmux: bool) -> Vec<u8> {
    let clean = |s: &str| s.chars().filter(|c| !c.is_control()).collect::<String>();
    let text = match body.map(clean).filter(|b| !b.is_empty()) {
        Some(body) => format!("{}: {body}", clean(title)),
        None => clean(title),
    };
    let osc = format!("\x1b]9;{text}\x07");
    if in_tmux {
        // Inside the passthrough every ESC is doubled.
        format!("\x1bPtmux;{}\x1b\\", osc.replace('\x1b', "\x1b\x1b")).into_bytes()
    } else {
        osc.into_bytes()
    }
}

/// Hands the notification to the desktop's notifier without waiting for it; a missing notifier
/// is ignored (there is nowhere to report it while the terminal is in raw mode).
pub(crate) fn system(title: &str, body: Option<&str>) {
    let mut command = if cfg!(target_os = "macos") {
        let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let script = format!(
            "display notification \"{}\" with title \"{}\"",
            quote(body.unwrap_or_default()),
            quote(title)
        );
        let mut c = Command::new("osascript");
        c.arg("-e").arg(script);
        c
    } else {
        let mut c = Command::new("notify-send");
        c.arg("--app-name=herdr").arg(title);
        if let Some(body) = body {
            c.arg(body);
        }
        c
    };
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    if let Ok(mut child) = command.spawn() {
        // Reap it in the background so it does not linger as a zombie.
        std::thread::spawn(move || child.wait());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc9_carries_title_and_body() {
        assert_eq!(
            osc9("agent done", Some("w1 · claude"), false),
            b"\x1b]9;agent done: w1 \xc2\xb7 claude\x07"
        );
        assert_eq!(osc9("t", None, false), b"\x1b]9;t\x07");
    }

    #[test]
    fn control_characters_cannot_end_the_sequence() {
        assert_eq!(osc9("a\x07b\x1b]9;x", Some("\n"), false), b"\x1b]9;ab]9;x\x07");
    }

    #[test]
    fn inside_tmux_the_sequence_is_passed_through() {
        assert_eq!(osc9("t", None, true), b"\x1bPtmux;\x1b\x1b]9;t\x07\x1b\\");
    }
}
