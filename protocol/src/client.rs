//! The terminal client protocol on `herdr-client.sock`: a terminal client (`herdr`, or the
//! remote bridge) sends its raw input up and receives paints down.
//!
//! Transport: the same framing as [`crate::ipc`] (little-endian `u32` length + bincode standard
//! config; use [`crate::ipc::encode_frame`] and [`crate::ipc::FrameDecoder`]) and its frame size
//! limit ([`crate::ipc::MAX_FRAME_LEN`]).
//!
//! Conversation: the client's first frame is [`ClientToServer::Hello`]; the supervisor answers
//! [`ServerToClient::Welcome`]. A `Welcome` with an `error` (a version mismatch, anything refused)
//! is the last frame: the client prints the error and exits. After a good `Welcome` the client
//! streams input and resizes, and the supervisor streams paints, each a whole synchronized
//! update: [`ServerToClient::Frame`] for a client that asked for [`Encoding::CellDiff`], or
//! [`ServerToClient::Ansi`] (ready-to-write bytes) for [`Encoding::Ansi`]. Nothing is sent while
//! nothing changes. Either side may end the conversation by closing the socket; the supervisor
//! says why first with [`ServerToClient::Shutdown`].
//!
//! Keys are interpreted on the supervisor (prefix, bindings, modes), so `Input` carries the
//! terminal's bytes exactly as read: keys, SGR mouse reports, bracketed paste, focus in/out.
//!
//! The terminal itself (a local client): a client may send its `Hello` with a descriptor of its
//! terminal attached (`SCM_RIGHTS`, a fresh open of `/dev/tty`). A supervisor that takes it
//! answers [`ServerToClient::TerminalTaken`] right after `Welcome` (and `MouseCapture`); the
//! client then puts the terminal in raw mode on the alternate screen, says
//! [`ClientToServer::TerminalReady`], and from then on reads nothing from its terminal and is
//! sent no paints: the supervisor reads the keys and writes the paints (as [`FrameUpdate::to_ansi`]
//! bytes) itself, which takes the client's two hops out of every keystroke's echo, as tmux's
//! server does. Everything else (resizes, bells, the clipboard, notifications, window titles,
//! `Shutdown`) still goes over the socket, and the supervisor writes nothing more to the terminal
//! once it has sent `Shutdown`. A client whose connection ends without a `Shutdown` reads its
//! terminal again, and offers it with each reconnect's `Hello` (it stops reading it before it
//! answers `TerminalTaken`). A supervisor that predates this, or a client relayed through the
//! remote bridge (whose bytes carry no descriptor), just goes on as before: the client starts
//! reading its terminal at the first paint it is sent.
//!
//! Direct terminal attach (`herdr agent attach`, `herdr terminal attach`, `herdr terminal
//! session observe|control`): the first frame is [`ClientToServer::AttachTerminal`] instead of
//! `Hello`. The supervisor answers `Welcome` (with an `error` for an unknown target, or a pane
//! that already has a writable owner when `takeover` is off), then streams
//! [`ServerToClient::Terminal`] frames of that one pane, and ends with `Shutdown` (detached,
//! [`ShutdownReason::TakenOver`], [`ShutdownReason::PaneEnded`], the server stopping). A
//! controlling client's `Input` goes to the pane's program byte for byte (the attach's own
//! `ctrl+b` chord is the client's business) and its `Resize` resizes the pane; an observer's
//! input is ignored. These variants were appended without a version bump: every older message
//! keeps its encoding, and only a client that asks for an attach is ever sent the new ones (an
//! older supervisor answers such a first frame with its "must be Hello" refusal).

use serde::{Deserialize, Serialize};

use crate::grid::FrameUpdate;

/// Bumped whenever any type in this module (or in [`crate::grid`]) changes shape. Client and
/// supervisor must match exactly: there is no negotiation.
pub const CLIENT_PROTOCOL_VERSION: u32 = 3;

/// How the client wants paints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Encoding {
    /// Cell updates ([`ServerToClient::Frame`]): local clients, which encode them themselves.
    CellDiff,
    /// Ready-to-write terminal bytes ([`ServerToClient::Ansi`]): remote clients, which relay.
    Ansi,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientToServer {
    /// First frame. `cols` × `rows` is the client terminal's size.
    Hello { version: u32, cols: u16, rows: u16, encoding: Encoding },
    /// Raw bytes read from the terminal (at most [`MAX_INPUT_CHUNK`] per frame).
    Input(Vec<u8>),
    /// The client terminal was resized.
    Resize { cols: u16, rows: u16 },
    /// The client leaves on its own (the session keeps running).
    Detach,
    /// This client's own `[keys]` (normalised TOML, a `[keys]` table without custom
    /// commands): the supervisor builds this client's keymap from them instead of its config's
    /// `[keys]`. Sent right after `Hello` by `herdr --remote` with `--remote-keybindings local`
    /// (the default), never by a plain local client; appended last so every older message
    /// keeps its encoding and the version did not change.
    Keys(String),
    /// First frame of a direct terminal attach (instead of `Hello`): show just `target` (a
    /// terminal id, pane id or agent name, resolved as `agent.get` does) in a `cols` × `rows`
    /// terminal, as [`AttachRole`] says.
    AttachTerminal { version: u32, cols: u16, rows: u16, target: String, role: AttachRole },
    /// The client's terminal is in raw mode on the alternate screen: a supervisor that sent
    /// [`ServerToClient::TerminalTaken`] starts painting into it (see the module doc). Appended
    /// last, like `TerminalTaken`, so every older message keeps its encoding.
    TerminalReady,
}

/// What a direct terminal attach does with its pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttachRole {
    /// The one writable owner: types into the pane, which is sized to this client. With
    /// `takeover`, an existing owner is disconnected; without, one is a refusal.
    Control { takeover: bool },
    /// Read-only: frames at this client's size, no input, the pane's size untouched.
    Observe,
}

/// Largest `Input` payload a client sends in one frame; longer input is split.
pub const MAX_INPUT_CHUNK: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerToClient {
    /// The answer to `Hello`. With `error`, the supervisor refused and closes the connection.
    Welcome { version: u32, error: Option<String> },
    /// One paint as cell updates.
    Frame(FrameUpdate),
    /// One paint as terminal bytes (synchronized output included).
    Ansi(Vec<u8>),
    /// A pane rang its bell; the client rings the real terminal's.
    Bell,
    /// Turn the terminal's mouse reporting (SGR) on or off (`ui.mouse_capture`). Sent right
    /// after a good `Welcome`; clients start with it off.
    MouseCapture { enabled: bool },
    /// Show a desktop notification outside herdr (`ui.toast.delivery = "terminal"` or
    /// `"system"`): the client writes it to its terminal as OSC 9, or hands it to the desktop's
    /// notifier, because only the client runs where the user sits.
    Notify { title: String, body: Option<String>, via: NotifyVia },
    /// Put this text on the system clipboard: the client writes OSC 52 to its terminal (wrapped
    /// for tmux's passthrough only when tmux does not handle OSC 52 itself).
    Clipboard(String),
    /// The supervisor ends this client's connection (`reason` is for the user).
    Shutdown { reason: ShutdownReason },
    /// `client.window_title.*` for the foreground client: show this as the terminal's window
    /// title, or (`None`) give the terminal back the title it had. A last variant, so peers
    /// that predate it keep decoding every other message the same.
    WindowTitle(Option<String>),
    /// A direct terminal attach's paint of its pane (see the module doc).
    Terminal(TerminalFrame),
    /// The answer to a `Hello` that came with the client's terminal: the supervisor reads that
    /// terminal's input and writes its paints itself, once the client says
    /// [`ClientToServer::TerminalReady`] (see the module doc).
    TerminalTaken,
}

/// One paint of a direct terminal attach: ready-to-write terminal bytes (synchronized output
/// included) turning the previous frame into this one, or the whole screen when `full`.
/// Numbered from 1 per connection; `width` × `height` is the frame's size (the client's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalFrame {
    pub seq: u64,
    pub width: u16,
    pub height: u16,
    pub full: bool,
    pub bytes: Vec<u8>,
}

/// Where a [`ServerToClient::Notify`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotifyVia {
    /// OSC 9 to the client's terminal (Ghostty, iTerm2, WezTerm), wrapped for tmux when inside it.
    Terminal,
    /// The desktop's notifier (`notify-send` on Linux, `osascript` on macOS).
    System,
}

/// Why the supervisor closed a client connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShutdownReason {
    /// The user detached (`prefix+q`).
    Detached,
    /// The supervisor is stopping (`server.stop`, a signal).
    ServerStopping,
    /// The client broke the protocol; the text says how.
    ProtocolError(String),
    /// A direct terminal attach lost its pane to another client's `--takeover`.
    TakenOver,
    /// The pane a direct terminal attach showed ended (its terminal id).
    PaneEnded(String),
}

impl std::fmt::Display for ShutdownReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShutdownReason::Detached => f.write_str("detached"),
            ShutdownReason::ServerStopping => f.write_str("the herdr server is stopping"),
            ShutdownReason::ProtocolError(why) => write!(f, "protocol error: {why}"),
            ShutdownReason::TakenOver => f.write_str("terminal attach taken over"),
            ShutdownReason::PaneEnded(terminal) => write!(f, "terminal {terminal} exited"),
        }
    }
}

/// The `Welcome` error for a client of another protocol version.
pub fn version_mismatch_message(client: u32, server: u32) -> String {
    let advice = if client < server {
        "this herdr client is older than the running server; use the same herdr build, or restart the \
         server with `herdr server stop` (this ends its panes)"
    } else {
        "this herdr client is newer than the running server; restart the server with `herdr server stop` \
         (this ends its panes) and run `herdr` again"
    };
    format!(
        "herdr client protocol mismatch: client speaks version {client}, server speaks {server}; {advice}"
    )
}

/// What a supervisor answers a `Hello` with `version`: `Ok` to go on, or the refusal to send.
pub fn check_hello_version(version: u32) -> Result<ServerToClient, ServerToClient> {
    let welcome = |error| ServerToClient::Welcome { version: CLIENT_PROTOCOL_VERSION, error };
    if version == CLIENT_PROTOCOL_VERSION {
        Ok(welcome(None))
    } else {
        Err(welcome(Some(version_mismatch_message(version, CLIENT_PROTOCOL_VERSION))))
    }
}

#[cfg(test)]
mod tests;
