//! The host terminal's modes while attached: raw mode, the alternate screen, bracketed paste
//! and focus reporting on entry (mouse capture when the server says so), all undone on drop and
//! by a panic hook, so a crash never leaves the user's terminal in raw mode. The terminal's own
//! window title is pushed on its title stack on entry and popped on the way out, so a title set
//! through `client.window_title.set` never outlives the attach.

use std::io::{self, Write};
use std::sync::Once;

use crossterm::cursor::{SetCursorStyle, Show};
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste, EnableFocusChange,
    EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

/// The terminal set up for attaching; dropping it restores the terminal.
#[derive(Debug)]
pub(crate) struct HostTerminal(());

impl HostTerminal {
    pub(crate) fn enter() -> io::Result<HostTerminal> {
        install_panic_hook();
        enable_raw_mode()?;
        let guard = HostTerminal(());
        execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste, EnableFocusChange)?;
        io::stdout().write_all(PUSH_TITLE)?;
        Ok(guard)
    }

    /// Raw mode and the alternate screen only, for a direct terminal attach: its input goes to
    /// one pane byte for byte, so the terminal must not add paste brackets or focus reports the
    /// pane's program did not ask for.
    pub(crate) fn enter_plain() -> io::Result<HostTerminal> {
        install_panic_hook();
        enable_raw_mode()?;
        let guard = HostTerminal(());
        execute!(io::stdout(), EnterAlternateScreen)?;
        io::stdout().write_all(PUSH_TITLE)?;
        Ok(guard)
    }
}

impl Drop for HostTerminal {
    fn drop(&mut self) {
        restore();
    }
}

/// XTWINOPS: save the window title on the terminal's title stack (terminals without one
/// ignore it).
const PUSH_TITLE: &[u8] = b"\x1b[22;0t";
/// XTWINOPS: restore the title saved by [`PUSH_TITLE`].
const POP_TITLE: &[u8] = b"\x1b[23;0t";

/// The bytes that show `title` as the window title (OSC 2), or (`None`) bring back the title
/// the terminal had before attaching and save it again for the next change.
pub(crate) fn window_title(title: Option<&str>) -> Vec<u8> {
    match title {
        Some(title) => {
            let shown: String = title.chars().filter(|c| !c.is_control()).collect();
            format!("\x1b]2;{shown}\x1b\\").into_bytes()
        }
        None => [POP_TITLE, PUSH_TITLE].concat(),
    }
}

/// The bytes that turn mouse reporting (with SGR coordinates) on or off.
pub(crate) fn mouse_capture(enabled: bool) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = if enabled {
        crossterm::queue!(out, EnableMouseCapture)
    } else {
        crossterm::queue!(out, DisableMouseCapture)
    };
    out
}

/// Undoes everything [`HostTerminal::enter`] did. Errors are ignored: the terminal may be gone.
fn restore() {
    let mut out = io::stdout();
    let _ = out.write_all(POP_TITLE);
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableFocusChange,
        DisableBracketedPaste,
        SetCursorStyle::DefaultUserShape,
        Show,
        LeaveAlternateScreen
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_osc_2_without_control_characters_and_clearing_pops_the_saved_one() {
        assert_eq!(window_title(Some("build \x1b]0;x\x07ok")), b"\x1b]2;build ]0;xok\x1b\\");
        assert_eq!(window_title(None), b"\x1b[23;0t\x1b[22;0t");
    }
}
